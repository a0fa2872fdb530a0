"""Training a light head over frozen sentence embeddings, instead of the encoder.

Each sentence of a corpus is embedded once by the frozen encoder
(:func:`sentence_embeddings`, cached); a Shuffle & Divide view is then the mean of its
half's sentence embeddings, so that an epoch of training costs a few matrix products
instead of a pass of the transformer. A head (:class:`Head`: a linear map or a small
residual MLP, both starting at the identity) is trained on those views with NT-Xent, the
prototype term over pseudo-labels of the joined space, or both (:func:`train_head`); the
document embeddings are the head applied to the frozen encoder's document embeddings (or
to the mean of all their sentences).
"""

import os
import time

import numpy as np
import torch
from sklearn.utils import check_random_state

from sklearn_shufdiv.cluster import SphericalKMeans, confident_labels, unit_rows

from .corpora import _cache_dir, _digest, default_model
from .internals import (
    HalfViews,
    NTXentLoss,
    ShuffleDividePositives,
    encode,
    load_encoder,
    prototype_loss,
)

#: Sentences of a document that are embedded: its first ``MAX_SENTENCES``.
MAX_SENTENCES = 64


def split_corpus(docs):
    """The sentences of each document (the package's default splitter, as the fit uses
    it): ``(sentences, offsets)``, document i's being ``sentences[offsets[i]:offsets[i+1]]``
    (at most :data:`MAX_SENTENCES`, at least one: a document without any is itself)."""
    positives = ShuffleDividePositives(1, "auto").fit(docs)
    split_of = dict(zip(positives.document_indices_.tolist(), positives.sentences_))
    sentences, offsets = [], [0]
    for index, doc in enumerate(docs):
        split = split_of.get(index, [])[:MAX_SENTENCES] or [doc]
        sentences.extend(split)
        offsets.append(len(sentences))
    return sentences, np.asarray(offsets)


