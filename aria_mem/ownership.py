"""Trust nothing another local account owns or can write (OpenSSH's StrictModes, for aria-mem).

A config names the servers that receive every memory, search and chat prompt, and a home holds
the memories themselves. So before aria-mem reads a config or uses a home, it asks who could
have put them there, and refuses, with one line naming the path and the fix, when another
account could have:

- the config file, the home, the data folder and the config folder belong to this account or to
  root, and no other account can write them (group or others);
- every folder above them, up to ``/``, belongs to this account or to root and no other account
  can write it, unless it has the sticky bit (like /tmp: others may add names there but cannot
  rename or remove ours);
- every symbolic link on the way belongs to this account or to root; the link's target is then
  checked like any other path (a link of ours cannot lend trust to what it points at).

"Can write" follows Debian's OpenSSH: a group-writable file or folder is fine when that group
is yours alone (no other account has it as its primary group or lists it as a member: the
per-user groups of a ``umask 002`` system); any other group, and any write bit for others, is
another account that can write. Only write bits count: an ACL that lets one account pass
through a folder (``x``, as the embedded PostgreSQL's account gets when run as root) changes
nothing, while an ACL whose mask holds ``w`` may let anyone write and is refused like a group
that is not yours.
"""

from __future__ import annotations

import functools
import grp
import os
import pwd
import stat
from pathlib import Path

from aria_mem.errors import ConfigError

MAX_LINKS = 40
"""The kernel's own limit on links followed while resolving one path."""


class UntrustedPathError(ConfigError):
    """Another local account owns, or can write, a path aria-mem was about to trust."""


def check_folder(path: Path, what: str, elsewhere: str, *, modes: bool = True) -> None:
    """Refuse the folder ``path`` (if it exists) and the folders above it, as the module says.
    With ``modes=False`` only the folder's owner is checked, not its mode: for a caller that
    makes it 0700 itself, right after."""
    _check(path, what, elsewhere, modes=modes)


def check_tree(path: Path, what: str, elsewhere: str) -> None:
    """Refuse the folder ``path`` as ``check_folder`` does, and everything in it: for a folder
    whose files are loaded and run (a model's), where one file another account could write is
    enough. At most ``MAX_TREE_ENTRIES`` names are looked at; a folder holding more is refused."""
    _check(path, what, elsewhere, modes=True)

    def unreadable(error: OSError) -> None:
        raise ConfigError(f"Cannot check the {what} {path}: {error} — {elsewhere}") from error

    seen = 0  # a linked folder is entered too (what it holds is read): a loop ends at the bound
    for folder, folders, files in os.walk(path, onerror=unreadable, followlinks=True):
        for name in [*folders, *files]:
            seen += 1
            if seen > MAX_TREE_ENTRIES:
                raise ConfigError(
                    f"The {what} {path} holds more than {MAX_TREE_ENTRIES:,} files and folders, "
                    f"too many to check — {elsewhere}"
                )
            _check(Path(folder) / name, f"file in the {what}", elsewhere, modes=True)


MAX_TREE_ENTRIES = 10_000
"""A model folder holds tens of files; a path to a home or a disk is a mistake."""


def check_file(path: Path, what: str, elsewhere: str) -> None:
    """Refuse the file ``path`` (if it exists) and the folders above it, as the module says."""
    _check(path, what, elsewhere, modes=True)


def check_opened(info: os.stat_result, path: Path, what: str, elsewhere: str) -> None:
    """The same rule for a file already open (its ``fstat``): what was read is what was checked,
    even if the name changed hands in between."""
    problem = _problem(path, info, above=False, modes=True)
    if problem is not None:
        raise UntrustedPathError(_message(what, path, path, problem, elsewhere))


