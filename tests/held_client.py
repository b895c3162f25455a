"""A long-lived API client for tests, run as its own process (``python -m tests.held_client
FOLDER``): it opens ``AriaMem`` once, as a chat or companion app does, and holds it.

It remembers a new memory after another (``$HELD_CLIENT_PAUSE`` seconds apart, default
0.02) until the file ``FOLDER/stop`` appears, printing a
JSON line per memory it was told was saved (id, text, indexed, the model it holds). Then it
waits for ``FOLDER/search`` and searches each of its memories by its own text with the same
``AriaMem``, printing a JSON line per search, and a last line with the model it ends with."""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from aria_mem import AriaMem


def _say(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


def text_of(n: int) -> str:
    """Words no other memory has, so no two are merged and each is found by its own text."""
    return f"held note {n} kx{n}alpha qz{n}beta wv{n}gamma"


def main(folder: Path) -> int:
    written: list[tuple[str, str]] = []
    with AriaMem.open() as mem:
        _say(event="open", model=mem.settings.embedder.effective_model)
        n = 0
        while not (folder / "stop").exists():
            result = mem.remember(text_of(n), merge=False)
            written.append((str(result.memory.id), result.memory.text))
            _say(
                event="remembered",
                id=str(result.memory.id),
                text=result.memory.text,
                indexed=result.indexed,
                problem=result.problem,
                model=mem.settings.embedder.effective_model,
            )
            n += 1
            time.sleep(float(os.environ.get("HELD_CLIENT_PAUSE", "0.02")))
        while not (folder / "search").exists():
            time.sleep(0.05)
        for memory_id, text in written:
            found = mem.search(text)
            evidence = {str(k): v for k, v in found.evidence.items()}.get(memory_id)
            _say(
                event="searched",
                id=memory_id,
                model=found.model,
                similarity=None if evidence is None else evidence.similarity,
                degraded=list(found.degraded),
            )
        _say(event="done", model=mem.settings.embedder.effective_model)
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
