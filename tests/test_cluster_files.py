"""When aria-mem runs as root the embedded server runs as the system account
``embedded_postgres``, which can write the data folder and ``postmaster.pid``: root writes
there without following a link that account planted, and removes only a socket folder aria-mem
made, whatever ``postmaster.pid`` names (a stranger's audit: a planted ``pg_hba.conf`` link
had root write and give away the file it named; a socket folder named in ``postmaster.pid``
had root delete any tree)."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from aria_mem.adapters.postgres.cluster_files import SOCKET_FOLDER, made_socket_folder
from aria_mem.private import write_private


def test_a_file_written_for_the_server_never_goes_through_a_planted_link(tmp_path: Path) -> None:
    precious = tmp_path / "precious"
    precious.write_text("the owner's own\n")
    precious.chmod(0o600)
    hba = tmp_path / "pgdata" / "pg_hba.conf"
    hba.parent.mkdir()
    hba.symlink_to(precious)
    write_private(hba, "local all all scram-sha-256\n", owner=(os.getuid(), os.getgid()))
    assert precious.read_text() == "the owner's own\n"
    assert stat.S_IMODE(precious.stat().st_mode) == 0o600
    assert not hba.is_symlink() and hba.read_text() == "local all all scram-sha-256\n"
    assert stat.S_IMODE(hba.stat().st_mode) == 0o600


def test_only_a_socket_folder_aria_mem_made_is_taken_for_one(tmp_path: Path) -> None:
    pgdata = tmp_path / "pgdata"
    made = Path(tempfile.mkdtemp(prefix=SOCKET_FOLDER))
    linked = Path(tempfile.gettempdir()) / f"{SOCKET_FOLDER}linked"
    linked.symlink_to(tmp_path)
    try:
        assert made_socket_folder(pgdata, pgdata, os.getuid())
        assert made_socket_folder(made, pgdata, os.getuid())
        assert not made_socket_folder(tmp_path, pgdata, os.getuid())  # someone's tree
        assert not made_socket_folder(made / ".." / ".." / "home", pgdata, os.getuid())
        assert not made_socket_folder(Path(f"{made}/../{tmp_path.name}"), pgdata, os.getuid())
        assert not made_socket_folder(linked, pgdata, os.getuid())  # a link, whatever its name
        assert not made_socket_folder(Path(SOCKET_FOLDER), pgdata, os.getuid())  # relative
        assert not made_socket_folder(made, pgdata, os.getuid() + 1)  # another server's
    finally:
        linked.unlink()
        made.rmdir()


def test_the_cluster_s_access_file_is_written_without_following_a_planted_link(
    tmp_path: Path,
) -> None:
    from aria_mem.adapters.postgres import embedded
    from aria_mem.adapters.postgres.server_account import Account

    precious = tmp_path / "shadow"
    precious.write_text("root:secret\n")
    precious.chmod(0o600)
    pgdata = tmp_path / "pgdata"
    pgdata.mkdir()
    (pgdata / "pg_hba.conf").symlink_to(precious)
    embedded._write_hba(pgdata, Account("nobody", 65534, 65534))
    assert precious.read_text() == "root:secret\n"
    assert (precious.stat().st_uid, stat.S_IMODE(precious.stat().st_mode)) == (os.getuid(), 0o600)
    hba = pgdata / "pg_hba.conf"
    assert not hba.is_symlink() and embedded.HBA_MARKER in hba.read_text()
    assert hba.stat().st_uid == (65534 if os.geteuid() == 0 else os.getuid())


def test_a_dead_servers_lock_is_cleared_only_in_a_folder_aria_mem_made(tmp_path: Path) -> None:
    from aria_mem.adapters.postgres import old_server

    pgdata = tmp_path / "pgdata"
    pgdata.mkdir()
    elsewhere = tmp_path / "home"
    elsewhere.mkdir()
    kept = elsewhere / ".s.PGSQL.5432.lock"
    kept.write_text("4242\n")
    lines = ["4242", str(pgdata), "0", "5432", str(elsewhere), "", "", "ready"]
    (pgdata / "postmaster.pid").write_text("\n".join(lines) + "\n")
    old_server._clear_locks(pgdata, 4242, os.getuid())
    assert kept.exists()  # named by postmaster.pid, which the server's account writes
    assert not (pgdata / "postmaster.pid").exists()
