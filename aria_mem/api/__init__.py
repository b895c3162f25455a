"""The public API: everything a program needs from aria-mem, in one object.

    from aria_mem import AriaMem

    with AriaMem.open() as memory:                  # the config file and the environment
        memory.remember("The user is allergic to peanuts.", type="ProfileFact", importance=0.9)
        result = memory.search("Any ideas for dinner tonight?")
        prompt_sections = result.prompt             # labelled as data, ready for a prompt
        memory.record_use([r.memory.id for r in result.chosen])

The CLI, the chat and the daemon use nothing else. Errors are ``aria_mem.errors``; results are
typed dataclasses (``WriteResult``, ``SearchResult``, ``StatusReport``, ...).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aria_mem.api.facade import AriaMem, Initialised, detect_provider, init_config
    from aria_mem.api.groups import Conversations, ForgottenSource, Knowledge
    from aria_mem.api.library import ImportReport
    from aria_mem.api.maintenance import Admin, Migrated, RunningService, Stopped, run_service
    from aria_mem.api.memories import ForgottenUser, MemoryRef
    from aria_mem.domain.budget import Turn
    from aria_mem.domain.fate import Fate
    from aria_mem.domain.models import Memory, MemoryStatus, MemoryType, Stage
    from aria_mem.domain.records import (
        ConversationSummary,
        DaemonState,
        IndexOwner,
        KnowledgeSource,
        PassReport,
        StoredTurn,
        SyncReport,
    )
    from aria_mem.domain.retrieval import Profile, SearchResult
    from aria_mem.domain.selection import Dropped, Ranked
    from aria_mem.ports import DaemonStart
    from aria_mem.services.chat import ChatSession, PreparedTurn
    from aria_mem.services.extractor import Extracted
    from aria_mem.services.health import (
        Check,
        CollectionInfo,
        DaemonCheck,
        DataCheck,
        DimensionStatus,
        EmbedderCheck,
        IndexCheck,
        StatusReport,
    )
    from aria_mem.services.knowledge import Learned
    from aria_mem.services.reindexer import ReindexOutcome, ReindexPlan
    from aria_mem.services.upkeep import Upkeep
    from aria_mem.services.writer import WriteResult

_WHERE = {
    "AriaMem": "aria_mem.api.facade",
    "ChatSession": "aria_mem.services.chat",
    "Check": "aria_mem.services.health",
    "CollectionInfo": "aria_mem.services.health",
    "ConversationSummary": "aria_mem.domain.records",
    "DaemonCheck": "aria_mem.services.health",
    "DaemonStart": "aria_mem.ports",
    "DaemonState": "aria_mem.domain.records",
    "DataCheck": "aria_mem.services.health",
    "DimensionStatus": "aria_mem.services.health",
    "Dropped": "aria_mem.domain.selection",
    "EmbedderCheck": "aria_mem.services.health",
    "Extracted": "aria_mem.services.extractor",
    "Fate": "aria_mem.domain.fate",
    "ForgottenSource": "aria_mem.api.groups",
    "Knowledge": "aria_mem.api.groups",
    "Conversations": "aria_mem.api.groups",
    "ForgottenUser": "aria_mem.api.memories",
    "ImportReport": "aria_mem.api.library",
    "IndexCheck": "aria_mem.services.health",
    "IndexOwner": "aria_mem.domain.records",
    "Initialised": "aria_mem.api.facade",
    "KnowledgeSource": "aria_mem.domain.records",
    "Learned": "aria_mem.services.knowledge",
    "Memory": "aria_mem.domain.models",
    "MemoryRef": "aria_mem.api.memories",
    "MemoryStatus": "aria_mem.domain.models",
    "MemoryType": "aria_mem.domain.models",
    "Migrated": "aria_mem.api.maintenance",
    "PassReport": "aria_mem.domain.records",
    "PreparedTurn": "aria_mem.services.chat",
    "Profile": "aria_mem.domain.retrieval",
    "Ranked": "aria_mem.domain.selection",
    "ReindexOutcome": "aria_mem.services.reindexer",
    "ReindexPlan": "aria_mem.services.reindexer",
    "SearchResult": "aria_mem.domain.retrieval",
    "Stage": "aria_mem.domain.models",
    "StatusReport": "aria_mem.services.health",
    "Stopped": "aria_mem.api.maintenance",
    "RunningService": "aria_mem.api.maintenance",
    "Admin": "aria_mem.api.maintenance",
    "run_service": "aria_mem.api.maintenance",
    "StoredTurn": "aria_mem.domain.records",
    "SyncReport": "aria_mem.domain.records",
    "Turn": "aria_mem.domain.budget",
    "Upkeep": "aria_mem.services.upkeep",
    "WriteResult": "aria_mem.services.writer",
    "detect_provider": "aria_mem.api.facade",
    "init_config": "aria_mem.api.facade",
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


__all__ = [
    "Admin",
    "AriaMem",
    "ChatSession",
    "Check",
    "CollectionInfo",
    "ConversationSummary",
    "Conversations",
    "DaemonCheck",
    "DaemonStart",
    "DaemonState",
    "DataCheck",
    "DimensionStatus",
    "Dropped",
    "EmbedderCheck",
    "Extracted",
    "Fate",
    "ForgottenSource",
    "ForgottenUser",
    "ImportReport",
    "IndexCheck",
    "IndexOwner",
    "Initialised",
    "Knowledge",
    "KnowledgeSource",
    "Learned",
    "Memory",
    "MemoryRef",
    "MemoryStatus",
    "MemoryType",
    "Migrated",
    "PassReport",
    "PreparedTurn",
    "Profile",
    "Ranked",
    "ReindexOutcome",
    "ReindexPlan",
    "RunningService",
    "SearchResult",
    "Stage",
    "StatusReport",
    "Stopped",
    "StoredTurn",
    "SyncReport",
    "Turn",
    "Upkeep",
    "WriteResult",
    "detect_provider",
    "init_config",
    "run_service",
]
