"""Another process on the embedded index, for the multi-process tests.

    python -m tests.fakes.index_child ROOT USER COUNT [hold] [serve] [model] [older|newer]

With ``serve`` this process runs the aria-mem service of ROOT itself (as the daemon does),
lending the bundled in-process model with ``model`` (else it has none); without, it is a
client, which starts the service in the background when none runs. Upserts COUNT points for
USER (into a 16-dimensional collection; none when COUNT is 0), prints ``service=<bool>
pid=<service pid>`` and, with ``hold``, keeps running until its stdin closes. With ``older`` or
``newer`` the service says it speaks the protocol before or after this one."""

from __future__ import annotations

import sys
from pathlib import Path

from aria_mem.adapters.model_shelf import LocalModel, ModelShelf
from aria_mem.adapters.service.server import IndexService
from aria_mem.adapters.service.shared_index import SharedEdgeIndex
from aria_mem.errors import EmbedderError
from tests.test_index_contract import point


def _no_model(name: str) -> LocalModel:
    raise EmbedderError(f"this test service runs no model ({name!r} asked)")


def main() -> None:
    root, user, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    flags = set(sys.argv[4:])
    service = None
    if "serve" in flags:
        shelf = ModelShelf() if "model" in flags else ModelShelf(_no_model)
        service = IndexService.take(root, started="test", shelf=shelf)
        if service is None:
            raise SystemExit(f"another process runs the service of {root}")
        service.protocol += ("newer" in flags) - ("older" in flags)
    index = SharedEdgeIndex(root)
    if count:
        index.ensure_collection("memories", 16)
    for start in range(0, count, 20):
        index.upsert(
            "memories",
            [point(f"{user} fact {i}", user=user) for i in range(start, min(count, start + 20))],
        )
    print(f"service={index.in_service} pid={index.owner().pid}", flush=True)
    if "hold" in flags:
        sys.stdin.read()
    index.close()
    if service is not None:
        service.close()


if __name__ == "__main__":
    main()
