"""A PostgreSQL server named by [postgres] dsn over TCP on this machine is connected to only
when this person's account runs it, or root, or a system account (the system PostgreSQL runs
as ``postgres``), or [postgres] trust_account names the account that does: should the system
server stop, another person's program listening on its port would otherwise receive the
DSN's password and every memory. The other person is a real second account
(tests/accounts.py) running a listener that counts every byte it is sent."""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from psycopg_pool import PoolTimeout

from aria_mem.adapters.postgres.daemon_lock import PgDaemonLock
from aria_mem.adapters.postgres.server_owner import ServerOwner, socket_files, tcp_addresses
from aria_mem.adapters.postgres.store import PostgresStore
from aria_mem.errors import StoreError
from tests import accounts
from tests.accounts import Intruder
from tests.conftest import CliResult

Cli = Callable[..., CliResult]
neighbour = accounts.neighbour  # the fixture: another person's account

RECORDER = textwrap.dedent(
    """
    import json, os, socket, sys, threading
    if len(sys.argv) > 1:  # a socket file in the folder given, as a server's
        server = socket.socket(socket.AF_UNIX)
        server.bind(os.path.join(sys.argv[1], ".s.PGSQL.5432"))
    else:
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
    server.listen(16)
    print(server.getsockname()[1] if len(sys.argv) == 1 else 0, flush=True)
    got = {"connections": 0, "bytes": 0}

    def serve():
        while True:
            one, _ = server.accept()
            got["connections"] += 1
            one.settimeout(2)
            try:
                while data := one.recv(65536):
                    got["bytes"] += len(data)
            except OSError:
                pass
            one.close()

    threading.Thread(target=serve, daemon=True).start()
    sys.stdin.readline()
    print(json.dumps(got), flush=True)
    """
)


class Recorder:
    def __init__(self, process: subprocess.Popen[str]) -> None:
        assert process.stdout is not None
        self.process = process
        self.port = int(process.stdout.readline())
        self.dsn = f"postgresql://aria:the-password@127.0.0.1:{self.port}/aria"

    def got(self) -> dict[str, int]:
        """What reached it; it stops."""
        out, _ = self.process.communicate("done\n", timeout=30)
        found: dict[str, int] = json.loads(out.strip().splitlines()[-1])
        return found


@pytest.fixture
def theirs(neighbour: Intruder) -> Iterator[Recorder]:
    recorder = Recorder(neighbour.start(RECORDER))
    yield recorder
    if recorder.process.poll() is None:
        recorder.process.kill()
        recorder.process.wait(timeout=30)


def _refusal(recorder: Recorder, account: Intruder) -> str:
    return (
        f"postgresql://127.0.0.1:{recorder.port} is served by account '{account.name}' "
        f"(uid {account.uid}), not you — nothing sent (it would receive the password of "
        "[postgres] dsn and every memory)"
    )


def test_the_store_connects_to_nothing_another_person_runs(
    neighbour: Intruder, theirs: Recorder
) -> None:
    store = PostgresStore(theirs.dsn, connect_timeout=2)
    with pytest.raises(StoreError) as refused:
        store.migrate()
    said = str(refused.value)
    assert _refusal(theirs, neighbour) in said and "\n" not in said
    assert f"set [postgres] trust_account = '{neighbour.name}'" in said
    with pytest.raises(StoreError, match="not you — nothing sent"):
        PgDaemonLock(theirs.dsn, 2).try_acquire()
    pool = store.db._new_pool(0)  # the pool connects in the background: each connect asks
    with pytest.raises(PoolTimeout), pool.connection(timeout=1.5):
        pass
    pool.close()
    store.close()
    assert theirs.got() == {"connections": 0, "bytes": 0}


def test_a_server_trust_account_names_is_connected_to(
    neighbour: Intruder, theirs: Recorder
) -> None:
    _trusted_reaches(theirs, neighbour)


def _trusted_reaches(recorder: Recorder, account: Intruder) -> None:
    """With ``account`` trusted, the store's connections reach its listener."""
    store = PostgresStore(recorder.dsn, connect_timeout=1, trust_account=account.name)
    with pytest.raises(StoreError) as failed:  # it is no PostgreSQL: the attempt fails
        store.migrate()
    assert "not you" not in str(failed.value)
    store.close()
    got = recorder.got()
    assert got["connections"] >= 1 and got["bytes"] > 0


def test_a_command_says_why_in_one_line_and_sends_nothing(
    cli: Cli, neighbour: Intruder, theirs: Recorder
) -> None:
    done = cli("list", env={"ARIA_MEM_POSTGRES_DSN": theirs.dsn})
    assert done.code != 0 and "Traceback" not in done.stderr
    said = " ".join((done.stdout + done.stderr).split())
    assert _refusal(theirs, neighbour) in said, said
    assert "the-password" not in said
    assert theirs.got() == {"connections": 0, "bytes": 0}


