"""The README's "Use from Python" loop runs as written, in a fresh interpreter, on the
embedded defaults, with Ollama played by the fake server (embeddings, chat and extraction)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from aria_mem.adapters.postgres import embedded
from tests.conftest import ROOT
from tests.fakes.ollama_server import FakeOllama

README = ROOT / "README.md"


def _example() -> str:
    text = README.read_text()
    section = text.split("## Use from Python", 1)[1]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None, "the README lost its Python example"
    return found.group(1)


@pytest.fixture
def home(isolated_env: Path) -> Iterator[Path]:
    yield isolated_env
    embedded.stop(isolated_env / "data" / "postgres")


def test_the_companion_loop_in_the_readme_runs_as_written(
    home: Path, fake_ollama: FakeOllama
) -> None:
    fake_ollama.state.chat_reply = "How lovely! Congratulations to your sister."
    fake_ollama.state.structured_reply = json.dumps(
        {
            "facts": [
                {
                    "type": "RelationshipFact",
                    "text": "The user's sister is getting married in June.",
                    "importance": 0.7,
                    "emotional_significance": 0.6,
                    "confidence": 0.9,
                    "reason": "family event",
                    "sensitive": False,
                }
            ]
        }
    )
    env = {
        **os.environ,
        "ARIA_MEM_HOME": str(home),
        "ARIA_MEM_EMBEDDER_HOST": fake_ollama.url,
        "ARIA_MEM_CHAT_HOST": fake_ollama.url,
        "OLLAMA_HOST": fake_ollama.url,
    }
    done = subprocess.run(
        [sys.executable, "-c", _example()],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "remembered: The user's sister is getting married in June." in lines
    assert sum(line.startswith("Aria: How lovely!") for line in lines) == 2
    dinner = [r for r in fake_ollama.state.chat_requests if not r.get("format")][-1]
    system = dinner["messages"][0]["content"]
    assert "USER PROFILE DATA" in system and "allergic to peanuts" in system
    with psycopg.connect(embedded.ensure_running(home / "data" / "postgres")) as conn:
        rows: dict[str, int] = dict(conn.execute("SELECT text, use_count FROM memories").fetchall())
    assert rows["The user is allergic to peanuts."] == 2  # in both replies' prompts
    assert "The user's sister is getting married in June." in rows
