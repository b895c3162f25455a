"""A change PostgreSQL aborted to break a deadlock runs again.

The changes that share memories take their locks in one order (``questions.LOCK_ORDER``), which
makes deadlocks rare, but some pairs of changes still take rows in orders no statement can fix
(docs/hygiene.md, "Locks": a reply's use counts in plan order against a pass's merge, two
forgets whose histories name each other, ...). PostgreSQL then aborts one of the two and rolls
its transaction back whole, and its manual asks the client to run it again. Without that, a
forget, an undo or a pass's merge failed with "deadlock detected" although nothing was wrong
with it; now the loser waits about a second (PostgreSQL's ``deadlock_timeout``) and succeeds.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import psycopg

from aria_mem.errors import StoreError

log = logging.getLogger(__name__)

ATTEMPTS = 4
"""How many times a change runs before its deadlock is reported: a change that loses four
times in a row meets a circle that keeps forming, which running it again would not end."""

_BACKOFF = 0.01
"""Seconds before the next attempt, times the attempts made: the winner of the deadlock has
its locks by then, so the change waits for it in a line, not in a circle."""

_P = ParamSpec("_P")
_T = TypeVar("_T")


def rerun_on_deadlock(change: Callable[_P, _T]) -> Callable[_P, _T]:
    """Only for a change that is one transaction, or statements each of which can run twice:
    what a deadlock aborted was rolled back, and nothing else it did may have been kept."""

    @functools.wraps(change)
    def again(*args: _P.args, **kwargs: _P.kwargs) -> _T:
        attempt = 1
        while True:
            try:
                return change(*args, **kwargs)
            except StoreError as exc:
                if attempt >= ATTEMPTS or not rolled_back(exc):
                    raise
                log.warning(
                    "PostgreSQL aborted %s to break a deadlock; running it again (%d of %d)",
                    change.__qualname__,
                    attempt + 1,
                    ATTEMPTS,
                )
                time.sleep(_BACKOFF * attempt)
                attempt += 1

    return again


def rolled_back(error: BaseException) -> bool:
    """Whether PostgreSQL aborted the transaction under ``error`` to let another go on (a
    deadlock, or a serialization failure), rather than finding something wrong with it."""
    cause = error.__cause__
    return isinstance(cause, psycopg.errors.DeadlockDetected | psycopg.errors.SerializationFailure)
