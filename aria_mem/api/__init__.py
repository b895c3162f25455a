"""The public API: everything a program needs from aria-mem, in one object.

    from aria_mem import AriaMem

    with AriaMem.open() as memory:                  # the config file and the environment
        memory.remember("The user is allergic to peanuts.", memory_type="ProfileFact",
                        importance=0.9)
        result = memory.search("Any ideas for dinner tonight?")
        prompt_sections = result.prompt             # labelled as data, ready for a prompt
        memory.record_use([r.memory.id for r in result.chosen])

Errors are ``aria_mem.errors``; results are typed dataclasses (``WriteResult``,
``SearchResult``, ``StatusReport``, ...). The names below are the public ones: each type a
public call takes or returns, or a result's field holds (docs/python-api.md lists them,
tests/test_public_api.py holds both). What only this repository's commands need is in
``aria_mem.api.hooks``, not here.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # each name as it is re-exported, for type checkers
    from aria_mem.api.facade import AriaMem as AriaMem
    from aria_mem.api.facade import MemoryRef as MemoryRef
    from aria_mem.api.groups import Conversations as Conversations
    from aria_mem.api.groups import ForgottenSource as ForgottenSource
    from aria_mem.api.groups import Knowledge as Knowledge
    from aria_mem.api.groups import Relationship as Relationship
    from aria_mem.api.groups import Reviews as Reviews
    from aria_mem.api.groups import Transfer as Transfer
    from aria_mem.api.initialise import Initialised as Initialised
    from aria_mem.api.initialise import ModelServer as ModelServer
    from aria_mem.api.initialise import init_config as init_config
    from aria_mem.api.maintenance import Admin as Admin
    from aria_mem.api.maintenance import Migrated as Migrated
    from aria_mem.api.maintenance import RunningService as RunningService
    from aria_mem.api.maintenance import Stopped as Stopped
    from aria_mem.api.maintenance import run_service as run_service
    from aria_mem.api.relaying import Relay as Relay
    from aria_mem.api.relaying import relay as relay
    from aria_mem.config import Settings as Settings
    from aria_mem.domain.budget import FittedPrompt as FittedPrompt
    from aria_mem.domain.budget import PromptParts as PromptParts
    from aria_mem.domain.budget import Trimmed as Trimmed
    from aria_mem.domain.budget import Turn as Turn
    from aria_mem.domain.extraction import ExtractedFact as ExtractedFact
    from aria_mem.domain.fate import Fate as Fate
    from aria_mem.domain.fusion import CandidateSource as CandidateSource
    from aria_mem.domain.fusion import Evidence as Evidence
    from aria_mem.domain.hygiene import Consolidation as Consolidation
    from aria_mem.domain.hygiene import EventKind as EventKind
    from aria_mem.domain.hygiene import MemoryEvent as MemoryEvent
    from aria_mem.domain.hygiene import Outcome as Outcome
    from aria_mem.domain.hygiene import Retire as Retire
    from aria_mem.domain.hygiene import ReviewItem as ReviewItem
    from aria_mem.domain.hygiene import ReviewKind as ReviewKind
    from aria_mem.domain.models import DropReason as DropReason
    from aria_mem.domain.models import IndexState as IndexState
    from aria_mem.domain.models import KnowledgeItem as KnowledgeItem
    from aria_mem.domain.models import Memory as Memory
    from aria_mem.domain.models import MemoryOrder as MemoryOrder
    from aria_mem.domain.models import MemoryStatus as MemoryStatus
    from aria_mem.domain.models import MemoryType as MemoryType
    from aria_mem.domain.models import Stage as Stage
    from aria_mem.domain.prompt import PromptRecord as PromptRecord
    from aria_mem.domain.prompt import PromptSections as PromptSections
    from aria_mem.domain.ranking import RankingWeights as RankingWeights
    from aria_mem.domain.ranking import Score as Score
    from aria_mem.domain.records import ConversationSummary as ConversationSummary
    from aria_mem.domain.records import DaemonState as DaemonState
    from aria_mem.domain.records import DimensionCheck as DimensionCheck
    from aria_mem.domain.records import ErasedUser as ErasedUser
    from aria_mem.domain.records import ImportResult as ImportResult
    from aria_mem.domain.records import IndexOwner as IndexOwner
    from aria_mem.domain.records import KnowledgeSource as KnowledgeSource
    from aria_mem.domain.records import MemoryCounts as MemoryCounts
    from aria_mem.domain.records import PassReport as PassReport
    from aria_mem.domain.records import ReindexRun as ReindexRun
    from aria_mem.domain.records import StoredTurn as StoredTurn
    from aria_mem.domain.records import SweepReport as SweepReport
    from aria_mem.domain.records import SyncReport as SyncReport
    from aria_mem.domain.repeats import Repeat as Repeat
    from aria_mem.domain.retrieval import KnowledgeHit as KnowledgeHit
    from aria_mem.domain.retrieval import Profile as Profile
    from aria_mem.domain.retrieval import SearchResult as SearchResult
    from aria_mem.domain.retrieval import Timings as Timings
    from aria_mem.domain.selection import Dropped as Dropped
    from aria_mem.domain.selection import Ranked as Ranked
    from aria_mem.domain.selection import Section as Section
    from aria_mem.domain.selection import Selection as Selection
    from aria_mem.domain.time_signal import Asked as Asked
    from aria_mem.domain.when import Span as Span
    from aria_mem.listeners import Listener as Listener
    from aria_mem.ports import Store as Store
    from aria_mem.ports.engines import ChatModel as ChatModel
    from aria_mem.ports.engines import DocumentReader as DocumentReader
    from aria_mem.ports.engines import Embedder as Embedder
    from aria_mem.ports.engines import VectorIndex as VectorIndex
    from aria_mem.sections import ChatSettings as ChatSettings
    from aria_mem.sections import DaemonSettings as DaemonSettings
    from aria_mem.sections import EmbedderSettings as EmbedderSettings
    from aria_mem.sections import HygieneSettings as HygieneSettings
    from aria_mem.sections import IdentitySettings as IdentitySettings
    from aria_mem.sections import IndexSettings as IndexSettings
    from aria_mem.sections import PostgresSettings as PostgresSettings
    from aria_mem.sections import RankingSettings as RankingSettings
    from aria_mem.sections import RetrievalSettings as RetrievalSettings
    from aria_mem.services.archive import Carried as Carried
    from aria_mem.services.consolidator import TidyReport as TidyReport
    from aria_mem.services.erasure import ForgottenUser as ForgottenUser
    from aria_mem.services.extractor import Extracted as Extracted
    from aria_mem.services.health import Check as Check
    from aria_mem.services.health import CollectionInfo as CollectionInfo
    from aria_mem.services.health import DaemonCheck as DaemonCheck
    from aria_mem.services.health import DataCheck as DataCheck
    from aria_mem.services.health import DimensionStatus as DimensionStatus
    from aria_mem.services.health import EmbedderCheck as EmbedderCheck
    from aria_mem.services.health import IndexCheck as IndexCheck
    from aria_mem.services.health import StatusReport as StatusReport
    from aria_mem.services.health import VectorsCheck as VectorsCheck
    from aria_mem.services.knowledge import Learned as Learned
    from aria_mem.services.reindexer import ReindexOutcome as ReindexOutcome
    from aria_mem.services.reindexer import ReindexPlan as ReindexPlan
    from aria_mem.services.review import Decided as Decided
    from aria_mem.services.review import History as History
    from aria_mem.services.transfer import Exported as Exported
    from aria_mem.services.transfer import Imported as Imported
    from aria_mem.services.writer import WriteResult as WriteResult

_WHERE_BY_MODULE: dict[str, tuple[str, ...]] = {
    "aria_mem.api.facade": ("AriaMem", "MemoryRef"),
    "aria_mem.api.groups": (
        "Conversations",
        "ForgottenSource",
        "Knowledge",
        "Relationship",
        "Reviews",
        "Transfer",
    ),
    "aria_mem.api.initialise": ("init_config", "Initialised", "ModelServer"),
    "aria_mem.api.maintenance": ("Admin", "Migrated", "run_service", "RunningService", "Stopped"),
    "aria_mem.api.relaying": ("relay", "Relay"),
    "aria_mem.config": ("Settings",),
    "aria_mem.domain.budget": ("FittedPrompt", "PromptParts", "Trimmed", "Turn"),
    "aria_mem.domain.extraction": ("ExtractedFact",),
    "aria_mem.domain.fate": ("Fate",),
    "aria_mem.domain.fusion": ("CandidateSource", "Evidence"),
    "aria_mem.domain.hygiene": (
        "Consolidation",
        "EventKind",
        "MemoryEvent",
        "Outcome",
        "Retire",
        "ReviewItem",
        "ReviewKind",
    ),
    "aria_mem.domain.models": (
        "DropReason",
        "IndexState",
        "KnowledgeItem",
        "Memory",
        "MemoryOrder",
        "MemoryStatus",
        "MemoryType",
        "Stage",
    ),
    "aria_mem.domain.prompt": ("PromptRecord", "PromptSections"),
    "aria_mem.domain.ranking": ("RankingWeights", "Score"),
    "aria_mem.domain.records": (
        "ConversationSummary",
        "DaemonState",
        "DimensionCheck",
        "ErasedUser",
        "ImportResult",
        "IndexOwner",
        "KnowledgeSource",
        "MemoryCounts",
        "PassReport",
        "ReindexRun",
        "StoredTurn",
        "SweepReport",
        "SyncReport",
    ),
    "aria_mem.domain.repeats": ("Repeat",),
    "aria_mem.domain.retrieval": ("KnowledgeHit", "Profile", "SearchResult", "Timings"),
    "aria_mem.domain.selection": ("Dropped", "Ranked", "Section", "Selection"),
    "aria_mem.domain.time_signal": ("Asked",),
    "aria_mem.domain.when": ("Span",),
    "aria_mem.listeners": ("Listener",),
    "aria_mem.ports": ("Store",),
    "aria_mem.ports.engines": ("ChatModel", "DocumentReader", "Embedder", "VectorIndex"),
    "aria_mem.sections": (
        "ChatSettings",
        "DaemonSettings",
        "EmbedderSettings",
        "HygieneSettings",
        "IdentitySettings",
        "IndexSettings",
        "PostgresSettings",
        "RankingSettings",
        "RetrievalSettings",
    ),
    "aria_mem.services.archive": ("Carried",),
    "aria_mem.services.consolidator": ("TidyReport",),
    "aria_mem.services.erasure": ("ForgottenUser",),
    "aria_mem.services.extractor": ("Extracted",),
    "aria_mem.services.health": (
        "Check",
        "CollectionInfo",
        "DaemonCheck",
        "DataCheck",
        "DimensionStatus",
        "EmbedderCheck",
        "IndexCheck",
        "StatusReport",
        "VectorsCheck",
    ),
    "aria_mem.services.knowledge": ("Learned",),
    "aria_mem.services.reindexer": ("ReindexOutcome", "ReindexPlan"),
    "aria_mem.services.review": ("Decided", "History"),
    "aria_mem.services.transfer": ("Exported", "Imported"),
    "aria_mem.services.writer": ("WriteResult",),
}
_WHERE = {name: module for module, names in _WHERE_BY_MODULE.items() for name in names}
"""Each name is imported on first use: `aria-mem --help` and a command that needs only a few
of them do not pay for the whole service layer."""


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'aria_mem.api' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if not TYPE_CHECKING:  # type checkers read the re-exports above; at run time, the same names
    __all__ = sorted(_WHERE)
