"""Export the fine-tuned encoder and load it back with transformers.

``save_pretrained(path)`` writes the tuned transformer and its tokenizer in Hugging Face
format, plus the files that describe the mean pooling to sentence-transformers. The
directory then loads:

* with ``transformers.AutoModel`` / ``AutoTokenizer`` (mean-pool the last hidden states
  yourself, as below);
* as ``model_name_or_path`` of this package's embedders (``max_epochs=0`` embeds with
  it as it is, or fine-tune it further on another corpus);
* with ``sentence_transformers.SentenceTransformer(path)``, when that package is
  installed.

All three give the same embeddings as the fitted embedder's encoder. The export is the
encoder alone: the embedder's ``transform`` also appends each document's vector in the
corpus' LSA space (``lexical_weight``), which is not a transformer and is not exported, so
the comparisons use ``lexical_weight=0``. transformers and sentence-transformers (as used
here) read each document's first ``max_length`` tokens, whereas the embedder reads
documents whole by default, as windows of ``max_length`` tokens (``max_windows``); they
are compared with it truncating (``max_windows=1``). The export holds the float32
weights, and the comparisons embed in float32 (``inference_dtype="float32"``; by default
the embedder embeds in bfloat16 where the CPU computes in it natively).
"""

import tempfile
from pathlib import Path

import numpy as np
import torch
from transformers import AutoModel, AutoTokenizer

from sklearn_shufdiv import ShuffleDivideEmbedder

from _shared import SETTINGS, load_corpus, model_name_or_path

documents, _, _ = load_corpus()
embedder = ShuffleDivideEmbedder(model_name_or_path(), random_state=0, verbose=0, **SETTINGS)
embedder.fit(documents)
# All read when transform is called, so no refit is needed: the encoder alone, in float32,
expected = embedder.set_params(lexical_weight=0, inference_dtype="float32").transform(
    documents)  # L2-normalised
truncated = embedder.set_params(max_windows=1).transform(documents)  # ... and truncating
embedder.set_params(max_windows=ShuffleDivideEmbedder().max_windows)

with tempfile.TemporaryDirectory() as tmp:
    path = Path(tmp) / "shufdiv-encoder"
    embedder.save_pretrained(path)
    print("saved:", sorted(p.name for p in path.iterdir()))

    # 1. Plain transformers: tokenise, run, mean-pool over the attention mask, normalise.
    tokenizer = AutoTokenizer.from_pretrained(path)
    model = AutoModel.from_pretrained(path).eval()
    batch = tokenizer(documents, padding=True, truncation=True,
                      max_length=SETTINGS["max_length"], return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).float()
    pooled = ((hidden * mask).sum(1) / mask.sum(1)).numpy()
    pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
    print("transformers matches:", np.allclose(pooled, truncated, atol=1e-4))

    # 2. This package: the exported directory as a model, untouched (max_epochs=0).
    reloaded = ShuffleDivideEmbedder(path, max_epochs=0, max_length=SETTINGS["max_length"],
                                     lexical_weight=0, inference_dtype="float32",
                                     verbose=0).fit(documents)
    print("model_name_or_path matches:",
          np.allclose(reloaded.transform(documents), expected, atol=1e-4))

    # 3. sentence-transformers, if installed.
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:
        print("sentence-transformers is not installed; skipped")
    else:
        st_model = SentenceTransformer(str(path), device="cpu")
        st_embeddings = st_model.encode(documents, convert_to_numpy=True)
        print("sentence-transformers matches:",
              np.allclose(st_embeddings, truncated, atol=1e-4))
