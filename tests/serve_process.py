"""`aria-mem serve` in a child process, as a person starts it, for the tests of the
OpenAI-compatible endpoint and of the models it can stand in front of."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.adapters.qdrant_edge import EdgeIndex
from aria_mem.api import AriaMem
from aria_mem.config import Settings

PROFILE_FACT = "The user is allergic to peanuts."


@contextmanager
def serving_sam(env: dict[str, str], settings: Settings, dsn: str, index: Path) -> Iterator[str]:
    """Store a profile fact of user sam (with ``settings`` on ``dsn`` and an Edge index in
    ``index``), start `aria-mem serve --user sam` with ``env`` and yield its base URL; on the
    way out stop it with SIGTERM, and it must have ended cleanly (exit 0, no traceback)."""
    store, edge = PostgresStore(dsn), EdgeIndex(index)
    with AriaMem(settings, store=store, index=edge) as mem:
        mem.remember(PROFILE_FACT, memory_type="ProfileFact", importance=0.9, user="sam")
    edge.close()
    store.close()
    serving = subprocess.Popen(
        [sys.executable, "-m", "aria_mem", "serve", "--address", "127.0.0.1:0", "--user", "sam"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert serving.stderr is not None
        said = ""
        while "endpoint at " not in said:
            said = serving.stderr.readline()
            assert said, "the command ended before it served"
        yield said.split("endpoint at ")[1].split()[0]
    finally:
        serving.send_signal(signal.SIGTERM)
        _, rest = serving.communicate(timeout=60)
    assert serving.returncode == 0, rest
    assert "Traceback" not in rest
