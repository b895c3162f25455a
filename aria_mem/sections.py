"""The sections of the config file, one frozen dataclass each (``config`` loads and checks
them)."""

from __future__ import annotations

from dataclasses import dataclass, replace

from aria_mem import providers
from aria_mem.domain.ranking import DEFAULT_MIN_SIMILARITY, DEFAULT_WEIGHTS, RankingWeights

DEFAULT_MODELS = {name: p.default_model for name, p in providers.EMBEDDING.items()}


@dataclass(frozen=True)
class IdentitySettings:
    user: str = "me"
    companion: str = "aria"


@dataclass(frozen=True)
class PostgresSettings:
    dsn: str = ""
    connect_timeout: float = 5.0


@dataclass(frozen=True)
class IndexSettings:
    url: str = ""
    api_key: str = ""
    timeout: float = 5.0


@dataclass(frozen=True)
class EmbedderSettings:
    provider: str = "ollama"
    model: str = ""
    host: str = ""
    timeout: float = 30.0
    batch_size: int = 64
    trust_account: str = ""
    """Another person's account whose model server on this machine may be used (by name or
    uid); empty: only yours, root's and system accounts' (``adapters.model_servers``)."""

    @property
    def effective_model(self) -> str:
        return self.model or DEFAULT_MODELS[self.provider]


@dataclass(frozen=True)
class RetrievalSettings:
    min_similarity: float = DEFAULT_MIN_SIMILARITY
    timeout: float = 2.0
    candidates: str = "fused"
    language: str = "english"
    repeats: str = "on"
    """on: a near-repeat of the profile or of a more relevant candidate is ranked lower
    (``domain.repeats``); off: candidates are ranked as they come."""


@dataclass(frozen=True)
class RankingSettings:
    """The ranking formula's weights (``domain.ranking``) and the recency half-life, the
    seed's values by default: a default changes only with figures on real conversations."""

    similarity: float = DEFAULT_WEIGHTS.similarity
    importance: float = DEFAULT_WEIGHTS.importance
    emotion: float = DEFAULT_WEIGHTS.emotion
    recency: float = DEFAULT_WEIGHTS.recency
    usage: float = DEFAULT_WEIGHTS.usage
    time: float = DEFAULT_WEIGHTS.time
    """How much a memory dated in the days the message names is lifted (``domain.when``)."""
    recency_half_life_days: float = DEFAULT_WEIGHTS.recency_half_life_days

    def weights(self) -> RankingWeights:
        return replace(
            DEFAULT_WEIGHTS,
            similarity=self.similarity,
            importance=self.importance,
            emotion=self.emotion,
            recency=self.recency,
            usage=self.usage,
            time=self.time,
            recency_half_life_days=self.recency_half_life_days,
        )


@dataclass(frozen=True)
class ChatSettings:
    provider: str = "ollama"
    model: str = "llama3.2"
    host: str = ""
    timeout: float = 120.0
    trust_account: str = ""
    """As [embedder] trust_account, for the chat model's server."""
    context_window: int = 4096
    reply_reserve: int = 512
    history_turns: int = 20
    persona_name: str = "Aria"
    system_prompt: str = (
        "You are Aria, a warm and attentive companion. You remember what the user has shared "
        "with you and use it naturally and kindly, never reciting it."
    )
    extract_memories: str = "on"


@dataclass(frozen=True)
class DaemonSettings:
    reconcile_interval: float = 60.0
    service_idle_exit: float = 1800.0  # s with no client before an on-demand service exits
    service_client_timeout: float = 300.0  # s of silence before the service closes a connection


@dataclass(frozen=True)
class HygieneSettings:
    merge: str = "on"
    """on: a new memory that repeats a known one is merged into it; off: stored as given."""
    merge_similarity: float = 0.0
    """0: the embedding model's own bar (``domain.hygiene.SUGGESTED_RULES``), else this one."""
    conflict_similarity: float = 0.0
    judge: str = "on"
    """on: facts the chat model extracts are judged by it against the nearest memories."""
    retire: str = "propose"
    """What the daemon does with stale memories: propose (the review queue), apply, off."""
    retire_after_days: float = 180.0
