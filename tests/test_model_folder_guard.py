"""A model folder named in [embedder] model is loaded and run in the aria-mem service, so it is
held to the rule for everything aria-mem trusts: the folder, every folder above it and every
file and folder in it belong to this account (or root) and no other account can write them.
The other person is a real second account (tests/accounts.py) that owns one of its files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from aria_mem.adapters.embedders.local_model import SentenceTransformerEmbedder
from aria_mem.errors import EmbedderError
from tests import accounts
from tests.accounts import Intruder
from tests.test_plain_bert import _copy

neighbour = accounts.neighbour  # the fixture: another person's account


def _model(tmp_path: Path) -> Path:
    """The bundled model as a folder of this account's own, its config a file of its own."""
    return _copy(tmp_path, {"config.json": {}})


def test_a_model_folder_of_ones_own_is_loaded(tmp_path: Path) -> None:
    embedder = SentenceTransformerEmbedder(str(_model(tmp_path)))
    [vector] = embedder.embed(["The user swims."])
    assert len(vector) == 384 and embedder.loaded


def test_a_file_in_the_model_folder_every_account_can_write_is_refused_unloaded(
    tmp_path: Path,
) -> None:
    folder = _model(tmp_path)
    os.chmod(folder / "config.json", 0o666)
    embedder = SentenceTransformerEmbedder(str(folder))
    with pytest.raises(EmbedderError) as refused:
        embedder.embed(["The user swims."])
    said = str(refused.value)
    config = folder / "config.json"
    assert f"The file in the model folder {config} is writable by every account" in said
    assert f"run chmod go-w {folder / 'config.json'}" in said and "\n" not in said
    assert not embedder.loaded


def test_a_file_another_account_owns_in_the_model_folder_is_refused(
    tmp_path: Path, neighbour: Intruder
) -> None:
    folder = _model(tmp_path)
    os.chown(folder / "config.json", neighbour.uid, neighbour.gid)
    embedder = SentenceTransformerEmbedder(str(folder))
    with pytest.raises(EmbedderError, match=f"belongs to another account \\({neighbour.name}\\)"):
        embedder.embed(["The user swims."])
    assert not embedder.loaded


def test_a_model_folder_another_account_owns_is_refused(
    tmp_path: Path, neighbour: Intruder
) -> None:
    folder = _model(tmp_path)
    os.chown(folder, neighbour.uid, neighbour.gid)
    with pytest.raises(EmbedderError, match="set \\[embedder\\] model to a folder only you"):
        SentenceTransformerEmbedder(str(folder)).embed(["The user swims."])


def test_a_link_in_the_model_folder_to_another_account_s_file_is_refused(
    tmp_path: Path, neighbour: Intruder
) -> None:
    """The link is this account's own; what it points at is judged too."""
    theirs = tmp_path / "theirs.json"
    theirs.write_text("{}")
    os.chown(theirs, neighbour.uid, neighbour.gid)
    folder = _model(tmp_path)
    (folder / "config.json").unlink()
    (folder / "config.json").symlink_to(theirs)
    with pytest.raises(EmbedderError, match="theirs.json, which belongs to another account"):
        SentenceTransformerEmbedder(str(folder)).embed(["The user swims."])


def test_a_linked_folder_in_the_model_folder_is_checked_through(tmp_path: Path) -> None:
    """The loader reads what a linked folder holds, so that is judged too."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "config.json").write_text("{}")
    os.chmod(elsewhere / "config.json", 0o666)
    folder = _model(tmp_path)
    (folder / "1_Pooling").rename(tmp_path / "pooling-kept")
    (folder / "1_Pooling").symlink_to(elsewhere)
    with pytest.raises(EmbedderError, match="elsewhere/config.json, which is writable by every"):
        SentenceTransformerEmbedder(str(folder)).embed(["The user swims."])
