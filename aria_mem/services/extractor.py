"""Facts worth remembering from a conversation, asked of the chat model (structured JSON),
checked, and remembered: a sensitive fact shared early in a relationship is held until it is
established; a fact already known is confirmed instead of duplicated."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aria_mem.domain import extraction
from aria_mem.domain.budget import Turn
from aria_mem.domain.extraction import ExtractedFact
from aria_mem.domain.models import NewMemory, Stage
from aria_mem.domain.reply_target import reply_target
from aria_mem.errors import UsageError
from aria_mem.ports import ChatModel
from aria_mem.services.writer import MemoryWriter, WriteResult


@dataclass(frozen=True)
class Extracted:
    fact: ExtractedFact
    held_until: Stage | None
    saved: WriteResult | None
    """None when the caller asked for the facts only."""


def ask(model: ChatModel, message: str, replying_to: str | None) -> list[ExtractedFact]:
    """The facts the model finds in the user's message (malformed answers give none)."""
    raw = model.complete(extraction.request(message, replying_to), json_schema=extraction.SCHEMA)
    return extraction.parse(raw)


def held_until(fact: ExtractedFact, stage: Stage) -> Stage | None:
    return Stage.ESTABLISHED if fact.sensitive and stage is Stage.EARLY else None


def extract(
    turns: Sequence[Turn],
    *,
    model: ChatModel,
    stage: Stage,
    user_id: str,
    companion_id: str,
    writer: MemoryWriter | None,
) -> list[Extracted]:
    """Facts from the conversation's last user message (with the companion message it
    answers); remembered through ``writer`` unless it is None (a consolidation pass judges
    each against the nearest known memories later, never on this path)."""
    history = list(turns)
    last = next((i for i in range(len(history) - 1, -1, -1) if history[i].role == "user"), None)
    if last is None:
        raise UsageError("The conversation has no message from the user to learn from")
    message = history[last].content
    found = []
    for fact in ask(model, message, reply_target(history[:last], message)):
        hold = held_until(fact, stage)
        saved = None
        if writer is not None:
            saved = writer.remember(
                NewMemory(
                    user_id=user_id,
                    companion_id=companion_id,
                    text=fact.text,
                    type=fact.type,
                    importance=fact.importance,
                    emotional_significance=fact.emotional_significance,
                    confidence=fact.confidence,
                    reason=fact.reason,
                    held_until_stage=hold,
                )
            )
        found.append(Extracted(fact, hold, saved))
    return found
