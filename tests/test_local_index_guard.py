"""qdrant-client's local mode (``[index] url = local:PATH``) unpickles every point its folder
holds, so a file there another account could write is code run as this one: the folder, the
folders above it and everything in it are held to the rule for a model's folder (this
account's or root's, no other account able to write them), the folder is made 0700, and a
relative PATH (read from whichever folder a command runs in) is refused. The other person is a
real second account (tests/accounts.py)."""

from __future__ import annotations

import os
import stat
import uuid
from pathlib import Path

import pytest

from aria_mem import config
from aria_mem.adapters.qdrant_server import QdrantServerIndex
from aria_mem.domain.models import IndexPoint
from aria_mem.errors import ConfigError, VectorIndexError
from tests import accounts
from tests.accounts import Intruder

neighbour = accounts.neighbour  # the fixture: another person's account


def _stored(folder: Path) -> None:
    """A local index of this account's own, one point in it."""
    index = QdrantServerIndex(f"local:{folder}")
    index.ensure_collection("memories", 4)
    point = IndexPoint(
        id=uuid.UUID("0b6c1a0e-3a47-4f51-9d0e-6f1f4c1f6a11"),
        vector=[1.0, 0.0, 0.0, 0.0],
        payload={"user_id": "sam", "companion_id": "aria"},
    )
    index.upsert("memories", [point])
    index.close()


def test_a_local_index_of_ones_own_is_made_private_and_read(tmp_path: Path) -> None:
    folder = tmp_path / "index"
    _stored(folder)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    again = QdrantServerIndex(f"local:{folder}")
    assert again.count("memories") == 1
    again.close()


def test_a_file_every_account_can_write_in_a_local_index_is_refused_unread(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "index"
    _stored(folder)
    [storage] = folder.rglob("storage.sqlite")
    os.chmod(storage, 0o666)
    index = QdrantServerIndex(f"local:{folder}")
    with pytest.raises(VectorIndexError) as refused:
        index.count("memories")
    said = str(refused.value)
    assert f"The file in the local index folder {storage} is writable by every account" in said
    assert "\n" not in said
    assert index._client is None  # nothing was opened, so nothing unpickled


def test_a_local_index_folder_another_account_owns_is_refused(
    tmp_path: Path, neighbour: Intruder
) -> None:
    folder = tmp_path / "index"
    _stored(folder)
    os.chown(folder, neighbour.uid, neighbour.gid)
    index = QdrantServerIndex(f"local:{folder}")
    with pytest.raises(
        VectorIndexError, match=f"belongs to another account \\({neighbour.name}\\)"
    ):
        index.count("memories")
    assert index._client is None


def test_a_relative_local_index_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(VectorIndexError, match="not an absolute path"):
        QdrantServerIndex("local:index").count("memories")
    with pytest.raises(ConfigError, match="local:PATH must name an absolute PATH"):
        config.with_overrides(config.load(environ={}), index={"url": "local:index"})


def test_a_nested_new_folder_is_made_and_an_existing_one_made_private(tmp_path: Path) -> None:
    """qdrant-client made missing parents; a folder made before is made 0700 too (review)."""
    nested = tmp_path / "a" / "b" / "index"
    _stored(nested)
    existing = tmp_path / "made-before"
    existing.mkdir(mode=0o755)
    existing.chmod(0o755)
    _stored(existing)
    for folder in (nested, existing):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
