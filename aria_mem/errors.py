"""The aria-mem error tree.

Every failure the CLI expects is one of these; anything else is a bug and gets a traceback.

    AriaMemError                    base; ``exit_code`` tells the CLI how to exit
    ├── UsageError                  the person asked for something invalid (exit 2)
    │   ├── ConfigError             a config key, file or environment variable is wrong
    │   └── ValidationError         a memory field or an import line is wrong
    ├── NotFoundError               no memory with that id (exit 1)
    │   └── AmbiguousIdError        more than one id starts with what was given
    └── ServiceError                a service we depend on failed (exit 1)
        ├── StoreError              PostgreSQL
        ├── VectorIndexError        Qdrant (Edge, local or server)
        │   ├── DimensionMismatchError  collection size differs from the model's vectors
        │   ├── IndexClosedError    this process let go of the index (the service stops)
        │   └── IndexDiskFullError  too little free space to write the index safely
        ├── EmbedderError           Ollama, LM Studio or the in-process model
        └── ChatModelError          the chat model (Ollama or LM Studio)
            └── ChatModelMissingError   the server answers but has no such model
"""

from __future__ import annotations


class AriaMemError(Exception):
    """Base of every error aria-mem raises on purpose. ``option``: the argument that gets past
    it, by its Python API name (``config_path``, ``skip_invalid``, ``address``); the message
    says the way out in plain words and a front end adds its own spelling (the CLI its flag)."""

    exit_code = 1
    option = ""

    def __init__(self, *args: object, option: str = "") -> None:
        super().__init__(*args)
        if option:
            self.option = option


class UsageError(AriaMemError):
    exit_code = 2


class ConfigError(UsageError):
    pass


class ValidationError(UsageError):
    pass


class NotFoundError(AriaMemError):
    pass


class AmbiguousIdError(NotFoundError):
    pass


class ServiceError(AriaMemError):
    pass


class StoreError(ServiceError):
    pass


class SaidElsewhereError(StoreError):
    """A change would give a memory the words another memory of its pair already says (the
    store keeps one row per fact): nothing was written."""

    def __init__(self) -> None:
        super().__init__(
            "Another memory of this user and companion already says that — "
            "edit or forget that one instead"
        )


class VectorIndexError(ServiceError):
    pass


class DimensionMismatchError(VectorIndexError):
    def __init__(self, collection: str, collection_size: int, model: str, model_size: int) -> None:
        super().__init__(
            f"The '{collection}' collection holds {collection_size}-dimensional vectors but "
            f"the embedding model {model} makes {model_size}-dimensional ones — run "
            f"`aria-mem reindex` to rebuild the index for this model"
        )
        self.collection = collection
        self.collection_size = collection_size
        self.model = model
        self.model_size = model_size


class IndexClosedError(VectorIndexError):
    """The embedded index was closed in this process: a call must go to its next owner."""


class IndexDiskFullError(VectorIndexError):
    """The index folder's file system is (nearly) full: nothing was written, the memories stay
    pending, and the next write after space returns goes through. Unlike other index errors,
    a rebuild would not help."""


class EmbedderError(ServiceError):
    pass


class ChatModelError(ServiceError):
    pass


class ChatModelMissingError(ChatModelError):
    """Unlike an unreachable server, this will not fix itself: a chat cannot start."""
