"""Speed and quality of SphericalKMeans against KMeans on unit rows and faiss' spherical k-means.

Two datasets, each clustered in one process by every method with ``n_init=1`` and the same
``max_iter``:

(a) dense: 20,000 x 768 float32 unit vectors from 20 overlapping clusters (blobs in a
    32-dimensional latent space mapped linearly to 768 dimensions, with a common offset and
    isotropic noise, then normalised; like sentence embeddings, not trivially separable);
(b) sparse: the TF-IDF matrix of 20 Newsgroups (``subset="all"``,
    ``TfidfVectorizer(sublinear_tf=True, min_df=2)``, rows of unit norm); faiss is skipped.

For each method it prints the fit time (best of ``--repeats``, runs of the methods
interleaved, because the machine may be shared), the number of iterations, the time per
iteration (fit time minus seeding time, over iterations) divided by the time of one product
``X @ C.T``, the objective (mean cosine similarity of each row to its assigned centroid) and
the adjusted Rand index against the generating / newsgroup labels. faiss is timed for
``train`` alone and for ``train`` plus the ``search`` that yields the labels (the other two
return labels from ``fit``).

Then, because one seed is a lottery of local optima, every method is run for each of
``--quality-seeds`` seeds (best time of ``--repeats``, runs interleaved), and the mean, min
and max objective and mean time are printed, with each seed's time ratio and objective
difference against faiss (train + search).

Usage (from the repository root)::

    python benchmarks/bench_spherical_kmeans.py [--data-home DIR] [--max-iter 100]
        [--repeats 3] [--quality-seeds 5] [--seed 0] [--skip-dense] [--skip-sparse]
"""

import argparse
import time
from pathlib import Path

import numpy as np
from lab.internals import scaled_rows, spherical_kmeans_plusplus, unit_rows
from sklearn.cluster import KMeans, kmeans_plusplus
from sklearn.datasets import fetch_20newsgroups, make_blobs
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import adjusted_rand_score

from sklearn_shufdiv.cluster import SphericalKMeans

REPO_ROOT = Path(__file__).resolve().parents[1]


def make_sphere_blobs(n_samples=20_000, n_features=768, n_clusters=20, latent_dim=32, seed=0):
    """Unit float32 rows from overlapping clusters, and their generating labels."""
    rng = np.random.default_rng(seed)
    latent, labels = make_blobs(
        n_samples, latent_dim, centers=n_clusters, cluster_std=rng.uniform(2.0, 3.5, n_clusters),
        center_box=(-4, 4), random_state=seed,
    )
    mixing = rng.standard_normal((latent_dim, n_features)) / np.sqrt(latent_dim)
    offset = 2.0 * np.sqrt(latent_dim / n_features) * rng.standard_normal(n_features)
    X = latent @ mixing + offset + 1.5 * rng.standard_normal((n_samples, n_features))
    X = X.astype(np.float32)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    return X, labels


def load_20newsgroups_tfidf(data_home):
    data = fetch_20newsgroups(subset="all", data_home=data_home, download_if_missing=False)
    X = TfidfVectorizer(sublinear_tf=True, min_df=2).fit_transform(data.data)
    return X, data.target


def objective(X, centers, labels):
    """Mean cosine similarity of each row to its assigned centroid (a zero row counts 0)."""
    inv_norm = scaled_rows(X)[1]
    unit = centers / np.linalg.norm(centers, axis=1, keepdims=True)
    similarity = np.asarray(X.multiply(unit[labels]).sum(axis=1)).ravel() if hasattr(
        X, "multiply") else np.einsum("ij,ij->i", X, unit[labels].astype(X.dtype))
    return float(np.mean(similarity * inv_norm))


def timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def best_of(fn, repeats):
    return min(timed(fn)[0] for _ in range(repeats))


def fit_ours(X, k, max_iter, seed):
    model = SphericalKMeans(k, n_init=1, max_iter=max_iter, random_state=seed).fit(X)
    return model.cluster_centers_, model.labels_, model.n_iter_


def fit_kmeans(X, k, max_iter, seed):
    model = KMeans(k, n_init=1, max_iter=max_iter, random_state=seed).fit(X)
    return model.cluster_centers_, model.labels_, model.n_iter_