def test_the_addresses_judged_are_those_libpq_tries(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PGHOST", raising=False)
    monkeypatch.delenv("PGPORT", raising=False)
    assert tcp_addresses("postgresql://u@127.0.0.1:6000/x") == [("127.0.0.1", 6000)]
    assert tcp_addresses("postgresql://u@localhost/x") == [("localhost", 5432)]
    assert tcp_addresses("host=a,/run/pg,b port=1,2,3") == [("a", 1), ("b", 3)]
    assert tcp_addresses("hostaddr=127.0.0.1 host=db port=7") == [("127.0.0.1", 7)]
    assert tcp_addresses("host=/tmp dbname=x") == [] == tcp_addresses("postgresql:///x")
    assert tcp_addresses("host=a,b port=5433,") == [("a", 5433), ("b", 5432)]
    assert tcp_addresses("host=a,b hostaddr=127.0.0.1,") == [("127.0.0.1", 5432), ("b", 5432)]
    monkeypatch.setenv("PGHOST", "127.0.0.1")
    monkeypatch.setenv("PGPORT", "6001")
    assert tcp_addresses("dbname=x") == [("127.0.0.1", 6001)]
    monkeypatch.setenv("PGHOSTADDR", "127.0.0.1")  # it wins over a socket the DSN names
    assert tcp_addresses("host=/run/aria dbname=x") == [("127.0.0.1", 6001)]


def test_a_service_s_address_is_judged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """libpq takes what the DSN leaves out from the service it names: so does the check."""
    services = tmp_path / "pg_service.conf"
    services.write_text("[aria]\nhost=127.0.0.1\nport=5544\ndbname=aria\n")
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    for name in ("PGHOST", "PGPORT", "PGHOSTADDR", "PGSERVICE"):
        monkeypatch.delenv(name, raising=False)
    assert tcp_addresses("service=aria") == [("127.0.0.1", 5544)]
    assert tcp_addresses("service=aria port=7") == [("127.0.0.1", 7)]
    monkeypatch.setenv("PGSERVICE", "aria")
    assert tcp_addresses("dbname=other") == [("127.0.0.1", 5544)]
    assert tcp_addresses("service=none") == []


@pytest.fixture
def their_socket(neighbour: Intruder) -> Iterator[tuple[Recorder, Path]]:
    """The other person's listener on the socket a DSN's ``host=FOLDER`` names, in a folder
    every account may write (as /tmp is), where every account can reach it."""
    folder = Path(tempfile.mkdtemp(prefix="aria-shared-", dir="/tmp"))
    folder.chmod(0o1777)
    recorder = Recorder(neighbour.start(RECORDER, str(folder)))
    recorder.dsn = f"host={folder} port=5432 dbname=aria user=aria password=the-password"
    yield recorder, folder / ".s.PGSQL.5432"
    if recorder.process.poll() is None:
        recorder.process.kill()
        recorder.process.wait(timeout=30)
    shutil.rmtree(folder, ignore_errors=True)


def test_a_socket_another_person_made_is_not_connected_to(
    neighbour: Intruder, their_socket: tuple[Recorder, Path]
) -> None:
    """``host=/tmp``: whoever makes .s.PGSQL.5432 there first gets the password and every
    memory (from a stranger's audit); its owner is asked, as a port's is."""
    recorder, path = their_socket
    store = PostgresStore(recorder.dsn, connect_timeout=2)
    with pytest.raises(StoreError) as refused:
        store.migrate()
    said = str(refused.value)
    assert (
        f"{path} is served by account '{neighbour.name}' (uid {neighbour.uid}), not you — "
        "nothing sent (it would receive the password of [postgres] dsn and every memory)"
    ) in said and "\n" not in said
    store.close()
    _trusted_reaches(recorder, neighbour)  # the trusted store's attempts alone


def test_the_sockets_judged_are_those_libpq_tries(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("PGHOST", "PGPORT", "PGHOSTADDR", "PGREQUIREPEER", "PGSERVICE"):
        monkeypatch.delenv(name, raising=False)
    assert socket_files("host=/tmp dbname=x") == [Path("/tmp/.s.PGSQL.5432")]
    assert socket_files("postgresql:///x") == [Path("/var/run/postgresql/.s.PGSQL.5432")]
    assert socket_files("host=/a,db,/b port=1,2,3") == [
        Path("/a/.s.PGSQL.1"),
        Path("/b/.s.PGSQL.3"),
    ]
    assert socket_files("host=/tmp hostaddr=127.0.0.1") == []  # TCP to the address instead
    assert socket_files("host=/tmp requirepeer=postgres") == []  # libpq checks it itself
    assert socket_files("postgresql://u@127.0.0.1/x") == []
    monkeypatch.setenv("PGHOST", "/run/pg")
    assert socket_files("dbname=x") == [Path("/run/pg/.s.PGSQL.5432")]
    default = Path("/var/run/postgresql/.s.PGSQL.5432")  # an empty host: libpq's default
    assert socket_files("host='' dbname=x") == [default]
    assert socket_files("host=,/tmp dbname=x") == [default, Path("/tmp/.s.PGSQL.5432")]


def test_a_service_file_is_trusted_only_as_a_config_is_and_read_at_each_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, neighbour: Intruder, theirs: Recorder
) -> None:
    """A service file names the server as a DSN does (from a stranger's audit): one another
    account could write, or one that finds its server through LDAP, is refused; and as libpq
    reads it at each connection, so does the check (an edit after the store was made)."""
    for name in ("PGHOST", "PGPORT", "PGHOSTADDR", "PGSERVICE", "PGREQUIREPEER"):
        monkeypatch.delenv(name, raising=False)
    services = tmp_path / "pg_service.conf"
    monkeypatch.setenv("PGSERVICEFILE", str(services))
    services.write_text("[aria]\nhost=127.0.0.1\nport=5432\n")
    owner = ServerOwner("service=aria dbname=postgres")
    owner.check()  # the system PostgreSQL, run by the system account postgres
    services.write_text(f"[aria]\nhost=127.0.0.1\nport={theirs.port}\n")
    with pytest.raises(StoreError, match=f"served by account '{neighbour.name}'"):
        owner.check()
    services.chmod(0o666)
    with pytest.raises(StoreError, match="writable by every account"):
        owner.check()
    services.chmod(0o600)
    services.write_text("[aria]\nldap://ldap.example/dc=example?uniqueMember?one?(cn=aria)\n")
    with pytest.raises(StoreError, match="through LDAP"):
        ServerOwner("service=aria")
    assert theirs.got() == {"connections": 0, "bytes": 0}
