"""[ranking]: the formula's weights and the recency half-life are settings, the seed's values
by default, checked like every number, and the retriever ranks with what they say."""

from __future__ import annotations

from pathlib import Path

import pytest

from aria_mem import config
from aria_mem.api import AriaMem
from aria_mem.domain.fusion import DEFAULT_FUSION
from aria_mem.domain.ranking import DEFAULT_WEIGHTS
from aria_mem.errors import ConfigError


def test_defaults_are_the_seeds() -> None:
    assert config.load().ranking.weights() == DEFAULT_WEIGHTS
    assert (DEFAULT_WEIGHTS.recency_half_life_days, DEFAULT_WEIGHTS.time) == (365.0, 0.10)


def test_a_file_and_the_environment_set_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[ranking]\nsimilarity = 0.7\nrecency_half_life_days = 30\n")
    monkeypatch.setenv("ARIA_MEM_RANKING_TIME", "0")
    weights = config.load(path).ranking.weights()
    assert (weights.similarity, weights.recency_half_life_days, weights.time) == (0.7, 30.0, 0.0)
    assert weights.importance == DEFAULT_WEIGHTS.importance
    assert weights.recency_signal(30) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[ranking]\nsimilarity = 1.5\n", r"ranking.*similarity"),
        ("[ranking]\ntime = -0.1\n", r"ranking.*time"),
        ("[ranking]\nrecency_half_life_days = 0\n", r"ranking.*recency_half_life_days"),
        ("[ranking]\nweight = 1\n", r"weight"),
    ],
)
def test_out_of_range_is_refused_naming_the_key(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(ConfigError, match=message):
        config.load(path)


def test_the_retriever_ranks_with_the_settings(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[ranking]\ntime = 0.3\nusage = 0\n")
    with AriaMem.open(path) as mem:
        weights = mem._context.retriever._weights
    assert (weights.time, weights.usage, weights.similarity) == (0.3, 0.0, 0.65)


def test_the_word_weight_is_a_retrieval_setting_the_retriever_fuses_with(tmp_path: Path) -> None:
    assert config.load().retrieval.word_weight == DEFAULT_FUSION.lexical_weight == 0.45
    path = tmp_path / "c.toml"
    path.write_text("[retrieval]\nword_weight = 0.2\n")
    with AriaMem.open(path) as mem:
        fusion = mem._context.retriever._fusion
    assert (fusion.lexical_weight, fusion.lexical_candidates) == (0.2, 30)
    bad = tmp_path / "bad.toml"
    bad.write_text("[retrieval]\nword_weight = 2\n")
    with pytest.raises(ConfigError, match=r"retrieval.*word_weight"):
        config.load(bad)
