"""A small LM Studio server for tests, speaking the websocket protocol of the official
``lmstudio`` SDK (see ../shared/MODEL-SERVERS.md): the HTTP greeting, one websocket per
namespace, authentication, ``rpcCall`` / ``rpcResult`` and channels (``getOrLoad``).
It serves embeddings; unknown models answer with LM Studio's not-found error code."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from websockets.datastructures import Headers
from websockets.http11 import Request, Response
from websockets.sync.server import ServerConnection, serve

from tests.fakes import vectors


@dataclass
class FakeLMStudioState:
    dim: int = 48
    models: set[str] = field(default_factory=lambda: {"text-embedding-nomic-embed-text-v1.5"})
    embed: Callable[[str, int], list[float]] = vectors.embed
    embedded: list[str] = field(default_factory=list)
    context_length: int = 4096
    llms: set[str] = field(default_factory=lambda: {"qwen2.5-7b-instruct"})
    chat_reply: str = "Hello from the fake LM Studio model."
    predictions: list[dict[str, Any]] = field(default_factory=list)


def _not_found(model: str) -> dict[str, Any]:
    return {
        "title": f"No model found that fits the query {model!r}",
        "cause": "not loaded",
        "suggestion": "load it",
        "displayData": {"code": "generic.noModelMatchingQuery"},
    }


def _model_info(key: str, state: FakeLMStudioState) -> dict[str, Any]:
    return {
        "identifier": key,
        "instanceReference": f"ref-{key}",
        "path": f"fake/{key}",
        "modelKey": key,
        "type": "embedding",
        "contextLength": state.context_length,
    }


def _llm_info(key: str, state: FakeLMStudioState) -> dict[str, Any]:
    return {
        "type": "llm",
        "modelKey": key,
        "format": "gguf",
        "displayName": key,
        "path": f"fake/{key}",
        "sizeBytes": 1,
        "identifier": key,
        "instanceReference": f"ref-{key}",
        "vision": False,
        "trainedForToolUse": False,
        "maxContextLength": state.context_length,
        "contextLength": state.context_length,
    }


def _key_of(spec: dict[str, Any]) -> str:
    if spec.get("type") == "query":
        return str(
            spec.get("query", {}).get("identifier") or spec.get("query", {}).get("modelKey") or ""
        )
    if spec.get("type") == "instanceReference":
        return str(spec.get("instanceReference", "")).removeprefix("ref-")
    return ""


class FakeLMStudio:
    """Start with ``with FakeLMStudio() as fake:``; ``fake.host`` is ``127.0.0.1:PORT``."""

    def __init__(self, state: FakeLMStudioState | None = None) -> None:
        self.state = state or FakeLMStudioState()
        self._server = serve(self._session, "127.0.0.1", 0, process_request=self._http)
        self.host = f"127.0.0.1:{self._server.socket.getsockname()[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> FakeLMStudio:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()

    @staticmethod
    def _http(connection: ServerConnection, request: Request) -> Response | None:
        if request.path == "/lmstudio-greeting":
            body = json.dumps({"lmstudio": True}).encode()
            return Response(
                HTTPStatus.OK,
                "OK",
                Headers([("Content-Type", "application/json"), ("Content-Length", str(len(body)))]),
                body,
            )
        return None

    def _session(self, ws: ServerConnection) -> None:
        auth = json.loads(ws.recv())
        if auth.get("authVersion") != 1 or "clientIdentifier" not in auth:
            ws.send(json.dumps({"success": False, "error": {"title": "bad auth"}}))
            return
        ws.send(json.dumps({"success": True}))
        for raw in ws:
            message = json.loads(raw)
            kind = message.get("type")
            if kind == "rpcCall":
                ws.send(json.dumps(self._rpc(message)))
            elif kind == "channelCreate":
                for reply in self._channel(message):
                    ws.send(json.dumps(reply))

    def _rpc(self, message: dict[str, Any]) -> dict[str, Any]:
        call_id = message["callId"]
        endpoint = message["endpoint"]
        param = message.get("parameter") or {}
        state = self.state
        if endpoint == "embedString":
            key = _key_of(param.get("modelSpecifier", {}))
            if key not in state.models:
                return {"type": "rpcError", "callId": call_id, "error": _not_found(key)}
            state.embedded.append(param["inputString"])
            return {
                "type": "rpcResult",
                "callId": call_id,
                "result": {"embedding": state.embed(param["inputString"], state.dim)},
            }
        if endpoint == "getModelInfo":
            key = _key_of(param.get("specifier", {}))
            info = _llm_info(key, state) if key in state.llms else _model_info(key, state)
            return {"type": "rpcResult", "callId": call_id, "result": info}
        if endpoint == "listLoaded":
            return {
                "type": "rpcResult",
                "callId": call_id,
                "result": [_model_info(k, state) for k in sorted(state.models)],
            }
        return {
            "type": "rpcError",
            "callId": call_id,
            "error": {"title": f"unknown endpoint {endpoint}"},
        }

    def _channel(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        channel = message["channelId"]
        state = self.state
        if message["endpoint"] == "getOrLoad":
            key = message.get("creationParameter", {}).get("identifier", "")
            if key not in state.models | state.llms:
                return [{"type": "channelError", "channelId": channel, "error": _not_found(key)}]
            info = _llm_info(key, state) if key in state.llms else _model_info(key, state)
            return [
                {
                    "type": "channelSend",
                    "channelId": channel,
                    "message": {"type": "alreadyLoaded", "info": info},
                },
                {"type": "channelClose", "channelId": channel},
            ]
        if message["endpoint"] == "predict":
            param = message.get("creationParameter", {})
            key = _key_of(param.get("modelSpecifier", {}))
            state.predictions.append(param)
            words = state.chat_reply.split(" ")
            replies: list[dict[str, Any]] = [
                {
                    "type": "channelSend",
                    "channelId": channel,
                    "message": {
                        "type": "fragment",
                        "fragment": {
                            "content": word + (" " if i < len(words) - 1 else ""),
                            "tokensCount": 1,
                            "containsDrafted": False,
                            "reasoningType": "none",
                        },
                    },
                }
                for i, word in enumerate(words)
            ]
            replies.append(
                {
                    "type": "channelSend",
                    "channelId": channel,
                    "message": {
                        "type": "success",
                        "stats": {"stopReason": "eosFound"},
                        "modelInfo": _llm_info(key, state),
                        "loadModelConfig": {"fields": []},
                        "predictionConfig": {"fields": []},
                    },
                }
            )
            replies.append({"type": "channelClose", "channelId": channel})
            return replies
        return [
            {
                "type": "channelError",
                "channelId": channel,
                "error": {"title": f"unknown channel endpoint {message['endpoint']}"},
            }
        ]
