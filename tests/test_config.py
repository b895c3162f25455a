"""Configuration: defaults < file < environment < flags, and errors that name the key."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from aria_mem import config
from aria_mem.domain.fusion import CandidateSource
from aria_mem.domain.hygiene import Retire
from aria_mem.errors import ConfigError
from aria_mem.private import private_dir
from aria_mem.sections import ChatSettings, HygieneSettings, RetrievalSettings


def test_defaults_use_the_embedded_services_and_the_home_override(isolated_env: Path) -> None:
    settings = config.load()
    assert settings.embedded_postgres and settings.embedded_index
    assert settings.config_path == isolated_env / "config.toml"
    assert settings.data_dir == isolated_env / "data"
    assert settings.retrieval.min_similarity == 0.45
    assert settings.embedder.effective_model == "mxbai-embed-large"


def test_file_then_environment_then_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "c.toml"
    path.write_text(
        '[retrieval]\nmin_similarity = 0.5\n[embedder]\nprovider = "lmstudio"\n'
        '[identity]\nuser = "sam"\n'
    )
    settings = config.load(path)
    assert settings.retrieval.min_similarity == 0.5
    assert settings.embedder.provider == "lmstudio"
    assert settings.embedder.effective_model == "text-embedding-nomic-embed-text-v1.5"
    monkeypatch.setenv("MEMORY_MIN_SIMILARITY", "0.6")
    monkeypatch.setenv("ARIA_MEM_IDENTITY_USER", "alex")
    settings = config.load(path)
    assert settings.retrieval.min_similarity == 0.6
    assert settings.identity.user == "alex"
    flagged = config.with_overrides(settings, identity={"user": "kim", "companion": None})
    assert flagged.identity.user == "kim" and flagged.identity.companion == "aria"


def test_switches_and_choices_are_read_into_their_types_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ "on"/"off" become bools and a choice its enum where the settings are read (the file,
    the environment, an override given as spelled or as its type), so no caller compares
    strings: an "off" that stayed a string would be true."""
    path = tmp_path / "c.toml"
    path.write_text(
        '[hygiene]\nmerge = "off"\nretire = "apply"\n[retrieval]\ncandidates = "dense"\n'
    )
    monkeypatch.setenv("ARIA_MEM_CHAT_EXTRACT_MEMORIES", "off")
    settings = config.load(path)
    assert settings.hygiene.merge is False and settings.hygiene.judge is True
    assert settings.hygiene.retire is Retire.APPLY
    assert settings.retrieval.candidates is CandidateSource.DENSE
    assert settings.chat.extract_memories is False
    flagged = config.with_overrides(
        settings, hygiene={"merge": "on", "judge": False, "retire": "off"}
    )
    assert flagged.hygiene.merge is True and flagged.hygiene.judge is False
    assert flagged.hygiene.retire is Retire.OFF
    with pytest.raises(
        ConfigError, match=r"\[hygiene\] retire .*must be one of propose, apply, off"
    ):
        config.with_overrides(settings, hygiene={"retire": "sometimes"})


