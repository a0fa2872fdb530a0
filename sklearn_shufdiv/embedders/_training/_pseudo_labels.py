"""The pseudo-labels (and cluster centers) that a cluster-aware objective trains on.

:class:`PseudoLabels` is a skorch callback fed by the epoch selection: after the
selection clusters its sample at the end of an epoch (and before training, for the
untuned encoder), it turns that clustering into the labels the next epoch trains on,
without embedding the sample again. Before each epoch it hands them to the net: every
document's pseudo-label (-1, none, outside the sample) and, for the prototype term, the
clusters' centers in the encoder's space. Its state goes into checkpoints, so that a
resumed fit trains on the labels a whole one would.
"""

import numpy as np
import torch
from skorch.callbacks import Callback

from ...cluster import cluster_centers, cluster_on_sphere, confident_labels


class PseudoLabels(Callback):
    """skorch callback: the pseudo-labels of the next epoch, from the selection's clustering.

    From the candidate the selection scored last (``selection.candidate``): its chosen
    clustering, or with ``objective.n_pseudo_clusters`` a clustering of the same space
    into that many clusters (same seed); with ``objective.fraction`` below 1, only each
    cluster's documents nearest their own center keep their label
    (:func:`~sklearn_shufdiv.cluster.confident_labels`); with ``objective.needs_prototypes``,
    the centers of the labelled documents in the encoder's space
    (:func:`~sklearn_shufdiv.cluster.cluster_centers`).

    Parameters
    ----------
    objective : Objective
        A cluster-aware objective (``needs_pseudo_labels``).
    selection : EpochSelection
        The fit's epoch selection, with a criterion (``n_clusters`` set).
    n_documents : int
        Documents in the fitted corpus.

    Attributes
    ----------
    epoch : int or None
        The epoch whose clustering the labels come from (training epoch ``epoch + 1``
        reads them).
    labels : ndarray of shape (n_sample,) or None
        The sample's pseudo-labels, -1 for none.
    centers : ndarray of shape (n_pseudo_clusters, dim) or None
        Their clusters' centers, with ``objective.needs_prototypes``.
    """

    def __init__(self, objective, selection, n_documents):
        self.objective = objective
        self.selection = selection
        self.n_documents = n_documents
        self.epoch = self.labels = self.centers = None

    def learn(self, candidate):
        """Take the pseudo-labels (and centers) of ``candidate``, a scored epoch."""
        context = self.selection.context
        n_clusters = self.objective.pseudo_clusters(context.n_clusters)
        labels = candidate.labels
        if n_clusters != context.n_clusters:
            labels = cluster_on_sphere(candidate.embeddings, n_clusters, context.seed).labels
        if self.objective.fraction < 1:
            labels = confident_labels(candidate.embeddings, labels, n_clusters,
                                      self.objective.fraction)
        self.epoch, self.labels = candidate.epoch, labels
        self.centers = (cluster_centers(candidate.encoded, labels, n_clusters)
                        if self.objective.needs_prototypes else None)

    def _learn_from_selection(self):
        candidate = self.selection.candidate
        if candidate is not None and candidate.epoch != self.epoch:
            self.learn(candidate)

    def on_train_begin(self, net, **kwargs):
        self._learn_from_selection()  # epoch 0's, unless resumed from a checkpoint

    def on_epoch_end(self, net, **kwargs):
        self._learn_from_selection()

    def on_epoch_begin(self, net, **kwargs):
        previous = len(net.history) - 1
        if self.epoch != previous:
            raise RuntimeError(f"The pseudo-labels are those of epoch {self.epoch}, but "
                               f"epoch {previous + 1} trains on epoch {previous}'s.")
        labels = np.full(self.n_documents, -1, dtype=np.int64)
        labels[self.selection.context.sample_indices] = self.labels
        net.pseudo_labels_ = labels
        net.prototypes_ = None if self.centers is None else torch.from_numpy(self.centers)

    def on_train_end(self, net, **kwargs):
        net.pseudo_labels_ = net.prototypes_ = None

    # -- checkpoints -----------------------------------------------------------------
    def state(self, epoch):
        """``(metadata, tensors)`` for the checkpoint of ``epoch``."""
        tensors = {} if self.labels is None else {
            "labels": torch.from_numpy(np.asarray(self.labels, dtype=np.int64))}
        if self.centers is not None:
            tensors["centers"] = torch.from_numpy(self.centers)
        return {"epoch": self.epoch}, tensors

    def load_state(self, meta, tensors, net, epoch):
        """Restore :meth:`state`."""
        self.epoch = meta["epoch"]
        self.labels = tensors["labels"].numpy() if "labels" in tensors else None
        self.centers = tensors["centers"].numpy() if "centers" in tensors else None
