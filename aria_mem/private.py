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
import tempfile
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import IO, BinaryIO

from aria_mem.errors import ConfigError, UsageError
from aria_mem.ownership import check_folder, has_acl

DIR_MODE = 0o700
FILE_MODE = 0o600
ENTRY_POINT_UMASK = 0o077
"""Set by the CLI and the daemon, so files that libraries create for us (index shards, logs)
are private too."""


_OWN_FOLDER = "use a folder of your own: set ARIA_MEM_HOME to a folder you own"


def private_dir(path: Path, *, what: str = "folder", option: str = "") -> Path:
    """Create ``path`` (and missing parents) and make it 0700. Parents that already exist keep
    their mode; parents we create get 0700 as well. A folder another account owns, or one
    under a folder it can write (aria_mem.ownership), is refused, before and again after the
    folders are made: in a shared folder another account could make a name first.
    ``option``: the argument that names this folder (``config_path`` for a config file's);
    the data, index and chat history folders come from ARIA_MEM_HOME or the platform's
    folders, so their failure names only ARIA_MEM_HOME."""
    check_folder(path, what, _OWN_FOLDER, modes=False)
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
        check_folder(path, what, _OWN_FOLDER, modes=False)
        mode = stat.S_IMODE(path.stat().st_mode)
        # With an ACL the group bits are its mask: keep them, or its entries would lose
        # what they grant (run as root, the embedded PostgreSQL's account passes through).
        closed = 0o007 if has_acl(path) else 0o077
        if mode & closed:
            os.chmod(path, mode & ~closed)
    except OSError as exc:
        other = ", or name a config file in one" if option == "config_path" else ""
        raise ConfigError(
            f"Cannot create the {what} {path}: {exc.strerror or exc} — set ARIA_MEM_HOME to a "
            f"folder you can write{other}",
            option=option,
        ) from exc
    return path


def write_private(path: Path, text: str, *, owner: tuple[int, int] | None = None) -> None:
    """Replace ``path`` with ``text``, atomically, mode 0600 (for aria-mem's own files: a
    link at ``path`` is replaced, never written through). ``owner`` (uid, gid): the new file
    is given to that account before it takes the name (root writing for the embedded
    server's account, in a folder that account can write)."""
    with _replaced(path, owner=owner) as stream:
        stream.write(text)


@contextmanager
def _replaced(
    path: Path,
    check: Callable[[Path], None] | None = None,
    *,
    owner: tuple[int, int] | None = None,
) -> Iterator[IO[str]]:
    """A stream into a new 0600 file beside ``path`` that replaces ``path`` once the block
    ends without an error, so a reader never sees half of it. The temporary file's name is
    random and created exclusively (``mkstemp``), so nothing planted in the folder can be
    opened in its place. ``check`` runs on the target before writing and again just before
    the rename."""
    if check is not None:
        check(path)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    tmp = Path(tmp_name)
    try:
        os.fchmod(fd, FILE_MODE)
        if owner is not None:
            os.fchown(fd, *owner)
        with os.fdopen(fd, "w", encoding="utf-8") as stream:
            yield stream
            stream.flush()
            os.fsync(stream.fileno())
        if check is not None:
            check(path)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def _refuse_unsafe_target(path: Path) -> None:
    """A file a person named may be in a folder others can write (/tmp): whatever sits at that
    name must be a regular file of ours, never a link (it could point at any file), a FIFO
    (another account would read the export), a device or a socket."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    kind = _KINDS.get(stat.S_IFMT(info.st_mode))
    if kind is not None:
        raise UnsafeTargetError(
            f"it is {kind}; aria-mem writes only regular files (stdout: -o -) — "
            "name a file of your own"
        )
    if info.st_uid != os.geteuid():
        raise UnsafeTargetError("it belongs to another account — write somewhere of your own")


class UnsafeTargetError(PermissionError):
    """What sits at a named output path must not be written (its message says why)."""


_KINDS = {
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a FIFO",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
}


def open_private(path: Path) -> AbstractContextManager[IO[str]]:
    """Write ``path`` readable by its owner only (0600), through a temporary file renamed into
    place; what is already at ``path`` must be a regular file of ours (no link, FIFO, device,
    socket or another account's file), and is left untouched if writing fails."""
    return _replaced(path, _refuse_unsafe_target)


@contextmanager
def open_private_output(path: str | Path) -> Iterator[IO[str]]:
    """``open_private`` for a file a person named (an export): what stops it is said as a
    UsageError."""
    try:
        with open_private(Path(path)) as stream:
            yield stream
    except OSError as exc:
        raise UsageError(f"Cannot write {path}: {exc.strerror or exc}") from exc


class NotARegularFileError(OSError):
    """What was named is a FIFO, a device, a folder or a socket, not a file to read."""


def open_regular(path: Path, *, follow_links: bool = True) -> BinaryIO:
    """``path`` opened for reading, if it is a regular file. It is opened without blocking, so
    a FIFO named in its place cannot hold the caller, and made blocking once checked."""
    flags = os.O_RDONLY | os.O_NONBLOCK | (0 if follow_links else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise NotARegularFileError(f"{path} is not a regular file")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


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
