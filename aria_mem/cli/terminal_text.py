"""Text made safe for a terminal: whatever a memory, a document, a model or an argument holds,
printing it cannot clear the screen, retitle the window, reorder what is shown or hide part of
itself."""

from __future__ import annotations

import unicodedata

from rich.markup import escape

from aria_mem.domain.invisible import has_default_ignorable, is_default_ignorable

__all__ = ["markup_safe", "safe"]

_SHOWN_AS = {"\n": "↵", "\r": "↵", "\t": " ", "\u2028": "↵", "\u2029": "↵"}
_KEPT = frozenset("\u200c\u200d\ufe0e\ufe0f")
"""The invisible characters shown as they are, because text needs them and none can reorder
or hide anything: the zero-width non-joiner and joiner (Persian and Indic words are spelled
with them; the joiner builds emoji sequences, such as woman + ZWJ + laptop for one
technologist emoji) and variation selectors 15 and 16 (a heart drawn as text or as emoji).
Every other default-ignorable character is escaped."""


def safe(text: str, *, keep_lines: bool = False) -> str:
    """Text from memories, documents, models or arguments, made safe for a terminal: escape
    sequences, other control characters, format characters (bidirectional overrides
    included) and every other character Unicode says shows nothing (Hangul fillers, tags,
    the combining grapheme joiner ...; ``domain.invisible``) are shown as visible escapes
    (``\\x1b``, ``\\u202e``, ``\\u3164``), so no stored text can clear the screen, set the
    window title, reorder what is shown or hide part of itself."""
    if text.isprintable() and not has_default_ignorable(text):
        return text
    shown = []
    for ch in text:
        if keep_lines and ch == "\n":
            shown.append(ch)
        elif ch in _SHOWN_AS:
            shown.append(_SHOWN_AS[ch])
        elif ch in _KEPT:
            shown.append(ch)
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs") or is_default_ignorable(ch):
            shown.append(ch.encode("unicode_escape", "backslashreplace").decode("ascii"))
        else:
            shown.append(ch)
    return "".join(shown)


def markup_safe(text: str, *, keep_lines: bool = False) -> str:
    """``safe`` text for a Rich markup string (its brackets escaped too)."""
    return escape(safe(text, keep_lines=keep_lines))
