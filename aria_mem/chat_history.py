"""Where the chat keeps the lines a person typed (for Up/Down in the next session): one
private file per user and companion under the data folder, so one user's lines are never
offered to another, and `forget --everything` can remove a user's."""

from __future__ import annotations

import hashlib
from pathlib import Path

from aria_mem.private import private_dir, private_file

HISTORY_DIR = "chat-history"


def history_file(data_dir: Path, user_id: str, companion_id: str) -> Path:
    """The line history of one user with one companion, created 0600 (names hashed: any
    id is a safe file name, and the user's part is a prefix `forget_history` can find)."""
    folder = private_dir(data_dir / HISTORY_DIR, what="chat history folder")
    return private_file(folder / f"{user_key(user_id)}-{_digest(companion_id)}")


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
