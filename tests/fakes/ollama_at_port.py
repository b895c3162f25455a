"""The fake Ollama on a port of the test's choosing, so a test can stop it and start it again
where its clients look for it (a model server that goes down and comes back)."""

from __future__ import annotations

import threading
from http.server import ThreadingHTTPServer

from tests.fakes.ollama_server import FakeOllama, FakeOllamaState, _Handler, _Server


class _ServerAt(_Server):
    def __init__(self, state: FakeOllamaState, port: int) -> None:
        self.state = state
        ThreadingHTTPServer.__init__(self, ("127.0.0.1", port), _Handler)


class FakeOllamaAt(FakeOllama):
    """``FakeOllamaAt(port)``: as ``FakeOllama``, listening on ``port``."""

    def __init__(self, port: int, state: FakeOllamaState | None = None) -> None:
        super().__init__(state)
        self._server.server_close()  # the one on a free port is not wanted
        self._server = _ServerAt(self.state, port)
        self.url = f"http://127.0.0.1:{port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
