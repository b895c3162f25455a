"""The provider registry is the one list of providers: the config, the factory and `init`
read it, and each adapter it names answers to its provider's name."""

from __future__ import annotations

import importlib
from typing import Any

import pytest

from aria_mem import config, providers
from aria_mem.domain.models import SearchScope
from aria_mem.domain.payload import (
    INDEXED_BOOLEANS,
    INDEXED_KEYWORDS,
    MEMORY_FIELDS,
    memory_payload,
    payload_scope_key,
    scope_key,
)
from tests.factories import make_memory


def _load(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


@pytest.mark.parametrize("provider", list(providers.EMBEDDING.values()), ids=lambda p: p.name)
def test_each_registered_adapter_answers_to_its_provider(provider: providers.Provider) -> None:
    assert _load(provider.embedder).provider == provider.name
    if provider.chat:
        assert _load(provider.chat).provider == provider.name
    assert config.DEFAULT_MODELS[provider.name] == provider.default_model


def test_the_config_knows_exactly_the_registered_providers() -> None:
    assert tuple(providers.EMBEDDING) == config.PROVIDERS
    assert set(providers.CHAT) == {"ollama", "lmstudio", "openai-compatible"}


def test_the_payload_is_what_design_md_lists_and_the_engines_index_its_filters() -> None:
    payload = memory_payload(make_memory(), "ollama/x")
    assert (
        set(payload)
        == set(MEMORY_FIELDS)
        == {
            "memory_id",
            "user_id",
            "companion_id",
            "type",
            "importance",
            "pinned",
            "active",
            "created_at",
            "embedding_model",
        }
    )
    assert {"user_id", "companion_id", "embedding_model"} <= set(INDEXED_KEYWORDS)
    assert "active" in INDEXED_BOOLEANS


def test_the_scope_key_stands_for_exactly_user_companion_model_and_active() -> None:
    """Edge searches by this one keyword instead of four conditions: ids that would run
    together if simply joined must still make different keys, and an inactive vector none."""
    keys = {
        scope_key(SearchScope(u, c, m))
        for u, c, m in [
            ("a,b", "c", "m"),
            ("a", "b,c", "m"),
            ('a"', "b", "m"),
            ("a", '"b', "m"),
            ("a\x1fb", "c", "m"),
            ("a", "b\x1fc", "m"),
            ("a", "b", "m"),
            ("a", "b", "m2"),
        ]
    }
    assert len(keys) == 8
    payload = memory_payload(make_memory(user_id="u1", companion_id="aria"), "ollama/x")
    assert payload_scope_key(payload) == scope_key(SearchScope("u1", "aria", "ollama/x"))
    assert payload_scope_key({**payload, "active": False}) is None
    assert payload_scope_key({**payload, "active": 0}) is None
    assert payload_scope_key({k: v for k, v in payload.items() if k != "user_id"}) is None
