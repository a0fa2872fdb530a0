"""Where ``selection="stability"`` keeps training, and what it returns where it does not: on a whole corpus (or a stratified sample), for training seeds 0-4, the
stability of epoch 0's clusters (:func:`~sklearn_shufdiv.embedders._selection.stability`:
the mean pairwise ARI of 5 seeded spherical k-means clusterings of the untuned space
``transform`` returns, the frozen encoder fused with the words of ``LexicalSpace(
random_state=seed)`` at the default weight; every document in the sample, as
``reproduce.py`` sets ``selection_sample_size=None``), beside the ACC / AMI of that space
over 5 k-means seeds (best of 10 runs each): what the default returns where the gate
stays closed (training skipped). In the same run, on the same documents: the frozen
encoder alone, TF-IDF and LSA (``reproduce.fixed_space``), 5 k-means seeds. The encoder
embeds the corpus once; the untuned space of seed ``s`` is ``fuse(frozen, lexical_s, w)``,
what ``ShuffleDivideEmbedder(max_epochs=0, random_state=s)`` returns
(``tests/test_lexical.py``). Labels only score.

From the repository root (``CORPUS:all`` for the whole corpus, ``CORPUS:N`` for a
stratified sample of N)::

    SCIKIT_LEARN_DATA=../shared/data/scikit_learn_data python \\
        benchmarks/research/gate.py reuters:all 20news:4000
"""

import sys
from pathlib import Path

import numpy as np
from sklearn.metrics import adjusted_mutual_info_score as ami

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import reproduce  # noqa: E402

from sklearn_shufdiv import SphericalKMeans, clustering_accuracy  # noqa: E402
from sklearn_shufdiv.embedders import LexicalSpace, StabilityCriterion, fuse  # noqa: E402
from sklearn_shufdiv.embedders._selection import stability  # noqa: E402


def scored(y, space, k):
    runs = [SphericalKMeans(k, n_init=10, random_state=s).fit_predict(space)
            for s in range(5)]
    return (np.mean([clustering_accuracy(y, z) for z in runs]),
            np.mean([ami(y, z) for z in runs]))


def report(corpus, n_docs, seeds=range(5)):
    size = [] if n_docs == "all" else ["--n-docs", n_docs]
    args = reproduce.parse_args(["--corpus", corpus, *size])
    docs, y, names = reproduce.load(args)
    k = len(names)
    fixed = {}
    for method in ("tfidf", "lsa", "frozen"):
        space = reproduce.fixed_space(method, args, docs, fixed)
        fixed[method] = space
        print(f"{corpus} {len(docs)} {method}: ACC %.3f AMI %.3f" % scored(y, space, k),
              flush=True)
    rows = []
    for seed in seeds:
        lexical = LexicalSpace(random_state=seed).fit(docs).transform(docs)
        space = fuse(fixed["frozen"], lexical, args.lexical_weight)
        gate = stability(space, k, seed)
        acc, mi = scored(y, space, k)
        rows.append((gate, acc, mi))
        kept = gate >= StabilityCriterion().min_stability
        print(f"{corpus} {len(docs)} seed {seed}: epoch-0 stability {gate:.3f} (training "
              f"{'kept' if kept else 'skipped'}); untuned space ACC {acc:.3f} AMI {mi:.3f}",
              flush=True)
    gate, acc, mi = np.array(rows).T
    print(f"{corpus} {len(docs)} untuned space, {len(rows)} seeds: ACC {acc.mean():.3f} ± "
          f"{acc.std():.3f} AMI {mi.mean():.3f} ± {mi.std():.3f}; stability "
          f"{gate.min():.3f}-{gate.max():.3f}", flush=True)


if __name__ == "__main__":
    for item in sys.argv[1:]:
        corpus, _, n_docs = item.partition(":")
        report(corpus, n_docs or "1000")
