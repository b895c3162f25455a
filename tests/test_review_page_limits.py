"""The review page's limits on waiting connections (aria_mem/http_limits.py): who a client
is on loopback, and which connection gives way. The page itself under forty slow clients is
tested in a browser run, tests/test_review_page.py."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

import pytest

pytest.importorskip("uvicorn", reason="the review page's libraries: pip install 'aria-mem[ui]'")

from aria_mem.http_limits import Waiting, account_of, client_of, diag_request, diag_uid
from tests.accounts import Intruder

CONNECT = """
import socket, sys
one = socket.create_connection(
    (sys.argv[2] if len(sys.argv) > 2 else "127.0.0.1", int(sys.argv[1])),
    timeout=30,
    source_address=(sys.argv[3], 0) if len(sys.argv) > 3 else None,
)
one.recv(1)
"""


def _as_intruder(intruder: Intruder, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [intruder.python, "-c", CONNECT, *args],
        user=intruder.uid,
        group=intruder.gid,
        extra_groups=[],
        cwd="/",
        env={"PATH": "/usr/bin:/bin"},
    )


def test_a_client_gives_way_to_its_own_newest_connection_first() -> None:
    waiting: Waiting[str] = Waiting(per_client=2, total=3)
    assert waiting.add("a1", "a") == [] and waiting.add("a2", "a") == []
    assert waiting.add("a3", "a") == ["a1"]  # a's oldest, not someone else's
    assert waiting.add("b1", "b") == []
    assert waiting.add("c1", "c") == ["a2"]  # past the total: everyone's oldest
    waiting.done("a3")
    assert waiting.add("d1", "d") == [] and len(waiting) == 3


def test_the_kernel_is_asked_about_one_socket_and_its_answer_read() -> None:
    asked = diag_request(socket.AF_INET, ("127.0.0.1", 0xD431), ("127.0.0.1", 8080))
    assert len(asked) == 16 + 56 and asked[16:18] == bytes([socket.AF_INET, socket.IPPROTO_TCP])
    assert asked[24:28] == bytes.fromhex("D4311F90") and asked[28:32] == bytes([127, 0, 0, 1])
    answer = bytearray(16 + 72)
    answer[0:6] = (len(answer)).to_bytes(4, sys.byteorder) + (20).to_bytes(2, sys.byteorder)
    answer[16 + 64 : 16 + 68] = (998).to_bytes(4, sys.byteorder)
    assert diag_uid(bytes(answer)) == 998
    answer[4:6] = (2).to_bytes(2, sys.byteorder)  # NLMSG_ERROR: no such socket
    assert diag_uid(bytes(answer)) is None
    assert account_of(socket.AF_INET, ("127.0.0.1", 1), ("127.0.0.1", 2)) is None


def test_on_loopback_a_client_is_the_account_behind_the_connection(intruder: Intruder) -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        theirs = _as_intruder(intruder, str(port))
        try:
            accepted, peer = server.accept()
            with accepted, socket.create_connection(("127.0.0.1", port)) as ours:
                assert client_of(peer, accepted.getsockname()) == ("account", intruder.uid)
                own, own_peer = server.accept()
                with own:
                    assert own_peer == ours.getsockname()
                    assert client_of(own_peer, own.getsockname()) == ("account", os.getuid())
        finally:
            theirs.kill()
            theirs.wait(timeout=30)
    assert client_of(("192.0.2.7", 5000), ("192.0.2.1", 80)) == ("address", "192.0.2.7")


def test_every_loopback_address_of_an_account_is_that_one_account(intruder: Intruder) -> None:
    """Any account may connect from any 127/8 address, or as ::ffff:127.0.0.1 to a dual-stack
    server: each is still the account behind it, so it cannot take more than its share."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        for source in ("127.0.0.2", "127.0.0.3", "127.0.0.5", "127.255.0.9"):
            with socket.create_connection(("127.0.0.1", port), source_address=(source, 0)):
                accepted, peer = server.accept()
                with accepted:
                    assert peer[0] == source
                    assert client_of(peer, accepted.getsockname()) == ("account", os.getuid())
        theirs = _as_intruder(intruder, str(port), "127.0.0.1", "127.0.0.4")
        try:
            accepted, peer = server.accept()
            with accepted:
                assert peer[0] == "127.0.0.4"
                assert client_of(peer, accepted.getsockname()) == ("account", intruder.uid)
        finally:
            theirs.kill()
            theirs.wait(timeout=30)
    with socket.create_server(("::", 0), family=socket.AF_INET6, dualstack_ipv6=True) as both:
        port = both.getsockname()[1]
        with socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.6", 0)):
            accepted, peer = both.accept()
            with accepted:
                assert peer[0] == "::ffff:127.0.0.6"
                assert client_of(peer, accepted.getsockname()) == ("account", os.getuid())


def test_where_the_kernel_does_not_say_all_of_loopback_is_one_client() -> None:
    """No answer (no such socket here, or not Linux): the loopback addresses are still one
    client, not one each."""
    assert client_of(("127.0.0.2", 1), ("127.0.0.1", 2)) == ("address", "loopback")
    assert client_of(("::ffff:127.0.0.3", 1), ("::ffff:127.0.0.1", 2)) == ("address", "loopback")
    assert client_of(("::1", 1), ("::1", 2)) == ("address", "loopback")
    assert client_of(("::ffff:192.0.2.7", 1), ("::ffff:192.0.2.1", 2)) == ("address", "192.0.2.7")


STOPS_READING = r"""
import json, socket, sys, time
port = int(sys.argv[1])
one = socket.create_connection(("127.0.0.1", port), timeout=10)
asked = f"GET / HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode() * 200
try:
    one.sendall(asked)
except OSError:
    pass
time.sleep(float(sys.argv[2]))
one.settimeout(10)
got = 0
try:
    while data := one.recv(1 << 16):
        got += len(data)
except OSError:
    pass
print(json.dumps({"got": got}), flush=True)
"""
"""A client of the second account that sends 200 requests in a row, reads none of the
answers for a while, then reads what it can; it says how many bytes it got."""


def test_a_client_that_stops_reading_its_answers_is_cut_off(intruder: Intruder) -> None:
    """It holds a connection (one of uvicorn's limited number) with the write waiting for as
    long as it likes; enough of them and every request, the owner's too, gets 503."""
    import threading

    import uvicorn

    from aria_mem import http_limits

    answer = b"x" * 65536

    async def app(scope: dict[str, object], receive: object, send: object) -> None:
        assert scope["type"] == "http"
        start = {"type": "http.response.start", "status": 200, "headers": []}
        await send(start)  # type: ignore[operator]
        await send({"type": "http.response.body", "body": answer})  # type: ignore[operator]

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = uvicorn.Config(
        app, host="127.0.0.1", port=port, log_level="warning", lifespan="off",
        http=http_limits.guarded_protocol(head_seconds=1.0),
    )  # fmt: skip
    server = uvicorn.Server(config)
    serving = threading.Thread(target=server.run, daemon=True)
    serving.start()
    try:
        while not server.started:
            threading.Event().wait(0.05)
        report = intruder.run(STOPS_READING, str(port), "4")
    finally:
        server.should_exit = True
        serving.join(timeout=30)
    assert 0 < int(str(report["got"])) < 200 * len(answer)  # cut off, not served in full
