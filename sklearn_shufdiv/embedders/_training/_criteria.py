"""Epoch-selection criteria: how the candidate epochs of a fit are scored and one chosen.

With ``n_clusters`` set, every candidate epoch (epoch 0 being the untuned encoder) embeds
a fixed sample of the corpus; the sample is clustered
(:func:`~sklearn_shufdiv.cluster.cluster_on_sphere`) and a *criterion* scores the
candidate. The criterion is the embedders' ``selection`` parameter: a name
(``"untuned-silhouette"``) or a :class:`SelectionCriterion` instance. A new criterion is
one small subclass:

- :meth:`~SelectionCriterion.prepare` runs once per fit (also when a fit resumes), with
  the :class:`SelectionContext` (the sample's texts, ``n_clusters``, a seed, and the
  labels and scores of the candidates scored so far);
- :meth:`~SelectionCriterion.score` gets each :class:`Candidate` (its epoch, the sample's
  embeddings, the chosen k-means labels and, on demand, every k-means run's labels and
  objective) and returns a float, greater is better; it goes to the history;
- :meth:`~SelectionCriterion.choose` picks the epoch at the end (by default the best
  score). A criterion that can only compare the epochs once all are trained sets
  ``keep_all_weights = True``, and every candidate's weights are kept until then;
- :meth:`~SelectionCriterion.final` says, before training starts, that no later epoch
  can be chosen: training is then skipped (by default never).

The callback that runs a criterion after each epoch is ``_selection.EpochSelection``.
"""

import copy
from dataclasses import dataclass, field

import numpy as np

from ...cluster import SphereClustering, clustering_stability
from ...metrics import cosine_silhouette

__all__ = ["CRITERIA", "Candidate", "SelectionContext", "SelectionCriterion",
           "StabilityCriterion", "UntunedSilhouetteCriterion",
           "criterion_name", "resolve_criterion", "silhouette_or_worst"]

#: The silhouette of a clustering where it is undefined (one cluster): the worst.
UNDEFINED_SILHOUETTE = -1.0


@dataclass
class Candidate:
    """One candidate epoch, as a criterion sees it.

    Attributes
    ----------
    epoch : int
        0 for the untuned encoder.
    embeddings : ndarray of shape (n_sample, n_features)
        The sample's embeddings by this epoch's weights, in the space the embedder's
        ``transform`` returns: the encoder's embeddings (not normalised), fused with
        the sample's lexical vectors when ``lexical_weight > 0``.
    clustering : SphereClustering
        Their spherical k-means clustering: ``labels`` (the chosen run), ``inertia``,
        ``unit`` (normalised embeddings) and ``runs`` (every run's labels and inertia).
    encoded : ndarray of shape (n_sample, dim) or None
        The sample's embeddings by the encoder alone (``embeddings`` before the words
        are joined), where the fit has them.
    """

    epoch: int
    embeddings: np.ndarray = field(repr=False)
    clustering: SphereClustering = field(repr=False)
    encoded: np.ndarray = field(default=None, repr=False)

    @property
    def labels(self):
        """The chosen k-means run's labels."""
        return self.clustering.labels


@dataclass
class SelectionContext:
    """What a criterion knows of the fit, beyond the candidate it scores.

    Attributes
    ----------
    texts : list of str
        The sample of documents embedded for each candidate.
    sample_indices : ndarray of int
        Their indices in the fitted corpus.
    n_clusters : int
    seed : int
        The fit's seed: draw any randomness of the criterion from it.
    labels : dict of int to ndarray
        Epoch -> chosen k-means labels of the candidates scored so far.
    scores : dict of int to float
        Epoch -> score of the candidates scored so far.
    untuned : ndarray of shape (n_sample, n_features) or None
        The sample's embeddings by the untuned encoder, L2-normalised (epoch 0's
        ``clustering.unit``, in the space scored: fused with the words when
        ``lexical_weight > 0``), set before epoch 0 is scored and kept in checkpoints:
        one fixed space in which every epoch's clustering can be compared.
    """

    texts: list = field(repr=False)
    sample_indices: np.ndarray = field(repr=False)
    n_clusters: int
    seed: int
    labels: dict = field(default_factory=dict, repr=False)
    scores: dict = field(default_factory=dict)
    untuned: np.ndarray = field(default=None, repr=False)


