"""Knowledge the companion reads, and moving memories in and out, through the public API."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from aria_mem.api.conversation import Conversation
from aria_mem.domain.records import KnowledgeSource, SyncReport
from aria_mem.domain.validation import memory_to_record
from aria_mem.errors import UsageError
from aria_mem.private import open_private
from aria_mem.services import knowledge as knowledge_service
from aria_mem.services.knowledge import Learned
from aria_mem.services.transfer import ImportOutcome, import_lines, read_lines, read_stream

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


@dataclass(frozen=True)
class ForgottenSource:
    source: KnowledgeSource
    vectors_removed: int


class Library(Conversation):
    def learn(
        self, location: str, *, title: str | None = None, companion: str | None = None
    ) -> Learned:
        """Read a text, Markdown or HTML file or an http(s) page into knowledge passages (the
        companion's, not facts about the user), stored and indexed in their own collection.
        Learning the same source again replaces it."""
        _, companion_id = self._scope(None, companion)
        return knowledge_service.learn(
            location,
            companion_id=companion_id,
            title=title,
            reader=self.reader,
            knowledge=self.store.knowledge,
            indexer=self.indexer,
        )

    def knowledge(
        self, *, companion: str | None = None, everyone: bool = False
    ) -> list[KnowledgeSource]:
        """What the companion (``everyone``: every companion) has learned."""
        _, companion_id = self._scope(None, companion)
        return self.store.knowledge.sources(None if everyone else companion_id)

    def forget_knowledge(self, source_id: str) -> ForgottenSource:
        """Forget a learned source (id or its first characters): passages and vectors."""
        source = self.store.knowledge.forget(source_id)
        return ForgottenSource(source, self.indexer.run_deletions().deletions_done)

    def export(self, stream: IO[str]) -> int:
        """Every memory, every field, as JSON Lines; returns how many."""
        count = 0
        for memory in self.store.memories.iter_all():
            stream.write(json.dumps(memory_to_record(memory), ensure_ascii=False) + "\n")
            count += 1
        return count

    def export_file(self, path: str | Path) -> int:
        """`export` into a file written readable by its owner only (0600; an existing file
        of another account is refused)."""
        try:
            stream = open_private(Path(path))
        except OSError as exc:
            raise UsageError(f"Cannot write {path}: {exc.strerror or exc}") from exc
        with stream:
            return self.export(stream)

    def import_file(
        self,
        path: str | Path | IO[bytes],
        *,
        skip_invalid: bool = False,
        index: bool = True,
        progress: Progress | None = None,
        on_start: Callable[[int], None] | None = None,
    ) -> ImportReport:
        """Import JSON Lines as `export` writes them, idempotently by id. Every line is
        checked first: without ``skip_invalid`` a bad line stops the import and nothing is
        stored. Unchanged rows keep their vectors; the rest are indexed unless ``index`` is
        False (``on_start`` hears how many wait, ``progress`` how many are done). ``path``
        may also be an open binary stream (e.g. ``sys.stdin.buffer``)."""
        if isinstance(path, str | Path):
            parsed = read_lines(Path(path), skip_invalid=skip_invalid)
        else:
            parsed = read_stream(path, "stdin", skip_invalid=skip_invalid)
        outcome = import_lines(self.store.memories, parsed.lines, skip_invalid=skip_invalid)
        report = None
        if index and parsed.lines:
            if on_start is not None:
                on_start(self.store.queue.pending_count())
            report = self.indexer.run_pending(progress=progress)
        return ImportReport(
            outcome,
            len(parsed.lines),
            parsed.repeated,
            tuple(parsed.problems + outcome.rejected),
            report,
        )
