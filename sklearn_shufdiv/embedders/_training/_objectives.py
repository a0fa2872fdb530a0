"""Training objectives: the values of the embedders' ``objective`` parameter.

An objective says what the encoder is trained to do, and builds the loss that does it
(:meth:`Objective.make_loss`, from the ``_loss.py`` pieces):

- :class:`NTXent` (``"nt-xent"``, the default): instance discrimination, the paper's;
- :class:`ProtoNCE` (``"prototype"``): NT-Xent plus a prototype term that pulls each
  view towards its document's cluster center.

A cluster-aware objective (``needs_pseudo_labels``) trains on pseudo-labels: each epoch's
clusters are those the epoch selection found in the sample after the previous epoch (so
it needs ``n_clusters``), as the ``_pseudo_labels.PseudoLabels`` callback hands them to
the loss.

Objectives are small values with scikit-learn's ``get_params`` and ``set_params``: an
embedder with one clones, and a grid search reaches their parameters
(``{"objective__weight": [0.5, 1.0]}``).
"""

from numbers import Integral, Real

from ...utils._param_validation import Interval, validate_parameter_constraints
from ._loss import NTXentLoss, PrototypeLoss, WeightedSum
from ._values import ParamsValue

__all__ = ["OBJECTIVES", "NTXent", "Objective", "ProtoNCE", "resolve_objective"]


class Objective(ParamsValue):
    """Base of the training objectives: a small value that builds the fit's loss.

    Subclasses list their parameters in ``__init__`` (stored as they are, as an
    estimator's) and their constraints in ``_parameter_constraints``, and define
    :meth:`make_loss`.

    Attributes
    ----------
    needs_pseudo_labels : bool
        Whether the loss reads each view's pseudo-label (its document's cluster). Such an
        objective also has ``fraction`` (the share of each pseudo-cluster, nearest its
        center, that keeps its label) and ``pseudo_clusters(n_clusters)`` (how many
        pseudo-clusters), as :class:`ProtoNCE` has.
    needs_prototypes : bool
        Whether the loss also reads the clusters' centers.

    Examples
    --------
    A new objective is a small subclass whose loss is a ``torch.nn.Module`` called as
    ``loss(views, keys, groups, prototypes)``, returning a scalar tensor:

    >>> import torch
    >>> class AlignmentLoss(torch.nn.Module):
    ...     def forward(self, views, keys=None, groups=None, prototypes=None):
    ...         first, second = views.chunk(2)  # view i and view i + N are a pair
    ...         return (1 - torch.cosine_similarity(first, second)).mean()
    >>> class Alignment(Objective):
    ...     def __init__(self):
    ...         pass
    ...     def make_loss(self, temperature):
    ...         return AlignmentLoss()
    >>> float(Alignment().make_loss(0.2)(torch.tensor([[1.0, 0.0], [1.0, 0.0]])))
    0.0
    """

    needs_pseudo_labels = False
    needs_prototypes = False
    _parameter_constraints = {}

    def check(self, n_clusters, sample_size):
        """Validate the parameters for a fit with ``n_clusters`` (None: no epoch
        selection) whose selection clusters ``sample_size`` documents; raises an error
        that names ``objective``."""
        validate_parameter_constraints(self._parameter_constraints, self.get_params(),
                                       f"objective={self!r}")

    def make_loss(self, temperature):
        """The loss module of a fit: called as ``loss(views, keys, groups, prototypes)``."""
        raise NotImplementedError


class NTXent(Objective):
    """NT-Xent (SimCLR's), the paper's instance discrimination.

    Each view's positive is its partner (the other half of its document, or its TF-IDF
    neighbor); every other view of the batch is a negative, except copies of one text,
    which are neither.

    Examples
    --------
    >>> NTXent().make_loss(temperature=0.2)
    NTXentLoss(temperature=0.2)
    """

    def __init__(self):
        pass

    def make_loss(self, temperature):
        return NTXentLoss(temperature)


