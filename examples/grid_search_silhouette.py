"""Choose the number of training epochs by silhouette, without labels.

Fine-tuning for too long can hurt a clustering, and without labels there is no
validation accuracy to tell when. The cosine silhouette of the clusters, computed in
the embedding space, is a label-free stand-in. Two ways to use it:

1. ``GridSearchCV`` over ``max_epochs`` with ``scoring=silhouette_scorer`` and a single
   split that trains and scores on all documents, ``cv=[(all_idx, all_idx)]``:
   clustering is transductive, there is no held-out set. Each candidate is fitted from
   scratch, so this also works for any other parameter (temperature, max_length...).
2. The embedder's own selection: with ``n_clusters`` set, every epoch (and the untuned
   encoder, epoch 0) is scored during a single ``fit`` and the best epoch's weights are
   kept; ``history_`` holds the scores and ``best_epoch_`` the choice. One fit instead
   of one per candidate. Here the criterion scores each epoch's clustering by its
   silhouette in the untuned encoder's space (``selection="untuned-silhouette"``),
   which training does not tighten; the grid search scores each candidate in its own
   output space. (Another criterion, ``selection="stability"``, asks instead whether
   the clusters are stable enough to train on at all: see the user guide.)

The labels are only used to print the ACC of each choice next to its silhouette.
"""

import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from sklearn_shufdiv import (
    ShuffleDivideEmbedder,
    SphericalKMeans,
    clustering_accuracy,
    silhouette_scorer,
)

from _shared import QUICK, SETTINGS, load_corpus, model_name_or_path

documents, labels, topics = load_corpus()
n_topics = len(topics)
settings = {key: value for key, value in SETTINGS.items() if key != "max_epochs"}

# -- 1. Grid search: one fit per candidate ------------------------------------------------
pipe = make_pipeline(
    ShuffleDivideEmbedder(model_name_or_path(), random_state=0, verbose=0, **settings),
    SphericalKMeans(n_clusters=n_topics, random_state=0),
)
all_idx = np.arange(len(documents))
search = GridSearchCV(
    pipe,
    {"shuffledivideembedder__max_epochs": [0, 1] if QUICK else [0, 1, 2, 3]},
    scoring=silhouette_scorer,  # cosine silhouette in the embedding space
    cv=[(all_idx, all_idx)],  # train and score on all documents
    refit=True,
)
search.fit(documents)  # no labels

for params, score in zip(search.cv_results_["params"],
                         search.cv_results_["mean_test_score"]):
    print(f"max_epochs={params['shuffledivideembedder__max_epochs']}: "
          f"silhouette {score:.3f}")
print(f"chosen: {search.best_params_}, "
      f"ACC {clustering_accuracy(labels, search.predict(documents)):.3f}")

# -- 2. Selection inside fit: one fit scores every epoch ----------------------------------
embedder = ShuffleDivideEmbedder(model_name_or_path(), n_clusters=n_topics,
                                 selection="untuned-silhouette", random_state=0, verbose=0,
                                 **SETTINGS)
embeddings = embedder.fit_transform(documents)
for row in embedder.history_:
    print(f"epoch {row['epoch']}: untuned silhouette {row['untuned_silhouette']:.3f}")
clusters = SphericalKMeans(n_clusters=n_topics, random_state=0).fit_predict(embeddings)
print(f"best epoch: {embedder.best_epoch_}, ACC {clustering_accuracy(labels, clusters):.3f}")
