"""Is a process aria-mem? One reading of ``/proc/PID/cmdline``, for the two places that ask:
`status` (is the daemon that wrote this heartbeat still alive?) and `stop` (may this pid be
sent SIGTERM?). They answer "unknown" in opposite ways, each on purpose, so the unknown case
is returned as None rather than guessed here."""

from __future__ import annotations

from pathlib import Path


def is_aria_mem(pid: int) -> bool | None:
    """True or False from the process's command line (a zombie has none: False); None when
    it cannot be read (gone, or hidden from this account)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return b"aria_mem" in command or b"aria-mem" in command
