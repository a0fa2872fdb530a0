"""What the ``cluster`` command tells: the summary it prints and the report it writes.

Besides sizes and scores, each cluster is described by its top terms (class-based
TF-IDF, :func:`sklearn_shufdiv.inspection.cluster_top_terms`) and its most
representative documents (nearest the centroid: id and first line), and the per-epoch
table the choice of epoch was made on is shown.
"""

from dataclasses import dataclass

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer

from ..inspection import cluster_top_terms, representative_documents
from ._readers import FORMAT_DESCRIPTIONS
from ._settings import default_model
from ._text import epoch_text, plural, score_text

N_TERMS, N_REPRESENTATIVES, FIRST_LINE_WIDTH = 8, 3, 72


@dataclass
class ClusterDescription:
    """One cluster: its size, top terms and representative documents."""

    cluster: int
    size: int
    terms: list          # (term, weight), highest first
    representatives: list  # (id, first line, cosine to the centroid)


def first_line(text, width=FIRST_LINE_WIDTH):
    """The first non-blank line of ``text``, cut at ``width`` characters."""
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= width else line[: width - 3].rstrip() + "..."


#: Words of two characters or more that start with a letter ("000", "2004" say little).
WORD_PATTERN = r"(?u)\b[^\W\d_][^\W_]+\b"


def top_terms(texts, clusters):
    """Each cluster's top terms: c-TF-IDF with square-rooted frequencies, on words in at
    most half of the documents (on 150 BBC articles, "said" and "mr" led three of five
    clusters without both); on tiny corpora that leave no such word, on every word."""
    for max_df in (0.5, 1.0):
        vectorizer = CountVectorizer(stop_words="english", token_pattern=WORD_PATTERN,
                                     max_df=max_df)
        try:
            return cluster_top_terms(texts, clusters, n_terms=N_TERMS, vectorizer=vectorizer,
                                     reduce_frequent_words=True)
        except ValueError:  # no word left
            continue
    return {}


def describe_clusters(corpus, result, n_clusters):
    """A :class:`ClusterDescription` per cluster (empty clusters included)."""
    terms = top_terms(corpus.texts, result.clusters)
    near = representative_documents(result.embeddings, result.clusters,
                                    n_documents=N_REPRESENTATIVES)
    sizes = np.bincount(result.clusters, minlength=n_clusters)
    return [ClusterDescription(k, int(sizes[k]), terms.get(k, []),
                               [(corpus.ids[i], first_line(corpus.texts[i]), cosine)
                                for i, cosine in near.get(k, [])])
            for k in range(n_clusters)]


def epoch_table(result):
    """The per-epoch table the epoch was chosen on (epoch 0 = the untuned encoder)."""
    if result.max_epochs == 0:
        return []
    header = result.criterion or "score"
    width = max(12, len(header) + 2)
    lines = [f"{'epoch':>7}{'loss':>10}{header:>{width}}"]
    for row in result.history:
        loss = "-" if row["train_loss"] is None else f"{row['train_loss']:.4f}"
        mark = "  <- kept" if row["epoch"] == result.epoch else ""
        score = score_text(row["selection_score"])
        lines.append(f"{row['epoch']:>7}{loss:>10}{score:>{width}}{mark}")
    if result.selected and result.scored_documents != len(result.clusters):
        lines.append(f"(scores of the epoch selection, on a sample of "
                     f"{result.scored_documents} documents)")
    return lines


def chosen_text(scores):
    """How the number of clusters was chosen, in words ("" for a given one)."""
    if scores is None:
        return ""
    runner_up = "" if scores.runner_up is None else f"; runner-up {scores.runner_up}"
    return (f" (auto: chosen by {scores.criterion.replace('_', ' ')} among "
            f"{scores.k[0]} to {scores.k[-1]}{runner_up})")


#: Without a spread of the scores (criteria that do not resample), two scores closer
#: than this share of the larger one's magnitude are as good as equal.
RELATIVE_MARGIN = 0.02


