"""`status` as JSON: what `status --json` prints and what the human report is drawn from, so
a status the aria-mem service answers renders as one run in the command's own process."""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aria_mem.api import AriaMem, DaemonCheck, ModelServer, StatusReport


def status_json(report: StatusReport) -> dict[str, Any]:
    """`status --json`: every check by name, its target, latency, error and details (what
    the human report is drawn from too, so a served status renders as one run here)."""
    checks: dict[str, dict[str, Any]] = {}
    for check in report.checks:
        body: dict[str, Any] = {
            "ok": check.ok,
            "target": check.target,
            "latency_ms": check.latency_ms,
            "error": check.error,
        }
        checks[check.name] = body
    checks["index"]["collections"] = {
        c.name: {"vector_size": c.vector_size, "points": c.points} for c in report.index.collections
    }
    owner = report.index.owner
    checks["index"]["owner"] = asdict(owner) if owner is not None else None
    checks["embedder"].update(model=report.embedder.model, dimension=report.embedder.dimension)
    checks["dimension"].update(
        checked=report.dimension.checked, model_dimension=report.dimension.model_dimension
    )
    if report.data is not None:
        checks["data"]["unreadable"] = report.data.unreadable
    if (v := report.vectors) is not None:
        found = ("model", "indexed", "present", "missing", "other_model", "stale")
        checks["vectors"].update({name: getattr(v, name) for name in found})
    if report.daemon is not None:
        checks["daemon"].update(_daemon_json(report.daemon))
    return {
        "ok": report.ok,
        "checks": checks,
        "memories": asdict(report.counts) if report.counts is not None else None,
    }


def _daemon_json(check: DaemonCheck) -> dict[str, Any]:
    state = check.state
    body: dict[str, Any] = {"running": check.running}
    if state is not None:
        body.update(
            pid=state.pid,
            host=state.host,
            heartbeat_age_s=None
            if state.heartbeat_age_s is None
            else round(state.heartbeat_age_s, 1),
            interval_s=state.reconcile_interval,
            stopped_at=state.stopped_at,
            last_pass=state.last_pass.as_dict() if state.last_pass else None,
            last_sweep=state.last_sweep.as_dict() if state.last_sweep else None,
            dimension=state.dimension.as_dict() if state.dimension else None,
        )
    if check.reindex is not None:
        body["reindex"] = {
            "model": check.reindex.model,
            "total": check.reindex.total,
            "done": check.reindex.done,
            "started_at": check.reindex.started_at,
            "background": check.reindex.background,
        }
    return body


def server_json(server: ModelServer) -> dict[str, Any]:
    holder = server.listener
    return {
        "role": server.role,
        "provider": server.provider,
        "url": server.url,
        "listening": holder.listening if holder.known else None,
        "uid": holder.uid,
        "account": holder.account or None,
        "another_person": holder.another_person,
        "trusted": server.trusted,
        "detail": holder.describe(),
    }


def status_body(mem: AriaMem) -> dict[str, Any]:
    """`status`: the checks, and who runs each model server (asking which imports the model
    server's client, which a command answered by the service need not)."""
    from aria_mem.api.initialise import model_servers

    body = status_json(mem.admin.status())
    body["model_servers"] = [server_json(s) for s in model_servers(mem.settings)]
    return body
