"""The HTTP MCP server's bearer token: its file is the owner's alone (made 0600 whatever the
umask, a widened one narrowed, a link or another account's file refused, never written
through), and the ASGI gate lets through only a request that shows it, driven by httpx's
real ASGI transport."""

from __future__ import annotations

import json
import os
import socket
import stat
from collections.abc import Callable
from pathlib import Path

import anyio
import httpx
import pytest

from aria_mem.errors import ConfigError, UsageError
from aria_mem.mcp_guard import BearerGate, Message, Receive, Scope, Send, load_token, rotate_token
from aria_mem.openai_server import serving as openai_serving
from aria_mem.web import serve as web_serve
from tests.conftest import CliResult


def test_the_token_is_made_once_and_kept_private_whatever_the_umask(tmp_path: Path) -> None:
    path = tmp_path / "config" / "mcp-token"
    old = os.umask(0)
    try:
        token = load_token(path)
    finally:
        os.umask(old)
    assert len(token) >= 32 and load_token(path) == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["mcp-token"]  # no temporary left

    path.chmod(0o644)  # widened by mistake: narrowed, and refused until rotated
    with pytest.raises(ConfigError, match="was open to other accounts.*--rotate-token"):
        load_token(path)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.chmod(0o400)  # narrower than needed: fine, and made 0600
    assert load_token(path) == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600

    assert rotate_token(path) == path
    assert load_token(path) != token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_a_linked_token_file_is_refused_and_rotation_replaces_the_link(tmp_path: Path) -> None:
    path = tmp_path / "mcp-token"
    planted = tmp_path / "planted"
    planted.write_text("A" * 43)  # a token someone else chose and knows
    path.symlink_to(planted)
    with pytest.raises(ConfigError, match="symbolic link.*--rotate-token"):
        load_token(path)
    rotate_token(path)
    assert not path.is_symlink() and planted.read_text() == "A" * 43
    assert load_token(path) != "A" * 43


def test_a_token_file_that_holds_no_token_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mcp-token"
    path.write_text("short\n")
    path.chmod(0o600)
    with pytest.raises(ConfigError, match="does not hold a token"):
        load_token(path)


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another account needs root")
def test_a_token_file_of_another_account_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mcp-token"
    path.write_text("B" * 43)
    path.chmod(0o600)
    os.chown(path, 65534, 65534)
    with pytest.raises(ConfigError, match="belongs to another account"):
        load_token(path)
    rotate_token(path)
    assert path.stat().st_uid == os.geteuid() and load_token(path) != "B" * 43


def test_print_config_refuses_a_linked_token_and_prints_nothing(
    cli: Callable[..., CliResult], isolated_env: Path, tmp_path: Path
) -> None:
    isolated_env.mkdir(parents=True, exist_ok=True)
    planted = tmp_path / "planted"
    planted.write_text("C" * 43)
    (isolated_env / "mcp-token").symlink_to(planted)
    refused = cli("mcp", "--print-config")
    assert refused.code == 2 and "symbolic link" in refused.stderr
    assert refused.stdout == "" and "C" * 43 not in refused.stderr
    assert cli("mcp", "--rotate-token").code == 0
    printed = cli("mcp", "--print-config")
    entry = json.loads(printed.stdout)["mcpServers"]["aria-mem"]
    token = (isolated_env / "mcp-token").read_text().strip()
    assert entry == {
        "url": "http://127.0.0.1:8765/mcp",
        "headers": {"Authorization": f"Bearer {token}"},
    }


TOKEN = "t" * 43


async def _app(scope: Scope, receive: Receive, send: Send) -> None:
    """What the gate guards: answers 200 and says what kind of event reached it."""
    if scope["type"] == "lifespan":
        message: Message = await receive()
        await send({"type": f"{message['type']}.complete"})
        return
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"memories"})


def _ask(*headers: tuple[str, str]) -> httpx.Response:
    async def main() -> httpx.Response:
        transport = httpx.ASGITransport(app=BearerGate(_app, TOKEN))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as http:
            raw = [(k.encode(), v.encode("latin-1")) for k, v in headers]  # bytes, as sent
            return await http.post("/mcp", headers=raw, json={})

    return anyio.run(main)


def test_the_gate_passes_the_token_and_nothing_else() -> None:
    assert _ask(("Authorization", f"Bearer {TOKEN}")).text == "memories"
    assert _ask(("Authorization", f"bearer  {TOKEN} ")).status_code == 200  # scheme any case
    for headers in (
        (),
        (("Authorization", "Bearer "),),
        (("Authorization", f"Bearer {TOKEN[:-1]}"),),
        (("Authorization", f"Bearer {TOKEN}x"),),
        (("Authorization", f"Basic {TOKEN}"),),
        (("Authorization", TOKEN),),
        (("Authorization", f"Bearer {TOKEN}"), ("Authorization", "Bearer other")),
        (("Authorization", "Bearer \u00e9t\u00e9"),),
    ):
        refused = _ask(*headers)
        assert refused.status_code == 401, headers
        assert refused.headers["www-authenticate"] == 'Bearer realm="aria-mem"'
        assert "memories" not in refused.text and refused.json()["error"] == "unauthorized"


def test_the_gate_lets_the_lifespan_through() -> None:
    sent: list[Message] = []

    async def main() -> None:
        events = iter([{"type": "lifespan.startup"}])

        async def receive() -> Message:
            return next(events)

        async def send(message: Message) -> None:
            sent.append(message)

        await BearerGate(_app, TOKEN)({"type": "lifespan"}, receive, send)

    anyio.run(main)
    assert sent == [{"type": "lifespan.startup.complete"}]


@pytest.mark.parametrize(("option", "flag"), [("http", "--http"), ("mcp_http", "--mcp-http")])
def test_a_bad_address_names_its_argument_and_each_command_shows_its_own_flag(
    option: str, flag: str
) -> None:
    from aria_mem.cli.app import with_flag
    from aria_mem.errors import UsageError
    from aria_mem.mcp_guard import parse_address

    with pytest.raises(UsageError) as bad:
        parse_address("nowhere", allow_remote=False, option=option)
    assert bad.value.option == option and "--" not in str(bad.value)
    assert with_flag(bad.value).endswith(f"got 'nowhere' ({flag})")
    with pytest.raises(UsageError) as remote:
        parse_address("0.0.0.0:8765", allow_remote=False, option=option)
    assert "--" not in str(remote.value)
    assert with_flag(remote.value).endswith("(--allow-remote)")
    assert parse_address("[::1]:0", allow_remote=False, free_port=True) == ("::1", 0)


def test_a_port_in_use_is_one_usage_error_naming_the_address_for_both_servers() -> None:
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        held.listen()
        port = held.getsockname()[1]
        for bind in (web_serve.bind, openai_serving.bind):
            with pytest.raises(UsageError, match=f"Cannot listen on 127.0.0.1:{port}") as raised:
                bind("127.0.0.1", port)
            assert raised.value.option == "address"
    bound = web_serve.bind("localhost", 0)  # localhost is 127.0.0.1, a free port taken
    assert bound.host == "127.0.0.1" and bound.port > 0
    assert not bound.sock.get_inheritable()
    bound.sock.close()