def sentence_embeddings(name, docs, model=None, max_length=64, verbose=True):
    """``(embeddings, offsets)``: the frozen encoder's mean-pooled embedding of each
    sentence of ``docs`` (truncated at ``max_length`` tokens), cached, and where each
    document's sentences start."""
    model = model or default_model()
    cache = _cache_dir() / f"{name}{len(docs)}_sentences{max_length}_{_digest(docs, model)}.npz"
    if cache.is_file():
        with np.load(cache) as stored:
            return stored["embeddings"], stored["offsets"]
    start = time.perf_counter()
    sentences, offsets = split_corpus(docs)
    tokenizer, encoder = load_encoder(model)
    embeddings = encode(encoder, tokenizer, sentences, max_length=max_length, batch_size=128,
                        device="cpu", max_windows=1, verbose=verbose)
    if verbose:
        print(f"  {name}: {len(sentences)} sentences of {len(docs)} documents embedded in "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_name(f"{cache.stem}.{os.getpid()}.tmp.npz")
    np.savez(partial, embeddings=embeddings, offsets=offsets)
    os.replace(partial, cache)
    return embeddings, offsets


def document_means(embeddings, offsets):
    """Each document's mean sentence embedding."""
    lengths = np.diff(offsets)
    sums = np.add.reduceat(embeddings.astype(np.float64), offsets[:-1], axis=0)
    return (sums / lengths[:, None]).astype(np.float32)


def half_views(embeddings, offsets, min_sentences=4):
    """The package's Shuffle & Divide views over frozen sentence embeddings (a
    ``HalfViews``, as a fit builds them) of the documents of at least ``min_sentences``
    sentences; ``embeddings`` and ``offsets`` as :func:`sentence_embeddings` returns them."""
    lengths = np.diff(offsets)
    keep = np.flatnonzero(lengths >= min_sentences)
    parts = [embeddings[offsets[i]:offsets[i + 1]] for i in keep]
    return HalfViews(np.concatenate(parts), np.concatenate([[0], np.cumsum(lengths[keep])]),
                     keep)


class Head(torch.nn.Module):
    """A map of the frozen embeddings that starts as the identity: ``"linear"`` (``Wx+b``,
    W the identity) or ``"mlp"`` (``x + W2 gelu(W1 x)``, W2 zero)."""

    def __init__(self, dim, kind="linear", hidden=1024):
        super().__init__()
        self.kind = kind
        if kind == "linear":
            self.linear = torch.nn.Linear(dim, dim)
            with torch.no_grad():
                self.linear.weight.copy_(torch.eye(dim))
                self.linear.bias.zero_()
        elif kind == "mlp":
            self.up, self.down = torch.nn.Linear(dim, hidden), torch.nn.Linear(hidden, dim)
            with torch.no_grad():
                self.down.weight.zero_()
                self.down.bias.zero_()
        else:
            raise ValueError(f"kind={kind!r}: 'linear' or 'mlp'.")

    def forward(self, x):
        if self.kind == "linear":
            return self.linear(x)
        return x + self.down(torch.nn.functional.gelu(self.up(x)))

    def apply(self, x):
        """The head of the rows ``x`` (a numpy array), as a numpy array."""
        with torch.no_grad():
            return self(torch.as_tensor(x, dtype=torch.float32)).numpy()


def pseudo_labels(space, n_clusters, seed, fraction=1.0):
    """Spherical k-means (best of 3 runs) of ``space``, the least confident
    ``1 - fraction`` of each cluster set to -1."""
    labels = SphericalKMeans(n_clusters, n_init=3, random_state=seed).fit_predict(space)
    if fraction < 1.0:
        labels = confident_labels(space, labels, n_clusters, fraction)
    return labels


def train_head(views, documents, joined, *, kind="linear", epochs=10, batch_size=320,
               learning_rate=1e-3, weight_decay=0.01, temperature=0.2, nt_xent=1.0,
               prototype=0.0, n_clusters=None, fraction=1.0, random_state=0):
    """Train a :class:`Head` on ``views`` (from :func:`half_views`) and return it.

    ``documents``: the frozen embeddings the head maps for ``transform`` (one row per
    document); ``joined(encoder_rows)``: the space ``transform`` returns for the encoder
    rows (the join with the lexical space), where the pseudo-labels of the prototype term
    are drawn before each epoch (``n_clusters`` of them, the ``fraction`` nearest their
    centers kept). The loss is ``nt_xent * NT-Xent + prototype * prototype term``.
    """
    rng = check_random_state(random_state)
    torch.manual_seed(int(rng.randint(2**31 - 1)))
    head = Head(views.embeddings.shape[1], kind)
    optimizer = torch.optim.AdamW(head.parameters(), lr=learning_rate,
                                  weight_decay=weight_decay)
    ntx = NTXentLoss(temperature)
    for epoch in range(epochs):
        a, b = views.sample(rng)
        labels = prototypes = None
        if prototype > 0:
            mapped = head.apply(documents)
            labels = pseudo_labels(joined(mapped), n_clusters, seed=epoch, fraction=fraction)
            labels = torch.as_tensor(labels[views.documents], dtype=torch.int64)
            prototypes = torch.zeros(n_clusters, mapped.shape[1])
            unit = torch.as_tensor(unit_rows(mapped[views.documents]))
            prototypes.index_add_(0, labels.clamp(min=0), unit * (labels >= 0).unsqueeze(1))
        order = torch.as_tensor(rng.permutation(len(a)))
        for start in range(0, len(order), batch_size):
            batch = order[start:start + batch_size]
            if len(batch) < 2:
                continue
            out = head(torch.cat([a[batch], b[batch]]))
            loss = nt_xent * ntx(out) if nt_xent > 0 else out.sum() * 0.0
            if prototype > 0:
                loss = loss + prototype * prototype_loss(
                    out, prototypes, torch.cat([labels[batch], labels[batch]]), temperature)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return head


def tfidf_head(docs, windows, joined, n_clusters, random_state, max_epochs=10):
    """The package's ``LinearHead()`` trained as ``TfidfPositiveEmbedder`` trains it: the
    views are the frozen embeddings (``windows``) of each document and its TF-IDF
    neighbour, the pseudo-labels those of every document in ``joined``'s space."""
    from .internals import (
        LinearHead,
        PseudoLabelSpace,
        TfidfNeighborPositives,
        content_keys,
        train_head,
    )

    row = {}
    for index, doc in enumerate(docs):
        row.setdefault(doc, index)
    views = TfidfNeighborPositives().fit(docs).frozen_views(
        lambda texts, sentences: windows[[row[text] for text in texts]])
    head = LinearHead(max_epochs=max_epochs)
    return train_head(views, windows.shape[1], head,
                      objective=head.resolved_objective(n_clusters), temperature=0.2,
                      batch_size=320, n_clusters=n_clusters,
                      pseudo_space=PseudoLabelSpace(windows, views.documents, joined),
                      keys=content_keys(docs)[views.documents], random_state=random_state)
