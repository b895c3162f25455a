"""The test suite's cluster template (``embedded.TEMPLATE_VARIABLE``) is copied only when the
server's own account made it and no one else can enter it: its configuration would run as
that account."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aria_mem.adapters.postgres import embedded


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    made = tmp_path_factory.mktemp("template")
    made.chmod(0o755)
    embedded.make_template(made / "pg")
    return made / "pg"


def _password(pgdata: Path) -> str:
    return embedded.password_file(pgdata).read_text().strip()


@pytest.mark.parametrize("mode", [0o700, 0o750])
def test_a_new_cluster_copies_only_a_private_template(
    template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: int
) -> None:
    template.chmod(mode)
    monkeypatch.setenv(embedded.TEMPLATE_VARIABLE, str(template))
    home = tmp_path / "home"
    home.mkdir(mode=0o755)
    try:
        embedded.ensure_running(home / "pg")
        copied = _password(home / "pg") == _password(template)
        assert copied is (mode == 0o700)
    finally:
        embedded.stop(home / "pg")
        template.chmod(0o700)
    assert os.stat(home / "pg").st_mode & 0o077 == 0
