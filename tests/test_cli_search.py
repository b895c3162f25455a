"""`aria-mem search` and `aria-mem stage` as a person runs them."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from aria_mem.domain.fusion import FusionWeights
from tests.conftest import CliResult
from tests.fakes.ollama_server import FakeOllama

Cli = Callable[..., CliResult]


@pytest.fixture
def fake_ollama(concept_ollama: FakeOllama) -> FakeOllama:
    """The searches here need vectors that follow meaning."""
    return concept_ollama


@pytest.fixture
def seeded(cli: Cli, env: dict[str, str]) -> dict[str, str]:
    ids = {}
    for key, args in {
        "allergy": ["The user is allergic to peanuts.", "-t", "ProfileFact", "-i", "0.95"],
        "pottery": ["The user's sister loves pottery.", "-t", "RelationshipFact", "-i", "0.6"],
        "jazz": ["The user loves jazz.", "-i", "0.4"],
    }.items():
        made = cli("remember", *args, "--json", env=env)
        assert made.code == 0, made.stderr
        ids[key] = json.loads(made.stdout)["memory"]["id"]
    return ids


def test_search_json_shows_the_decision_and_counts_no_use(
    cli: Cli, env: dict[str, str], seeded: dict[str, str]
) -> None:
    result = cli(
        "search",
        "I need to find a gift",
        "--previous",
        "My sister's getting married in June",
        "--json",
        env=env,
    )
    assert result.code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["query"] == "My sister's getting married in June\nI need to find a gift"
    assert data["stage"] == "early" and data["threshold"] == pytest.approx(0.5)
    assert data["cap"] == 7
    sections = [(m["section"], m["text"]) for m in data["memories"]]
    assert sections == [
        ("profile", "The user is allergic to peanuts."),
        ("relevant", "The user's sister loves pottery."),
    ]
    relevant = data["memories"][1]
    assert relevant["score"] == pytest.approx(sum(relevant["contributions"].values()))
    # Found by meaning and by the word 'sister': both sources, and the fused place, shown.
    found = relevant["found"]
    assert found["dense_rank"] == 1 and found["lexical_rank"] == 1 and found["fused_rank"] == 1
    assert found["repeats"] is None  # the first pick repeats nothing
    # The words add their weighed share to the cosine; 'sister' is one of the query's rare
    # words, so the memory holds part of them.
    assert 0 < found["lexical_score"] < 1
    lift = FusionWeights().lexical_weight * found["lexical_score"]
    assert found["relevance"] == pytest.approx(found["cosine"] + lift, abs=1e-5)  # --json rounds
    assert relevant["similarity"] == pytest.approx(found["relevance"])
    assert {d["reason"] for d in data["dropped"]} == {"below the similarity threshold"}
    assert set(data["timings_ms"]) >= {"embed", "search", "validate", "rank", "format", "total"}
    assert data["prompt"].startswith("USER PROFILE DATA\n")
    exported = {
        json.loads(line)["id"]: json.loads(line)
        for line in cli("export", env=env).stdout.splitlines()
    }
    assert all(m["use_count"] == 0 and m["last_used_at"] is None for m in exported.values())


def test_search_explain_why_and_prompt_for_people(
    cli: Cli, env: dict[str, str], seeded: dict[str, str]
) -> None:
    result = cli(
        "search", "my sister", "--explain", "--why", seeded["jazz"][:8], "--prompt", env=env
    )
    assert result.code == 0, result.stderr
    out = result.stdout
    assert "selected" in out and "dropped" in out and "timings:" in out
    assert "The user's sister loves pottery." in out
    assert "words #1" in out and "fused #1" in out and "cos 0." in out
    assert f"why {seeded['jazz'][:8]}: dropped: below the similarity threshold" in out
    assert "- [RelationshipFact] The user's sister loves pottery. (confidence: high)" in out
    plain = cli("search", "my sister", env=env)
    assert plain.code == 0 and " 2. [relevant] The user's sister loves pottery." in plain.stdout


def test_search_degrades_when_the_embedder_is_down(cli: Cli, embedded_dsn: str) -> None:
    env = {
        "ARIA_MEM_POSTGRES_DSN": embedded_dsn,
        "ARIA_MEM_EMBEDDER_HOST": "http://127.0.0.1:9",
        "ARIA_MEM_EMBEDDER_TIMEOUT": "2",
    }
    cli("remember", "The user is allergic to peanuts.", "-t", "ProfileFact", "-i", "0.9", env=env)
    result = cli("search", "dinner ideas?", "--json", env=env)
    assert result.code == 0
    data = json.loads(result.stdout)
    assert [m["text"] for m in data["memories"]] == ["The user is allergic to peanuts."]
    assert data["degraded"] and "start Ollama" in data["degraded"][0]


def test_stage_show_and_set(cli: Cli, env: dict[str, str], seeded: dict[str, str]) -> None:
    shown = cli("stage", "--json", env=env)
    assert json.loads(shown.stdout)["stage"] == "early"
    assert cli("stage", "close", env=env).code == 0
    assert json.loads(cli("stage", "--json", env=env).stdout)["stage"] == "close"
    cap = json.loads(cli("search", "my sister", "--json", env=env).stdout)["cap"]
    assert cap == 15
    bad = cli("stage", "married", env=env)
    assert bad.code == 2 and "Unknown relationship stage" in bad.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["search", "  "], "The message is empty"),
        (["search", "hi", "--user", ""], "user must be a non-empty string"),
        (["search", "hi", "--why", "zz"], "not a memory id"),
    ],
)
def test_search_bad_input(cli: Cli, env: dict[str, str], args: list[str], message: str) -> None:
    result = cli(*args, env=env)
    assert result.code in (1, 2) and message in result.stderr
    assert "Traceback" not in result.stderr
