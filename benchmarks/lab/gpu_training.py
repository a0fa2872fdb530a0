"""Training on a GPU, end to end: the default fit of BBC, and label-scored probes of every
epoch of a fit (measurement only: the labels never choose anything the product uses).

Both write plain dicts that ``gpu_check.py`` gathers into one JSON file."""

import time

import numpy as np

from lab.corpora import score

#: Rows of every :class:`EpochProbe` by its key: a fit works on a deep copy of its
#: selection criterion, so the rows are kept outside the instance.
PROBE_ROWS = {}


def mean_scores(X, y, seeds=3):
    """Mean ACC and AMI of spherical k-means (true k, best of 10 runs) over ``seeds``."""
    result = score(X, y, seeds=seeds, n_init=10)
    return {"acc": result["acc_mean"], "ami": result["ami_mean"]}


def history_rows(history):
    """The numbers and strings of each epoch of an embedder's ``history_``."""
    return [{key: value for key, value in row.items()
             if isinstance(value, (int, float, str, type(None)))} for row in history]


def default_fit(model, docs, y, device="cuda", seeds=3):
    """``ShuffleDivideEmbedder(model, n_clusters=k, random_state=0, device=device)`` with
    every other default: ``fit_transform`` timed against the fitted embedder's
    ``transform`` of the same documents, ACC and AMI over ``seeds`` k-means seeds, the kept
    epoch, the history and the head's decision; then the same with ``max_epochs=0`` (the
    CPU's default: a head where ``head="auto"`` decides so), timed and scored."""
    from sklearn_shufdiv import ShuffleDivideEmbedder

    k = len(np.unique(y))
    embedder = ShuffleDivideEmbedder(model, n_clusters=k, random_state=0, device=device,
                                     verbose=1)
    start = time.perf_counter()
    joined = embedder.fit_transform(docs)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    embedder.transform(docs)
    transform_seconds = time.perf_counter() - start
    # The CPU's default on the GPU: no encoder epoch, the head where "auto" decides so.
    headed = ShuffleDivideEmbedder(model, n_clusters=k, max_epochs=0, random_state=0,
                                   device=device, verbose=1)
    start = time.perf_counter()
    head_joined = headed.fit_transform(docs)
    head_seconds = time.perf_counter() - start
    return {"stage": "default_fit", "n_docs": len(docs), "n_clusters": k,
            "fit_transform_seconds": fit_seconds, "transform_seconds": transform_seconds,
            "best_epoch": int(embedder.best_epoch_),
            "history": history_rows(embedder.history_),
            "scores": mean_scores(joined, y, seeds),
            "head_reason": embedder.head_reason_,
            "no_epochs_fit_transform_seconds": head_seconds,
            "no_epochs_head_reason": headed.head_reason_,
            "no_epochs_scores": mean_scores(head_joined, y, seeds),
            "inference_dtype": str(embedder.inference_dtype_)}


def epoch_probe(y, key, seeds=3):
    """A selection criterion that scores each epoch with the labels ``y`` (ACC and AMI of
    the joined space and of the encoder alone, the untuned silhouette, the stability),
    records the row under ``PROBE_ROWS[key]`` and keeps the last epoch."""
    from sklearn_shufdiv.embedders import SelectionCriterion, StabilityCriterion

    from .internals import UntunedSilhouetteCriterion

    class EpochProbe(SelectionCriterion):
        name = "probe"

        def score(self, candidate, context):
            labels = y[context.sample_indices]
            row = {"epoch": candidate.epoch,
                   "untuned_silhouette": float(
                       UntunedSilhouetteCriterion().score(candidate, context)),
                   "stability": float(StabilityCriterion().score(candidate, context)),
                   "joined": mean_scores(candidate.embeddings, labels, seeds),
                   "encoder": (None if candidate.encoded is None else
                               mean_scores(candidate.encoded, labels, seeds))}
            PROBE_ROWS.setdefault(key, []).append(row)
            print("   ", row, flush=True)
            return float(candidate.epoch)

    PROBE_ROWS[key] = []
    return EpochProbe()


def probe_fit(model, name, docs, y, objective, device="cuda", max_epochs=3, seeds=3):
    """Every epoch of a fit of ``objective`` on one corpus (128 tokens, seed 0, the whole
    corpus as the selection sample), scored by :func:`epoch_probe`."""
    from sklearn_shufdiv import ShuffleDivideEmbedder

    key = f"{name}/{objective}"
    embedder = ShuffleDivideEmbedder(
        model, n_clusters=len(np.unique(y)), random_state=0, device=device,
        max_length=128, max_epochs=max_epochs, objective=objective,
        selection=epoch_probe(y, key, seeds), selection_sample_size=None,
        inference_dtype="float32", verbose=0)
    start = time.perf_counter()
    try:
        embedder.fit(docs)
    except Exception as exc:  # one failed corpus does not lose the others' rows
        return {"stage": "probe", "corpus": name, "objective": objective,
                "error": repr(exc), "epochs": PROBE_ROWS[key]}
    return {"stage": "probe", "corpus": name, "objective": objective,
            "seconds": time.perf_counter() - start,
            "training_fraction": float(embedder.training_fraction_),
            "epochs": PROBE_ROWS[key]}


def estimator_check(path, documents, device, quick):
    """One epoch of ``ShuffleDivideEmbedder(device=...)`` and its transform, timed, with the
    device's defaults (``mini_batch_size="auto"``, fused AdamW)."""
    from lab.engine import split_sentences, timed
    from sklearn_shufdiv import ShuffleDivideEmbedder

    n = 64 if quick else 1280
    embedder = ShuffleDivideEmbedder(
        path, max_length=128, batch_size=32 if quick else 320, mini_batch_size="auto",
        max_epochs=1, device=device, random_state=0, verbose=0, lexical_weight=0,
        sentence_splitter=split_sentences,
    )
    docs = documents[:n]
    fit_s = timed(lambda: embedder.fit(docs), device)
    out = {}
    transform_s = timed(lambda: out.setdefault("x", embedder.transform(docs)), device)
    return dict(documents=n, fit_seconds=fit_s, transform_seconds=transform_s,
                transform_docs_per_s=n / transform_s, shape=list(out["x"].shape),
                finite=bool(np.isfinite(out["x"]).all()),
                autocast_dtype=str(embedder.net_.autocast_dtype),
                mini_batch_size=embedder.net_.mini_batch_size,
                fused_adamw=bool(embedder.net_.optimizer_.defaults.get("fused")),
                train_loss=embedder.history_[-1]["train_loss"])
