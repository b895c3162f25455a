"""What every command shares: one ``AriaMem`` opened from the config on first use."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from aria_mem.errors import ConfigError, UsageError

if TYPE_CHECKING:
    from aria_mem.api import AriaMem

IN_PROCESS_INDEX = ":memory:"
"""qdrant-client's local mode without a path: fine inside one program, empty for every CLI
command."""


class State:
    def __init__(self, config_path: Path | None) -> None:
        self.config_path = config_path
        self.verbose = 0
        self.no_service = False
        """``--no-service``: every operation in this process, none sent to the service."""
        self._memory: AriaMem | None = None

    @property
    def memory(self) -> AriaMem:
        if self._memory is None:
            from aria_mem.api import AriaMem

            opened = AriaMem.open(self.config_path)
            if opened.settings.index.url.strip() == IN_PROCESS_INDEX:
                opened.close()
                raise ConfigError(
                    f'[index] url = "{IN_PROCESS_INDEX}" is an index that lives and dies with '
                    "one process: every aria-mem command would start with an empty one. Remove "
                    "the key (the embedded index) or give a Qdrant server's URL"
                )
            if self.no_service or logging.getLogger().isEnabledFor(logging.INFO):
                from aria_mem.api.hooks import search_here

                search_here(opened)  # the command said: here (or -v: its log lines shown here)
            self._memory = opened
        return self._memory

    def close(self) -> None:
        if self._memory is not None:
            self._memory.close()
            self._memory = None


def state(ctx: typer.Context) -> State:
    obj = ctx.find_root().obj
    assert isinstance(obj, State)
    return obj


def memory(ctx: typer.Context) -> AriaMem:
    return state(ctx).memory


def operation(ctx: typer.Context, name: str, args: dict[str, Any], *, start: bool = True) -> Any:
    """Operation ``name`` (``aria_mem.operations``) as JSON: answered by the aria-mem service
    when one can answer it (this process then imports no database driver, index client or
    model), else run in this process on the command's ``AriaMem``, with the same answer.
    ``start``: start the service if none runs (False: a read of PostgreSQL alone asks a
    running service, and never waits for one to start). With -v it runs here, where its log
    lines are shown."""
    current = state(ctx)
    logged = logging.getLogger().isEnabledFor(logging.INFO)  # -v: its log lines are shown here
    if not current.no_service and not logged and current._memory is None:
        from aria_mem.api import remote

        try:
            return remote.call(current.config_path, name, args, start=start)
        except remote.NotServed:
            pass
    from aria_mem import operations

    mem = current.memory
    if name == "search":
        mem.warm_up()
    return operations.answer(mem, name, args)


JSON_DECIMALS = 6
"""Scores and weights are sums of products of floats (0.15000000000000002); six decimals are
more than any of them means."""


def whose(mem: AriaMem, user: str | None, companion: str | None) -> tuple[str, str]:
    """The user and companion a long-running command serves: the flags, else the config's
    identity; each checked as any identifier."""
    from aria_mem.domain.validation import identifier

    identity = mem.settings.identity
    return (
        identifier("user", identity.user if user is None else user),
        identifier("companion", identity.companion if companion is None else companion),
    )


def rounded(data: Any) -> Any:
    """``data`` with every float rounded to ``JSON_DECIMALS`` places (ints and bools kept)."""
    if isinstance(data, float):
        return round(data, JSON_DECIMALS)
    if isinstance(data, dict):
        return {k: rounded(v) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [rounded(v) for v in data]
    return data


def emit_json(data: Any) -> None:
    sys.stdout.write(json.dumps(rounded(data), indent=2, default=str) + "\n")


MAX_STDIN_TEXT = 64 * 1024
"""The most ``remember -`` reads from stdin (a memory is at most 2,000 characters)."""


def read_stdin_text() -> str:
    """The text piped in for an argument given as ``-``, bounded and checked as UTF-8."""
    if sys.stdin.isatty():
        raise UsageError(
            '"-" reads the text from stdin, but nothing is piped in — give it as '
            'an argument, or pipe it: echo "..." | aria-mem remember -'
        )
    raw = sys.stdin.buffer.read(MAX_STDIN_TEXT + 1)
    if len(raw) > MAX_STDIN_TEXT:
        raise UsageError(
            f"more than {MAX_STDIN_TEXT // 1024} KB on stdin — a memory is one sentence; "
            "for documents use `aria-mem learn`"
        )
    try:
        return raw.decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        raise UsageError(f"stdin is not UTF-8 text ({exc.reason} at byte {exc.start})") from None


_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_when(value: str | None, *, now: datetime | None = None) -> datetime | None:
    """An expiry: an ISO 8601 timestamp (UTC if no zone is given) or a span like ``30d``,
    ``12h``, ``2w`` from now."""
    if value is None:
        return None
    text = value.strip()
    now = now or datetime.now(UTC)
    if len(text) >= 2 and text[-1].lower() in _UNITS and text[:-1].isdigit():
        try:
            return now + timedelta(**{_UNITS[text[-1].lower()]: int(text[:-1])})
        except OverflowError:
            raise UsageError(
                f"--expires {value} is too far ahead — give a span that ends before the year 9999"
            ) from None
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise UsageError(
            f"--expires takes an ISO date/time (2027-01-31, 2027-01-31T18:00+01:00)"
            f" or a span like 30d, 12h, 2w; got {value!r}"
        ) from None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
