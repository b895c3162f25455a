"""What the daemon reports to `status` (one row), and re-index runs."""

from __future__ import annotations

from datetime import UTC, datetime

from psycopg.types.json import Jsonb

from aria_mem.adapters.postgres.connection import Database
from aria_mem.domain.records import (
    DaemonState,
    DimensionCheck,
    PassReport,
    ReindexRun,
    SweepReport,
)
from aria_mem.ports import DaemonStart, ModelSwitch


class PgDaemonRecords:
    def __init__(self, db: Database) -> None:
        self._db = db

    def _upsert(self, values: dict[str, object]) -> None:
        names = sorted(values)
        updates = ", ".join(f"{n} = EXCLUDED.{n}" for n in names)
        with self._db.connection() as conn:
            conn.execute(
                f"INSERT INTO daemon_state (id, {', '.join(names)})"
                f" VALUES (1, {', '.join(['%s'] * len(names))})"
                f" ON CONFLICT (id) DO UPDATE SET {updates}",
                [values[n] for n in names],
            )

    def daemon_started(self, start: DaemonStart) -> None:
        self._upsert(
            {
                "pid": start.pid,
                "host": start.host,
                "started_at": start.started_at,
                "heartbeat_at": datetime.now(UTC),
                "reconcile_interval": start.reconcile_interval,
                "stopped_at": None,
            }
        )

    def daemon_heartbeat(
        self,
        *,
        last_pass: PassReport | None = None,
        last_sweep: SweepReport | None = None,
        dimension: DimensionCheck | None = None,
    ) -> None:
        values: dict[str, object] = {"heartbeat_at": datetime.now(UTC)}
        for name, report in (
            ("last_pass", last_pass),
            ("last_sweep", last_sweep),
            ("dimension", dimension),
        ):
            if report is not None:
                values[name] = Jsonb(report.as_dict())
        self._upsert(values)

    def daemon_stopped(self) -> None:
        self._upsert({"stopped_at": datetime.now(UTC)})

    def daemon_state(self) -> DaemonState | None:
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT *, extract(epoch FROM now() - heartbeat_at) AS heartbeat_age"
                " FROM daemon_state WHERE id = 1"
            ).fetchone()
        if row is None:
            return None
        age = row["heartbeat_age"]
        interval = row["reconcile_interval"]
        return DaemonState(
            pid=row["pid"],
            host=row["host"],
            started_at=row["started_at"],
            heartbeat_at=row["heartbeat_at"],
            heartbeat_age_s=None if age is None else float(age),
            reconcile_interval=None if interval is None else float(interval),
            stopped_at=row["stopped_at"],
            last_pass=PassReport.from_json(row["last_pass"]),
            last_sweep=SweepReport.from_json(row["last_sweep"]),
            dimension=DimensionCheck.from_json(row["dimension"]),
        )

    def start_reindex(self, model: str, total: int, background: bool) -> None:
        """Record a new run; an unfinished run of another model is superseded by it."""
        with self._db.connection() as conn, conn.transaction():
            conn.execute("UPDATE reindex_runs SET finished_at = now() WHERE finished_at IS NULL")
            conn.execute(
                "INSERT INTO reindex_runs (model, total, background) VALUES (%s, %s, %s)",
                (model, total, background),
            )

    def finish_reindex(self, model: str) -> None:
        with self._db.connection() as conn:
            conn.execute(
                "UPDATE reindex_runs SET finished_at = now()"
                " WHERE model = %s AND finished_at IS NULL",
                (model,),
            )

    def latest_reindex(self) -> ModelSwitch | None:
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT id, model, started_at FROM reindex_runs ORDER BY id DESC LIMIT 1"
            ).fetchone()
        if row is None:
            return None
        return ModelSwitch(int(row["id"]), str(row["model"]), row["started_at"])

    def open_reindex(self) -> ReindexRun | None:
        """The unfinished re-index run, with how much is still pending."""
        with self._db.connection() as conn:
            row = conn.execute(
                "SELECT r.*, (SELECT count(*) FROM memories WHERE index_state = 'pending')"
                " + (SELECT count(*) FROM knowledge_items WHERE index_state = 'pending')"
                " AS pending FROM reindex_runs r WHERE finished_at IS NULL"
                " ORDER BY id DESC LIMIT 1"
            ).fetchone()
        if row is None:
            return None
        return ReindexRun(
            model=row["model"],
            total=int(row["total"]),
            pending=int(row["pending"]),
            started_at=row["started_at"],
            background=bool(row["background"]),
        )