def fit_faiss(X, k, max_iter, seed, with_labels=True):
    import faiss

    km = faiss.Kmeans(X.shape[1], k, niter=max_iter, spherical=True, seed=seed,
                      max_points_per_centroid=X.shape[0])  # use all points
    km.train(X)
    labels = km.index.search(X, 1)[1].ravel() if with_labels else None
    return km.centroids, labels, len(km.obj)


def seeders(X, k, seed):
    """The seeding step of each method, to time it apart (faiss seeds by sampling rows)."""
    inv_norm, weights = scaled_rows(X)[1], np.ones(X.shape[0], X.dtype)
    return {
        "SphericalKMeans": lambda: spherical_kmeans_plusplus(
            X, inv_norm, weights, k, np.random.RandomState(seed)),
        "KMeans (unit rows)": lambda: kmeans_plusplus(X, k, random_state=seed),
    }


def time_methods(X, k, args, methods):
    """Best of ``args.repeats`` times of each fit and seeding (runs interleaved), last fits."""
    jobs = {name: lambda fit=fit: fit(X, k, args.max_iter, args.seed)
            for name, fit in methods.items()}
    jobs.update({f"seed: {name}": seed for name, seed in seeders(X, k, args.seed).items()})
    centers = unit_rows(X, scaled_rows(X)[1], np.arange(k))
    jobs["X @ C.T"] = lambda: X @ centers.T  # the reference product, timed alongside
    times, fitted = {name: [] for name in jobs}, {}
    for _ in range(args.repeats):  # interleaved, so that a burst of load hits every method
        for name, job in jobs.items():
            elapsed, out = timed(job)
            times[name].append(elapsed)
            if name in methods:
                fitted[name] = out
    return {name: min(t) for name, t in times.items()}, fitted


def quality_over_seeds(X, truth, k, args, methods):
    """Per seed of ``args.quality_seeds``: single-run time (best of ``args.repeats``, runs
    interleaved), objective, ARI and iterations of each method."""
    rows = {name: [] for name in methods}
    for seed in range(args.seed, args.seed + args.quality_seeds):
        times = {name: [] for name in methods}
        for _ in range(args.repeats):
            for name, fit in methods.items():
                elapsed, out = timed(lambda fit=fit, seed=seed: fit(X, k, args.max_iter, seed))
                times[name].append(elapsed)
        for name, (centers, labels, n_iter) in ((n, methods[n](X, k, args.max_iter, seed))
                                                for n in methods):
            rows[name].append((min(times[name]), objective(X, centers, labels),
                               adjusted_rand_score(truth, labels), n_iter))
    return {name: np.array(r) for name, r in rows.items()}


def print_per_seed(quality, args, peer="faiss train+search"):
    """Per seed: our time over the peer's, and our objective minus the peer's."""
    if peer not in quality:
        return []
    ours, theirs = quality["SphericalKMeans"], quality[peer]
    print(f"-- per seed, SphericalKMeans against {peer} (time: best of {args.repeats})")
    print(f"{'seed':>6}{'ours s':>9}{'peer s':>9}{'ratio':>7}{'iters':>7}{'peer it':>8}"
          f"{'cos - peer':>12}")
    ratios = ours[:, 0] / theirs[:, 0]
    for i, seed in enumerate(range(args.seed, args.seed + args.quality_seeds)):
        print(f"{seed:>6}{ours[i, 0]:>9.3f}{theirs[i, 0]:>9.3f}{ratios[i]:>7.2f}"
              f"{ours[i, 3]:>7.0f}{theirs[i, 3]:>8.0f}{ours[i, 1] - theirs[i, 1]:>+12.5f}")
    return ratios


