"""Remembering and managing memories, through the public API."""

from __future__ import annotations

import builtins
import uuid
from dataclasses import dataclass
from datetime import datetime

from aria_mem import chat_history
from aria_mem.api.core import Core
from aria_mem.domain import validation
from aria_mem.domain.models import Memory, MemoryStatus, MemoryType, NewMemory, Stage
from aria_mem.domain.records import ErasedUser, MemoryChanges
from aria_mem.errors import ServiceError, ValidationError
from aria_mem.services.writer import WriteResult

MemoryRef = uuid.UUID | str
"""A memory id, or (as text) its first characters as lists show them."""


@dataclass(frozen=True)
class ForgottenUser:
    user: str
    erased: ErasedUser
    vectors_removed: bool
    """False: their removal is queued and a later pass (the daemon, `sync`) carries it out."""
    problem: str | None = None


class Memories(Core):
    def remember(
        self,
        text: str,
        *,
        type: MemoryType | str = MemoryType.EPISODIC_EVENT,
        importance: float = 0.5,
        emotion: float = 0.0,
        confidence: float = 0.8,
        reason: str = "",
        pinned: bool = False,
        expires: datetime | None = None,
        hold_until: Stage | str | None = None,
        user: str | None = None,
        companion: str | None = None,
    ) -> WriteResult:
        """Save a fact about the user: in PostgreSQL first, then embedded and indexed. If the
        model or the index cannot be reached it is still saved (``result.indexed`` is False,
        ``result.problem`` says why) and indexed later. A fact already known is confirmed
        (``result.created`` is False) instead of duplicated."""
        user_id, companion_id = self._scope(user, companion)
        new = validation.new_memory(
            NewMemory(
                user_id=user_id,
                companion_id=companion_id,
                text=text,
                type=validation.memory_type(type),
                importance=importance,
                emotional_significance=emotion,
                confidence=confidence,
                reason=reason,
                pinned=pinned,
                held_until_stage=validation.stage(hold_until) if hold_until else None,
                expires_at=expires,
            )
        )
        return self._writer.remember(new)

    def get(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> Memory:
        """One memory of the user and companion (the config's unless given), by id or by the
        first characters of its id. Another's memory is not found, exactly as one that does
        not exist."""
        return self._resolve(memory, user, companion)

    def _resolve(self, memory: MemoryRef, user: str | None, companion: str | None) -> Memory:
        owner = self._scope(user, companion)
        return self._store.memories.find_prefix(str(memory), owner)

    def edit(
        self,
        memory: MemoryRef,
        *,
        text: str | None = None,
        importance: float | None = None,
        emotion: float | None = None,
        confidence: float | None = None,
        reason: str | None = None,
        expires: datetime | None = None,
        clear_expiry: bool = False,
        user: str | None = None,
        companion: str | None = None,
    ) -> WriteResult:
        """Change a memory of the user and companion; it is re-embedded."""
        if clear_expiry and expires is not None:
            raise ValidationError(
                "An edit either sets a new expiry or clears it, not both — drop one of them"
            )
        changes = MemoryChanges(
            text=text,
            importance=importance,
            emotional_significance=emotion,
            confidence=confidence,
            reason=reason,
            expires_at=expires,
            clear_expiry=clear_expiry,
        )
        return self._writer.edit(self._resolve(memory, user, companion).id, changes)

    def pin(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> WriteResult:
        """Pinned memories are always in the profile."""
        return self._writer.set_pinned(self._resolve(memory, user, companion).id, True)

    def unpin(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> WriteResult:
        return self._writer.set_pinned(self._resolve(memory, user, companion).id, False)

    def archive(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> WriteResult:
        """Keep it, but never bring it into a prompt (its vector is removed)."""
        found = self._resolve(memory, user, companion)
        return self._writer.set_status(found.id, MemoryStatus.ARCHIVED)

    def unarchive(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> WriteResult:
        found = self._resolve(memory, user, companion)
        return self._writer.set_status(found.id, MemoryStatus.ACTIVE)

    def confirm(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> WriteResult:
        """The user said it again: its recency is refreshed."""
        return self._writer.confirm(self._resolve(memory, user, companion).id)

    def forget(
        self, memory: MemoryRef, *, user: str | None = None, companion: str | None = None
    ) -> WriteResult:
        """Delete it for good; its vector's removal is queued durably if the index is down."""
        return self._writer.forget(self._resolve(memory, user, companion).id)

    def forget_everything(self, user: str) -> ForgottenUser:
        """Forget a person: every memory of ``user`` with every companion, their
        conversations and relationship stages, in one transaction, and the lines the chat
        kept for Up/Down; the vectors are removed now, or by a later pass if the index does
        not answer (the removal is queued in the same transaction). ``user`` has no default:
        this is never done by accident."""
        user_id = validation.identifier("user", user)
        erased = self._store.erasure.erase_user(user_id)
        chat_history.forget_history(self.settings.data_dir, user_id)
        try:
            report = self._indexer.run_deletions(limit=erased.memories + 1000)
        except ServiceError as exc:
            return ForgottenUser(user_id, erased, False, f"vector removal queued: {exc}")
        if report.errors:
            problem = "vector removal queued: " + "; ".join(report.errors)
            return ForgottenUser(user_id, erased, False, problem)
        return ForgottenUser(user_id, erased, True)

    def list(
        self,
        *,
        user: str | None = None,
        companion: str | None = None,
        everyone: bool = False,
        status: MemoryStatus | None = None,
        limit: int | None = None,
        type: MemoryType | str | None = None,
        contains: str | None = None,
        newest_first: bool = False,
    ) -> builtins.list[Memory]:
        """Memories of the user and companion (``everyone``: of all), oldest first (or
        newest first); ``type`` and ``contains`` (a case-insensitive piece of the text)
        narrow them."""
        user_id, companion_id = self._scope(user, companion)
        return self._store.memories.list_memories(
            user_id=None if everyone else user_id,
            companion_id=None if everyone else companion_id,
            status=status,
            limit=validation.limit(limit),
            type=None if type is None else validation.memory_type(type),
            contains=contains,
            newest_first=newest_first,
        )
