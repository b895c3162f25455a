"""Is the daemon running? One rule, used by `status`, `reindex --background` and chat.

The daemon writes a heartbeat after every pass, records the interval it runs with (its own,
not the one in whichever config the caller read) and, when it stops cleanly, that it stopped.
On the same machine the recorded process is also asked directly (it may have been killed a
moment ago); on another machine only the heartbeat can tell.
"""

from __future__ import annotations

from dataclasses import dataclass

GRACE_S = 10.0
"""Allowance for a pass that runs long or a clock that is a little off."""
MISSED_BEATS = 2


@dataclass(frozen=True)
class DaemonSighting:
    heartbeat_age_s: float | None
    interval_s: float | None
    stopped: bool
    same_host: bool
    process_alive: bool | None
    """None when the process could not be asked (another machine)."""


def is_running(sighting: DaemonSighting, fallback_interval_s: float) -> bool:
    if sighting.stopped or sighting.heartbeat_age_s is None:
        return False
    if sighting.same_host and sighting.process_alive is False:
        return False
    interval = sighting.interval_s or fallback_interval_s
    return sighting.heartbeat_age_s < MISSED_BEATS * interval + GRACE_S
