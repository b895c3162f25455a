"""Knowledge the companion reads, and moving memories in and out, through the public API."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING

from aria_mem.api.conversation import Conversation
from aria_mem.domain import validation
from aria_mem.domain.invisible import json_line
from aria_mem.domain.records import SyncReport
from aria_mem.domain.validation import memory_to_record
from aria_mem.private import open_private_output
from aria_mem.services import archive as archive_service
from aria_mem.services.archive import Restored, Written

if TYPE_CHECKING:
    from aria_mem.services.transfer import ImportOutcome

Progress = Callable[[int], None]


@dataclass(frozen=True)
class ImportReport:
    outcome: ImportOutcome
    lines: int
    """Valid lines read."""
    repeated: int
    """Lines that repeat an earlier one word for word (imported once)."""
    problems: tuple[str, ...]
    """Lines left out (``line N: why``), with skip_invalid."""
    index: SyncReport | None
    """None when indexing was left to the daemon or `sync`."""
    restored: Restored = field(default_factory=Restored)
    """Stages, conversations and knowledge the file held besides memories."""


@dataclass(frozen=True)
class Exported:
    memories: int
    rest: Written
    """Stages, conversations, turns and knowledge written besides the memories."""


class Library(Conversation):
    def export(
        self, stream: IO[str], *, user: str | None = None, everything: bool = False
    ) -> Exported:
        """Every memory (of ``user``, or of everyone), every field, as JSON Lines that
        `import_file` restores. ``everything`` adds all a new machine needs besides: the
        relationship stages, the conversations with their turns, and the knowledge of the
        companions involved."""
        user_id = validation.identifier("user", user) if user is not None else None
        count = 0
        companions: set[str] = set()
        for memory in self._store.memories.iter_all():
            if user_id is not None and memory.user_id != user_id:
                continue
            stream.write(json_line(memory_to_record(memory)) + "\n")
            companions.add(memory.companion_id)
            count += 1
        if not everything:
            return Exported(count, archive_service.Written())
        store = self._store
        written = archive_service.write_everything_else(
            stream,
            conversations=store.conversations,
            relationships=store.relationships,
            knowledge=store.knowledge,
            user_id=user_id,
            companions=companions,
        )
        return Exported(count, written)

    def export_file(
        self, path: str | Path, *, user: str | None = None, everything: bool = False
    ) -> Exported:
        """`export` into a file written readable by its owner only (0600; an existing file
        of another account, a symbolic link or a FIFO is refused; the old file stays whole
        if the export fails)."""
        with open_private_output(path) as stream:
            return self.export(stream, user=user, everything=everything)

    def import_file(
        self,
        path: str | Path | IO[bytes],
        *,
        skip_invalid: bool = False,
        index: bool = True,
        progress: Progress | None = None,
        on_start: Callable[[int], None] | None = None,
    ) -> ImportReport:
        """Import JSON Lines as `export` writes them, idempotently by id (stages,
        conversations and knowledge too, when the file has them; see services.archive).
        Every line is checked first: without ``skip_invalid`` a bad line stops the import
        and nothing is stored (the memories go in one transaction; then each conversation
        and source in its own, so a failed import can be run again). Unchanged rows keep
        their vectors; the rest are indexed unless ``index`` is False (``on_start`` hears
        how many wait, ``progress`` how many are done). ``path`` may also be an open binary
        stream (e.g. ``sys.stdin.buffer``)."""
        from aria_mem.services.transfer import import_lines, read_lines, read_stream

        if isinstance(path, str | Path):
            parsed = read_lines(Path(path), skip_invalid=skip_invalid)
        else:
            parsed = read_stream(path, "stdin", skip_invalid=skip_invalid)
        outcome = import_lines(self._store.memories, parsed.lines, skip_invalid=skip_invalid)
        restored = archive_service.restore(
            parsed.archive,
            conversations=self._store.conversations,
            relationships=self._store.relationships,
            knowledge=self._store.knowledge,
        )
        report = None
        if index and (parsed.lines or restored.sources or restored.stages):
            if on_start is not None:
                on_start(self._store.queue.pending_count())
            report = self._indexer.run_pending(progress=progress)
        return ImportReport(
            outcome,
            len(parsed.lines),
            parsed.repeated,
            tuple(parsed.problems + outcome.rejected),
            report,
            restored,
        )
