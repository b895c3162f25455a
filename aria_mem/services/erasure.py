"""Forgetting a person: everything aria-mem holds about one user, gone in one transaction,
and their vectors removed now or by the next pass (the removal is queued with the rows)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from aria_mem import chat_history
from aria_mem.domain.records import ErasedUser
from aria_mem.errors import ServiceError
from aria_mem.ports import Store
from aria_mem.services.indexer import Indexer


@dataclass(frozen=True)
class ForgottenUser:
    user: str
    erased: ErasedUser
    vectors_removed: bool
    """False: their removal is queued and a later pass (the daemon, `sync`) carries it out."""
    problem: str | None = None


def forget_user(store: Store, indexer: Indexer, data_dir: Path, user_id: str) -> ForgottenUser:
    """Every memory of ``user_id`` with every companion, their conversations and stages, the
    lines the chat kept for Up/Down, then their vectors."""
    erased = store.erasure.erase_user(user_id)
    chat_history.forget_history(data_dir, user_id)
    try:
        report = indexer.run_deletions(limit=erased.memories + 1000)
    except ServiceError as exc:
        return ForgottenUser(user_id, erased, False, f"vector removal queued: {exc}")
    if report.errors:
        problem = "vector removal queued: " + "; ".join(report.errors)
        return ForgottenUser(user_id, erased, False, problem)
    return ForgottenUser(user_id, erased, True)