def k_uncertainty(scores):
    """Why the choice of ``--n-clusters auto`` is uncertain, in words ("" when it is not):
    the runner-up scores within the noise of the chosen k (the spread of the resampled
    scores, ``score_std``, or else within :data:`RELATIVE_MARGIN`), or the scores of
    every candidate lie within that noise of each other (a flat curve), or the criterion
    says so itself (``scores.uncertain``)."""
    if scores is None or scores.runner_up is None:
        return ""
    values = np.asarray(scores.score, dtype=float)
    ks = list(scores.k)
    chosen, runner_up = values[ks.index(scores.n_clusters)], values[ks.index(scores.runner_up)]
    finite = values[np.isfinite(values)]
    if not (np.isfinite(chosen) and np.isfinite(runner_up)):
        return ""
    spread = np.asarray(scores.get("score_std", np.full_like(values, np.nan)), dtype=float)
    if np.isfinite(spread).any():
        noise = float(np.nanmax(spread[[ks.index(scores.n_clusters),
                                        ks.index(scores.runner_up)]]))
        flat_noise = float(np.nanmedian(spread))
        what = "the spread of the resampled scores"
    else:
        noise = flat_noise = RELATIVE_MARGIN * max(abs(chosen), abs(runner_up))
        what = f"{RELATIVE_MARGIN:.0%} of the score"
    if np.ptp(finite) <= flat_noise:
        return (f"uncertain: the {scores.criterion.replace('_', ' ')} hardly changes from "
                f"{ks[0]} to {ks[-1]} clusters (its scores lie {np.ptp(finite):.4f} apart, "
                f"within {what}), so the data show no clear number of clusters; give "
                "--n-clusters K if you know it")
    if abs(chosen - runner_up) <= noise:
        return (f"uncertain: the runner-up, {scores.runner_up} clusters, scores "
                f"{score_text(runner_up)} against {score_text(chosen)} for the chosen "
                f"{scores.n_clusters}, a difference within {what}; compare both with "
                f"--n-clusters {scores.runner_up}")
    if scores.get("uncertain"):  # the criterion's own reading of its choice
        return (f"uncertain: the {scores.criterion.replace('_', ' ')} criterion finds "
                f"{scores.n_clusters} clusters no surer than the runner-up, "
                f"{scores.runner_up} (their partitions are about as reproducible, or the "
                f"chosen ones disagree); compare both with --n-clusters {scores.runner_up}")
    return ""


def k_table(scores):
    """The candidates' scores, one line each, the chosen and the runner-up marked."""
    header = scores.criterion.replace("_", " ")
    width = max(10, len(header) + 2)
    lines = [f"{'k':>7}{header:>{width}}"]
    for k, score in zip(scores.k, scores.score, strict=True):
        mark = ("  <- chosen" if k == scores.n_clusters
                else "  <- runner-up" if k == scores.runner_up else "")
        lines.append(f"{k:>7}{score_text(score):>{width}}{mark}")
    return lines


def cluster_lines(descriptions):
    """Each cluster's size, terms and representative documents, as lines."""
    lines = []
    for description in descriptions:
        terms = ", ".join(term for term, _ in description.terms) or "(none)"
        lines.append(f"cluster {description.cluster}: "
                     f"{plural(description.size, 'document')}; terms: {terms}")
        lines += [f"    {id_}  {line}" for id_, line, _ in description.representatives]
    return lines