class _ClusterAware(Objective):
    """An objective that trains on the epoch selection's clusters (pseudo-labels)."""

    needs_pseudo_labels = True
    _parameter_constraints = {
        "n_pseudo_clusters": [Interval(Integral, 2, None), None],
        "fraction": [Interval(Real, 0, 1, closed="right")],
    }

    def pseudo_clusters(self, n_clusters):
        """Clusters of the pseudo-labels: ``n_pseudo_clusters``, None being
        ``n_clusters``, the selection's own clustering."""
        return self.n_pseudo_clusters or n_clusters

    def check(self, n_clusters, sample_size):
        super().check(n_clusters, sample_size)
        if n_clusters is None:
            raise ValueError(
                f"objective={self!r} trains on the clusters of the epoch selection, which "
                "needs n_clusters: set n_clusters, or objective='nt-xent'.")
        if self.n_pseudo_clusters is not None and self.n_pseudo_clusters > sample_size:
            raise ValueError(
                f"objective={self!r}: n_pseudo_clusters={self.n_pseudo_clusters} is more "
                f"clusters than the {sample_size} documents of the selection's sample; "
                "lower n_pseudo_clusters, or raise selection_sample_size.")


class ProtoNCE(_ClusterAware):
    """NT-Xent plus ``weight`` times ProtoNCE's prototype term.

    The prototype term (Li et al., ICLR 2021, "Prototypical Contrastive Learning";
    ``_loss.prototype_loss``) is the cross-entropy of each
    view's cosine similarity to the cluster centers, its document's cluster the target:
    it pulls each document towards its cluster, while instance discrimination pushes
    documents apart. The clusters are the epoch selection's clustering of its sample
    after the previous epoch (epoch 0: the untuned encoder), in the space ``transform``
    returns; the centers are in the encoder's space. Documents outside the sample add
    nothing to the term. Needs ``n_clusters``. See :ref:`training`.

    Parameters
    ----------
    weight : float, default=1.0
        The prototype term's weight (0: NT-Xent alone).
    n_pseudo_clusters : int or None, default=None
        Clusters of the pseudo-labels; None: the embedder's ``n_clusters``, the
        selection's own clustering. Another number clusters the selection's sample a
        second time each epoch, in the same space (e.g. an over-clustering).
    fraction : float in (0, 1], default=1.0
        The share of each pseudo-cluster that keeps its label: its documents nearest
        their own center (:func:`~sklearn_shufdiv.cluster.confident_labels`); the others
        are treated as documents outside the sample.

    Examples
    --------
    >>> ProtoNCE(weight=0.5).make_loss(temperature=0.2)
    WeightedSum(
      weights=[1.0, 0.5]
      (terms): ModuleList(
        (0): NTXentLoss(temperature=0.2)
        (1): PrototypeLoss(temperature=0.2)
      )
    )
    """

    needs_prototypes = True
    _parameter_constraints = {**_ClusterAware._parameter_constraints,
                              "weight": [Interval(Real, 0, None, closed="left")]}

    def __init__(self, weight=1.0, n_pseudo_clusters=None, fraction=1.0):
        self.weight = weight
        self.n_pseudo_clusters = n_pseudo_clusters
        self.fraction = fraction

    def make_loss(self, temperature):
        return WeightedSum([(1.0, NTXentLoss(temperature)),
                            (self.weight, PrototypeLoss(temperature))])


#: The objectives the ``objective`` parameter names, as their default instances.
OBJECTIVES = {"nt-xent": NTXent, "prototype": ProtoNCE}


def resolve_objective(objective):
    """The :class:`Objective` the ``objective`` parameter gives: a name's default
    instance, or a copy of the instance given (a fit does not touch its parameters).

    Examples
    --------
    >>> resolve_objective("prototype")
    ProtoNCE(weight=1.0, n_pseudo_clusters=None, fraction=1.0)
    >>> resolve_objective(ProtoNCE(weight=0.5))
    ProtoNCE(weight=0.5, n_pseudo_clusters=None, fraction=1.0)
    """
    if isinstance(objective, str):
        return OBJECTIVES[objective]()
    return type(objective)(**objective.get_params())
