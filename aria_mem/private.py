"""Files and folders only their owner can read, whatever the umask.

aria-mem keeps the most private things a person tells a companion, so everything it writes is
the owner's alone: folders 0700, files 0600. Modes are set explicitly (never left to the
umask), and files are written through a temporary file created 0600 and renamed into place, so
no other account can open them even for a moment.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path
from typing import IO

from aria_mem.errors import ConfigError, UsageError

DIR_MODE = 0o700
FILE_MODE = 0o600
ENTRY_POINT_UMASK = 0o077
"""Set by the CLI and the daemon, so files that libraries create for us (index shards, logs)
are private too."""


def private_dir(path: Path, *, what: str = "folder") -> Path:
    """Create ``path`` (and missing parents) and make it 0700. Parents that already exist keep
    their mode; parents we create get 0700 as well."""
    missing = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        if probe.parent == probe:
            break
        probe = probe.parent
    try:
        for folder in reversed(missing):
            folder.mkdir(mode=DIR_MODE, exist_ok=True)
            os.chmod(folder, DIR_MODE)
        if not path.is_dir():
            raise NotADirectoryError(f"{path} is not a folder")
        mode = stat.S_IMODE(path.stat().st_mode)
        # With an ACL the group bits are its mask: keep them, or its entries would lose
        # what they grant (run as root, the embedded PostgreSQL's account passes through).
        closed = 0o007 if _has_acl(path) else 0o077
        if mode & closed:
            os.chmod(path, mode & ~closed)
    except OSError as exc:
        raise ConfigError(
            f"Cannot create the {what} {path}: {exc.strerror or exc} — set ARIA_MEM_HOME "
            "(or --config) to a folder you can write"
        ) from exc
    return path


def _has_acl(path: Path) -> bool:
    try:
        return len(os.getxattr(path, "system.posix_acl_access")) > 4
    except OSError:
        return False


def write_private(path: Path, text: str) -> None:
    """Replace ``path`` with ``text``, atomically, mode 0600."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def open_private(path: Path) -> IO[str]:
    """Open ``path`` for writing text, created 0600 (an existing file of ours is narrowed to
    0600 before anything is written; one that belongs to another account is refused)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, FILE_MODE)
    try:
        info = os.fstat(fd)
        if stat.S_ISREG(info.st_mode):
            if info.st_uid != os.geteuid():
                raise PermissionError(
                    f"{path} belongs to another account — write somewhere of your own"
                )
            os.fchmod(fd, FILE_MODE)
            os.ftruncate(fd, 0)
        return os.fdopen(fd, "w", encoding="utf-8")
    except BaseException:
        os.close(fd)
        raise


def open_private_output(path: str | Path) -> IO[str]:
    """``open_private`` for a file a person named (an export): what stops it is said as a
    UsageError."""
    try:
        return open_private(Path(path))
    except OSError as exc:
        raise UsageError(f"Cannot write {path}: {exc.strerror or exc}") from exc


def private_file(path: Path) -> Path:
    """Make sure ``path`` exists, is ours and is 0600, keeping what it holds (for files a
    library appends to, like the chat's line history)."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_NOFOLLOW, FILE_MODE)
    try:
        info = os.fstat(fd)
        if info.st_uid != os.geteuid():
            raise PermissionError(f"{path} belongs to another account — remove it")
        os.fchmod(fd, FILE_MODE)
    finally:
        os.close(fd)
    return path


def restrict_umask() -> None:
    os.umask(ENTRY_POINT_UMASK)
