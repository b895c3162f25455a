"""Where a person names a file (`export -o`, `conversations export -o`), aria-mem writes a
regular file of theirs and nothing else: a FIFO, a symbolic link, a device or another
account's file planted at that name in a folder others can write (/tmp) is refused, and
nothing is written through it. A file is written beside its target and renamed into place,
so a reader never sees half an export and a failed export leaves the old file whole.

The planted-by-another-account cases need root (to create the second account); the rest run
as anyone."""

from __future__ import annotations

import json
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aria_mem.errors import UsageError
from aria_mem.private import open_private_output
from tests.accounts import Intruder
from tests.conftest import CliResult

Cli = Callable[..., CliResult]
SECRET = "The user's bank PIN is 4921."
EXPORTS = (["export", "-o"], ["conversations", "export", "-o"])


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder like /tmp: anyone may create names in it, only their owner may remove them."""
    folder = Path(tempfile.mkdtemp(prefix="aria-shared-"))
    folder.chmod(0o1777)
    yield folder
    for entry in folder.iterdir():
        entry.unlink()
    folder.rmdir()


def _refused(result: CliResult) -> None:
    assert result.code == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: Cannot write"), result.stderr


def _no_leftovers(folder: Path, *expected: str) -> None:
    assert sorted(p.name for p in folder.iterdir()) == sorted(expected)


@pytest.mark.parametrize("command", EXPORTS, ids=["export", "conversations-export"])
def test_a_fifo_at_the_target_receives_nothing(
    cli: Cli, env: dict[str, str], shared_tmp: Path, command: list[str]
) -> None:
    assert cli("remember", SECRET, env=env).code == 0
    fifo = shared_tmp / "export.jsonl"
    os.mkfifo(fifo, 0o666)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        result = cli(*command, str(fifo), env=env, timeout=60)
        _refused(result)
        assert "is a FIFO" in result.stderr
        try:
            received = os.read(reader, 65536)
        except BlockingIOError:
            received = b""
        assert received == b""
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    _no_leftovers(shared_tmp, "export.jsonl")


@pytest.mark.parametrize("command", EXPORTS, ids=["export", "conversations-export"])
def test_a_symlink_at_the_target_is_not_followed(
    cli: Cli, env: dict[str, str], shared_tmp: Path, tmp_path: Path, command: list[str]
) -> None:
    assert cli("remember", SECRET, env=env).code == 0
    victim = tmp_path / "victim.conf"
    victim.write_text("precious\n")
    victim.chmod(0o644)
    link = shared_tmp / "export.jsonl"
    link.symlink_to(victim)
    result = cli(*command, str(link), env=env)
    _refused(result)
    assert "is a symbolic link" in result.stderr
    assert victim.read_text() == "precious\n"
    assert stat.S_IMODE(victim.stat().st_mode) == 0o644
    assert link.is_symlink()
    _no_leftovers(shared_tmp, "export.jsonl")


@pytest.mark.parametrize("target", ["/dev/null", "folder"])
def test_a_device_or_a_folder_is_not_an_export_file(
    cli: Cli, env: dict[str, str], tmp_path: Path, target: str
) -> None:
    path = target if target.startswith("/") else str(tmp_path)
    result = cli("export", "-o", path, env=env)
    _refused(result)
    assert ("a device" if target.startswith("/") else "a folder") in result.stderr


def test_an_export_replaces_a_file_of_ours_whole_and_private(
    cli: Cli, env: dict[str, str], tmp_path: Path
) -> None:
    assert cli("remember", SECRET, env=env).code == 0
    out = tmp_path / "out" / "memories.jsonl"
    out.parent.mkdir()
    out.write_text("an older export, longer than the new one\n" * 100)
    out.chmod(0o644)
    result = cli("export", "-o", str(out), env=env)
    assert result.code == 0, result.stderr
    lines = out.read_text().splitlines()
    assert [json.loads(line)["text"] for line in lines] == [SECRET]
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    _no_leftovers(out.parent, "memories.jsonl")


def test_a_failed_export_leaves_the_old_file_whole(tmp_path: Path) -> None:
    out = tmp_path / "memories.jsonl"
    out.write_text("the old export\n")

    class Broken(Exception):
        pass

    with pytest.raises(Broken), open_private_output(out) as stream:
        stream.write("half of a new export")
        raise Broken
    assert out.read_text() == "the old export\n"
    _no_leftovers(tmp_path, "memories.jsonl")


def test_a_missing_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="No such file or directory"):
        open_private_output(tmp_path / "nowhere" / "x.jsonl").__enter__()


# -- planted by a second local account ---------------------------------------------------------


def _plant(account: Intruder, code: str, *args: str) -> None:
    assert account.run(code, *args) == {"ok": True}


_PLANT_FIFO = """
    import json, os, sys
    os.mkfifo(sys.argv[1], 0o666)
    print(json.dumps({"ok": True}))
"""
_PLANT_LINK = """
    import json, os, sys
    os.symlink(sys.argv[2], sys.argv[1])
    print(json.dumps({"ok": True}))
"""
_PLANT_FILE = """
    import json, os, sys
    with open(sys.argv[1], "w") as handle:
        handle.write("mine\\n")
    os.chmod(sys.argv[1], 0o644)
    print(json.dumps({"ok": True}))
"""


def test_what_another_account_plants_in_tmp_is_refused(
    cli: Cli,
    env: dict[str, str],
    intruder: Intruder,
    shared_tmp: Path,
    tmp_path: Path,
) -> None:
    assert cli("remember", SECRET, env=env).code == 0
    root_file = tmp_path / "root-owned.conf"
    root_file.write_text("root's\n")
    root_file.chmod(0o644)
    tmp_path.chmod(0o755)

    _plant(intruder, _PLANT_FIFO, str(shared_tmp / "fifo.jsonl"))
    _plant(intruder, _PLANT_LINK, str(shared_tmp / "link.jsonl"), str(root_file))
    _plant(intruder, _PLANT_FILE, str(shared_tmp / "theirs.jsonl"))

    reader = os.open(shared_tmp / "fifo.jsonl", os.O_RDONLY | os.O_NONBLOCK)
    try:
        for name, why in (
            ("fifo.jsonl", "is a FIFO"),
            ("link.jsonl", "is a symbolic link"),
            ("theirs.jsonl", "belongs to another account"),
        ):
            for command in EXPORTS:
                result = cli(*command, str(shared_tmp / name), env=env, timeout=60)
                _refused(result)
                assert why in result.stderr, result.stderr
        try:
            received = os.read(reader, 65536)
        except BlockingIOError:
            received = b""
    finally:
        os.close(reader)
    assert received == b""
    assert root_file.read_text() == "root's\n"
    assert stat.S_IMODE(root_file.stat().st_mode) == 0o644
    theirs = shared_tmp / "theirs.jsonl"
    assert theirs.read_text() == "mine\n" and theirs.stat().st_uid == intruder.uid
    _no_leftovers(shared_tmp, "fifo.jsonl", "link.jsonl", "theirs.jsonl")
