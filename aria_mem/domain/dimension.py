"""Do the index and the embedding model agree on the vector size? One check for every caller
(status, the daemon, both index engines).

Vectors of another size are never written: an engine refuses them with
``DimensionMismatchError``, and status and the daemon report a collection whose size differs
from the model's, with the fix (``aria-mem reindex``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aria_mem.domain.models import IndexPoint
from aria_mem.errors import DimensionMismatchError


def mismatched(sizes: Mapping[str, int | None], model_dimension: int) -> dict[str, int]:
    """The existing collections whose vector size is not the model's."""
    return {c: s for c, s in sizes.items() if s is not None and s != model_dimension}


def describe(mismatch: Mapping[str, int], model: str, model_dimension: int) -> str:
    held = ", ".join(f"'{c}' holds {s}-dimensional vectors" for c, s in mismatch.items())
    return (
        f"{held} but {model} makes {model_dimension}-dimensional ones — run `aria-mem reindex` "
        "to rebuild the index for this model"
    )


def check_points(collection: str, size: int | None, points: Sequence[IndexPoint]) -> None:
    """Refuse a write whose vectors do not fit the collection."""
    for point in points:
        if len(point.vector) != size:
            raise DimensionMismatchError(
                collection,
                size or 0,
                str(point.payload.get("embedding_model")),
                len(point.vector),
            )


def check_collection(collection: str, existing: int | None, wanted: int) -> bool:
    """True when the collection must be created; raise when it exists with another size."""
    if existing is None:
        return True
    if existing != wanted:
        raise DimensionMismatchError(collection, existing, "the current model", wanted)
    return False
