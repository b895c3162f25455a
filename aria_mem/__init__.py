"""aria-mem: the memory layer of a local AI companion.

Use it from Python through ``AriaMem`` (README, "Use from Python"); the `aria-mem` command,
its chat and its daemon are built on the same object. Every type a public call or result uses
is importable from here, and nothing else: docs/python-api.md lists the names. A program's
tests open one in memory with ``aria_mem.testing.in_memory()``. The API's names are loaded on
first use, so ``import aria_mem`` stays cheap for a command that needs little.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from aria_mem.errors import (
    AmbiguousIdError as AmbiguousIdError,
)
from aria_mem.errors import (
    AriaMemError as AriaMemError,
)
from aria_mem.errors import (
    ChatModelError as ChatModelError,
)
from aria_mem.errors import (
    ChatModelMissingError as ChatModelMissingError,
)
from aria_mem.errors import (
    ConfigError as ConfigError,
)
from aria_mem.errors import (
    DimensionMismatchError as DimensionMismatchError,
)
from aria_mem.errors import (
    EmbedderError as EmbedderError,
)
from aria_mem.errors import (
    IndexClosedError as IndexClosedError,
)
from aria_mem.errors import (
    IndexDiskFullError as IndexDiskFullError,
)
from aria_mem.errors import (
    NotFoundError as NotFoundError,
)
from aria_mem.errors import (
    SaidElsewhereError as SaidElsewhereError,
)
from aria_mem.errors import (
    ServiceError as ServiceError,
)
from aria_mem.errors import (
    StoreError as StoreError,
)
from aria_mem.errors import (
    UsageError as UsageError,
)
from aria_mem.errors import (
    ValidationError as ValidationError,
)
from aria_mem.errors import (
    VectorIndexError as VectorIndexError,
)
from aria_mem.version import __version__ as __version__

if TYPE_CHECKING:
    from aria_mem.api import *  # noqa: F403  (every name of the API, for type checkers)


def _api() -> Any:
    return importlib.import_module("aria_mem.api")


def __getattr__(name: str) -> Any:
    if name in _api().__all__:
        return getattr(_api(), name)
    raise AttributeError(f"module 'aria_mem' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = sorted(
    {n for n, v in globals().items() if isinstance(v, type) and issubclass(v, Exception)}
    | set(_api().__all__)
    | {"__version__"}
)
