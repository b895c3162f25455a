"""A home or config another local account owns or can write is refused (issue 33, item 1).

Such a config could name a model server (or a PostgreSQL server) of the other account's, and
every memory, search and chat prompt would go to it. The tests play that account (the
``intruder`` fixture; the suite runs as root): a home under a folder it can write, a home it
made first with its own config, a config it can write, owns or reaches through a link of its
own. Each is refused with one line naming the path and the fix, exit 2, nothing written and
nothing sent: a listener stands in for the server the config names and counts connections.
The rules themselves (aria_mem.ownership) are tested through ``config.load``; a private home,
a home under a sticky folder like /tmp, a link of our own and a folder above that the embedded
PostgreSQL's account may only pass through (an ACL) are still trusted.
"""

from __future__ import annotations

import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from aria_mem import config
from aria_mem.adapters.postgres import embedded, posix_acl
from aria_mem.adapters.service.folder import stop_service
from aria_mem.errors import ConfigError
from tests.accounts import Intruder
from tests.conftest import ROOT, CliResult
from tests.fakes.ollama_server import FakeOllama

needs_root = pytest.mark.skipif(
    os.geteuid() != 0, reason="giving files to another account needs root"
)


class Listener:
    """A TCP port that counts who connects: the server a planted config would name."""

    def __init__(self) -> None:
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen()
        self._sock.settimeout(0.2)
        self.port = int(self._sock.getsockname()[1])
        self.connections = 0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        while not self._done.is_set():
            try:
                conn, _ = self._sock.accept()
            except TimeoutError:
                continue
            self.connections += 1
            conn.close()

    def close(self) -> None:
        self._done.set()
        self._thread.join()
        self._sock.close()

    def config(self) -> str:
        url = f"http://127.0.0.1:{self.port}"
        return (
            f'[embedder]\nprovider = "ollama"\nhost = "{url}"\n\n'
            f'[postgres]\ndsn = "postgresql://u:p@127.0.0.1:{self.port}/memories"\n'
        )


@pytest.fixture
def listener() -> Iterator[Listener]:
    server = Listener()
    yield server
    server.close()


