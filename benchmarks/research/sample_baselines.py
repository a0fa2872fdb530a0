"""The bag-of-words baselines on the 1,000-document samples of the screens: TF-IDF and LSA
(``reproduce.fixed_space``) + spherical k-means, ACC / AMI as mean and std over 5 k-means
seeds (best of 10 runs each), the same scoring as ``epoch_criteria.py``'s columns, so that
the tuned epochs there can be set against the best bag of words on the same documents
(reproduce's own rows score one k-means seed per training seed). Labels only score.

From the repository root (``CORPUS:all`` for the whole corpus, ``CORPUS:N`` for another
sample size)::

    SCIKIT_LEARN_DATA=../shared/data/scikit_learn_data python \
        benchmarks/research/sample_baselines.py bbc reuters 20news
"""

import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_mutual_info_score as ami

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import reproduce  # noqa: E402

from sklearn_shufdiv import SphericalKMeans, clustering_accuracy  # noqa: E402


def report(corpus, n_docs="1000"):
    size = [] if n_docs == "all" else ["--n-docs", n_docs]
    args = reproduce.parse_args(["--corpus", corpus, *size])
    docs, y, names = reproduce.load(args)
    for method in ("tfidf", "lsa"):
        space = reproduce.fixed_space(method, args, docs, {})
        runs = [SphericalKMeans(len(names), n_init=10, random_state=s).fit_predict(space)
                for s in range(5)]
        acc = [clustering_accuracy(y, z) for z in runs]
        mi = [ami(y, z) for z in runs]
        print(f"{corpus} {len(docs)} {method}: ACC {np.mean(acc):.3f} ± {np.std(acc):.3f} "
              f"AMI {np.mean(mi):.3f} ± {np.std(mi):.3f}", flush=True)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        report(*name.split(":"))
