"""Cluster-aware negatives: an objective studied and not shipped, plugged in as a value.

``ClusterNegatives`` is an :class:`~sklearn_shufdiv.embedders.Objective`: pass it as
``ShuffleDivideEmbedder(objective=ClusterNegatives(...), n_clusters=k)``. The benchmarks
name it ``"cluster-negatives"`` (:data:`OBJECTIVES`). On the corpora of
``benchmarks/README.md`` no tuned epoch with it beat the untuned space.
"""

from sklearn_shufdiv.embedders import NTXent, Objective, ProtoNCE

from .internals import NTXentLoss, nt_xent_loss

__all__ = ["OBJECTIVES", "ClusterNegatives", "GroupedNTXentLoss"]

MODES = ("exclude", "positive")


class GroupedNTXentLoss(NTXentLoss):
    """NT-Xent in which the views of the anchor's group (its document's pseudo-cluster)
    are not negatives: left out of the denominator (``same_group="exclude"``) or positives
    (``"positive"``, supervised contrastive learning with the pseudo-labels as labels).
    A view of group -1, and every view when ``groups`` is None, is as in NT-Xent."""

    def __init__(self, temperature=0.1, same_group="exclude"):
        super().__init__(temperature)
        self.same_group = same_group

    def forward(self, views, keys=None, groups=None, prototypes=None):
        return nt_xent_loss(views, self.temperature, keys, groups, self.same_group)

    def extra_repr(self):
        return f"temperature={self.temperature}, same_group={self.same_group!r}"


class ClusterNegatives(Objective):
    """NT-Xent in which the documents of the anchor's cluster are no negatives.

    Before each epoch, every document of the selection's sample gets a pseudo-label, its
    cluster in the epoch selection's clustering after the previous epoch (epoch 0: the
    untuned encoder). In the loss, the views of the anchor's cluster are then left out
    of the denominator (``mode="exclude"``) or made positives too (``"positive"``);
    documents outside the sample are as in NT-Xent. Needs ``n_clusters``.

    Parameters
    ----------
    mode : {"exclude", "positive"}, default="exclude"
    n_pseudo_clusters : int or None, default=None
        As :class:`~sklearn_shufdiv.embedders.ProtoNCE`'s.
    fraction : float in (0, 1], default=1.0
        As :class:`~sklearn_shufdiv.embedders.ProtoNCE`'s.

    Examples
    --------
    >>> ClusterNegatives("positive").make_loss(temperature=0.2)
    GroupedNTXentLoss(temperature=0.2, same_group='positive')
    """

    needs_pseudo_labels = True

    def __init__(self, mode="exclude", n_pseudo_clusters=None, fraction=1.0):
        self.mode = mode
        self.n_pseudo_clusters = n_pseudo_clusters
        self.fraction = fraction

    def pseudo_clusters(self, n_clusters):
        """Clusters of the pseudo-labels (None: the selection's ``n_clusters``)."""
        return self.n_pseudo_clusters or n_clusters

    def check(self, n_clusters, sample_size):
        """Refuse a ``mode``, ``fraction`` or ``n_pseudo_clusters`` out of range, and a fit
        without ``n_clusters`` (no clusters to train on)."""
        if self.mode not in MODES:
            raise ValueError(f"objective={self!r}: mode must be one of {MODES}.")
        if not 0 < self.fraction <= 1:
            raise ValueError(f"objective={self!r}: fraction must be in (0, 1].")
        if n_clusters is None:
            raise ValueError(f"objective={self!r} trains on the clusters of the epoch "
                             "selection, which needs n_clusters: set n_clusters.")
        if self.n_pseudo_clusters is not None and not (
                2 <= self.n_pseudo_clusters <= sample_size):
            raise ValueError(f"objective={self!r}: n_pseudo_clusters must be between 2 and "
                             f"the {sample_size} documents of the selection's sample.")

    def make_loss(self, temperature):
        return GroupedNTXentLoss(temperature, self.mode)


#: The objectives the benchmarks' ``--objective`` names.
OBJECTIVES = {"nt-xent": NTXent, "prototype": ProtoNCE, "cluster-negatives": ClusterNegatives}
