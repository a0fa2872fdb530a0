"""Cluster documents with a pipeline: Shuffle & Divide fine-tuning, then spherical k-means.

``make_pipeline(ShuffleDivideEmbedder(...), SphericalKMeans(...))`` is an ordinary
scikit-learn clusterer: ``fit_predict`` fine-tunes the encoder on the documents
themselves (no labels), embeds them and clusters the embeddings. The labels are used
only at the end, to score the clustering with ACC (best one-to-one matching of clusters
to topics) and AMI.

Run it with ``python examples/pipeline.py``; see ``examples/_shared.py`` for the
environment variables that choose the model and the corpus.
"""

from sklearn.metrics import adjusted_mutual_info_score
from sklearn.pipeline import make_pipeline

from sklearn_shufdiv import ShuffleDivideEmbedder, SphericalKMeans, clustering_accuracy
from sklearn_shufdiv.metrics import match_clusters_to_classes

from _shared import SETTINGS, load_corpus, model_name_or_path

documents, labels, topics = load_corpus()
n_topics = len(topics)

pipe = make_pipeline(
    ShuffleDivideEmbedder(model_name_or_path(), random_state=0, verbose=0, **SETTINGS),
    SphericalKMeans(n_clusters=n_topics, random_state=0),
)
clusters = pipe.fit_predict(documents)

print(f"{len(documents)} documents, {n_topics} topics")
print(f"ACC {clustering_accuracy(labels, clusters):.3f}, "
      f"AMI {adjusted_mutual_info_score(labels, clusters):.3f}")

# The training history: epoch 0 is the encoder before fine-tuning.
embedder = pipe[0]
for row in embedder.history_[1:]:
    print(f"epoch {row['epoch']}: NT-Xent loss {row['train_loss']:.4f}")

# The topic each cluster was matched with (the matching ACC scores), and a member.
matching = match_clusters_to_classes([topics[label] for label in labels], clusters)
for cluster in range(n_topics):
    members = [doc for doc, c in zip(documents, clusters) if c == cluster]
    if members:
        print(f"cluster {cluster} -> {matching.get(cluster, '?')!r}, {len(members)} docs: "
              f"{members[0][:50]}...")

# New documents are assigned to the learned clusters.
print(pipe.predict(["The striker scored a penalty in the cup final.",
                    "Whisk the cream with sugar and vanilla."]))
