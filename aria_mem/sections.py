"""The sections of the config file, one frozen dataclass each (``config`` loads and checks
them)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from enum import StrEnum

from aria_mem import providers
from aria_mem.domain.fusion import DEFAULT_FUSION, CandidateSource
from aria_mem.domain.hygiene import Retire
from aria_mem.domain.ranking import DEFAULT_MIN_SIMILARITY, DEFAULT_WEIGHTS, RankingWeights
from aria_mem.errors import ConfigError

DEFAULT_MODELS = {name: p.default_model for name, p in providers.EMBEDDING.items()}

SWITCH = {"on": True, "off": False, "true": True, "false": False}
"""How the environment spells a switch (the file may also write TOML's true and false, which
arrive as bools); a section holds it as a bool."""

CHOICES: dict[str, type[StrEnum]] = {"CandidateSource": CandidateSource, "Retire": Retire}
"""The keys that name one of a few choices, by their field's type, which they are read into."""

SPELLINGS = {"bool": tuple(SWITCH), **{kind: tuple(c) for kind, c in CHOICES.items()}}
"""A switch's or a choice's values as written, by the field's type (``config`` reads them)."""


def choice(kind: str, raw: object) -> object:
    """``raw`` read into its field's type (a bool for on/off, the choice's enum), once, where
    the settings are loaded so that no caller compares strings; a value of the type already
    (an override from code) is kept. None: not one of its spellings."""
    if kind == "bool":
        return raw if isinstance(raw, bool) else SWITCH.get(raw) if isinstance(raw, str) else None
    choices = CHOICES[kind]
    return choices(raw) if isinstance(raw, str) and raw in set(choices) else None


class _ReadsChoices:
    """A section whose switches and choices are read into their types when it is made, so a
    section built in code with the file's spellings (``merge="off"``, ``retire="apply"``)
    means what the file would: "off" kept as a string is truthy and would leave merging on."""

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            if f.type not in SPELLINGS:
                continue
            raw = getattr(self, f.name)
            if (value := choice(str(f.type), raw)) is None:
                accepted = ", ".join(SPELLINGS[str(f.type)])
                raise ConfigError(
                    f"{type(self).__name__}.{f.name} must be one of {accepted}, got {raw!r}"
                )
            object.__setattr__(self, f.name, value)


@dataclass(frozen=True)
class IdentitySettings:
    user: str = "me"
    companion: str = "aria"


@dataclass(frozen=True)
class PostgresSettings:
    dsn: str = ""
    connect_timeout: float = 5.0
    trust_account: str = ""
    """Another person's account whose PostgreSQL server on this machine (a DSN over TCP) may be
    used (by name or uid); empty: only yours, root's and system accounts' (``postgres``)."""


@dataclass(frozen=True)
class IndexSettings:
    url: str = ""
    api_key: str = ""
    timeout: float = 5.0
    trust_account: str = ""
    """Another person's account whose Qdrant server on this machine may be used (by name or
    uid); empty: only yours, root's and system accounts' (``adapters.model_servers``)."""


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
class RetrievalSettings(_ReadsChoices):
    min_similarity: float = DEFAULT_MIN_SIMILARITY
    timeout: float = 2.0
    candidates: CandidateSource = CandidateSource.FUSED
    language: str = "english"
    repeats: bool = True
    """on (True): a near-repeat of the profile or of a more relevant candidate is ranked lower
    (``domain.repeats``); off: candidates are ranked as they come."""
    word_weight: float = DEFAULT_FUSION.lexical_weight
    """What a memory holding every rare word of the message adds to its cosine
    (``domain.fusion``); 0: the words only bring candidates, the cosine alone ranks them."""


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
class ChatSettings(_ReadsChoices):
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
    extract_memories: bool = True
    """on (True): each turn's facts are extracted and remembered after the reply."""


@dataclass(frozen=True)
class DaemonSettings:
    reconcile_interval: float = 60.0
    service_idle_exit: float = 1800.0  # s with no client before an on-demand service exits
    service_client_timeout: float = 300.0  # s of silence before the service closes a connection


@dataclass(frozen=True)
class HygieneSettings(_ReadsChoices):
    merge: bool = True
    """on (True): a new memory that repeats a known one is merged into it; off: stored as given."""
    merge_similarity: float = 0.0
    """0: the embedding model's own bar (``domain.hygiene.SUGGESTED_RULES``), else this one."""
    conflict_similarity: float = 0.0
    ask_similarity: float = 0.0
    """Without a chat model, the nearest older memory at or above this is put to a person
    (0: the model's own bar, ``domain.hygiene.SUGGESTED_RULES``)."""
    judge: bool = True
    """on (True): facts the chat model extracts are judged by it against the nearest memories."""
    retire: Retire = Retire.PROPOSE
    """What the daemon does with stale memories: propose (the review queue), apply, off."""
    retire_after_days: float = 180.0


BOUNDS: dict[tuple[str, str], tuple[float, float]] = {
    ("postgres", "connect_timeout"): (0.1, 600),
    ("index", "timeout"): (0.1, 600),
    ("embedder", "timeout"): (0.1, 3600),
    ("embedder", "batch_size"): (1, 4096),
    ("retrieval", "min_similarity"): (0, 1),
    ("retrieval", "timeout"): (0.05, 60),
    ("retrieval", "word_weight"): (0, 1),
    ("chat", "timeout"): (1, 3600),
    ("chat", "context_window"): (256, 10_000_000),
    ("chat", "reply_reserve"): (1, 10_000_000),
    ("chat", "history_turns"): (0, 10_000),
    ("daemon", "reconcile_interval"): (0.1, 86_400),
    ("daemon", "service_idle_exit"): (0, 31_536_000),
    ("daemon", "service_client_timeout"): (0, 86_400),
    ("hygiene", "merge_similarity"): (0, 1),
    ("hygiene", "conflict_similarity"): (0, 1),
    ("hygiene", "ask_similarity"): (0, 1),
    ("hygiene", "retire_after_days"): (1, 36_500),
    **{("ranking", f.name): (0, 1) for f in fields(RankingSettings) if "days" not in f.name},
    ("ranking", "recency_half_life_days"): (1, 36_500),
}
"""Every number has a sane range: a timeout of inf or a context window of 1e23 is a typo."""
