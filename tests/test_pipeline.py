"""The embedders inside scikit-learn: Pipeline, GridSearchCV by silhouette, without labels."""

import numpy as np
import pytest
from sklearn.metrics import adjusted_mutual_info_score
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from sklearn_shufdiv.cluster import SphericalKMeans
from sklearn_shufdiv.embedders import ShuffleDivideEmbedder, TfidfPositiveEmbedder
from sklearn_shufdiv.metrics import clustering_accuracy, silhouette_scorer

SMALL = dict(batch_size=8, mini_batch_size=8, max_length=32, random_state=0, verbose=0)


@pytest.mark.parametrize("Embedder", [ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def test_pipeline_clusters_a_corpus(Embedder, tiny_bert_path, corpus):
    docs, labels = corpus
    pipe = make_pipeline(Embedder(tiny_bert_path, max_epochs=1, **SMALL),
                         SphericalKMeans(4, random_state=0))
    predicted = pipe.fit_predict(docs)
    assert predicted.shape == (len(docs),) and set(predicted) <= {0, 1, 2, 3}
    np.testing.assert_array_equal(pipe.predict(docs), predicted)
    # Scores are defined and in range (a tiny random model is not expected to be good).
    assert 0.25 <= clustering_accuracy(labels, predicted) <= 1
    assert -1 <= adjusted_mutual_info_score(labels, predicted) <= 1


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
