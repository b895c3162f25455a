"""The checked JSON Lines reader under scripts/datasets.py: every line a JSON object whose
``record`` names its fields, each field of a known kind, so that a typo in a data set fails
naming the file, the line and the problem."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import NoReturn

Schema = dict[str, dict[str, str]]
"""record: {field: its kind, ending in "?" when optional}."""


def _is_date(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return len(value) == 10


def _word(value: object) -> bool:
    return isinstance(value, str) and value != ""


def _words(value: object) -> bool:
    return isinstance(value, list) and bool(value) and all(_word(w) for w in value)


_ID = re.compile(r"[a-z][a-z0-9-]*")
_KINDS: dict[str, tuple[str, Callable[[object], bool]]] = {
    "str": ("a string", lambda v: isinstance(v, str) and v != ""),
    "id": ("a lowercase ascii id", lambda v: isinstance(v, str) and bool(_ID.fullmatch(v))),
    "text": (
        "one line of at most 200 characters",
        lambda v: isinstance(v, str) and 0 < len(v) <= 200 and "\n" not in v,
    ),
    "date": ("an ISO date", lambda v: isinstance(v, str) and _is_date(v)),
    "share": (
        "a number from 0 to 1",
        lambda v: isinstance(v, int | float) and not isinstance(v, bool) and 0 <= v <= 1,
    ),
    "step": ("a whole number from 1", lambda v: type(v) is int and v >= 1),
    "flag": ("true", lambda v: v is True),
    "strs": ("a list of strings", _words),
    "words": (
        "an object of lists of strings",
        lambda v: isinstance(v, dict) and all(_words(w) for w in v.values()),
    ),
}


class DataError(ValueError):
    """A data file breaks its rules: the message starts with file:line."""


@dataclass(frozen=True)
class Line:
    """One checked line: its record and fields, and where it stands for error messages."""

    where: str
    record: str
    fields: dict[str, object]

    def fail(self, problem: str) -> NoReturn:
        raise DataError(f"{self.where}: {problem}")

    def text(self, name: str) -> str:
        value = self.fields.get(name, "")
        return value if isinstance(value, str) else self.fail(f"{name} is not a string")

    def number(self, name: str) -> float:
        value = self.fields[name]
        return float(value) if isinstance(value, int | float) else self.fail(f"{name}: number")

    def whole(self, name: str) -> int:
        value = self.fields.get(name, 0)
        return value if isinstance(value, int) else self.fail(f"{name} is not a whole number")

    def texts(self, name: str) -> tuple[str, ...]:
        value = self.fields[name]
        return tuple(str(w) for w in value) if isinstance(value, list) else self.fail(name)

    def words(self, name: str) -> dict[str, tuple[str, ...]]:
        value = self.fields[name]
        if not isinstance(value, dict):
            self.fail(f"{name} is not an object")
        return {str(k): tuple(str(w) for w in v) for k, v in value.items()}


def read(path: Path, schema: Schema) -> list[Line]:
    """Every line of ``path``, each checked against ``schema``; DataError names the first that
    is not."""
    lines: list[Line] = []
    text = path.read_text(encoding="utf-8")
    for number, raw in enumerate(text.splitlines(), 1):
        where = f"{path.parent.name}/{path.name}:{number}"
        if not raw.strip():
            raise DataError(f"{where}: an empty line")
        try:
            fields = json.loads(raw)
        except json.JSONDecodeError as error:
            raise DataError(f"{where}: not JSON ({error.msg}, column {error.colno})") from None
        if not isinstance(fields, dict):
            raise DataError(f"{where}: not a JSON object")
        record = fields.pop("record", None)
        if record not in schema:
            raise DataError(f"{where}: record {record!r} is none of {', '.join(schema)}")
        expected = schema[record]
        for name in sorted(fields.keys() - expected.keys()):
            raise DataError(f"{where}: a {record} has no field {name!r}")
        for name, kind in expected.items():
            if name not in fields:
                if kind.endswith("?"):
                    continue
                raise DataError(f"{where}: a {record} needs a {name!r}")
            described, valid = _KINDS[kind.rstrip("?")]
            if not valid(fields[name]):
                raise DataError(f"{where}: {name} {fields[name]!r} is not {described}")
        lines.append(Line(where, record, fields))
    return lines


def owners(lines: list[Line], header: str, owner: str) -> list[tuple[Line, list[Line]]]:
    """The lines grouped under their headers; a line must follow the header of what it names."""
    groups: list[tuple[Line, list[Line]]] = []
    seen: set[str] = set()
    for line in lines:
        name = line.text(owner)
        if line.record == header:
            if name in seen:
                line.fail(f"a second {header} {name!r}")
            seen.add(name)
            groups.append((line, []))
        elif not groups or groups[-1][0].text(owner) != name:
            line.fail(f"{owner} {name!r} is not the {header} of the lines above")
        else:
            groups[-1][1].append(line)
    return groups
