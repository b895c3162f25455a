"""Fitting a chat prompt into the model's context window.

The prompt is: the system prompt (with the profile, relevant-memory and knowledge sections and
the reply hint), the recent conversation, and the user's message. When it does not fit, the
budget trims in a fixed order: knowledge passages first (lowest-ranked first), then the oldest
conversation turns, then the relevant memories one at a time from the lowest-ranked, and only
then the profile (lowest first). The persona's system prompt and the user's message are never
dropped; if they alone do not fit, the message is shortened from the start.

Tokens are counted by a function the caller passes (the model's tokenizer where one is
available). The default estimate is one token per 3 characters plus 4 per message: English
averages about 4 characters a token, so this overestimates by roughly a third, which is the
safety margin.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from aria_mem.domain.prompt import (
    PromptSections,
    knowledge_section,
    profile_section,
    relevant_section,
)

if TYPE_CHECKING:
    from aria_mem.domain.retrieval import SearchResult

TOKENS_PER_MESSAGE = 4
CHARS_PER_TOKEN = 3.0


def estimate_tokens(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


@dataclass(frozen=True)
class Turn:
    role: str  # "user" or "assistant"
    content: str


@dataclass(frozen=True)
class PromptParts:
    system: str
    sections: PromptSections = field(default_factory=PromptSections)
    """The memory and knowledge lines, formatted once by retrieval; trimmed here."""
    history: Sequence[Turn] = ()
    """Oldest first."""
    reply_hint: str = ""
    message: str = ""


@dataclass
class Trimmed:
    knowledge: int = 0
    turns: int = 0
    relevant: int = 0
    profile: int = 0
    message_chars: int = 0
    order: list[str] = field(default_factory=list)
    """What was removed, in the order it was removed (``knowledge:2``, ``turn:0``, ...)."""


@dataclass
class FittedPrompt:
    messages: list[dict[str, str]]
    tokens: int
    budget: int
    trimmed: Trimmed
    parts: PromptParts


def reached_model(retrieval: SearchResult | None, trimmed: Trimmed) -> list[uuid.UUID]:
    """The memories of a search that reached the model: those the budget did not trim (it
    trims each section from its end)."""
    if retrieval is None:
        return []
    profile = retrieval.profile[: len(retrieval.profile) - trimmed.profile]
    relevant = retrieval.relevant[: len(retrieval.relevant) - trimmed.relevant]
    return [r.memory.id for r in (*profile, *relevant)]


def system_text(parts: PromptParts) -> str:
    sections = [
        parts.system.strip(),
        profile_section(parts.sections.profile),
        relevant_section(parts.sections.relevant),
        knowledge_section(parts.sections.knowledge),
        parts.reply_hint.strip(),
    ]
    return "\n\n".join(s for s in sections if s)


def render(parts: PromptParts) -> list[dict[str, str]]:
    messages = [{"role": "system", "content": system_text(parts)}]
    messages += [{"role": t.role, "content": t.content} for t in parts.history]
    messages.append({"role": "user", "content": parts.message})
    return messages


def count(messages: Sequence[dict[str, str]], counter: Callable[[str], int]) -> int:
    return sum(counter(m["content"]) + TOKENS_PER_MESSAGE for m in messages)


def fit(
    parts: PromptParts,
    budget: int,
    counter: Callable[[str], int] = estimate_tokens,
) -> FittedPrompt:
    """Trim ``parts`` in the fixed order until the prompt fits ``budget`` tokens."""
    trimmed = Trimmed()
    knowledge, history = list(parts.sections.knowledge), list(parts.history)
    relevant, profile = list(parts.sections.relevant), list(parts.sections.profile)

    def current() -> PromptParts:
        sections = PromptSections(tuple(profile), tuple(relevant), tuple(knowledge))
        return PromptParts(parts.system, sections, history, parts.reply_hint, message)

    message = parts.message
    while count(render(current()), counter) > budget:
        if knowledge:
            knowledge.pop()
            trimmed.knowledge += 1
            trimmed.order.append(f"knowledge:{len(knowledge)}")
        elif history:
            history.pop(0)
            trimmed.order.append(f"turn:{trimmed.turns}")
            trimmed.turns += 1
        elif relevant:
            relevant.pop()
            trimmed.relevant += 1
            trimmed.order.append(f"relevant:{len(relevant)}")
        elif profile:
            profile.pop()
            trimmed.profile += 1
            trimmed.order.append(f"profile:{len(profile)}")
        else:
            over = count(render(current()), counter) - budget
            cut = max(1, math.ceil(over * CHARS_PER_TOKEN))
            if cut >= len(message):
                trimmed.message_chars += len(message)
                message = ""
                break
            message = message[cut:]
            trimmed.message_chars += cut
    final = current()
    messages = render(final)
    return FittedPrompt(messages, count(messages, counter), budget, trimmed, final)
