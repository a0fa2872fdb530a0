"""The int8 path: a row's embedding does not depend on the rows embedded with it, and
ONNX Runtime writes nothing the user did not ask for."""

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from _precision_helpers import needs_onnxruntime

import sklearn_shufdiv
from sklearn_shufdiv import ShuffleDivideEmbedder
from sklearn_shufdiv.embedders._encoder import _onnx

PARAMS = dict(max_epochs=0, max_length=32, mini_batch_size=8, inference_dtype="int8",
              random_state=0, verbose=0)


@pytest.fixture(scope="module")
def int8_embedder(tiny_bert_path, corpus):
    docs, _ = corpus
    return ShuffleDivideEmbedder(tiny_bert_path, **PARAMS).fit(docs)


@needs_onnxruntime
@pytest.mark.parametrize("chunk_size", [1, 3])
def test_int8_transform_iter_gives_what_transform_gives(int8_embedder, corpus, chunk_size):
    docs, _ = corpus
    streamed = np.vstack(list(int8_embedder.transform_iter(iter(docs), chunk_size=chunk_size)))
    np.testing.assert_array_equal(streamed, int8_embedder.transform(docs))


@needs_onnxruntime
def test_int8_document_alone_equals_it_in_a_padded_batch(int8_embedder, corpus):
    docs, _ = corpus
    batch = docs[:8]  # one mini-batch: the shorter documents are padded
    together = int8_embedder.transform(batch)
    for row, document in zip(together, batch):
        np.testing.assert_array_equal(int8_embedder.transform([document])[0], row)


_RUN = textwrap.dedent("""
    import sys
    from sklearn_shufdiv import ShuffleDivideEmbedder
    docs = ["One short document here.", "Another document, a little longer than the first."]
    ShuffleDivideEmbedder(sys.argv[1], max_epochs=0, lexical_weight=0, verbose=0,
                          inference_dtype=sys.argv[2]).fit(docs).transform(docs)
""")


def _written(model, dtype, root):
    """The paths under a fresh HOME and TMPDIR after embedding in ``dtype`` in a new
    process (ONNX Runtime reads its telemetry setting once, at import)."""
    home, tmp = root / "home", root / "tmp"
    home.mkdir(parents=True), tmp.mkdir()
    env = {key: value for key, value in os.environ.items()
           if key not in ("ORT_DISABLE_TELEMETRY", "XDG_CACHE_HOME")}
    env.update(HOME=str(home), TMPDIR=str(tmp),
               PYTHONPATH=str(Path(sklearn_shufdiv.__file__).parents[1]))
    subprocess.run([sys.executable, "-c", _RUN, model, dtype], env=env, check=True,
                   capture_output=True, timeout=600)
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


@needs_onnxruntime
def test_int8_writes_nothing_in_home_or_the_temporary_folder(tiny_bert_path, tmp_path):
    # The float32 run shows what importing torch itself leaves (an empty cache folder).
    baseline = _written(tiny_bert_path, "float32", tmp_path / "float32")
    written = _written(tiny_bert_path, "int8", tmp_path / "int8")
    assert written == baseline


@needs_onnxruntime
def test_an_explicit_telemetry_setting_is_kept(monkeypatch):
    monkeypatch.setenv("ORT_DISABLE_TELEMETRY", "0")
    _onnx.import_onnxruntime()
    assert os.environ["ORT_DISABLE_TELEMETRY"] == "0"
