"""The memory-hygiene data set: eight people, what a companion would have written down about each
of them over six to eighteen months, and what a clean memory store should make of it.

Written for this project from scratch (MIT, like the rest of it); nothing is fetched and no public
benchmark was copied. The people are fictional; their lines are in data/hygiene.jsonl, which
scripts/datasets.py reads and checks on import into :data:`TIMELINES`.

A person's timeline holds, in the order said and in the product's style ("The user ..."):

- stable facts, said once and never changed;
- paraphrased repeats: one fact said again later in other words; the wordings share a ``group``,
  and a store that absorbs duplicates ends with one memory per group;
- changed facts: a value that changes over time (a move, a new job, a new partner, a new diet, a
  new dog); each step carries its ``chain`` and ``step``, and only the last step stays current;
- look-alikes: two memories that read alike but hold different facts (``opposite`` polarity,
  the same template about an ``other entity``, an ``other aspect`` of the same topic, an
  ``other fact`` about the same person); they must neither merge nor supersede each other;
- stale trivia: old, low-importance memories (a sandwich for lunch) marked ``trivial``, the
  candidates for retirement.

Questions ask about the changed facts in the user's own words; each names the memory that answers
it now (the chain's last step) and the obsolete steps that must not.
"""

from __future__ import annotations

from scripts.datasets import timelines
from scripts.records import ChangedQuestion, LookAlike, Said, Timeline

__all__ = ["TIMELINES", "ChangedQuestion", "LookAlike", "Said", "Timeline"]

TIMELINES: tuple[Timeline, ...] = timelines()