def run_dataset(title, X, truth, k, args, methods):
    """Print a timing table (one seed) and a quality table (several seeds)."""
    print(f"\n== {title}: X {X.shape} {X.dtype} ({type(X).__name__}), {k} clusters, n_init=1, "
          f"max_iter={args.max_iter}")
    best, fitted = time_methods(X, k, args, methods)
    matmul = best.pop("X @ C.T")
    print(f"-- seed {args.seed}; times are the best of {args.repeats} interleaved runs (the CPUs "
          f"are shared with other work: expect noise); one X @ C.T takes {matmul * 1e3:.1f} ms")
    print("seeding alone: " + ", ".join(
        f"{name[6:]} {t:.3f} s" for name, t in best.items() if name.startswith("seed: ")))
    print(f"{'method':<22}{'time s':>8}{'x ours':>8}{'iters':>7}{'(t-seed)/iter/(X@C.T)':>23}"
          f"{'mean cos':>10}{'ARI':>7}")
    for name, (centers, labels, n_iter) in fitted.items():
        per_iter = (best[name] - best.get(f"seed: {name}", 0.0)) / n_iter
        quality = (f"{objective(X, centers, labels):>10.5f}"
                   f"{adjusted_rand_score(truth, labels):>7.3f}" if labels is not None else "")
        ratio = f"{per_iter / matmul:.2f}" if per_iter > 0 else "n/a (noise)"
        print(f"{name:<22}{best[name]:>8.3f}{best[name] / best['SphericalKMeans']:>8.2f}"
              f"{n_iter:>7d}{ratio:>23}{quality}")
    labelled = {name: fit for name, fit in methods.items() if name != "faiss train only"}
    quality = quality_over_seeds(X, truth, k, args, labelled)
    print(f"-- over seeds {args.seed}..{args.seed + args.quality_seeds - 1}, one run each "
          "(a single seed is a lottery of local optima)")
    print(f"{'method':<22}{'mean s':>8}{'mean cos':>10}{'min cos':>9}{'max cos':>9}{'ARI':>7}"
          f"{'iters':>7}")
    for name, r in quality.items():
        print(f"{name:<22}{r[:, 0].mean():>8.3f}{r[:, 1].mean():>10.5f}{r[:, 1].min():>9.5f}"
              f"{r[:, 1].max():>9.5f}{r[:, 2].mean():>7.3f}{r[:, 3].mean():>7.1f}")
    return best, {name: r[:, 1].mean() for name, r in quality.items()}, print_per_seed(
        quality, args)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-home", default=None,
                        help="scikit-learn data home (default: SCIKIT_LEARN_DATA, else "
                             "scikit-learn's own)")
    parser.add_argument("--max-iter", type=int, default=100)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quality-seeds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-dense", action="store_true")
    parser.add_argument("--skip-sparse", action="store_true")
    args = parser.parse_args()
    lines = []
    if not args.skip_dense:
        X, truth = make_sphere_blobs(seed=0)
        methods = {"SphericalKMeans": fit_ours, "KMeans (unit rows)": fit_kmeans,
                   "faiss train+search": fit_faiss,
                   "faiss train only": lambda *a: fit_faiss(*a, with_labels=False)}
        best, cos, per_seed = run_dataset("(a) dense blobs on the sphere", X, truth, 20, args,
                                          methods)
        ours = best["SphericalKMeans"]
        lines += [
            ("dense: ours / faiss (train+search)", ours / best["faiss train+search"], 1.0),
            ("dense: ours / faiss (train only)", ours / best["faiss train only"], 1.0),
            ("dense: ours / sklearn KMeans", ours / best["KMeans (unit rows)"], 0.5),
            ("dense: ours / faiss, slowest seed", float(np.max(per_seed)), 1.0),
        ]
        print(f"mean objective over seeds: ours {cos['SphericalKMeans']:.5f}, "
              f"faiss {cos['faiss train+search']:.5f}, KMeans {cos['KMeans (unit rows)']:.5f}")
    if not args.skip_sparse:
        X, truth = load_20newsgroups_tfidf(args.data_home)
        methods = {"SphericalKMeans": fit_ours, "KMeans (unit rows)": fit_kmeans}
        best, cos, _ = run_dataset("(b) 20 Newsgroups TF-IDF (faiss skipped: sparse)", X,
                                   truth, 20, args, methods)
        lines.append(("sparse: ours / sklearn KMeans",
                      best["SphericalKMeans"] / best["KMeans (unit rows)"], 0.5))
        print(f"mean objective over seeds: ours {cos['SphericalKMeans']:.5f}, "
              f"KMeans {cos['KMeans (unit rows)']:.5f}")
    print("\n== time ratios, seed", args.seed, "(target in brackets)")
    for label, ratio, target in lines:
        print(f"{label:<38}{ratio:>6.2f}x  [<= {target}x] {'ok' if ratio <= target else 'MISSED'}")


if __name__ == "__main__":
    main()
