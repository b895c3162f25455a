"""The context budget: the trimming order is knowledge, older turns, the lowest-ranked
memories one by one, then the profile; the prompt never exceeds the window."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from aria_mem.domain.budget import PromptParts, Turn, count, estimate_tokens, fit, render
from aria_mem.domain.prompt import PromptRecord, PromptSections


def _parts() -> PromptParts:
    return PromptParts(
        system="You are Aria, a warm companion.",
        sections=PromptSections.build(
            [PromptRecord("ProfileFact", f"profile fact {i} " + "p" * 60, 0.9) for i in range(2)],
            [PromptRecord("EpisodicEvent", f"memory {i} " + "m" * 60, 0.8) for i in range(3)],
            [("guide.md", f"passage {i} " + "k" * 60) for i in range(2)],
        ),
        history=[Turn("user", "u" * 60), Turn("assistant", "a" * 60)],
        reply_hint="The user is replying to your question about June.",
        message="What should I bring?",
    )


def test_everything_fits_in_a_large_window() -> None:
    fitted = fit(_parts(), 10_000)
    assert fitted.trimmed.order == []
    assert fitted.messages[0]["role"] == "system"
    assert "USER PROFILE DATA" in fitted.messages[0]["content"]
    assert "KNOWLEDGE DATA" in fitted.messages[0]["content"]
    assert [m["role"] for m in fitted.messages] == ["system", "user", "assistant", "user"]
    assert fitted.tokens == count(fitted.messages, estimate_tokens)


def test_trimming_order_is_exact() -> None:
    full = count(render(_parts()), estimate_tokens)
    steps = []
    for budget in range(full, 0, -5):
        fitted = fit(_parts(), budget)
        assert fitted.tokens <= budget or fitted.parts.message == ""
        steps.append(fitted.trimmed.order)
    longest = max(steps, key=len)
    assert longest[:9] == [
        "knowledge:1",
        "knowledge:0",
        "turn:0",
        "turn:1",
        "relevant:2",
        "relevant:1",
        "relevant:0",
        "profile:1",
        "profile:0",
    ]
    for order in steps:  # every smaller budget removed a prefix of the same sequence
        assert order == longest[: len(order)]


def test_the_profile_outlives_every_relevant_memory() -> None:
    parts = _parts()
    without_relevant = PromptParts(
        parts.system,
        PromptSections(profile=parts.sections.profile),
        [],
        parts.reply_hint,
        parts.message,
    )
    budget = count(render(without_relevant), estimate_tokens)
    fitted = fit(parts, budget)
    assert fitted.trimmed.relevant == 3 and fitted.trimmed.profile == 0
    assert len(fitted.parts.sections.profile) == 2 and fitted.tokens <= budget


def test_the_message_is_shortened_only_when_nothing_else_is_left() -> None:
    parts = PromptParts(system="sys", message="x" * 3000)
    fitted = fit(parts, 200)
    assert fitted.tokens <= 200
    assert fitted.trimmed.message_chars > 0 and fitted.parts.message.endswith("x")


@given(st.integers(min_value=60, max_value=400), st.integers(min_value=0, max_value=6))
def test_never_exceeds_the_window(budget: int, turns: int) -> None:
    parts = _parts()
    parts = PromptParts(
        parts.system,
        parts.sections,
        [Turn("user", "t" * 50)] * turns,
        parts.reply_hint,
        parts.message,
    )
    fitted = fit(parts, budget)
    assert fitted.tokens <= budget