def summary_lines(corpus, result, args, settings, descriptions, paths):
    """The summary printed after clustering, as lines of text."""
    sizes = np.bincount(result.clusters, minlength=result.n_clusters)
    lines = [
        f"input:        {args.input} ({FORMAT_DESCRIPTIONS[corpus.format]})",
        f"documents:    {len(corpus.ids)}",
    ]
    for kind in ("skipped", "replaced"):
        where = getattr(corpus, kind)
        if where:
            lines.append(f"{kind + ':':<14}{plural(len(where), 'text')} not valid UTF-8 "
                         f"(first: {where[0]})")
    if corpus.other_files:
        lines.append(f"left out:     {plural(len(corpus.other_files), 'file')} not named "
                     f"*.txt (first: {corpus.other_files[0]})")
    lines += [
        f"method:       {args.method}",
        f"settings:     {settings.describe(args.method != 'frozen')}",
    ]
    if settings.lexical_weight == "auto":
        lines.append(f"words:        weighted {result.lexical_weight:g} (--lexical-weight "
                     "auto: chosen by the clusters; 0.5 with --no-select-epoch)")
    chosen = " (--inference-dtype auto)" if settings.inference_dtype == "auto" else ""
    lines.append(f"precision:    {result.inference_dtype}{chosen}")
    lines += [
        f"epoch:        {epoch_text(result)}",
        f"clusters:     {result.n_clusters}{chosen_text(result.n_clusters_scores)}",
    ]
    caveat = k_uncertainty(result.n_clusters_scores)
    if caveat:
        lines.append(f"{'':14}{caveat}")
    lines += [
        "sizes:        " + ", ".join(f"{k}: {n}" for k, n in enumerate(sizes)),
        f"silhouette:   {score_text(result.silhouette)} (cosine)",
    ]
    if corpus.labels is not None:
        lines.append(f"classes:      {len(set(corpus.labels))}")
        lines.append(f"ACC:          {score_text(result.acc)}")
        lines.append(f"AMI:          {score_text(result.ami)}")
    lines.append(f"time:         {result.seconds:.1f} s")
    lines += [f"{option.lstrip('-') + ':':<14}{path}" for option, path in paths.items()]
    if result.n_clusters_scores is not None:
        lines += ["", "number of clusters (each candidate's score):",
                  *k_table(result.n_clusters_scores)]
    table = epoch_table(result)
    if table:
        lines += ["", f"epochs (kept by {result.criterion}: epoch {result.epoch}):"
                  if result.selected else "epochs:", *table]
    return lines + ["", *cluster_lines(descriptions)]


def _number(value):
    return None if value is None or not np.isfinite(value) else float(value)


def report_settings(result, args, settings):
    """The settings of the report: what the run used (a frozen run trains nothing, so
    it has no batch size, epochs or objective)."""
    used = {"device": settings.device, "max_length": settings.max_length,
            "max_windows": settings.max_windows, "lexical_weight": settings.lexical_weight,
            "lexical_weight_used": result.lexical_weight,
            "inference_dtype": settings.inference_dtype,
            "inference_dtype_used": result.inference_dtype}
    if args.method != "frozen":
        used.update(batch_size=settings.batch_size, max_epochs=settings.max_epochs,
                    max_time=args.max_time, objective=settings.objective)
    return {**used, "seed": args.seed}


def k_report(scores):
    """The choice of ``--n-clusters auto`` for the report (None for a given number): the
    criterion, the chosen k, the runner-up and each candidate's scores."""
    if scores is None:
        return None
    arrays = {key: [_number(v) for v in value] for key, value in scores.items()
              if isinstance(value, np.ndarray) and key != "k"}
    return {"criterion": scores.criterion, "chosen": int(scores.n_clusters),
            "runner_up": None if scores.runner_up is None else int(scores.runner_up),
            "uncertain": k_uncertainty(scores) or None,
            "k": [int(k) for k in scores.k], **arrays}


def report(corpus, result, args, settings, descriptions, paths):
    """The machine-readable report (``--report``): the summary's content as a dict."""
    return {
        "input": str(args.input), "format": corpus.format, "documents": len(corpus.ids),
        "skipped": corpus.skipped, "replaced": corpus.replaced,
        "other_files": corpus.other_files,
        "method": args.method, "model": str(args.model or default_model()),
        "settings": report_settings(result, args, settings),
        "epoch": result.epoch,
        "epoch_selected_by": result.criterion if result.selected else None,
        "history": [{"epoch": row["epoch"], "train_loss": _number(row["train_loss"]),
                     "selection_score": _number(row["selection_score"])}
                    for row in result.history],
        "n_clusters": result.n_clusters,
        "n_clusters_choice": k_report(result.n_clusters_scores),
        "silhouette": _number(result.silhouette),
        "acc": _number(result.acc), "ami": _number(result.ami),
        "seconds": round(result.seconds, 3),
        "outputs": {option.lstrip("-"): str(path) for option, path in paths.items()},
        "clusters": [
            {"cluster": d.cluster, "size": d.size,
             "top_terms": [{"term": term, "weight": weight} for term, weight in d.terms],
             "representatives": [{"id": id_, "first_line": line, "cosine": cosine}
                                 for id_, line, cosine in d.representatives]}
            for d in descriptions],
    }
