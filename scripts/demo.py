"""`make demo`: aria-mem on the embedded defaults, as a new user would run it.

Uses a throw-away home (./.demo, or $ARIA_MEM_HOME) so it never touches your own memories.
The embedding model is whatever answers first: Ollama, LM Studio, else the in-process
all-MiniLM-L6-v2 model that `make install` brings.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARIA = [sys.executable, "-m", "aria_mem"]


def run(*args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    print(f"\n$ aria-mem {shlex.join(args)}", flush=True)
    done = subprocess.run([*ARIA, *args], cwd=ROOT, text=True)
    if check and done.returncode != 0:
        sys.exit(f"demo: `aria-mem {shlex.join(args)}` failed with exit code {done.returncode}")
    return done


def main() -> None:
    os.environ.setdefault("ARIA_MEM_HOME", str(ROOT / ".demo"))
    os.environ.setdefault("COLUMNS", "110")
    print(f"aria-mem demo — data in {os.environ['ARIA_MEM_HOME']} (delete it to start over)")
    run("init")
    run("import", str(ROOT / "scripts" / "demo_memories.jsonl"))
    run(
        "remember",
        "The user's sister is getting married in June.",
        "--type",
        "EpisodicEvent",
        "--importance",
        "0.7",
        "--emotion",
        "0.6",
        "--reason",
        "Shared with excitement.",
    )
    run("remember", "The user's sister is getting married in June.")
    run("list")
    run(
        "search",
        "I need to find a gift",
        "--previous",
        "My sister is getting married in June",
        "--explain",
    )
    run("search", "Any ideas for dinner tonight?", "--prompt")
    run("status")
    print("\nDone. Try: ARIA_MEM_HOME=.demo .venv/bin/aria-mem --help")


if __name__ == "__main__":
    main()
