"""A second process that uses the shared Edge index, for the two-process tests.

    python -m tests.fakes.index_child ROOT USER COUNT [hold] [model] [older|newer]

Upserts COUNT points for USER (into a 16-dimensional collection; none when COUNT is
0), prints ``owner=<bool> pid=<owner pid>`` and, with ``hold``,
keeps running (owning or using the index) until its stdin closes. With ``model`` it lends the
bundled in-process embedding model to its clients, as an aria-mem owner does. With ``older``
it serves the index as aria-mem did before the ``hello`` that opens each connection (it
answers hello as an unknown operation); with ``newer`` it says it speaks a later protocol."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from aria_mem.adapters import index_serving
from aria_mem.adapters.index_sharing import SharedEdgeIndex
from aria_mem.errors import VectorIndexError
from tests.test_index_contract import point


def main() -> None:
    root, user, count = Path(sys.argv[1]), sys.argv[2], int(sys.argv[3])
    hold = "hold" in sys.argv[4:]
    if "older" in sys.argv[4:]:
        current = index_serving._dispatch

        def before_hello(server: index_serving.Server, request: dict[str, Any]) -> Any:
            if request.get("op") == "hello":
                raise VectorIndexError("unknown index operation 'hello'")
            return current(server, request)

        index_serving._dispatch = before_hello
    if "newer" in sys.argv[4:]:
        index_serving.PROTOCOL += 1
    model = None
    if "model" in sys.argv[4:]:
        from aria_mem.adapters.embedders.local_model import SentenceTransformerEmbedder

        model = SentenceTransformerEmbedder()
    index = SharedEdgeIndex(root, model=model)
    if count:
        index.ensure_collection("memories", 16)
    for start in range(0, count, 20):
        index.upsert(
            "memories",
            [point(f"{user} fact {i}", user=user) for i in range(start, min(count, start + 20))],
        )
    owner_pid = index.owner_pid()
    print(f"owner={index.is_owner} pid={owner_pid}", flush=True)
    if hold:
        sys.stdin.read()
    index.close()


if __name__ == "__main__":
    main()