class SelectionCriterion:
    """How candidate epochs are scored and one of them chosen; subclass it.

    Greater scores are better; NaN counts as the worst. State a criterion needs across
    epochs should live in the context (it is checkpointed), state it computes once per
    fit in :meth:`prepare` (it is recomputed when a fit resumes).

    Attributes
    ----------
    name : str
        The history key of its score (beside the generic ``selection_score``).
    keep_all_weights : bool
        Keep every candidate's weights until :meth:`choose` (memory: one copy of the
        encoder per epoch) instead of the best-scored one only.

    Examples
    --------
    A criterion that prefers the tightest clustering of the sample:

    >>> import numpy as np
    >>> from sklearn_shufdiv.cluster import cluster_on_sphere
    >>> class Tightness(SelectionCriterion):
    ...     name = "tightness"
    ...     def score(self, candidate, context):
    ...         return -candidate.clustering.inertia
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> bool(Tightness().score(Candidate(1, X, cluster_on_sphere(X, 2)), None) <= 0)
    True

    It plugs in as ``ShuffleDivideEmbedder(n_clusters=4, selection=Tightness())``.
    """

    name = "score"
    keep_all_weights = False

    def prepare(self, context):
        """Once per fit, before the first candidate is scored."""

    def score(self, candidate, context):
        """The score of ``candidate`` (a :class:`Candidate`); greater is better."""
        raise NotImplementedError

    def choose(self, context):
        """The epoch to keep: by default the first of the best scores."""
        epochs = sorted(context.scores)
        scores = np.array([context.scores[epoch] for epoch in epochs], dtype=float)
        return epochs[int(np.argmax(np.nan_to_num(scores, nan=-np.inf)))]

    def final(self, context):
        """Whether no epoch after those scored can be chosen, so that training them is
        pointless; checked before training starts. By default False."""
        return False


def silhouette_or_worst(X, labels):
    """The cosine silhouette of ``labels`` on the rows ``X``
    (:func:`~sklearn_shufdiv.metrics.cosine_silhouette`); -1, the worst, where it is
    undefined (one cluster), so that such a clustering is never preferred."""
    score = cosine_silhouette(X, labels)
    return UNDEFINED_SILHOUETTE if np.isnan(score) else score


class UntunedSilhouetteCriterion(SelectionCriterion):
    """Keep the untuned encoder unless a tuned epoch partitions its space better.

    A clustering's silhouette in its own epoch's space compares spaces as much as
    clusterings: contrastive training tightens the space, and that silhouette rises with
    it whatever the clusters become. Here every candidate's clustering (the k-means run
    a user gets, found in the candidate's own space) is scored in one fixed space: the
    sample's embeddings by the untuned encoder as ``transform`` returns them
    (:attr:`SelectionContext.untuned`, with the words when ``lexical_weight > 0``).
    Epoch 0's clustering was found by k-means in that very space, so a tuned epoch wins
    only with a partition of the untuned geometry better than the untuned encoder's own:
    the criterion leans to the untuned encoder, on purpose. -1 where undefined.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_shufdiv.cluster import cluster_on_sphere
    >>> from sklearn_shufdiv.embedders import SelectionContext
    >>> untuned = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> context = SelectionContext([], np.arange(4), 2, 0, untuned=untuned)
    >>> tuned = np.array([[1.0, 0.0], [0.0, 1.0], [0.1, 0.9], [0.2, 0.8]])
    >>> criterion = UntunedSilhouetteCriterion()
    >>> at_0 = criterion.score(Candidate(0, untuned, cluster_on_sphere(untuned, 2)), context)
    >>> at_1 = criterion.score(Candidate(1, tuned, cluster_on_sphere(tuned, 2)), context)
    >>> bool(at_0 > at_1)  # the tuned clusters join [1] with [2, 3]
    True
    """

    name = "untuned_silhouette"

    def score(self, candidate, context):
        return silhouette_or_worst(context.untuned, candidate.labels)


