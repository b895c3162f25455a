"""Where the chat keeps the lines a person typed (for Up/Down in the next session): one
private file per user and companion under the data folder, so one user's lines are never
offered to another, and `forget --everything` can remove a user's."""

from __future__ import annotations

import hashlib
from pathlib import Path

from aria_mem.private import private_dir, private_file, write_private

HISTORY_DIR = "chat-history"
MAX_HISTORY_BYTES = 1_000_000
"""Years of typing; beyond it the oldest lines go, so reading the history stays quick."""
KEEP_BYTES = MAX_HISTORY_BYTES // 2


def history_file(data_dir: Path, user_id: str, companion_id: str) -> Path:
    """The line history of one user with one companion, created 0600 (names hashed: any
    id is a safe file name, and the user's part is a prefix `forget_history` can find)."""
    folder = private_dir(data_dir / HISTORY_DIR, what="chat history folder")
    path = private_file(folder / f"{user_key(user_id)}-{_digest(companion_id)}")
    if path.stat().st_size > MAX_HISTORY_BYTES:
        _keep_newest(path)
    return path


def _keep_newest(path: Path) -> None:
    """Keep about the newest KEEP_BYTES, cut where an entry begins (prompt_toolkit's file
    holds entries as a "# time" line and "+" lines)."""
    text = path.read_bytes()
    start = text.find(b"\n# ", len(text) - KEEP_BYTES)
    kept = text[start + 1 :] if start >= 0 else b""
    write_private(path, kept.decode("utf-8", "replace"))


def user_key(user_id: str) -> str:
    return _digest(user_id)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def forget_history(data_dir: Path, user_id: str) -> int:
    """Remove every line-history file of ``user_id``; how many went."""
    folder = data_dir / HISTORY_DIR
    if not folder.is_dir():
        return 0
    gone = 0
    for path in folder.glob(f"{user_key(user_id)}-*"):
        path.unlink(missing_ok=True)
        gone += 1
    return gone
