"""A plain BERT sentence model run by torch alone, without sentence-transformers.

Why: importing sentence-transformers pulls in transformers, scikit-learn and scipy, about 6
seconds of CPU before the first vector, though the bundled all-MiniLM-L6-v2 is only a BERT
encoder, a mean over its tokens and a normalisation. That forward pass is written out here on
torch, safetensors and tokenizers (all three come with sentence-transformers): loading takes
about 1.5 CPU-seconds, and the vectors are sentence-transformers' own to rounding
(tests/test_embedders.py compares them).

Only a folder that says it is exactly that is run here (``plain_model``): a
sentence-transformers pipeline of Transformer, mean Pooling and optionally Normalize, over a
BERT with absolute positions and GELU, with ``tokenizer.json`` and ``model.safetensors``.
Anything else is left to sentence-transformers.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

_PIPELINE = (
    "sentence_transformers.models.Transformer",
    "sentence_transformers.models.Pooling",
    "sentence_transformers.models.Normalize",
)
_MEAN_ONLY = {
    "pooling_mode_cls_token": False,
    "pooling_mode_mean_tokens": True,
    "pooling_mode_max_tokens": False,
    "pooling_mode_mean_sqrt_len_tokens": False,
    "pooling_mode_weightedmean_tokens": False,
    "pooling_mode_lasttoken": False,
}
_BATCH = 32
"""Texts run together, the longest first (as sentence-transformers does), so short texts are
not padded to a long one's length."""


def _json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _max_tokens(folder: Path) -> int | None:
    """The model's token limit when everything says the folder is a plain BERT model."""
    modules = _json(folder / "modules.json")
    if not isinstance(modules, list) or not 2 <= len(modules) <= 3:
        return None
    kinds = tuple(m.get("type") if isinstance(m, dict) else None for m in modules)
    if kinds != _PIPELINE[: len(kinds)] or modules[0].get("path") != "":
        return None
    pooling = _json(folder / str(modules[1].get("path", "")) / "config.json")
    if not isinstance(pooling, dict) or any(
        pooling.get(key, False) is not want for key, want in _MEAN_ONLY.items()
    ):
        return None
    config = _json(folder / "config.json")
    if not isinstance(config, dict) or config.get("model_type") != "bert":
        return None
    if (
        config.get("hidden_act") != "gelu"
        or config.get("position_embedding_type", "absolute") != "absolute"
    ):
        return None
    if pooling.get("word_embedding_dimension", config.get("hidden_size")) != config.get(
        "hidden_size"
    ):
        return None
    settings = _json(folder / "sentence_bert_config.json")
    if not isinstance(settings, dict) or settings.get("do_lower_case", False) is not False:
        return None
    limit = settings.get("max_seq_length")
    if not isinstance(limit, int) or not 0 < limit <= config.get("max_position_embeddings", 0):
        return None
    if not (folder / "tokenizer.json").is_file() or not (folder / "model.safetensors").is_file():
        return None
    return limit


def plain_model(folder: Path) -> PlainBert | None:
    """The model in ``folder`` run here, or None when it is not a plain BERT model."""
    limit = _max_tokens(folder)
    return None if limit is None else PlainBert(folder, limit)


class PlainBert:
    """Texts to unit vectors: BERT's last hidden states averaged over the real tokens."""

    def __init__(self, folder: Path, max_tokens: int) -> None:
        import torch  # noqa: F401 (loaded before safetensors.torch needs it)
        from safetensors.torch import load_file
        from tokenizers import Tokenizer

        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self._hidden: int = config["hidden_size"]
        self._heads: int = config["num_attention_heads"]
        self._layers: int = config["num_hidden_layers"]
        self._eps: float = config.get("layer_norm_eps", 1e-12)
        self._weights = load_file(str(folder / "model.safetensors"))
        self._tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self._tokenizer.enable_truncation(max_tokens)
        self._tokenizer.enable_padding(pad_id=config.get("pad_token_id", 0))

    def encode(self, texts: list[str]) -> list[list[float]]:
        import torch

        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        vectors: list[list[float]] = [[] for _ in texts]
        with torch.inference_mode():
            for start in range(0, len(order), _BATCH):
                batch = order[start : start + _BATCH]
                for i, vector in zip(batch, self._forward([texts[i] for i in batch]), strict=True):
                    vectors[i] = vector
        return vectors

    def _forward(self, texts: list[str]) -> list[list[float]]:
        import torch
        import torch.nn.functional as F

        w = self._weights
        encoded = self._tokenizer.encode_batch([text.strip() for text in texts])
        ids = torch.tensor([e.ids for e in encoded])
        real = torch.tensor([e.attention_mask for e in encoded])
        kinds = torch.tensor([e.type_ids for e in encoded])
        count, length = ids.shape
        size, heads = self._hidden, self._heads

        def linear(x: Any, name: str) -> Any:
            return F.linear(x, w[name + ".weight"], w[name + ".bias"])

        def norm(x: Any, name: str) -> Any:
            return F.layer_norm(x, (size,), w[name + ".weight"], w[name + ".bias"], self._eps)

        def split(x: Any) -> Any:
            return x.view(count, length, heads, size // heads).transpose(1, 2)

        x = (
            w["embeddings.word_embeddings.weight"][ids]
            + w["embeddings.position_embeddings.weight"][:length].unsqueeze(0)
            + w["embeddings.token_type_embeddings.weight"][kinds]
        )
        x = norm(x, "embeddings.LayerNorm")
        padding = (1.0 - real[:, None, None, :].float()) * torch.finfo(torch.float32).min
        for layer in range(self._layers):
            at = f"encoder.layer.{layer}."
            query, key, value = (
                split(linear(x, at + f"attention.self.{part}"))
                for part in ("query", "key", "value")
            )
            heard = F.scaled_dot_product_attention(query, key, value, attn_mask=padding)
            heard = heard.transpose(1, 2).reshape(count, length, size)
            x = norm(
                linear(heard, at + "attention.output.dense") + x, at + "attention.output.LayerNorm"
            )
            inner = F.gelu(linear(x, at + "intermediate.dense"))
            x = norm(linear(inner, at + "output.dense") + x, at + "output.LayerNorm")
        weights = real.unsqueeze(-1).to(x.dtype)
        mean = (x * weights).sum(1) / weights.sum(1).clamp(min=1e-9)
        result: list[list[float]] = F.normalize(mean, dim=1).tolist()
        return result
