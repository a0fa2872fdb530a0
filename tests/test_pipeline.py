"""The embedders inside scikit-learn: Pipeline, GridSearchCV by silhouette, without labels."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import adjusted_mutual_info_score
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from sklearn_shufdiv.cluster import SphericalKMeans
from sklearn_shufdiv.embedders import ShuffleDivideEmbedder, TfidfPositiveEmbedder
from sklearn_shufdiv.metrics import clustering_accuracy, cosine_silhouette, silhouette_scorer

SMALL = dict(batch_size=8, mini_batch_size=8, max_length=32, random_state=0, verbose=0)


@pytest.mark.parametrize("Embedder", [ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def test_pipeline_clusters_a_corpus(Embedder, tiny_bert_path, corpus):
    docs, labels = corpus
    pipe = make_pipeline(Embedder(tiny_bert_path, max_epochs=1, **SMALL),
                         SphericalKMeans(4, random_state=0))
    predicted = pipe.fit_predict(docs)
    assert predicted.shape == (len(docs),) and set(predicted) <= {0, 1, 2, 3}
    np.testing.assert_array_equal(pipe.predict(docs), predicted)
    # Scores are defined and in range, and far above chance. Chance, measured once over
    # 2,000 random permutations of these 48 labels: ACC at most 0.54 (99.9% under 0.50),
    # AMI at most 0.18; one cluster gives ACC 0.25, AMI 0. The tiny random encoder's mean
    # pooling still separates the topics' vocabularies: both embedders measured ACC 0.979,
    # AMI 0.943 (seed 0) with the default 10 k-means runs (0.708 and 0.678 with one run),
    # so 0.9 and 0.8 leave a margin either way.
    accuracy = clustering_accuracy(labels, predicted)
    ami = adjusted_mutual_info_score(labels, predicted)
    assert 0.25 <= accuracy <= 1
    assert -1 <= ami <= 1
    assert accuracy >= 0.9 and ami >= 0.8


def test_grid_search_over_epochs_by_silhouette_without_labels(tiny_bert_path, corpus):
    docs, _ = corpus
    pipe = make_pipeline(ShuffleDivideEmbedder(tiny_bert_path, **SMALL),
                         SphericalKMeans(4, random_state=0))
    everything = np.arange(len(docs))
    search = GridSearchCV(
        pipe, {"shuffledivideembedder__max_epochs": [0, 1, 2]},
        scoring=silhouette_scorer, cv=[(everything, everything)], refit=True,
    ).fit(docs)
    scores = search.cv_results_["mean_test_score"]
    assert len(scores) == 3 and np.all((-1 <= scores) & (scores <= 1))
    best = search.best_params_["shuffledivideembedder__max_epochs"]
    assert best == [0, 1, 2][int(np.argmax(scores))]
    assert search.predict(docs).shape == (len(docs),)
    # Each score is the cosine silhouette of that candidate's own embeddings and clusters
    # (a scorer returning a constant, or scoring another candidate, fails here).
    for params, score in zip(search.cv_results_["params"], scores):
        candidate = clone(pipe).set_params(**params).fit(docs)
        embeddings = candidate[:-1].transform(docs)
        expected = cosine_silhouette(embeddings, candidate.predict(docs))
        assert np.isfinite(expected) and score == pytest.approx(expected, rel=1e-6, abs=1e-9)
