"""A Qdrant server's collection and payload-index endpoints, over real HTTP on a real socket.

No Qdrant server can be run here, and qdrant-client's local mode keeps no payload indexes (its
collection info reports none), so what the adapter asks a server for is checked here: the
official client sends its real requests, this answers as Qdrant does and records each payload
index request as sent. Only what ``QdrantServerIndex.ensure_collection`` uses is spoken.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any

from qdrant_client import QdrantClient, models


@dataclass
class FakeQdrantState:
    sizes: dict[str, int] = field(default_factory=dict)
    schemas: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per collection, each field's payload index as Qdrant reports it (data_type, params)."""
    index_requests: list[dict[str, Any]] = field(default_factory=list)
    """Every PUT .../index body, in order."""


def _info(size: int, schema: dict[str, Any]) -> dict[str, Any]:
    """A collection's info as a server sends it: the shape local mode builds, with the
    payload schema the server keeps."""
    local = QdrantClient(location=":memory:")
    local.create_collection(
        "c",
        vectors_config={"dense": models.VectorParams(size=size, distance=models.Distance.COSINE)},
    )
    info: dict[str, Any] = json.loads(local.get_collection("c").model_dump_json())
    local.close()
    info["payload_schema"] = schema
    return info


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, body: Any, status: int = 200) -> None:
        data = json.dumps({"result": body, "status": "ok", "time": 0.0}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _body(self) -> dict[str, Any]:
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")  # type: ignore[no-any-return]

    def do_GET(self) -> None:
        state = self.server.state
        path = self.path.split("?")[0]
        if m := re.fullmatch(r"/collections/([^/]+)/exists", path):
            self._send({"exists": m[1] in state.sizes})
        elif (m := re.fullmatch(r"/collections/([^/]+)", path)) and m[1] in state.sizes:
            self._send(_info(state.sizes[m[1]], state.schemas[m[1]]))
        else:
            self._send({"error": f"Not found: {path}"}, 404)

    def do_PUT(self) -> None:
        state = self.server.state
        path = self.path.split("?")[0]
        body = self._body()
        if m := re.fullmatch(r"/collections/([^/]+)/index", path):
            state.index_requests.append(body)
            schema = body["field_schema"]
            kind = schema if isinstance(schema, str) else schema["type"]
            params = None if isinstance(schema, str) else schema
            state.schemas[m[1]][body["field_name"]] = {
                "data_type": kind,
                "params": params,
                "points": 0,
            }
            self._send({"operation_id": len(state.index_requests), "status": "completed"})
        elif m := re.fullmatch(r"/collections/([^/]+)", path):
            state.sizes[m[1]] = int(body["vectors"]["dense"]["size"])
            state.schemas[m[1]] = {}
            self._send(True)
        else:
            self._send({"error": f"Not found: {path}"}, 404)


class _Server(ThreadingHTTPServer):
    state: FakeQdrantState


class FakeQdrant:
    def __init__(self, state: FakeQdrantState | None = None) -> None:
        self.state = state or FakeQdrantState()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.state = self.state
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def __enter__(self) -> FakeQdrant:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