@pytest.fixture
def shared() -> Iterator[Path]:
    """A folder like /tmp (1777): every account may add names to it."""
    folder = Path(tempfile.mkdtemp(prefix="aria-trust-"))
    folder.chmod(0o1777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _aria(
    home: Path, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("ARIA_MEM_") and key not in ("OLLAMA_HOST", "XDG_RUNTIME_DIR")
    }
    return subprocess.run(
        [sys.executable, "-m", "aria_mem", *args],
        capture_output=True,
        text=True,
        env={**clean, "ARIA_MEM_HOME": str(home), "NO_COLOR": "1", **(env or {})},
        cwd=ROOT,
        timeout=120,
    )


def _refused(done: subprocess.CompletedProcess[str], *words: str) -> str:
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _files(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


COMMANDS = [
    ("remember", "The user's bank PIN is 4921."),
    ("search", "bank PIN"),
    ("init",),
]


# -- the second account, end to end ------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_home_under_a_folder_others_can_write_is_refused(
    command: tuple[str, ...], tmp_path: Path, listener: Listener
) -> None:
    open_folder = tmp_path / "open"
    open_folder.mkdir()
    open_folder.chmod(0o777)  # no sticky bit: any account could swap the home for its own
    home = open_folder / "home"
    server = f"http://127.0.0.1:{listener.port}"
    done = _aria(home, *command, env={"ARIA_MEM_EMBEDDER_HOST": server, "OLLAMA_HOST": server})
    line = _refused(done, str(open_folder), "no sticky bit", f"chmod o-w {open_folder}")
    assert "ARIA_MEM_HOME" in line
    assert not home.exists() and _files(open_folder) == []
    assert listener.connections == 0


_MAKE_HOME = """
    import json, os, sys
    home = sys.argv[1]
    os.mkdir(home, 0o755)
    with open(os.path.join(home, "config.toml"), "w") as handle:
        handle.write(sys.argv[2])
    print(json.dumps({"made": home}))
"""


@needs_root
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_home_another_account_made_first_is_refused_and_its_server_gets_nothing(
    command: tuple[str, ...], intruder: Intruder, shared: Path, listener: Listener
) -> None:
    home = shared / "aria-home"
    intruder.run(_MAKE_HOME, str(home), listener.config())
    before = _files(home)
    line = _refused(_aria(home, *command), str(home), intruder.name, "unset ARIA_MEM_HOME")
    assert "belongs to another account" in line
    assert _files(home) == before and home.stat().st_uid == intruder.uid
    assert listener.connections == 0


def _own_home(home: Path, text: str) -> Path:
    home.mkdir(mode=0o700)
    path = home / "config.toml"
    path.write_text(text)
    path.chmod(0o600)
    return path


@needs_root
@pytest.mark.parametrize(
    ("mode", "by_group", "words"),
    [
        (0o620, True, "writable by the group"),
        (0o602, False, "writable by every account"),
        (0o666, False, "writable by every account"),
    ],
    ids=["group", "others", "everyone"],
)
def test_a_config_other_accounts_can_write_is_refused(
    mode: int,
    by_group: bool,
    words: str,
    intruder: Intruder,
    tmp_path: Path,
    listener: Listener,
) -> None:
    home = tmp_path / "home"
    path = _own_home(home, listener.config())
    if by_group:
        os.chown(path, -1, intruder.gid)
    path.chmod(mode)
    line = _refused(_aria(home, "remember", "The user's bank PIN is 4921."), str(path), words)
    assert f"chmod go-w {path}" in line
    assert _files(home) == ["config.toml"] and listener.connections == 0


@needs_root
def test_a_config_another_account_owns_is_refused(
    intruder: Intruder, tmp_path: Path, listener: Listener
) -> None:
    home = tmp_path / "home"
    path = _own_home(home, listener.config())
    os.chown(path, intruder.uid, intruder.gid)  # 0600, but theirs: they wrote what it says
    line = _refused(_aria(home, "search", "bank PIN"), str(path), intruder.name, "aria-mem init")
    assert "belongs to another account" in line
    assert _files(home) == ["config.toml"] and listener.connections == 0


@needs_root
def test_a_config_reached_through_a_link_another_account_owns_is_refused(
    intruder: Intruder, tmp_path: Path, listener: Listener
) -> None:
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    target = tmp_path / "theirs.toml"
    target.write_text(listener.config())
    target.chmod(0o600)  # even a file of ours: the link is theirs to point elsewhere
    link = home / "config.toml"
    link.symlink_to(target)
    os.lchown(link, intruder.uid, intruder.gid)
    line = _refused(_aria(home, "remember", "The user's bank PIN is 4921."), str(link))
    assert f"symbolic link that belongs to another account ({intruder.name})" in line
    assert _files(home) == ["config.toml"] and listener.connections == 0


@needs_root
def test_a_config_given_with_config_in_a_folder_of_another_account_is_refused(
    intruder: Intruder, tmp_path: Path, listener: Listener
) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    path = theirs / "config.toml"
    path.write_text(listener.config())
    path.chmod(0o644)
    os.chown(theirs, intruder.uid, intruder.gid)
    done = _aria(tmp_path / "home", "--config", str(path), "search", "bank PIN")
    line = _refused(done, f"The folder {theirs} above the config file {path}", intruder.name)
    assert "--config" in line and listener.connections == 0


# -- what stays trusted --------------------------------------------------------------------


@pytest.mark.parametrize("where", ["private", "under-a-sticky-folder"])
def test_a_home_of_ours_still_works(
    where: str, tmp_path: Path, shared: Path, fake_ollama: FakeOllama
) -> None:
    home = (tmp_path if where == "private" else shared) / "home"
    env = {"ARIA_MEM_EMBEDDER_HOST": fake_ollama.url}
    try:
        for args in (("init", "--provider", "ollama"), ("remember", "Sam likes tea.")):
            done = _aria(home, *args, env=env)
            assert done.returncode == 0, done.stderr
        assert fake_ollama.state.embed_calls
    finally:
        stop_service(home / "data" / "index")
        embedded.stop(home / "data" / "postgres")


def _config_at(home: Path) -> Path:
    home.mkdir(mode=0o700, exist_ok=True)
    path = home / "config.toml"
    path.write_text('[identity]\nuser = "sam"\n')
    path.chmod(0o600)
    return path


def test_a_link_of_ours_to_a_trusted_config_is_followed(isolated_env: Path, tmp_path: Path) -> None:
    target = _config_at(tmp_path / "elsewhere")
    isolated_env.mkdir(mode=0o700)
    (isolated_env / "config.toml").symlink_to(target)
    assert config.load().identity.user == "sam"


@needs_root
def test_a_link_of_ours_to_a_config_of_another_account_is_refused(
    intruder: Intruder, isolated_env: Path, tmp_path: Path
) -> None:
    target = _config_at(tmp_path / "elsewhere")
    os.chown(target, intruder.uid, intruder.gid)
    isolated_env.mkdir(mode=0o700)
    (isolated_env / "config.toml").symlink_to(target)
    with pytest.raises(ConfigError, match=f"goes through {target}, which belongs to another"):
        config.load()


@needs_root
def test_a_folder_above_that_another_account_owns_is_refused_even_closed(
    intruder: Intruder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    above = tmp_path / "theirs"
    above.mkdir(mode=0o755)
    os.chown(above, intruder.uid, intruder.gid)  # they may open it again whenever they like
    monkeypatch.setenv("ARIA_MEM_HOME", str(above / "home"))
    with pytest.raises(ConfigError, match=f"The folder {above} above the aria-mem home"):
        config.load()
    assert not (above / "home").exists()


@needs_root
def test_a_group_folder_is_trusted_only_when_the_group_is_ours_alone(
    intruder: Intruder, isolated_env: Path
) -> None:
    _config_at(isolated_env)
    isolated_env.chmod(0o770)  # root's own group (umask 002 on a per-user-group system)
    assert config.load().identity.user == "sam"
    os.chown(isolated_env, -1, intruder.gid)
    with pytest.raises(ConfigError, match=f"writable by the group .* chmod go-w {isolated_env}"):
        config.load()


def test_a_home_others_can_write_is_refused_even_under_a_sticky_folder(
    shared: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = shared / "home"
    _config_at(home)
    home.chmod(0o1777)  # the sticky bit protects names in a folder above, not the home itself
    monkeypatch.setenv("ARIA_MEM_HOME", str(home))
    with pytest.raises(ConfigError, match="writable by every account"):
        config.load()


@needs_root
def test_an_acl_that_lets_one_account_pass_through_is_no_write(
    intruder: Intruder, isolated_env: Path
) -> None:
    _config_at(isolated_env)
    posix_acl.grant_execute(isolated_env, intruder.uid)  # what the embedded server's account gets
    posix_acl.grant_execute(isolated_env.parent, intruder.uid)
    assert stat.S_IMODE(isolated_env.stat().st_mode) & 0o070 == 0o010  # the mask: x, no w
    assert config.load().identity.user == "sam"


def test_a_missing_config_is_fine_but_its_folder_is_checked(
    isolated_env: Path, tmp_path: Path
) -> None:
    assert config.load().identity  # no home yet: defaults
    isolated_env.mkdir(mode=0o700)
    isolated_env.chmod(0o707)
    with pytest.raises(ConfigError, match=f"The aria-mem home {isolated_env} is writable"):
        config.load()


def test_a_device_is_said_to_be_no_file_rather_than_writable(cli: Callable[..., CliResult]) -> None:
    refused = cli("--config", "/dev/zero", "list")  # 0666, root's: the clearer reason first
    assert refused.code == 2 and "is not a regular file" in refused.stderr
