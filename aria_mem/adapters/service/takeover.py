"""The daemon's take-over: ``aria-mem daemon`` runs the service in its own process, in place
of one started on demand, or stands by while another daemon runs it."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from pathlib import Path

from aria_mem.adapters.service.client import ServiceClient
from aria_mem.adapters.service.folder import LOCK_NAME, lock_held, stop_service
from aria_mem.adapters.service.protocol import CLIENT_TIMEOUT
from aria_mem.adapters.service.server import DAEMON, IndexService
from aria_mem.errors import VectorIndexError

log = logging.getLogger(__name__)


def take_over(
    root: Path,
    *,
    started: str,
    stopped: Callable[[], bool] = lambda: False,
    client_timeout: float = CLIENT_TIMEOUT,
) -> IndexService | None:
    """The service of ``root`` in this process, in place of one started on demand (asked to
    stop; its clients reconnect here). While another daemon runs it, wait to take over (a
    standby, as with the reconciler's lock); None if ``stopped`` says to give up."""
    told = False
    while (
        service := IndexService.take(root, started=started, client_timeout=client_timeout)
    ) is None:
        if stopped():
            return None
        probe = ServiceClient(root, wait_seconds=5, start=False)
        try:
            info = probe.hello()
        except VectorIndexError:
            info = {}
        finally:
            probe.close()
        if info.get("command") != DAEMON:
            stopped_pid = stop_service(root)
            if stopped_pid is not None:
                log.info("stopped the aria-mem service started on demand (pid %d)", stopped_pid)
            elif lock_held(root):
                raise VectorIndexError(
                    f"The index in {root} is held by a process that is not an aria-mem "
                    f"service — stop it (its pid is in {root / LOCK_NAME})"
                )
            continue
        if not told:
            log.warning(
                "another aria-mem daemon (pid %s) runs the service for %s; waiting to take over",
                info.get("pid"),
                root,
            )
            told = True
        time.sleep(1.0)
    return service