def _check(path: Path, what: str, elsewhere: str, *, modes: bool) -> None:
    """Resolve ``path`` one name at a time, as the kernel does, judging each folder passed
    through, each link followed and, at the end, what the path names."""
    named = path.absolute()
    pending = list(named.parts[1:])
    current = Path("/")
    _judge_above(current, _lstat(current, what, named), what, named, elsewhere)
    links = 0
    while pending:
        name = pending.pop(0)
        if name in ("", "."):
            continue
        if name == "..":
            current = current.parent
            continue
        candidate = current / name
        try:
            info = os.lstat(candidate)
        except (FileNotFoundError, NotADirectoryError):
            return  # what is missing is made by aria-mem (0700, 0600) or is not there to read
        except OSError as exc:
            raise ConfigError(
                f"Cannot check the {what} {named}: {candidate}: {exc.strerror or exc} — {elsewhere}"
            ) from exc
        if stat.S_ISLNK(info.st_mode):
            if not _owner_trusted(info):
                link = f"is a symbolic link that {_owned(info)}"
                raise UntrustedPathError(_message(what, named, candidate, link, elsewhere))
            links += 1
            if links > MAX_LINKS:
                raise ConfigError(f"The {what} {named} goes through too many symbolic links")
            target = Path(os.readlink(candidate))
            if target.is_absolute():
                current = Path("/")
            pending[:0] = list(target.parts[1:] if target.is_absolute() else target.parts)
            continue
        if pending:
            _judge_above(candidate, info, what, named, elsewhere)
        else:
            found = _problem(candidate, info, above=False, modes=modes)
            if found is not None:
                raise UntrustedPathError(_message(what, named, candidate, found, elsewhere))
        current = candidate


def _judge_above(folder: Path, info: os.stat_result, what: str, path: Path, elsewhere: str) -> None:
    problem = _problem(folder, info, above=True, modes=True)
    if problem is not None:
        raise UntrustedPathError(
            f"The folder {folder} above the {what} {path} {problem}{_or(problem, elsewhere)}"
        )


def _problem(path: Path, info: os.stat_result, *, above: bool, modes: bool) -> str | None:
    """What makes ``path`` untrusted, said as the end of a sentence with its own fix when a
    chmod is one; None if nothing. A folder above may be writable when it is sticky; the
    path itself may not."""
    if not _owner_trusted(info):
        return _owned(info)
    if not modes or (above and info.st_mode & stat.S_ISVTX):
        return None
    if not (stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode)):
        return None  # a device or a FIFO is no config or folder: the caller says so
    group = bool(info.st_mode & stat.S_IWGRP) and (
        has_acl(path) or not _yours_alone(info.st_gid, os.geteuid())
    )
    if not (info.st_mode & stat.S_IWOTH or group):
        return None
    whom = "every account" if info.st_mode & stat.S_IWOTH else f"the group {_group_name(info)}"
    if above:
        bits = ("g" if group else "") + ("o" if info.st_mode & stat.S_IWOTH else "")
        fix = f"run chmod {bits}-w {path} (or chmod +t)"
        return f"is writable by {whom} and has no sticky bit — {fix}"
    return f"is writable by {whom} — run chmod go-w {path}"


def _or(problem: str, elsewhere: str) -> str:
    return f", or {elsewhere}" if " — run " in problem else f" — {elsewhere}"


def _message(what: str, path: Path, culprit: Path, problem: str, elsewhere: str) -> str:
    if culprit != path:
        return f"The {what} {path} goes through {culprit}, which {problem}{_or(problem, elsewhere)}"
    return f"The {what} {path} {problem}{_or(problem, elsewhere)}"


def _owner_trusted(info: os.stat_result) -> bool:
    return info.st_uid in (os.geteuid(), 0)


def _owned(info: os.stat_result) -> str:
    try:
        name = pwd.getpwuid(info.st_uid).pw_name
    except KeyError:
        name = f"uid {info.st_uid}"
    return f"belongs to another account ({name})"


def _group_name(info: os.stat_result) -> str:
    try:
        return grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        return str(info.st_gid)


def _lstat(path: Path, what: str, named: Path) -> os.stat_result:
    try:
        return os.lstat(path)
    except OSError as exc:
        raise ConfigError(f"Cannot check the {what} {named}: {exc.strerror or exc}") from exc


@functools.cache
def _yours_alone(gid: int, uid: int) -> bool:
    """Is ``gid`` a group only ``uid`` is in (as Debian's OpenSSH asks)? A group with no
    member at all is not (setgid programs use those)."""
    try:
        group = grp.getgrgid(gid)
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        return False
    primary = [entry.pw_uid for entry in pwd.getpwall() if entry.pw_gid == gid]
    if any(member != uid for member in primary):
        return False
    if any(member != name for member in group.gr_mem):
        return False
    return bool(primary or group.gr_mem)


def has_acl(path: Path) -> bool:
    """Does ``path`` carry ACL entries beyond its mode bits (then its group bits are a mask)?
    The xattr is a 4-byte header and 8 bytes an entry; the three base entries (owner, group,
    other) say no more than the mode does."""
    try:
        return len(os.getxattr(path, "system.posix_acl_access", follow_symlinks=False)) > 4 + 8 * 3
    except OSError:
        return False
