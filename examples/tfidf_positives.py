"""Fine-tune with TF-IDF positives instead of Shuffle & Divide.

:class:`~sklearn_shufdiv.TfidfPositiveEmbedder` pairs each document with the *other*
document of the corpus most similar to it in TF-IDF space, and trains the encoder to
bring the two together (every other document of the batch is a negative). It needs no
text augmentation, so short documents (one or two sentences, which Shuffle & Divide
cannot split) train too. The pairs are mined once, exactly, before training; they are
exposed as ``positive_pairs_`` and ``positive_similarities_``.

With labels at hand one can check how often a pair shares a topic: the better the
pairs, the better the fine-tuning. The labels are not used to mine them.
"""

import numpy as np
from sklearn.metrics import adjusted_mutual_info_score

from sklearn_shufdiv import SphericalKMeans, TfidfPositiveEmbedder, clustering_accuracy

from _shared import SETTINGS, load_corpus, model_name_or_path

documents, labels, topics = load_corpus()

embedder = TfidfPositiveEmbedder(
    model_name_or_path(),
    tfidf_params={"min_df": 1},  # keep every term: the corpus may be small
    random_state=0,
    verbose=0,
    **SETTINGS,
)
embeddings = embedder.fit_transform(documents)

pairs = embedder.positive_pairs_
same_topic = np.mean(labels[pairs[:, 0]] == labels[pairs[:, 1]])
print(f"{len(pairs)} positive pairs, {same_topic:.0%} of them within one topic")
i, j = pairs[np.argmax(embedder.positive_similarities_)]
print(f"most similar pair: {documents[i][:40]!r} ~ {documents[j][:40]!r}")

clusters = SphericalKMeans(n_clusters=len(topics), random_state=0).fit_predict(embeddings)
print(f"ACC {clustering_accuracy(labels, clusters):.3f}, "
      f"AMI {adjusted_mutual_info_score(labels, clusters):.3f}")
