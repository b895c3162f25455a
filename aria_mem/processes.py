"""Is a process aria-mem, and is it alive? One reading of ``/proc/PID/cmdline`` for the places
that ask: `status` (is the daemon that wrote this heartbeat still alive?) and `stop` (may this
pid be sent SIGTERM, and has it gone?). "Unknown" is returned as None by ``is_aria_mem``, and
each caller reads it its own way, on purpose."""

from __future__ import annotations

import os
from pathlib import Path


def is_aria_mem(pid: int) -> bool | None:
    """True or False from the process's command line (a zombie has none: False); None when
    it cannot be read (gone, or hidden from this account)."""
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return b"aria_mem" in command or b"aria-mem" in command


def aria_mem_alive(pid: int) -> bool:
    """Is ``pid`` a live aria-mem process on this machine? A pid that is gone, or now some
    other program's, or a zombie's, is not; one whose command line this account cannot read
    is, as the signal said."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return is_aria_mem(pid) is not False
