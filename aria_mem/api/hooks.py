"""What this repository's own commands need beyond the public API: the terminal chat's session
(`aria-mem chat`) and the daemon's upkeep and lock (`aria-mem daemon`).

They are machinery, not results: a program built on aria-mem has ``search``, ``extract`` and
``relay`` for a conversation and ``run_service`` for the daemon's work, so none of these names
is exported from ``aria_mem`` (docs/python-api.md lists what is) and they may change with the
commands that use them. The entry points may import them from here, as the import contracts
let them import nothing from the services.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from aria_mem.ports import DaemonLock as DaemonLock
from aria_mem.ports import DaemonStart as DaemonStart

if TYPE_CHECKING:
    from aria_mem.api.facade import AriaMem
    from aria_mem.services.chat import ChatSession as ChatSession
    from aria_mem.services.chat import PreparedTurn as PreparedTurn
    from aria_mem.services.upkeep import Upkeep as Upkeep


def chat_session(
    memory: AriaMem,
    *,
    user: str | None = None,
    companion: str | None = None,
    new: bool = False,
    model: str | None = None,
) -> ChatSession:
    """A conversation with the configured chat model (``model`` for another one): each turn
    brings up memories, fits the prompt into the model's window, streams the reply and stores
    the turns; ``new`` starts a new conversation instead of resuming."""
    from aria_mem.api.chatting import open_chat

    context = memory._context
    user_id, companion_id = context.scope(user, companion)
    return open_chat(context, user_id, companion_id, new=new, model=model)


def daemon_lock(memory: AriaMem) -> DaemonLock:
    """The lock that lets one daemon at a time reconcile a database."""
    return memory._context.adapters.daemon_lock()


def upkeep(memory: AriaMem) -> Upkeep:
    """What the daemon does each pass; it follows a switch of embedding model recorded in
    PostgreSQL, as every call does."""
    from aria_mem.domain.hygiene import RetirementRule
    from aria_mem.services.upkeep import Upkeep

    context = memory._context
    context.follow()
    hygiene = context.settings.hygiene
    rule = RetirementRule(older_than=timedelta(days=hygiene.retire_after_days))
    return context.service(
        "upkeep",
        lambda: Upkeep(
            context.store,
            context.index,
            context.embedder,
            retire=hygiene.retire,
            retirement=rule,
            consolidate=lambda stop: context.consolidator.run(should_stop=stop).looked,
        ),
    )


def store_answers(memory: AriaMem) -> bool:
    """Whether the PostgreSQL behind a long-kept ``memory`` still answers (one round trip).
    The aria-mem service keeps an ``AriaMem`` per command's settings; a server stopped or
    restarted since leaves its pooled connections dead, and the embedded one comes back under
    a new password, which only a fresh ``AriaMem`` reads, so the service opens one instead."""
    from aria_mem.errors import StoreError

    try:
        memory._context.store.ping()
    except StoreError:
        return False
    return True


def search_here(memory: AriaMem) -> AriaMem:
    """``memory`` with its searches run in this process, never sent to the aria-mem service:
    a command run with ``--no-service`` or ``-v`` (whose log lines are shown here), and a
    benchmark that changes this object's retriever."""
    memory._served = False
    return memory
