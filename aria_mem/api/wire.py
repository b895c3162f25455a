"""How a search's result crosses the aria-mem service's socket whole (``remote.served_search``):
every field and type as the retriever made it, so that a program gets from the service the very
``SearchResult`` it would have made itself.

Pickled, with the records a result holds most of (memories, their ids) made again by their
constructors rather than by the generic state dataclasses and ``uuid`` give (a result of 60
memories: about 0.45 ms of CPU to write, 0.6 ms to read, against 0.6 and 0.7 so); a
field-by-field codec in Python has to convert the same values one call at a time. The reading
side builds aria-mem's domain types and a few of Python's value types and nothing else,
although the socket's other end is already checked to be this account's service.
"""

from __future__ import annotations

import functools
import io
import pickle
import uuid
from collections.abc import Callable
from dataclasses import fields
from enum import EnumMeta
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar
from zoneinfo import ZoneInfo

from aria_mem.errors import VectorIndexError

if TYPE_CHECKING:
    from aria_mem.domain.retrieval import SearchResult


def result_wire(result: SearchResult) -> bytes:
    """A search's result whole, every field and type as the retriever made it, for the
    client's ``result_from_wire``: pickled (``_by_fields``), sent as raw bytes after the reply
    line (the socket's ``FRAME``)."""
    out = io.BytesIO()
    pickler = pickle.Pickler(out, protocol=pickle.HIGHEST_PROTOCOL)
    pickler.dispatch_table = _by_fields()
    pickler.dump(result)
    return out.getvalue()


_Reduced = tuple[Callable[..., Any], tuple[Any, ...]]
"""What pickle calls to make a record again, and with what."""


@functools.cache
def _by_fields() -> dict[type, Callable[[Any], _Reduced]]:
    """How the records a result holds most of cross: by their constructors (a UUID by its
    number), not by the generic state dataclasses and ``uuid`` give."""
    from aria_mem.domain.models import KnowledgeItem, Memory
    from aria_mem.domain.time_signal import Asked
    from aria_mem.domain.when import Span

    def reducer(kind: type) -> Callable[[Any], _Reduced]:
        names = [f.name for f in fields(kind)]
        values = attrgetter(*names)
        if len(names) == 1:  # attrgetter of one name gives the value itself
            return lambda record: (kind, (values(record),))
        return lambda record: (kind, values(record))

    table: dict[type, Callable[[Any], _Reduced]]
    table = {kind: reducer(kind) for kind in (Memory, KnowledgeItem, Asked, Span)}
    table[uuid.UUID] = lambda u: (_uuid_of, (u.int,))
    return table


def _uuid_of(number: int) -> uuid.UUID:
    """The UUID of a 128-bit number, as ``uuid.UUID(int=number)`` makes it, without its
    constructor's checks of the other four ways to give one (1.2 -> 0.7 us; a result holds
    some sixty)."""
    if not 0 <= number < 1 << 128:
        raise ValueError(f"{number} is no UUID's number")
    made = object.__new__(uuid.UUID)
    object.__setattr__(made, "int", number)
    object.__setattr__(made, "is_safe", uuid.SafeUUID.unknown)
    return made


_VALUE_TYPES = {
    ("uuid", "UUID"),
    ("uuid", "SafeUUID"),
    ("datetime", "datetime"),
    ("datetime", "date"),
    ("datetime", "timedelta"),
    ("datetime", "timezone"),
    ("zoneinfo", "ZoneInfo"),
}


def _member(kind: object, name: str) -> Any:
    """What pickle names by ``getattr(kind, name)`` among the types ``_ResultUnpickler``
    allows: an enum's member, or how a time zone is made again (``ZoneInfo._unpickle``)."""
    if isinstance(kind, EnumMeta) and name in kind.__members__:
        return kind[name]
    if kind is ZoneInfo and name == "_unpickle":
        return ZoneInfo._unpickle  # type: ignore[attr-defined]
    raise pickle.UnpicklingError(f"a search result holds no member {name!r} of {kind!r}")


class _ResultUnpickler(pickle.Unpickler):
    """Builds aria-mem's domain types and a few of the standard library's value types, and
    nothing else: the socket's other end is checked to be this account's service, and even
    so no other class or function is ever looked up (an enum member named by ``getattr``
    comes from ``_member``)."""

    _allowed: ClassVar[dict[tuple[str, str], Any]] = {
        ("builtins", "getattr"): _member,
        (__name__, "_uuid_of"): _uuid_of,
    }
    """What each name already allowed found (a result names some twenty; one dictionary look-up
    each rather than the checks and the import machinery again). Only what passed the checks
    below is kept here."""

    def find_class(self, module: str, name: str, /) -> Any:
        found = self._allowed.get((module, name))
        if found is not None:
            return found
        domain = module == "aria_mem.domain" or module.startswith("aria_mem.domain.")
        if "." in name:  # a dotted name walks attributes: through a module's imports, too
            raise pickle.UnpicklingError(f"a search result holds no {module}.{name}")
        if domain or (module, name) in _VALUE_TYPES:
            found = super().find_class(module, name)
            if isinstance(found, type):
                self._allowed[module, name] = found
                return found
        raise pickle.UnpicklingError(f"a search result holds no {module}.{name}")


def result_from_wire(raw: object) -> SearchResult:
    """The result ``result_wire`` wrote; a ``VectorIndexError`` (a service failure: the
    search is then run in-process) when it is not one this aria-mem can read."""
    from aria_mem.domain.retrieval import SearchResult

    if not isinstance(raw, bytes):
        raise VectorIndexError(
            f"The aria-mem service answered a search with a {type(raw).__name__}, not bytes"
        )
    try:
        result = _ResultUnpickler(io.BytesIO(raw)).load()
    except Exception as exc:  # what unpickling raises varies with what was sent
        raise VectorIndexError(
            f"The aria-mem service's search result is unreadable: {exc}"
        ) from exc
    if not isinstance(result, SearchResult):
        raise VectorIndexError(
            f"The aria-mem service answered a search with a {type(result).__name__}"
        )
    return result