class StabilityCriterion(SelectionCriterion):
    """Keep the tuned encoder while the corpus' clusters are stable, else the untuned one.

    Each candidate's score is its
    :func:`~sklearn_shufdiv.cluster.clustering_stability`: the mean pairwise adjusted Rand
    index of ``n_clusterings`` spherical k-means clusterings of its sample (the
    selection's, and as many again with the next seeds). Where epoch 0's clusters are
    unstable (score below ``min_stability``), the k-means partition of the untuned space
    is not one a training can be trusted to sharpen: epoch 0 is kept, and training is
    skipped (:meth:`final`). Otherwise the last epoch is kept of those, from epoch 0 on,
    whose stability stays at least ``min_stability``.

    Meant for training that sharpens the clusters it is given, the prototype term
    (``objective="prototype"``): the later epochs are the ones that taught them. The
    default ``min_stability=0.9`` is the adjusted Rand index that Steinley (2004,
    "Properties of the Hubert-Arabie adjusted Rand index", Psychological Methods)
    calls excellent agreement, not a value fitted to a corpus. Every candidate's
    weights are kept until the end (one copy of the encoder per epoch, on the CPU).

    Parameters
    ----------
    min_stability : float, default=0.9
        In (0, 1].
    n_clusterings : int, default=5
        At least 2.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_shufdiv.cluster import cluster_on_sphere
    >>> from sklearn_shufdiv.embedders import SelectionContext
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> context = SelectionContext([], np.arange(4), 2, 0)
    >>> criterion = StabilityCriterion()
    >>> context.scores = {0: criterion.score(Candidate(0, X, cluster_on_sphere(X, 2)), context)}
    >>> criterion.final(context)  # stable: training may go on
    False
    >>> context.scores.update({1: 0.95, 2: 0.7})
    >>> criterion.choose(context)  # epoch 2's clusters are no longer stable
    1
    """

    name = "stability"
    keep_all_weights = True

    def __init__(self, min_stability=0.9, n_clusterings=5):
        self.min_stability = min_stability
        self.n_clusterings = n_clusterings

    def get_params(self, deep=True):
        return {"min_stability": self.min_stability, "n_clusterings": self.n_clusterings}

    def __repr__(self):
        return (f"StabilityCriterion(min_stability={self.min_stability!r}, "
                f"n_clusterings={self.n_clusterings!r})")

    def prepare(self, context):
        if not 0 < self.min_stability <= 1:
            raise ValueError(f"StabilityCriterion(min_stability={self.min_stability!r}): "
                             "it is an adjusted Rand index, give a value in (0, 1].")
        if int(self.n_clusterings) != self.n_clusterings or self.n_clusterings < 2:
            raise ValueError(f"StabilityCriterion(n_clusterings={self.n_clusterings!r}): "
                             "the agreement of clusterings needs at least 2.")

    def score(self, candidate, context):
        clustering = candidate.clustering
        return clustering_stability(clustering.unit, clustering.n_clusters, clustering.seed,
                         int(self.n_clusterings), first=clustering.labels)

    def _stable(self, context, epoch):
        return context.scores[epoch] >= self.min_stability  # NaN: not stable

    def choose(self, context):
        chosen = 0
        for epoch in sorted(context.scores):
            if not self._stable(context, epoch):
                break
            chosen = epoch
        return chosen

    def final(self, context):
        return 0 in context.scores and not self._stable(context, 0)


#: The criteria the ``selection`` parameter names.
CRITERIA = {"stability": StabilityCriterion,
            "untuned-silhouette": UntunedSilhouetteCriterion}


def criterion_name(selection):
    """The history key of the criterion the ``selection`` parameter gives (a name or a
    :class:`SelectionCriterion`), e.g. ``"untuned_silhouette"``."""
    return CRITERIA[selection].name if isinstance(selection, str) else selection.name


def resolve_criterion(selection):
    """The fit's own criterion for the ``selection`` parameter (a copy: ``prepare`` may
    store state in it, and fit must not touch its parameters)."""
    if isinstance(selection, str):
        return CRITERIA[selection]()
    return copy.deepcopy(selection)