def test_aria_mem_config_variable_picks_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "elsewhere.toml"
    path.write_text('[identity]\ncompanion = "nova"\n')
    monkeypatch.setenv("ARIA_MEM_CONFIG", str(path))
    assert config.load().identity.companion == "nova"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("[retrieval]\nmin_similarity = 1.5\n", r"\[retrieval\] min_similarity .* between 0 and 1"),
        ('[retrieval]\nmin_similarity = "high"\n', "must be a number"),
        ('[embedder]\nprovider = "openai"\n', r"\[embedder\] provider .*must be one of"),
        ("[embedder]\nbatch_size = 0\n", "batch_size .* between 1 and 4096"),
        ('[index]\nurl = "qdrant.example"\n', r"\[index\] url"),
        ("[retrieval]\nmin_sim = 0.5\n", r"Unknown key \[retrieval\] min_sim"),
        ('[retrieval]\nrepeats = "yes"\n', r"\[retrieval\] repeats .*must be one of on, off"),
        ("[colour]\nx = 1\n", r"Unknown section \[colour\]"),
        ("this is = = not toml", "not valid TOML"),
    ],
)
def test_invalid_config_names_the_key_and_the_file(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(body)
    with pytest.raises(ConfigError, match=message):
        config.load(path)


def test_invalid_environment_value_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_MIN_SIMILARITY", "lots")
    with pytest.raises(ConfigError, match=r"\$MEMORY_MIN_SIMILARITY"):
        config.load()


def test_missing_explicit_config_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        config.load(tmp_path / "nope.toml")


def test_save_keys_keeps_other_keys(tmp_path: Path) -> None:
    path = tmp_path / "c.toml"
    path.write_text('[identity]\nuser = "sam"\n')
    config.save_keys(path, {"embedder": {"provider": "ollama", "model": "nomic-embed-text"}})
    settings = config.load(path)
    assert settings.identity.user == "sam"
    assert settings.embedder.model == "nomic-embed-text"


def test_example_config_documents_every_key_and_loads() -> None:
    example = Path(__file__).resolve().parent.parent / "config.example.toml"
    text = example.read_text()
    for section, cls in config._SECTIONS.items():
        assert f"[{section}]" in text
        for field in cls.__dataclass_fields__:
            assert f"\n{field} =" in text or f"\n# {field} =" in text, f"{section}.{field}"
    config.load(example)


@pytest.mark.parametrize(
    ("given", "meant"),
    [("off", False), ("false", False), (False, False), ("on", True), ("true", True), (True, True)],
)
def test_a_section_built_in_code_reads_a_switch_as_the_file_would(
    given: object, meant: bool
) -> None:
    """Until a01312c the switches were strings, and ``merge="off"`` kept as a string is truthy:
    merging, judging, ranking repeats lower and extracting would all have stayed on."""
    hygiene = HygieneSettings(merge=given, judge=given)  # type: ignore[arg-type]
    assert hygiene.merge is meant and hygiene.judge is meant
    assert RetrievalSettings(repeats=given).repeats is meant  # type: ignore[arg-type]
    assert ChatSettings(extract_memories=given).extract_memories is meant  # type: ignore[arg-type]


def test_a_section_built_in_code_reads_a_choice_by_its_value_or_its_enum() -> None:
    assert RetrievalSettings(candidates="dense").candidates is CandidateSource.DENSE  # type: ignore[arg-type]
    assert RetrievalSettings(candidates="fused").candidates is CandidateSource.FUSED  # type: ignore[arg-type]
    assert HygieneSettings(retire="off").retire is Retire.OFF  # type: ignore[arg-type]
    assert HygieneSettings(retire=Retire.APPLY).retire is Retire.APPLY
    assert replace(HygieneSettings(), retire="apply").retire is Retire.APPLY  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("section", "key", "value", "message"),
    [
        (HygieneSettings, "merge", "yes", r"HygieneSettings\.merge must be one of on, off"),
        (HygieneSettings, "retire", True, r"HygieneSettings\.retire .*propose, apply, off"),
        (RetrievalSettings, "candidates", "words", r"RetrievalSettings\.candidates .*fused"),
        (ChatSettings, "extract_memories", 1, r"ChatSettings\.extract_memories"),
    ],
)
def test_a_section_built_in_code_with_a_wrong_choice_names_the_field(
    section: Any, key: str, value: object, message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        section(**{key: value})


def test_a_switch_is_spelled_the_same_in_the_file_and_the_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "c.toml"
    path.write_text("[hygiene]\nmerge = false\n")
    assert config.load(path).hygiene.merge is False
    monkeypatch.setenv("ARIA_MEM_HYGIENE_MERGE", "false")
    assert config.load().hygiene.merge is False
    monkeypatch.setenv("ARIA_MEM_HYGIENE_JUDGE", "maybe")
    with pytest.raises(ConfigError, match=r"JUDGE\) must be one of on, off, true, false"):
        config.load()


def test_only_the_config_folder_s_failure_names_the_config_file_as_a_way_out(
    tmp_path: Path,
) -> None:
    """The data, index and chat history folders come from ARIA_MEM_HOME (or the platform's
    folders), not from --config: their failure must not send the person to that flag."""
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(ConfigError) as data:
        private_dir(blocker / "data", what="data folder")
    assert data.value.option == ""
    assert "ARIA_MEM_HOME" in str(data.value) and "config file" not in str(data.value)
    with pytest.raises(ConfigError) as own:
        config.save_keys(blocker / "conf" / "config.toml", {"identity": {"user": "sam"}})
    assert own.value.option == "config_path"
    assert "name a config file" in str(own.value)
