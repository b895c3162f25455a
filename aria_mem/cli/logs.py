"""How the daemon logs: plain lines with the time on a terminal or in a file; with syslog
priorities (``<N>``) and no time when stderr goes to the systemd journal, which stamps lines
itself and then shows levels and filters by them (``journalctl --user -u aria-mem -p
warning``). HTTP clients' request lines are left out: one per embedding call says nothing."""

from __future__ import annotations

import logging
import os
import sys

PRIORITIES = {
    logging.CRITICAL: 2,
    logging.ERROR: 3,
    logging.WARNING: 4,
    logging.INFO: 6,
    logging.DEBUG: 7,
}
"""Python's levels as syslog priorities (sd-daemon(3))."""
QUIET_LIBRARIES = ("httpx", "httpcore")
NOTICES = "aria_mem.notice"
"""The logger of one-line notices a person should see whatever the level (such as the
aria-mem service starting in the background)."""


def priority(levelno: int) -> int:
    """The syslog priority of a Python level (a custom level takes the next one down)."""
    for level in sorted(PRIORITIES, reverse=True):
        if levelno >= level:
            return PRIORITIES[level]
    return PRIORITIES[logging.DEBUG]


class JournalFormatter(logging.Formatter):
    """Each line of a record prefixed with its priority, so a traceback stays one level."""

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def to_journal() -> bool:
    """systemd sets JOURNAL_STREAM when a service's stderr is connected to the journal."""
    return bool(os.environ.get("JOURNAL_STREAM"))


def configure_command_logging(level: int) -> None:
    """A command logs errors only, unless -v asks for more. The level is set on the handler
    as well as the root: libraries that set their own logger's level (psycopg sets WARNING
    when imported, so its pool's retry warnings would otherwise print ahead of the one-line
    error) are held to it too."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root.addHandler(handler)
    set_command_level(level)
    notices = logging.getLogger(NOTICES)
    if not notices.handlers:
        said = logging.StreamHandler(sys.stderr)
        said.setFormatter(logging.Formatter("aria-mem: %(message)s"))
        notices.addHandler(said)
        notices.setLevel(logging.INFO)
        notices.propagate = False


def set_command_level(level: int) -> None:
    root = logging.getLogger()
    root.setLevel(level)
    for handler in root.handlers:
        handler.setLevel(level)


def configure_daemon_logging(level: int) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    if to_journal():
        handler.setFormatter(JournalFormatter("%(name)s: %(message)s"))
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    set_command_level(level)
    for name in QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(logging.WARNING)
