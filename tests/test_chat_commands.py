"""The in-chat commands (/model, /system, /new, /history), the model check at start, and the
pure pieces of the chat's terminal: messages over several lines, Markdown blocks, "ago"."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from aria_mem.cli.chat_commands import ago
from aria_mem.cli.chat_input import collect
from aria_mem.cli.chat_output import finished_upto
from tests.conftest import ROOT
from tests.fakes.concepts import concept_embed
from tests.fakes.ollama_server import FakeOllama, FakeOllamaState


@pytest.fixture
def fake() -> Iterator[FakeOllama]:
    with FakeOllama(FakeOllamaState(dim=16, embed=concept_embed, chat_reply="Noted.")) as server:
        server.state.models.add("qwen3")
        yield server


def _chat(dsn: str, fake: FakeOllama, typed: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        "ARIA_MEM_POSTGRES_DSN": dsn,
        "ARIA_MEM_EMBEDDER_HOST": fake.url,
        "ARIA_MEM_CHAT_HOST": fake.url,
        "ARIA_MEM_CHAT_EXTRACT_MEMORIES": "off",
    }
    return subprocess.run(
        [sys.executable, "-m", "aria_mem", "chat", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        input=typed,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_model_system_new_and_history_in_a_session(embedded_dsn: str, fake: FakeOllama) -> None:
    typed = "\n".join(
        [
            "first words",
            "/model",
            "/model qwen3",
            "second words",
            "/model no-such-model",
            "/system",
            "/system You are Bob, a terse sailor.",
            "third words",
            "/history",
            "/system reset",
            "fourth words",
            "/new",
            "/history",
            "fifth words",
            "/quit",
        ]
    )
    done = _chat(embedded_dsn, fake, typed + "\n")
    assert done.returncode == 0, done.stderr
    out = _flat(done.stdout)
    assert "chatting with ollama/llama3.2" in out
    assert "now chatting with ollama/qwen3" in out
    assert "has no model 'no-such-model'" in out  # and qwen3 stays
    assert "You are Aria, a warm and attentive companion." in out  # /system shows it
    assert "The persona is set for this conversation" in out
    assert "you: first words" in out and "Aria: Noted." in out and "you: third words" in out
    assert "A new conversation." in out and "Nothing said yet in this conversation." in out

    requests = fake.state.chat_requests
    said = [(r["model"], r["messages"][-1]["content"]) for r in requests]
    assert said == [
        ("llama3.2", "first words"),
        ("qwen3", "second words"),
        ("qwen3", "third words"),
        ("qwen3", "fourth words"),
        ("qwen3", "fifth words"),
    ]
    systems = [r["messages"][0]["content"] for r in requests]
    assert systems[2].startswith("You are Bob, a terse sailor.")
    assert systems[3].startswith("You are Aria") and systems[4].startswith("You are Aria")
    fifth = [m["role"] for m in requests[4]["messages"]]
    assert fifth == ["system", "user"]  # /new: no history

    listed = subprocess.run(
        [sys.executable, "-m", "aria_mem", "conversations", "list", "--json"],
        cwd=ROOT,
        env={**os.environ, "ARIA_MEM_POSTGRES_DSN": embedded_dsn},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.count('"turns"') == 2  # /new kept the first conversation


def test_a_chat_model_the_server_does_not_have_is_reported_before_the_first_message(
    embedded_dsn: str, fake: FakeOllama
) -> None:
    done = _chat(embedded_dsn, fake, "hello\n", "--model", "no-such-model")
    assert done.returncode == 1
    assert "has no model 'no-such-model'" in _flat(done.stderr)
    assert "ollama pull no-such-model" in _flat(done.stderr)
    assert fake.state.chat_requests == []


def test_a_chat_server_that_does_not_answer_yet_is_a_notice_at_start(embedded_dsn: str) -> None:
    from tests.conftest import closed_port

    down = f"http://127.0.0.1:{closed_port()}"
    with FakeOllama(FakeOllamaState(dim=16, embed=concept_embed)) as embedder:
        env = {
            **os.environ,
            "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
            "ARIA_MEM_EMBEDDER_HOST": embedder.url,
            "ARIA_MEM_CHAT_HOST": down,
            "ARIA_MEM_CHAT_EXTRACT_MEMORIES": "off",
        }
        done = subprocess.run(
            [sys.executable, "-m", "aria_mem", "chat"],
            cwd=ROOT,
            env=env,
            input="hello\n/quit\n",
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    out = _flat(done.stdout)
    start, _, after = out.partition("you>")
    assert "No chat model answered" in start  # said at start ...
    assert "Your message is kept" in after  # ... and the session went on


def test_a_message_between_triple_quotes_spans_lines() -> None:
    lines = iter(["in two lines", "  indented", 'the end"""', "never read"])
    assert collect('"""a poem', lambda: next(lines)) == "a poem\nin two lines\n  indented\nthe end"
    assert collect('"""one line"""', lambda: "") == "one line"
    assert collect("plain words", lambda: "never") == "plain words"
    rest = iter(['"""'])
    assert collect('"""', lambda: next(rest)) == ""


