"""`aria-mem chat` driven as a person would: in a pseudo-terminal, typing, reading the
streamed reply, using /remember, /why, /prompt and /quit, and Ctrl-D.

The terminal answers cursor-position requests as a real one does, and a test waits for the
prompt (prompt_toolkit turns bracketed paste on each time it asks) before it types what a
person would type only once they see the prompt."""

from __future__ import annotations

import os
import pty
import re
import select
import stat
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.fakes.concepts import concept_embed
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07|\r")
PROMPT_READY = "\x1b[?2004h"
CURSOR_QUERY = "\x1b[6n"
UP = "\x1b[A"


CLEAN_SIGNALS = (
    "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []);"
    " signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.executable, sys.argv[1:])"
)
"""Starts the program as a terminal would: no signal blocked or ignored. A test worker's
thread may block or ignore SIGINT (libraries do, for their own threads), and a child inherits
both across exec: Ctrl-C would then never reach the chat."""


class Terminal:
    def __init__(self, args: list[str], env: dict[str, str]) -> None:
        self.master, slave = pty.openpty()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", CLEAN_SIGNALS, *args],
            cwd=ROOT,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env={**os.environ, **env},
            close_fds=True,
        )
        os.close(slave)
        self.screen = ""

    def _pump(self, timeout: float) -> bool:
        """Read what is there (waiting up to ``timeout``); False once the terminal closed."""
        ready, _, _ = select.select([self.master], [], [], timeout)
        if not ready:
            return True
        try:
            chunk = os.read(self.master, 65536).decode(errors="replace")
        except OSError:
            return False
        self.screen += chunk
        for _ in range(chunk.count(CURSOR_QUERY)):
            os.write(self.master, b"\x1b[1;1R")
        return bool(chunk)

    def _wait(self, done: Callable[[], bool], what: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._pump(min(remaining, 0.5)):
                raise AssertionError(f"{what} never came; screen:\n" + self.text())

    def text(self) -> str:
        return ANSI.sub("", self.screen)

    def signals(self) -> str:
        """The program's blocked, ignored and caught signal masks, for a failure's message."""
        status = Path(f"/proc/{self.proc.pid}/status").read_text().splitlines()
        return " ".join(line for line in status if line.startswith(("SigBlk", "SigIgn", "SigCgt")))

    def read_until(self, text: str, timeout: float = 60, times: int = 1) -> str:
        """Read until ``text`` has appeared ``times`` times on the screen."""
        self._wait(lambda: self.text().count(text) >= times, repr(text), timeout)
        return self.text()

    def wait_for_prompt(self, times: int, timeout: float = 60) -> None:
        """Until the ``times``-th prompt is up."""
        self._wait(lambda: self.screen.count(PROMPT_READY) >= times, f"prompt {times}", timeout)

    def type(self, line: str) -> None:
        os.write(self.master, line.encode() + b"\r")

    def keys(self, keys: str) -> None:
        os.write(self.master, keys.encode())

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


def _env(dsn: str, fake: FakeOllama, **extra: str) -> dict[str, str]:
    return {
        "ARIA_MEM_POSTGRES_DSN": dsn,
        "ARIA_MEM_EMBEDDER_HOST": fake.url,
        "ARIA_MEM_CHAT_HOST": fake.url,
        "ARIA_MEM_CHAT_EXTRACT_MEMORIES": "off",
        "TERM": "xterm",
        **extra,
    }


def _chat(env: dict[str, str], *args: str) -> Terminal:
    term = Terminal([sys.executable, "-m", "aria_mem", "chat", *args], env)
    term.read_until("/help for commands")
    return term


def _said(fake: FakeOllama) -> list[str]:
    """The last user message of every chat request, in order."""
    return [r["messages"][-1]["content"] for r in fake.state.chat_requests]


def test_a_conversation_in_the_terminal(embedded_dsn: str, fake: FakeOllama) -> None:
    term = _chat(_env(embedded_dsn, fake, COLUMNS="120"))
    term.wait_for_prompt(1)
    term.type("/remember The user's sister loves pottery.")
    term.read_until("Remembered")
    term.wait_for_prompt(2)
    term.type("My sister's getting married in June")
    term.read_until("Congratulations to her, what lovely news!")
    term.wait_for_prompt(3)
    fake.state.chat_reply = "Pottery classes, perhaps?"
    term.type("I need to find a gift")
    term.read_until("Pottery classes, perhaps?")
    term.wait_for_prompt(4)
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
    env = _env(embedded_dsn, fake)
    term = _chat(env)
    term.wait_for_prompt(1)
    assert "resuming" not in term.text()
    term.type("Hello there")
    term.read_until("lovely news!")
    term.wait_for_prompt(2)
    term.keys("\x04")
    assert term.close() == 0
    again = _chat(env)
    again.read_until("resuming a conversation from just now, 2 turns; /new to start over")
    again.wait_for_prompt(1)
    again.type("and again")
    again.read_until("lovely news!")
    again.wait_for_prompt(2)
    again.type("/quit")
    assert again.close() == 0
    roles = [m["role"] for m in fake.state.chat_requests[-1]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]  # the first session's turns


def test_ctrl_c_stops_the_reply_not_the_session(embedded_dsn: str, fake: FakeOllama) -> None:
    import signal

    fake.state.chat_reply = " ".join(f"word{i}" for i in range(200))
    fake.state.chat_delay = 0.2  # 40 s in all: SIGINT lands mid-reply on a busy machine
    term = _chat(_env(embedded_dsn, fake))
    term.wait_for_prompt(1)
    term.type("tell me a long story")
    term.read_until("word5 ")
    masks = term.signals()
    term.proc.send_signal(signal.SIGINT)
    try:
        screen = term.read_until("(stopped)")
    except AssertionError as missed:
        raise AssertionError(f"{missed}\nsignal masks when SIGINT was sent: {masks}") from None
    assert "word199" not in screen
    fake.state.chat_reply, fake.state.chat_delay = "Still here.", 0.0
    term.wait_for_prompt(2)
    term.type("are you still there?")
    term.read_until("Still here.")
    term.wait_for_prompt(3)
    term.keys("half a thought\x03")  # Ctrl-C at the prompt drops the line, not the session
    term.wait_for_prompt(4)
    term.type("/quit")
    assert term.close() == 0
    assert "half a thought" not in _said(fake)


def test_line_editing_history_and_messages_of_several_lines(
    embedded_dsn: str, fake: FakeOllama, isolated_env: Path
) -> None:
    env = _env(embedded_dsn, fake)
    term = _chat(env)
    term.wait_for_prompt(1)
    term.type("the first message")
    term.wait_for_prompt(2)
    term.keys("second" + "\x1b[D" * 6 + "the \x05 one")  # Left x6, then Ctrl-E: the end
    term.keys("\r")
    term.wait_for_prompt(3)
    term.keys(UP + UP + "\r")  # Up twice: the first message again
    term.wait_for_prompt(4)
    term.keys("\x1b[200~line one\nline two\r\nline three\x1b[201~\r")  # a paste
    term.wait_for_prompt(5)
    term.keys("above\x1b\rbelow\r")  # Alt-Enter adds a line
    term.wait_for_prompt(6)
    term.type('"""a poem')
    term.type("in two lines")
    term.type('"""')
    term.wait_for_prompt(9)
    term.type("the last words")
    term.wait_for_prompt(10)
    term.keys("\x04")
    assert term.close() == 0
    assert _said(fake) == [
        "the first message",
        "the second one",
        "the first message",
        "line one\nline two\nline three",
        "above\nbelow",
        "a poem\nin two lines",
        "the last words",
    ]
    histories = list((isolated_env / "data" / "chat-history").iterdir())
    assert len(histories) == 1
    assert stat.S_IMODE(histories[0].stat().st_mode) == 0o600
    assert "the second one" in histories[0].read_text()

    again = _chat(env)  # the history outlives the session ...
    again.wait_for_prompt(1)
    again.keys(UP + "\r")
    again.wait_for_prompt(2)
    again.keys("\x04")
    assert again.close() == 0
    assert _said(fake)[7:] == ["the last words"]
    other = _chat({**env, "ARIA_MEM_USER": "someone-else"})  # ... and is the user's own
    other.wait_for_prompt(1)
    other.keys(UP + "\r")
    other.wait_for_prompt(2)
    other.keys("\x04")
    assert other.close() == 0
    assert len(fake.state.chat_requests) == 8
    assert len(list((isolated_env / "data" / "chat-history").iterdir())) == 2


def test_replies_are_markdown_in_a_terminal_and_as_written_with_plain(
    embedded_dsn: str, fake: FakeOllama
) -> None:
    fake.state.chat_reply = "Two ideas:\n\n- a **pottery** class\n- a vase\n\n```\nkiln = True\n```"
    env = _env(embedded_dsn, fake, COLUMNS="100")
    term = _chat(env)
    term.wait_for_prompt(1)
    term.type("ideas?")
    term.wait_for_prompt(2)
    term.type("/quit")
    assert term.close() == 0
    shown = term.text().split("ideas?", 1)[1]
    assert "• a pottery class" in shown  # a list with bullets
    assert "\x1b[1mpottery" in term.screen  # bold, without the asterisks
    assert "kiln = True" in shown

    plain = _chat(env, "--plain")
    plain.wait_for_prompt(1)
    plain.type("ideas?")
    plain.wait_for_prompt(2)
    plain.type("/quit")
    assert plain.close() == 0
    shown = plain.text().split("ideas?", 1)[1]
    assert "- a **pottery** class" in shown and "•" not in shown and "```" in shown


@pytest.mark.slow
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
