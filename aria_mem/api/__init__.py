"""The public API: everything a program needs from aria-mem, in one object.

    from aria_mem import AriaMem

    with AriaMem.open() as memory:                  # the config file and the environment
        memory.remember("The user is allergic to peanuts.", memory_type="ProfileFact",
                        importance=0.9)
        result = memory.search("Any ideas for dinner tonight?")
        prompt_sections = result.prompt             # labelled as data, ready for a prompt
        memory.record_use([r.memory.id for r in result.chosen])

The CLI, the chat and the daemon use nothing else. Errors are ``aria_mem.errors``; results are
typed dataclasses (``WriteResult``, ``SearchResult``, ``StatusReport``, ...).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # each name as it is re-exported, for type checkers
    from aria_mem.api.facade import AriaMem as AriaMem
    from aria_mem.api.facade import MemoryRef as MemoryRef
    from aria_mem.api.groups import (
        Conversations as Conversations,
    )
    from aria_mem.api.groups import (
        ForgottenSource as ForgottenSource,
    )
    from aria_mem.api.groups import (
        Knowledge as Knowledge,
    )
    from aria_mem.api.groups import (
        Reviews as Reviews,
    )
    from aria_mem.api.groups import (
        Transfer as Transfer,
    )
    from aria_mem.api.initialise import (
        Initialised as Initialised,
    )
    from aria_mem.api.initialise import (
        ModelServer as ModelServer,
    )
    from aria_mem.api.initialise import (
        detect_provider as detect_provider,
    )
    from aria_mem.api.initialise import (
        init_config as init_config,
    )
    from aria_mem.api.initialise import (
        model_servers as model_servers,
    )
    from aria_mem.api.maintenance import (
        Admin as Admin,
    )
    from aria_mem.api.maintenance import (
        Migrated as Migrated,
    )
    from aria_mem.api.maintenance import (
        RunningService as RunningService,
    )
    from aria_mem.api.maintenance import (
        Stopped as Stopped,
    )
    from aria_mem.api.maintenance import (
        run_service as run_service,
    )
    from aria_mem.api.relaying import Relay as Relay
    from aria_mem.api.relaying import relay as relay
    from aria_mem.domain.budget import Turn as Turn
    from aria_mem.domain.fate import Fate as Fate
    from aria_mem.domain.hygiene import Consolidation as Consolidation
    from aria_mem.domain.hygiene import MemoryEvent as MemoryEvent
    from aria_mem.domain.hygiene import ReviewItem as ReviewItem
    from aria_mem.domain.models import (
        Memory as Memory,
    )
    from aria_mem.domain.models import (
        MemoryOrder as MemoryOrder,
    )
    from aria_mem.domain.models import (
        MemoryStatus as MemoryStatus,
    )
    from aria_mem.domain.models import (
        MemoryType as MemoryType,
    )
    from aria_mem.domain.models import (
        Stage as Stage,
    )
    from aria_mem.domain.records import (
        ConversationSummary as ConversationSummary,
    )
    from aria_mem.domain.records import (
        DaemonState as DaemonState,
    )
    from aria_mem.domain.records import (
        IndexOwner as IndexOwner,
    )
    from aria_mem.domain.records import (
        KnowledgeSource as KnowledgeSource,
    )
    from aria_mem.domain.records import (
        PassReport as PassReport,
    )
    from aria_mem.domain.records import (
        StoredTurn as StoredTurn,
    )
    from aria_mem.domain.records import (
        SyncReport as SyncReport,
    )
    from aria_mem.domain.retrieval import Profile as Profile
    from aria_mem.domain.retrieval import SearchResult as SearchResult
    from aria_mem.domain.selection import Dropped as Dropped
    from aria_mem.domain.selection import Ranked as Ranked
    from aria_mem.listeners import Listener as Listener
    from aria_mem.ports import DaemonStart as DaemonStart
    from aria_mem.services.chat import ChatSession as ChatSession
    from aria_mem.services.chat import PreparedTurn as PreparedTurn
    from aria_mem.services.consolidator import TidyReport as TidyReport
    from aria_mem.services.erasure import ForgottenUser as ForgottenUser
    from aria_mem.services.extractor import Extracted as Extracted
    from aria_mem.services.health import (
        Check as Check,
    )
    from aria_mem.services.health import (
        CollectionInfo as CollectionInfo,
    )
    from aria_mem.services.health import (
        DaemonCheck as DaemonCheck,
    )
    from aria_mem.services.health import (
        DataCheck as DataCheck,
    )
    from aria_mem.services.health import (
        DimensionStatus as DimensionStatus,
    )
    from aria_mem.services.health import (
        EmbedderCheck as EmbedderCheck,
    )
    from aria_mem.services.health import (
        IndexCheck as IndexCheck,
    )
    from aria_mem.services.health import (
        StatusReport as StatusReport,
    )
    from aria_mem.services.knowledge import Learned as Learned
    from aria_mem.services.reindexer import (
        ReindexOutcome as ReindexOutcome,
    )
    from aria_mem.services.reindexer import (
        ReindexPlan as ReindexPlan,
    )
    from aria_mem.services.review import Decided as Decided
    from aria_mem.services.review import History as History
    from aria_mem.services.transfer import Exported as Exported
    from aria_mem.services.transfer import Imported as Imported
    from aria_mem.services.upkeep import Upkeep as Upkeep
    from aria_mem.services.writer import WriteResult as WriteResult

_WHERE = {
    "Admin": "aria_mem.api.maintenance",
    "AriaMem": "aria_mem.api.facade",
    "ChatSession": "aria_mem.services.chat",
    "Check": "aria_mem.services.health",
    "CollectionInfo": "aria_mem.services.health",
    "ConversationSummary": "aria_mem.domain.records",
    "Conversations": "aria_mem.api.groups",
    "DaemonCheck": "aria_mem.services.health",
    "DaemonStart": "aria_mem.ports",
    "DaemonState": "aria_mem.domain.records",
    "DataCheck": "aria_mem.services.health",
    "DimensionStatus": "aria_mem.services.health",
    "Dropped": "aria_mem.domain.selection",
    "EmbedderCheck": "aria_mem.services.health",
    "Exported": "aria_mem.services.transfer",
    "Extracted": "aria_mem.services.extractor",
    "Fate": "aria_mem.domain.fate",
    "ForgottenSource": "aria_mem.api.groups",
    "ForgottenUser": "aria_mem.services.erasure",
    "Imported": "aria_mem.services.transfer",
    "IndexCheck": "aria_mem.services.health",
    "IndexOwner": "aria_mem.domain.records",
    "Initialised": "aria_mem.api.initialise",
    "Knowledge": "aria_mem.api.groups",
    "Relay": "aria_mem.api.relaying",
    "Reviews": "aria_mem.api.groups",
    "ReviewItem": "aria_mem.domain.hygiene",
    "MemoryEvent": "aria_mem.domain.hygiene",
    "Consolidation": "aria_mem.domain.hygiene",
    "TidyReport": "aria_mem.services.consolidator",
    "History": "aria_mem.services.review",
    "Decided": "aria_mem.services.review",
    "KnowledgeSource": "aria_mem.domain.records",
    "Learned": "aria_mem.services.knowledge",
    "Listener": "aria_mem.listeners",
    "Memory": "aria_mem.domain.models",
    "MemoryRef": "aria_mem.api.facade",
    "MemoryOrder": "aria_mem.domain.models",
    "MemoryStatus": "aria_mem.domain.models",
    "MemoryType": "aria_mem.domain.models",
    "Migrated": "aria_mem.api.maintenance",
    "ModelServer": "aria_mem.api.initialise",
    "PassReport": "aria_mem.domain.records",
    "PreparedTurn": "aria_mem.services.chat",
    "Profile": "aria_mem.domain.retrieval",
    "Ranked": "aria_mem.domain.selection",
    "ReindexOutcome": "aria_mem.services.reindexer",
    "ReindexPlan": "aria_mem.services.reindexer",
    "RunningService": "aria_mem.api.maintenance",
    "SearchResult": "aria_mem.domain.retrieval",
    "Stage": "aria_mem.domain.models",
    "StatusReport": "aria_mem.services.health",
    "Stopped": "aria_mem.api.maintenance",
    "StoredTurn": "aria_mem.domain.records",
    "SyncReport": "aria_mem.domain.records",
    "Transfer": "aria_mem.api.groups",
    "Turn": "aria_mem.domain.budget",
    "Upkeep": "aria_mem.services.upkeep",
    "WriteResult": "aria_mem.services.writer",
    "detect_provider": "aria_mem.api.initialise",
    "init_config": "aria_mem.api.initialise",
    "model_servers": "aria_mem.api.initialise",
    "relay": "aria_mem.api.relaying",
    "run_service": "aria_mem.api.maintenance",
}
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
