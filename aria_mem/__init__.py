"""aria-mem: the memory layer of a local AI companion.

Use it from Python through ``AriaMem`` (README, "Use from Python"); the `aria-mem` command,
its chat and its daemon are built on the same object. The API's names are loaded on first use,
so ``import aria_mem`` stays cheap for a command that needs little.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from aria_mem.errors import (
    AriaMemError,
    ChatModelError,
    ConfigError,
    DimensionMismatchError,
    EmbedderError,
    NotFoundError,
    ServiceError,
    StoreError,
    UsageError,
    ValidationError,
    VectorIndexError,
)

if TYPE_CHECKING:
    from aria_mem.api import (
        AriaMem,
        ChatSession,
        Fate,
        Memory,
        MemoryStatus,
        MemoryType,
        SearchResult,
        Stage,
        StatusReport,
        Turn,
        WriteResult,
        init_config,
    )

from aria_mem.version import __version__

_FROM_API = {
    "AriaMem",
    "ChatSession",
    "Fate",
    "Memory",
    "MemoryStatus",
    "MemoryType",
    "SearchResult",
    "Stage",
    "StatusReport",
    "Turn",
    "WriteResult",
    "init_config",
}


def __getattr__(name: str) -> Any:
    if name in _FROM_API:
        return getattr(importlib.import_module("aria_mem.api"), name)
    raise AttributeError(f"module 'aria_mem' has no attribute {name!r}")


__all__ = [
    "AriaMem",
    "AriaMemError",
    "ChatModelError",
    "ChatSession",
    "ConfigError",
    "DimensionMismatchError",
    "EmbedderError",
    "Fate",
    "Memory",
    "MemoryStatus",
    "MemoryType",
    "NotFoundError",
    "SearchResult",
    "ServiceError",
    "Stage",
    "StatusReport",
    "StoreError",
    "Turn",
    "UsageError",
    "ValidationError",
    "VectorIndexError",
    "WriteResult",
    "__version__",
    "init_config",
]
