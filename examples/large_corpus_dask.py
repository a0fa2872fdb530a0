"""Embed and cluster a corpus that does not fit in memory: Dask partitions and streams.

Fit the embedder on a sample that fits, then let the fitted estimators do the rest in
bounded memory: each partition of a Dask bag is embedded with ``transform_iter`` (chunk
by chunk), :class:`~sklearn_shufdiv.SphericalKMeans` learns the centroids with
``partial_fit`` (mini-batch spherical k-means), and a second pass assigns every document
to its cluster. A local ``dask.distributed`` cluster stands in for a real one; with
``processes=True`` (or a remote cluster) the fitted estimators travel to the workers by
pickling, which works for both.

Run it with ``python examples/large_corpus_dask.py`` (needs ``dask[distributed]``).
"""

import warnings

import numpy as np
from dask import bag, delayed
from dask.distributed import Client, LocalCluster
from sklearn.metrics import adjusted_mutual_info_score

from sklearn_shufdiv import ShuffleDivideEmbedder, SphericalKMeans, clustering_accuracy

from _shared import QUICK, SETTINGS, load_corpus, model_name_or_path

documents, labels, topics = load_corpus()
# Stand-in for a large corpus: every document several times, in 4 partitions.
copies = 2 if QUICK else 5
corpus = bag.from_sequence(documents * copies, npartitions=4)

# 1. Fine-tune on a sample that fits in memory (here: the distinct documents).
embedder = ShuffleDivideEmbedder(model_name_or_path(), random_state=0, verbose=0,
                                 **SETTINGS).fit(documents)


def embed(partition, embedder):
    """Embeddings of one partition, computed a chunk at a time."""
    return [np.vstack(list(embedder.transform_iter(partition, chunk_size=16)))]


def assign(partition, embedder, kmeans):
    """The cluster of each document of one partition."""
    return [int(c) for block in embedder.transform_iter(partition, chunk_size=16)
            for c in kmeans.predict(block)]


# The fitted encoder is sent to the workers once; dask warns about any graph that big.
warnings.filterwarnings("ignore", message="Sending large graph")

with LocalCluster(n_workers=2, threads_per_worker=1, processes=False) as cluster, \
        Client(cluster):
    # The fitted embedder goes into the task graph once, not once per partition.
    shared_embedder = delayed(embedder, pure=True)
    # 2. Embed each partition on the workers (kept there), then learn the centroids by
    #    streaming one partition's embeddings at a time to partial_fit.
    embedded = corpus.map_partitions(embed, shared_embedder).persist()
    kmeans = SphericalKMeans(n_clusters=len(topics), random_state=0)
    for _ in range(3):  # a few passes over the stream
        for partition in embedded.to_delayed():
            for block in partition.compute():
                kmeans.partial_fit(block)
    # 3. Assign every document of every partition to its cluster, on the workers.
    assigned = corpus.map_partitions(assign, shared_embedder, delayed(kmeans)).compute()

truth = np.tile(labels, copies)
print(f"{len(assigned)} documents in {corpus.npartitions} partitions")
print(f"ACC {clustering_accuracy(truth, assigned):.3f}, "
      f"AMI {adjusted_mutual_info_score(truth, assigned):.3f}")
