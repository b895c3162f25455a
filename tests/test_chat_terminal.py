"""`aria-mem chat` driven as a person would: in a pseudo-terminal, typing, reading the
streamed reply, using /remember, /why, /prompt and /quit, and Ctrl-D."""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from tests.conftest import ROOT
from tests.fakes.concepts import concept_embed
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")


class Terminal:
    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            args,
            cwd=ROOT,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**os.environ, **env},
            close_fds=True,
        )
        os.close(slave)
        self.screen = ""

    def read_until(self, text: str, timeout: float = 60, times: int = 1) -> str:
        """Read until ``text`` has appeared ``times`` times on the screen."""
        deadline = time.monotonic() + timeout
        while ANSI.sub("", self.screen).count(text) < times:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError(
                    f"{text!r} never appeared; screen:\n" + ANSI.sub("", self.screen)
                )
            ready, _, _ = select.select([self.master], [], [], min(remaining, 0.5))
            if ready:
                try:
                    self.screen += os.read(self.master, 65536).decode(errors="replace")
                except OSError:
                    break
        return ANSI.sub("", self.screen)

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\r")

    def close(self) -> int:
        try:
            return self.proc.wait(timeout=30)
        finally:
            os.close(self.master)


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(
        FakeOllamaState(
            dim=16, embed=concept_embed, chat_reply="Congratulations to her, what lovely news!"
        )
    ) as server:
        yield server


def test_a_conversation_in_the_terminal(embedded_dsn: str, fake: FakeOllama) -> None:
    env = {
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": fake.url,
        "ARIA_MEM_CHAT_HOST": fake.url,
        "ARIA_MEM_CHAT_EXTRACT_MEMORIES": "off",
        "COLUMNS": "120",
        "TERM": "xterm",
    }
    term = Terminal([sys.executable, "-m", "aria_mem", "chat"], env)
    term.read_until("/help for commands")
    term.type("/remember The user's sister loves pottery.")
    term.read_until("Remembered")
    term.type("My sister's getting married in June")
    term.read_until("Congratulations to her, what lovely news!")
    term.type("I need to find a gift")
    term.read_until("what lovely news!", times=2)
    term.type("/why")
    screen = term.read_until("timings:")
    assert "The user's sister loves pottery." in screen and "selected" in screen
    term.type("/prompt")
    screen = term.read_until("tokens; trimmed")
    assert "- [EpisodicEvent] The user's sister loves pottery. (confidence: high)" in screen
    assert "── system ──" in screen
    term.type("/nonsense")
    term.read_until("unknown command /nonsense")
    term.type("/quit")
    assert term.close() == 0
    sent = fake.state.chat_requests[-1]["messages"]
    assert sent[-1]["content"] == "I need to find a gift"
    assert "sister loves pottery" in sent[0]["content"]


def test_ctrl_d_leaves_and_the_conversation_resumes(embedded_dsn: str, fake: FakeOllama) -> None:
    env = {
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": fake.url,
        "ARIA_MEM_CHAT_HOST": fake.url,
        "ARIA_MEM_CHAT_EXTRACT_MEMORIES": "off",
        "TERM": "xterm",
    }
    term = Terminal([sys.executable, "-m", "aria_mem", "chat"], env)
    term.read_until("/help for commands")
    term.type("Hello there")
    term.read_until("lovely news!")
    os.write(term.master, b"\x04")
    assert term.close() == 0
    again = Terminal([sys.executable, "-m", "aria_mem", "chat"], env)
    again.read_until("/help for commands")
    again.type("and again")
    again.read_until("lovely news!")
    again.type("/quit")
    assert again.close() == 0
    roles = [m["role"] for m in fake.state.chat_requests[-1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]  # the first session's turns


def test_ctrl_c_stops_the_reply_not_the_session(embedded_dsn: str, fake: FakeOllama) -> None:
    import signal

    fake.state.chat_reply = " ".join(f"word{i}" for i in range(200))
    fake.state.chat_delay = 0.2  # 40 s in all: SIGINT lands mid-reply on a busy machine
    env = {
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": fake.url,
        "ARIA_MEM_CHAT_HOST": fake.url,
        "ARIA_MEM_CHAT_EXTRACT_MEMORIES": "off",
        "TERM": "xterm",
    }
    term = Terminal([sys.executable, "-m", "aria_mem", "chat"], env)
    term.read_until("/help for commands")
    term.type("tell me a long story")
    term.read_until("word5 ")
    term.proc.send_signal(signal.SIGINT)
    screen = term.read_until("(stopped)")
    assert "word199" not in screen
    fake.state.chat_reply, fake.state.chat_delay = "Still here.", 0.0
    term.type("are you still there?")
    term.read_until("Still here.")
    term.type("/quit")
    assert term.close() == 0


def test_chat_starts_and_replies_while_the_postgres_server_is_down(fake: FakeOllama) -> None:
    from tests.conftest import closed_port

    env = {
        **os.environ,
        "ARIA_MEM_POSTGRES_DSN": f"postgresql://postgres@127.0.0.1:{closed_port()}/postgres",
        "ARIA_MEM_POSTGRES_CONNECT_TIMEOUT": "1",
        "ARIA_MEM_EMBEDDER_HOST": fake.url,
        "ARIA_MEM_CHAT_HOST": fake.url,
        "ARIA_MEM_CHAT_EXTRACT_MEMORIES": "off",
    }
    done = subprocess.run(
        [sys.executable, "-m", "aria_mem", "chat"],
        cwd=ROOT,
        env=env,
        input="hello?\n/quit\n",
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = " ".join(done.stdout.split())
    assert "PostgreSQL is unreachable" in out
    assert "Congratulations to her, what lovely news!" in out
    assert "could not be saved" in out
