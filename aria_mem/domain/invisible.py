"""Characters that show nothing, stated once: Unicode's Default_Ignorable_Code_Point set, and
the escaping that keeps them (and the other characters a terminal acts on) out of export files.

Python's ``unicodedata`` gives a character's general category but not this property, and the
category alone misses part of it: the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0) are
letters (Lo), the combining grapheme joiner (U+034F), the Khmer inherent vowels (U+17B4,
U+17B5) and the variation selectors are marks (Mn), and the rest of U+E0000..U+E0FFF is
unassigned (Cn) until it is needed. Every one of them renders as nothing, so text holding them
can look like other text (an id that reads "sam" and is not) or carry a message no reader
sees. The ranges below are those of DerivedCoreProperties.txt, unchanged from Unicode 14.0
(the version this Python knows) through 16.0; the set is closed by design (its unassigned
code points are reserved for more of the same), so it is stated here rather than derived.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # soft hyphen
    (0x034F, 0x034F),  # combining grapheme joiner
    (0x061C, 0x061C),  # Arabic letter mark
    (0x115F, 0x1160),  # Hangul choseong and jungseong fillers
    (0x17B4, 0x17B5),  # Khmer inherent vowels
    (0x180B, 0x180F),  # Mongolian free variation selectors and vowel separator
    (0x200B, 0x200F),  # zero width space, (non-)joiner, left-to-right and right-to-left marks
    (0x202A, 0x202E),  # bidirectional embeddings and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidirectional isolates, deprecated
    (0x3164, 0x3164),  # Hangul filler
    (0xFE00, 0xFE0F),  # variation selectors 1-16
    (0xFEFF, 0xFEFF),  # zero width no-break space (byte order mark)
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol beam and phrase controls
    (0xE0000, 0xE0FFF),  # tags (U+E0000..U+E007F), variation selectors 17-256, reserved
)
"""Unicode's Default_Ignorable_Code_Point property, as inclusive ranges of code points."""

BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
"""The explicit bidirectional formatting characters (all default-ignorable): the ones that
can make a line read in another order than it is stored (CVE-2021-42574, "Trojan Source")."""

_IGNORABLE = frozenset(chr(c) for start, end in DEFAULT_IGNORABLE for c in range(start, end + 1))


def _char_class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(f"\\U{start:08x}-\\U{end:08x}" for start, end in ranges)


_ANY_IGNORABLE = re.compile(f"[{_char_class(DEFAULT_IGNORABLE)}]")

_JSON_ESCAPED = re.compile(
    "["
    + _char_class(
        (
            (0x00, 0x1F),  # C0 controls (json.dumps escapes them already)
            (0x7F, 0x9F),  # delete and the C1 controls (CSI, OSC, NEL ...)
            (0x2028, 0x2029),  # line and paragraph separators
            (0xD800, 0xDFFF),  # lone surrogates: escaped they can still be written as UTF-8
            *DEFAULT_IGNORABLE,
        )
    )
    + "]"
)


def is_default_ignorable(ch: str) -> bool:
    """Whether the character ``ch`` is a Default_Ignorable_Code_Point."""
    return ch in _IGNORABLE


def has_default_ignorable(text: str) -> bool:
    """Whether any character of ``text`` is a Default_Ignorable_Code_Point (at C speed)."""
    return not text.isascii() and _ANY_IGNORABLE.search(text) is not None


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_line(record: Mapping[str, object]) -> str:
    """One JSON Lines line (no newline) of ``record``, with every control character (C0, DEL,
    C1), line and paragraph separator, lone surrogate and default-ignorable character (the
    bidirectional controls, tags, zero-width characters and variation selectors among them)
    written as a ``\\uXXXX`` escape (a surrogate pair beyond U+FFFF, as JSON requires), and
    any other non-ASCII text left as readable UTF-8.

    An export goes to a terminal, a pager, a pipe or a file that someone later ``cat``s or
    opens in an editor; escaped, none of these characters can move the cursor, reorder a
    line, end a line early for a JavaScript reader, or hide text. JSON gives back exactly the
    same strings either way, so this is done for every export, not only for terminals: the
    file is then the same wherever it was written. Replacing after ``json.dumps`` is sound:
    outside its string literals the output is ASCII, and its own escapes are ASCII too, so
    every character matched here is a character of a string's value."""
    return _JSON_ESCAPED.sub(_json_escape, json.dumps(record, ensure_ascii=False))
