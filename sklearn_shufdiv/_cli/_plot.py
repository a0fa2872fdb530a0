"""``--plot``: a 2-D map of the documents coloured by cluster and, with ``--n-clusters
auto``, the score of each candidate number of clusters under it (matplotlib, optional)."""

import numpy as np
from sklearn.decomposition import PCA
from sklearn.manifold import TSNE

from . import CLIError
from ._outputs import open_output

#: At most this many documents are drawn (a random sample beyond): t-SNE's cost grows
#: quickly with their number, and a denser cloud shows no more.
MAP_SAMPLE_SIZE = 5000


def check_plot(path):
    """Fail before any work when ``--plot`` cannot be drawn: matplotlib is missing, or
    the suffix of ``path`` names no image format it writes (no suffix: PNG)."""
    try:  # an optional dependency, imported only here
        import matplotlib  # noqa: F401
        from matplotlib.backend_bases import FigureCanvasBase
    except ImportError:
        raise CLIError("--plot needs matplotlib, which is not installed: "
                       "pip install 'sklearn-shufdiv[plot]' (or pip install matplotlib)."
                       ) from None
    suffix = path.suffix.lstrip(".").lower()
    formats = FigureCanvasBase.get_supported_filetypes()
    if suffix and suffix not in formats:
        raise CLIError(f"--plot {path}: .{suffix} is no image format matplotlib writes; "
                       f"end the name in .png, .svg or .pdf (or one of "
                       f"{', '.join('.' + name for name in sorted(formats))}).")


def project(embeddings, projection, seed):
    """2-D coordinates of ``embeddings`` by t-SNE (cosine) or PCA."""
    if projection == "pca" or len(embeddings) < 5:
        return PCA(n_components=2, random_state=seed).fit_transform(embeddings)
    perplexity = min(30.0, (len(embeddings) - 1) / 3)
    return TSNE(n_components=2, metric="cosine", init="pca", perplexity=perplexity,
                random_state=seed).fit_transform(embeddings)


def draw_k_curve(axes, scores):
    """Each candidate k's score (``choose_n_clusters``'s), the chosen k marked."""
    ks, values = np.asarray(scores.k), np.asarray(scores.score, dtype=float)
    axes.plot(ks, values, marker="o", markersize=3, color="0.3")
    spread = scores.get("score_std")
    if spread is not None:
        axes.fill_between(ks, values - spread, values + spread, color="0.85")
    axes.axvline(scores.n_clusters, color="tab:red", linestyle="--",
                 label=f"chosen: {scores.n_clusters}")
    if scores.runner_up is not None:
        axes.axvline(scores.runner_up, color="tab:blue", linestyle=":",
                     label=f"runner-up: {scores.runner_up}")
    axes.set_xlabel("number of clusters k")
    axes.set_ylabel(scores.criterion.replace("_", " "))
    axes.legend(fontsize="small")


def draw_map(path, result, descriptions, *, projection="tsne", seed=0, title=""):
    """Write the map of the documents, coloured by cluster, to ``path`` (PNG, SVG, PDF);
    with ``result.n_clusters_scores``, the per-k score curve under it.

    Parameters
    ----------
    path : pathlib.Path
        The image file; its suffix chooses the format.
    result : RunResult
        The embeddings and clusters.
    descriptions : list of ClusterDescription
        For the legend: each cluster's size and first terms.
    projection : {"tsne", "pca"}, default="tsne"
        How the embeddings are brought to 2-D.
    seed : int, default=0
        Seed of the projection and of the sample of documents drawn.
    title : str, default=""
        The figure's title.
    """
    import matplotlib  # an optional dependency: imported only when --plot is given

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    rng = np.random.default_rng(seed)
    shown = np.sort(rng.permutation(len(result.clusters))[:MAP_SAMPLE_SIZE])
    points = project(result.embeddings[shown], projection, seed)
    clusters = result.clusters[shown]
    if result.n_clusters_scores is None:
        figure, axes = plt.subplots(figsize=(9, 7), layout="constrained")
    else:
        figure, (axes, curve) = plt.subplots(2, 1, figsize=(9, 10), height_ratios=(7, 3),
                                             layout="constrained")
        draw_k_curve(curve, result.n_clusters_scores)
    colours = plt.get_cmap("tab20" if len(descriptions) > 10 else "tab10")
    for description in descriptions:
        mask = clusters == description.cluster
        terms = ", ".join(term for term, _ in description.terms[:3])
        axes.scatter(points[mask, 0], points[mask, 1], s=8, alpha=0.7,
                     color=colours(description.cluster % colours.N),
                     label=f"{description.cluster} ({description.size}): {terms}")
    sample = "" if len(shown) == len(result.clusters) else f", {len(shown)} shown"
    axes.set_title(f"{title} ({projection.upper() if projection == 'pca' else 't-SNE'}"
                   f"{sample})")
    axes.set_xticks([])
    axes.set_yticks([])
    axes.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small",
                markerscale=2, title="cluster (size): terms")
    try:  # a temporary file renamed into place once written (see open_output)
        file, commit, discard = open_output(path, binary=True)
    except OSError as exc:
        plt.close(figure)
        raise CLIError(f"{path}: cannot write the map ({exc}).") from None
    try:
        figure.savefig(file, format=path.suffix.lstrip(".").lower() or None, dpi=120)
        commit()
    except (OSError, ValueError) as exc:
        discard()
        raise CLIError(f"{path}: cannot write the map ({exc}).") from None
    finally:
        plt.close(figure)