def test_a_markdown_block_is_finished_at_a_blank_line_outside_a_code_fence() -> None:
    assert finished_upto("A paragraph still being writ") == 0
    assert finished_upto("One.\n\nTwo is") == len("One.\n\n")
    fenced = "```\ncode\n\nmore code\n"
    assert finished_upto(fenced) == 0  # the blank line is inside the fence
    closed = fenced + "```\n\nAfter"
    assert finished_upto(closed) == len(fenced + "```\n\n")


def test_ago_says_how_long_ago_as_people_do() -> None:
    now = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)
    assert ago(now - timedelta(seconds=20), now) == "just now"
    assert ago(now - timedelta(minutes=1), now) == "1 minute ago"
    assert ago(now - timedelta(hours=5, minutes=3), now) == "5 hours ago"
    assert ago(now - timedelta(days=2, hours=1), now) == "2 days ago"
    assert ago(now + timedelta(minutes=5), now) == "just now"  # a clock a little ahead


def test_forget_in_chat_also_offers_the_turns_and_they_are_not_replayed(
    embedded_dsn: str, fake: FakeOllama
) -> None:
    typed = [
        "/remember The user's sister is called Maya.",
        "what should I buy for Maya my sister",
        "/forget",
        "1",
        "y",
        "any other ideas?",
        "/quit",
    ]
    done = _chat(embedded_dsn, fake, "\n".join(typed) + "\n")
    assert done.returncode == 0, done.stderr
    out = _flat(done.stdout)
    assert "1. The user's sister is called Maya." in out
    assert "Forget 1 stored chat turn too? [y/N]" in out and "Forgot 1 chat turns" in out
    first, last = fake.state.chat_requests
    assert "Maya" in json.dumps(first["messages"])
    assert "Maya" not in json.dumps(last["messages"])  # neither memory nor replayed turn
    assert [m["role"] for m in last["messages"]] == ["system", "assistant", "user"]


def test_a_message_too_long_for_one_turn_is_refused_and_the_session_goes_on(
    embedded_dsn: str, fake: FakeOllama
) -> None:
    done = _chat(embedded_dsn, fake, "x" * 60_000 + "\nshort one\n/quit\n")
    assert done.returncode == 0, done.stderr
    assert "That message is 60,000 characters; at most 50,000" in _flat(done.stdout)
    assert [r["messages"][-1]["content"] for r in fake.state.chat_requests] == ["short one"]


def test_the_line_history_is_bounded_and_keeps_whole_newest_entries(tmp_path: Path) -> None:
    from aria_mem import chat_history

    path = chat_history.history_file(tmp_path, "me", "aria")
    entry = "\n# 2026-12-03 10:00:00.000000\n+{}\n"
    path.write_text("".join(entry.format(f"message {n:06d} " + "x" * 80) for n in range(15_000)))
    assert path.stat().st_size > chat_history.MAX_HISTORY_BYTES
    again = chat_history.history_file(tmp_path, "me", "aria")
    text = again.read_text()
    assert again == path and len(text.encode()) <= chat_history.KEEP_BYTES
    assert text.startswith("# 2026-12-03") and "message 014999" in text
    assert "message 000000" not in text
    assert oct(again.stat().st_mode & 0o777) == "0o600"


def test_a_persona_set_with_system_lasts_for_its_conversation_when_resumed(
    embedded_dsn: str, fake: FakeOllama
) -> None:
    first = _chat(embedded_dsn, fake, "/system You are Bob, a terse sailor.\nhi\n/quit\n")
    assert first.returncode == 0, first.stderr
    again = _chat(embedded_dsn, fake, "hello again\n/system reset\nand now?\n/quit\n")
    assert again.returncode == 0, again.stderr
    fresh = _chat(embedded_dsn, fake, "/new\nstarting over\n/quit\n")
    assert fresh.returncode == 0, fresh.stderr
    systems = [r["messages"][0]["content"] for r in fake.state.chat_requests]
    assert [s.split(",")[0] for s in systems] == [
        "You are Bob",
        "You are Bob",
        "You are Aria",
        "You are Aria",
    ]
