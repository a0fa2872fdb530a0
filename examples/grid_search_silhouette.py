"""Choose the number of training epochs by silhouette, without labels.

Fine-tuning for too long can hurt a clustering, and without labels there is no
validation accuracy to tell when. The cosine silhouette of the clusters is a label-free
stand-in, provided every candidate is scored in the same space. Two ways to use it:

1. ``GridSearchCV`` over ``max_epochs`` with a single split that trains and scores on all
   documents, ``cv=[(all_idx, all_idx)]`` (clustering is transductive, there is no
   held-out set), scored by ``make_silhouette_scorer(space=untuned)``: each candidate's
   clusters are scored in the space of the untuned embedder (``max_epochs=0``), fitted
   once on the documents. The plain ``silhouette_scorer`` scores each candidate in its
   own output space, which training tightens whatever the clusters become: it favours
   the tuned candidate. Both are printed below. The scorers are joined by
   ``make_clustering_scorers``, so each candidate embeds the documents once for all its
   scores (a dict of scorers would embed them once per scorer). Each candidate is
   fitted from scratch, so this works for any other parameter too (temperature,
   max_length...), and ``refit`` fits the winner once more after the search.
2. The embedder's own selection: with ``n_clusters`` set, every epoch (and the untuned
   encoder, epoch 0) is scored during a single ``fit`` in that same untuned space
   (``selection="untuned-silhouette"``) and the chosen epoch's weights are kept;
   ``history_`` holds the scores and ``best_epoch_`` the choice. One training instead of
   one per candidate plus the refit: the cheaper way to choose epochs. (Another
   criterion, ``selection="stability"``, asks instead whether the clusters are stable
   enough to train on at all: see the user guide.)

With ``SHUFDIV_EXAMPLE_CORPUS=bbc``, 150 BBC News articles (30 per topic) are clustered.
The labels are only used to print the ACC of each candidate next to its silhouettes.
"""

import numpy as np
from sklearn.model_selection import GridSearchCV, train_test_split
from sklearn.pipeline import make_pipeline

from sklearn_shufdiv import (
    ShuffleDivideEmbedder,
    SphericalKMeans,
    clustering_accuracy,
    clustering_accuracy_scorer,
    make_silhouette_scorer,
    silhouette_scorer,
)
from sklearn_shufdiv.metrics import make_clustering_scorers

from _shared import SETTINGS, load_corpus, model_name_or_path

documents, labels, topics = load_corpus()
if len(documents) > 150:  # BBC News: a stratified sample of 150 articles
    keep, _ = train_test_split(np.arange(len(documents)), train_size=150, stratify=labels,
                               random_state=0)
    documents, labels = [documents[i] for i in keep], labels[keep]
n_topics = len(topics)
settings = {key: value for key, value in SETTINGS.items() if key != "max_epochs"}

# -- 1. Grid search: one fit per candidate, all scored in the untuned space ---------------
untuned = ShuffleDivideEmbedder(model_name_or_path(), max_epochs=0, verbose=0, **settings)
pipe = make_pipeline(
    ShuffleDivideEmbedder(model_name_or_path(), random_state=0, verbose=0, **settings),
    SphericalKMeans(n_clusters=n_topics, random_state=0),
)
all_idx = np.arange(len(documents))
search = GridSearchCV(
    pipe,
    {"shuffledivideembedder__max_epochs": [0, 1]},
    # One embedding of the documents per candidate, shared by the three scores.
    scoring=make_clustering_scorers({"untuned_space": make_silhouette_scorer(space=untuned),
                                     "own_space": silhouette_scorer,
                                     "acc": clustering_accuracy_scorer}),  # labels: acc only
    refit="untuned_space",  # choose by the fixed space, then fit the winner again
    cv=[(all_idx, all_idx)],  # train and score on all documents
)
search.fit(documents, labels)  # the labels reach the "acc" scorer only

results = search.cv_results_
for i, params in enumerate(results["params"]):
    print(f"max_epochs={params['shuffledivideembedder__max_epochs']}: silhouette in the "
          f"untuned space {results['mean_test_untuned_space'][i]:.3f}, in its own space "
          f"{results['mean_test_own_space'][i]:.3f}; ACC {results['mean_test_acc'][i]:.3f}")
own_choice = results["params"][int(np.argmax(results["mean_test_own_space"]))]
print(f"chosen in the untuned space: {search.best_params_}, "
      f"ACC {clustering_accuracy(labels, search.predict(documents)):.3f}")
print(f"the own-space silhouette would choose: {own_choice}")

# -- 2. Selection inside fit: one fit scores every epoch ----------------------------------
embedder = ShuffleDivideEmbedder(model_name_or_path(), n_clusters=n_topics,
                                 selection="untuned-silhouette", random_state=0, verbose=0,
                                 **SETTINGS)
embeddings = embedder.fit_transform(documents)
for row in embedder.history_:
    print(f"epoch {row['epoch']}: untuned silhouette {row['untuned_silhouette']:.3f}")
clusters = SphericalKMeans(n_clusters=n_topics, random_state=0).fit_predict(embeddings)
print(f"best epoch: {embedder.best_epoch_}, ACC {clustering_accuracy(labels, clusters):.3f}")
