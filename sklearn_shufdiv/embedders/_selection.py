"""Epoch selection: which epoch's weights a fit keeps, epoch 0 being the untuned encoder.

With ``n_clusters`` set, every candidate epoch embeds a fixed sample of the corpus; the
sample is clustered (:func:`cluster`: spherical k-means, the estimator's own restarts) and
a *criterion* scores the candidate. The criterion is the embedders' ``selection``
parameter: a name (``"silhouette"``) or a :class:`SelectionCriterion` instance. A new
criterion is one small subclass:

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

:class:`EpochSelection` is the skorch callback that runs the criterion after each epoch
and, with no criterion (``n_clusters=None``), keeps the weights of the last completed
epoch so that an interrupted fit returns a model that matches its history.
"""

import copy
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import torch
from sklearn.metrics import adjusted_rand_score
from skorch.callbacks import Callback

from ..cluster import DEFAULT_N_INIT, SphericalKMeans
from ..metrics import cosine_silhouette
from ..metrics._scorers import UNDEFINED_SILHOUETTE

__all__ = ["Candidate", "SelectionContext", "SelectionCriterion", "SilhouetteCriterion",
           "StabilityCriterion", "UntunedSilhouetteCriterion", "cluster", "cluster_centres",
           "confident_labels"]


def _n_runs(n_init):
    # SphericalKMeans' n_init="auto" is DEFAULT_N_INIT runs with its k-means++ seeding.
    return DEFAULT_N_INIT if n_init == "auto" else n_init


@dataclass
class Clustering:
    """A spherical k-means clustering of ``unit`` (rows of norm 1) and how to replay its runs.

    ``labels`` and ``inertia`` are those of ``SphericalKMeans(n_clusters, n_init=n_init,
    random_state=seed)``: the run of lowest inertia. :attr:`runs` replays the runs one by
    one (the same random stream), only when a criterion asks for them.
    """

    unit: np.ndarray = field(repr=False)
    n_clusters: int
    seed: int
    n_init: object
    labels: np.ndarray = field(repr=False)
    inertia: float

    @cached_property
    def runs(self):
        """``(labels, inertias)`` of every k-means run: arrays of shape (n_runs, n) and
        (n_runs,), in the order they ran; the chosen run is the first of least inertia."""
        stream = np.random.RandomState(self.seed)
        fits = [SphericalKMeans(self.n_clusters, n_init=1, random_state=stream).fit(self.unit)
                for _ in range(_n_runs(self.n_init))]
        return (np.vstack([fit.labels_ for fit in fits]),
                np.array([fit.inertia_ for fit in fits]))


def _unit(rows):
    """``rows`` divided by their L2 norms (a zero row stays zero), in their dtype."""
    return rows / np.maximum(np.linalg.norm(rows, axis=1, keepdims=True), 1e-12)


def cluster(embeddings, n_clusters, random_state=0, n_init=None):
    """Cluster ``embeddings`` by direction with :class:`~sklearn_shufdiv.SphericalKMeans`.

    The one clustering of the epoch selection: ``SphericalKMeans(n_clusters,
    random_state=random_state)``, with the estimator's default number of restarts unless
    ``n_init`` is given.

    Parameters
    ----------
    embeddings : ndarray of shape (n_samples, dim)
        Rows are normalised first (spherical k-means compares directions).
    n_clusters : int
    random_state : int, default=0
    n_init : int, "auto" or None, default=None
        None: the estimator's default.

    Returns
    -------
    clustering : Clustering
        ``labels``, ``inertia``, ``unit`` (the normalised rows) and ``runs``.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.1], [2.0, 0.0], [0.0, 1.0], [0.1, 3.0]])
    >>> cluster(X, 2).labels.tolist() in ([0, 0, 1, 1], [1, 1, 0, 0])
    True
    """
    unit = _unit(embeddings)
    if n_init is None:
        n_init = SphericalKMeans(n_clusters).n_init
    kmeans = SphericalKMeans(n_clusters, n_init=n_init, random_state=random_state).fit(unit)
    return Clustering(unit, n_clusters, random_state, n_init, kmeans.labels_,
                      float(kmeans.inertia_))


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
    clustering : Clustering
        Their spherical k-means clustering: ``labels`` (the chosen run), ``inertia``,
        ``unit`` (normalised embeddings) and ``runs`` (every run's labels and inertia).
    """

    epoch: int
    embeddings: np.ndarray = field(repr=False)
    clustering: Clustering = field(repr=False)

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
    centres : dict of int to ndarray of shape (n_clusters, dim)
        Epoch -> the centres of its chosen clustering in the *encoder's* space (the
        words left out; :func:`cluster_centres`): the prototype term's targets, kept
        (and checkpointed) only when ``EpochSelection(keep_centres=True)``.
    pseudo_labels : dict of int to ndarray
        Epoch -> training's pseudo-labels of its sample, where they are not the chosen
        clustering itself (:meth:`training_labels`): a second clustering, with
        ``EpochSelection(pseudo_clusters=...)`` clusters (an over-clustering), and/or
        only its most confident documents labelled (``pseudo_fraction``, -1 else).
    """

    texts: list = field(repr=False)
    sample_indices: np.ndarray = field(repr=False)
    n_clusters: int
    seed: int
    labels: dict = field(default_factory=dict, repr=False)
    scores: dict = field(default_factory=dict)
    untuned: np.ndarray = field(default=None, repr=False)
    centres: dict = field(default_factory=dict, repr=False)
    pseudo_labels: dict = field(default_factory=dict, repr=False)

    def training_labels(self, epoch):
        """The pseudo-labels that training after ``epoch`` reads (cluster-aware
        negatives, the prototype term): :attr:`pseudo_labels` where that epoch has
        them, else its chosen clustering's :attr:`labels`."""
        return self.pseudo_labels.get(epoch, self.labels[epoch])


def cluster_centres(embeddings, labels, n_clusters):
    """The unit mean direction of each cluster's L2-normalised ``embeddings``.

    Parameters
    ----------
    embeddings : ndarray of shape (n_samples, dim)
    labels : ndarray of shape (n_samples,)
        Cluster indices in ``[0, n_clusters)``; -1 (no cluster) is left out.
    n_clusters : int

    Returns
    -------
    centres : ndarray of shape (n_clusters, dim), float32
        Unit rows; a zero row for an empty cluster.

    Examples
    --------
    >>> import numpy as np
    >>> cluster_centres(np.array([[2.0, 0.0], [0.0, 3.0], [1.0, 1.0]]),
    ...                 np.array([0, 0, 1]), 3).round(3).tolist()
    [[0.707, 0.707], [0.707, 0.707], [0.0, 0.0]]
    """
    unit = _unit(embeddings)
    labels = np.asarray(labels)
    known = labels >= 0
    sums = np.zeros((n_clusters, unit.shape[1]))
    np.add.at(sums, labels[known], unit[known])
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    return (sums / np.maximum(norms, 1e-12)).astype(np.float32)


def confident_labels(embeddings, labels, n_clusters, fraction):
    """``labels`` with only the most confident ``fraction`` of each cluster kept, -1 else.

    A row's confidence is its margin: its cosine similarity to its own cluster's centre
    (:func:`cluster_centres`) minus that to the nearest other centre. Each cluster keeps
    its ``ceil(fraction * size)`` rows of largest margin (ties: the first rows), so that
    no cluster loses all its members.

    Parameters
    ----------
    embeddings : ndarray of shape (n_samples, dim)
    labels : ndarray of shape (n_samples,)
        Cluster indices in ``[0, n_clusters)``.
    n_clusters : int
    fraction : float in (0, 1]

    Returns
    -------
    labels : ndarray of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.6, 0.4], [0.0, 1.0], [0.3, 0.7]])
    >>> confident_labels(X, np.array([0, 0, 1, 1]), 2, 0.5).tolist()
    [0, -1, 1, -1]
    """
    labels = np.asarray(labels)
    similarities = _unit(embeddings) @ cluster_centres(embeddings, labels, n_clusters).T
    rows = np.arange(len(labels))
    own = similarities[rows, labels].copy()
    similarities[rows, labels] = -np.inf
    margin = own - similarities.max(axis=1)
    kept = np.full_like(labels, -1)
    for k in range(n_clusters):
        members = np.flatnonzero(labels == k)
        best = np.argsort(-margin[members], kind="stable")[:int(np.ceil(fraction * len(members)))]
        kept[members[best]] = k
    return kept


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


def _silhouette(unit, labels):
    """The cosine silhouette of ``labels`` on the rows ``unit``; -1 where undefined."""
    score = cosine_silhouette(unit, labels)
    return UNDEFINED_SILHOUETTE if np.isnan(score) else score


class SilhouetteCriterion(SelectionCriterion):
    """The cosine silhouette of the chosen k-means clustering (-1 where undefined).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> candidate = Candidate(1, X, cluster(X, 2))
    >>> round(SilhouetteCriterion().score(candidate, None), 3)
    0.993
    """

    name = "silhouette"

    def score(self, candidate, context):
        return _silhouette(candidate.clustering.unit, candidate.labels)


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
    >>> from sklearn_shufdiv.embedders import SelectionContext
    >>> untuned = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> context = SelectionContext([], np.arange(4), 2, 0, untuned=untuned)
    >>> tuned = np.array([[1.0, 0.0], [0.0, 1.0], [0.1, 0.9], [0.2, 0.8]])
    >>> criterion = UntunedSilhouetteCriterion()
    >>> at_0 = criterion.score(Candidate(0, untuned, cluster(untuned, 2)), context)
    >>> at_1 = criterion.score(Candidate(1, tuned, cluster(tuned, 2)), context)
    >>> bool(at_0 > at_1)  # the tuned clusters join [1] with [2, 3]
    True
    """

    name = "untuned_silhouette"

    def score(self, candidate, context):
        return _silhouette(context.untuned, candidate.labels)


def stability(embeddings, n_clusters, seed=0, n_clusterings=5, first=None):
    """How reproducible the spherical k-means clustering of ``embeddings`` is.

    The mean adjusted Rand index over all pairs of ``n_clusterings`` clusterings by
    :func:`cluster` (each the best of the estimator's restarts) with the seeds ``seed``,
    ``seed + 1``, ...: 1 when every seed finds the same partition.

    Parameters
    ----------
    embeddings : ndarray of shape (n_samples, dim)
    n_clusters : int
    seed : int, default=0
    n_clusterings : int, default=5
        At least 2.
    first : ndarray of shape (n_samples,) or None, default=None
        The labels of seed ``seed``'s clustering, if already computed.

    Returns
    -------
    stability : float

    Examples
    --------
    >>> import numpy as np
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> float(stability(X, 2))
    1.0
    """
    runs = [cluster(embeddings, n_clusters, seed).labels if first is None else first]
    runs += [cluster(embeddings, n_clusters, seed + i).labels for i in range(1, n_clusterings)]
    return float(np.mean([adjusted_rand_score(runs[i], runs[j])
                          for i in range(n_clusterings) for j in range(i + 1, n_clusterings)]))


class StabilityCriterion(SelectionCriterion):
    """Keep the tuned encoder while the corpus' clusters are stable, else the untuned one.

    Each candidate's score is its :func:`stability`: the mean pairwise adjusted Rand
    index of ``n_clusterings`` spherical k-means clusterings of its sample (the
    selection's, and as many again with the next seeds). Where epoch 0's clusters are
    unstable (score below ``min_stability``), the k-means partition of the untuned space
    is not one a training can be trusted to sharpen: epoch 0 is kept, and training is
    skipped (:meth:`final`). Otherwise the last epoch is kept of those, from epoch 0 on,
    whose stability stays at least ``min_stability``.

    Meant for training that sharpens the clusters it is given, the prototype term
    (``prototype_weight > 0``): the later epochs are the ones that taught them. The
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
    >>> from sklearn_shufdiv.embedders import SelectionContext
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> context = SelectionContext([], np.arange(4), 2, 0)
    >>> criterion = StabilityCriterion()
    >>> context.scores = {0: criterion.score(Candidate(0, X, cluster(X, 2)), context)}
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
        return stability(clustering.unit, clustering.n_clusters, clustering.seed,
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
CRITERIA = {"silhouette": SilhouetteCriterion,
            "stability": StabilityCriterion,
            "untuned-silhouette": UntunedSilhouetteCriterion}


def criterion_name(selection):
    """The history key of the criterion the ``selection`` parameter gives (a name or a
    :class:`SelectionCriterion`), e.g. ``"untuned_silhouette"``."""
    return CRITERIA[selection].name if isinstance(selection, str) else selection.name


def make_criterion(selection):
    """The fit's own criterion for the ``selection`` parameter (a copy: ``prepare`` may
    store state in it, and fit must not touch its parameters)."""
    if isinstance(selection, str):
        return CRITERIA[selection]()
    return copy.deepcopy(selection)


def _cpu_copy(module):
    return {name: value.detach().to("cpu", copy=True)
            for name, value in module.state_dict().items()}


class EpochSelection(Callback):
    """skorch callback: scores each completed epoch and keeps the weights a fit returns.

    Parameters
    ----------
    criterion : SelectionCriterion or None
        None keeps the last completed epoch, and embeds nothing.
    context : SelectionContext or None
        Needed with a criterion.
    last_epoch : int
        The fit's ``max_epochs``: training ends with that epoch's weights in the encoder,
        so they need no copy.
    keep_embeddings : bool, default=False
        Keep the sample's embeddings by the weights kept (those of every candidate with
        a criterion that ``keep_all_weights``), so that the chosen epoch's are
        ``best_embeddings`` after :meth:`restore`.
    keep_centres : bool, default=False
        Keep each epoch's cluster centres in the encoder's space, as
        ``context.centres`` (the prototype term's targets), the clusters of
        :meth:`SelectionContext.training_labels`.
    pseudo_clusters : int or None, default=None
        Clusters of training's pseudo-labels, when they are not the chosen clustering's
        ``context.n_clusters``: each epoch's sample is then clustered a second time, in
        the same space and with the same seed, into ``context.pseudo_labels``. None:
        the chosen clustering.
    pseudo_fraction : float, default=1.0
        Below 1, training's pseudo-labels keep only that fraction of each cluster, its
        most confident documents (:func:`confident_labels`, in the space scored); the
        others get -1, as documents outside the sample.
    space : callable or None, default=None
        Maps the sample's encoder embeddings to the space that is clustered and
        scored: the space ``transform`` returns (with the words, a
        :class:`~sklearn_shufdiv.embedders._lexical.FusedSpace`, whose ``state`` is
        checkpointed). None: the embeddings.

    Attributes
    ----------
    completed : int
        The last epoch whose end was processed: the history and the weights returned
        stop there, even when training was interrupted later.
    kept : dict of int to dict
        Epoch -> its weights on the CPU: the best candidate (every candidate with a
        criterion that ``keep_all_weights``), or the last completed epoch.
    """

    def __init__(self, criterion=None, context=None, *, last_epoch, keep_embeddings=False,
                 keep_centres=False, pseudo_clusters=None, pseudo_fraction=1.0,
                 space=None):
        self.criterion = criterion
        self.context = context
        self.last_epoch = last_epoch
        self.keep_embeddings = keep_embeddings
        self.keep_centres = keep_centres
        self.pseudo_clusters = pseudo_clusters
        self.pseudo_fraction = pseudo_fraction
        self.space = space
        self.completed = 0
        self.kept = {}
        self.best_epoch = None
        self.best_embeddings = None
        self.kept_embeddings = {}

    @property
    def name(self):
        """The criterion's history key, or None."""
        return None if self.criterion is None else self.criterion.name

    def begin(self, net, start):
        """Before training, ``start`` epochs being done (resumed from a checkpoint, or 0):
        prepare the criterion, score the untuned encoder, keep the weights to return."""
        self.completed = start
        if self.criterion is None:
            self.kept = {start: _cpu_copy(net.module_)} if start < self.last_epoch else {}
            return
        self.criterion.prepare(self.context)
        if start == 0:
            self._evaluate(net, 0)

    def on_epoch_end(self, net, **kwargs):
        epoch = len(net.history)
        if self.criterion is None:
            self.kept = {epoch: _cpu_copy(net.module_)} if epoch < self.last_epoch else {}
        else:
            score = self._evaluate(net, epoch)
            net.history.record(self.criterion.name, score)
            net.history.record("selection_score", score)
            net.history.record("selection_score_best", self.best_epoch == epoch)
        self.completed = epoch

    def final(self):
        """Whether the criterion will choose none of the epochs not yet trained."""
        return self.criterion is not None and self.criterion.final(self.context)

    def _worth_keeping(self, epoch):
        return self.criterion.keep_all_weights or epoch == self.best_epoch

    def _evaluate(self, net, epoch):
        embeddings = net.embed(self.context.texts)
        scored = embeddings if self.space is None else self.space(embeddings)
        candidate = Candidate(epoch, scored, cluster(
            scored, self.context.n_clusters, self.context.seed))
        if epoch == 0:
            self.context.untuned = candidate.clustering.unit
        score = float(self.criterion.score(candidate, self.context))
        best = self.context.scores.get(self.best_epoch, np.nan)
        if self.best_epoch is None or score > best or (np.isnan(best) and not np.isnan(score)):
            self.best_epoch = epoch
        if self._worth_keeping(epoch):
            if not self.criterion.keep_all_weights:
                self.kept.clear()
                self.kept_embeddings.clear()
            self.kept[epoch] = _cpu_copy(net.module_)
            if self.keep_embeddings:
                self.kept_embeddings[epoch] = embeddings
        self.context.labels[epoch] = candidate.labels
        n_pseudo = self.pseudo_clusters or self.context.n_clusters
        pseudo = (candidate.labels if n_pseudo == self.context.n_clusters
                  else cluster(scored, n_pseudo, self.context.seed).labels)
        if self.pseudo_fraction < 1:
            pseudo = confident_labels(scored, pseudo, n_pseudo, self.pseudo_fraction)
        if pseudo is not candidate.labels:
            self.context.pseudo_labels[epoch] = pseudo
        if self.keep_centres:
            self.context.centres[epoch] = cluster_centres(
                embeddings, self.context.training_labels(epoch), n_pseudo)
        self.context.scores[epoch] = score
        return score

    def restore(self, net):
        """Load the weights of the epoch to return into ``net``; return that epoch."""
        if self.criterion is None:
            epoch = self.completed
        else:
            for later in [e for e in self.context.scores if e > self.completed]:
                del self.context.scores[later], self.context.labels[later]
                self.context.centres.pop(later, None)
                self.context.pseudo_labels.pop(later, None)
            epoch = self.criterion.choose(self.context)
        if epoch in self.kept:
            net.module_.load_state_dict(self.kept[epoch])
        elif epoch != self.completed or self.completed < self.last_epoch:
            raise RuntimeError(
                f"The selection chose epoch {epoch}, whose weights were not kept; a "
                "criterion whose choice is not its best score needs keep_all_weights = True.")
        self.best_embeddings = self.kept_embeddings.get(epoch)
        return epoch

    def release(self):
        """Drop what only training needs (the sample's texts and lexical rows, kept weights
        and embeddings)."""
        self.kept, self.best_embeddings, self.space = {}, None, None
        self.kept_embeddings = {}
        if self.context is not None:
            self.context.texts = self.context.untuned = None

    # -- checkpoints -----------------------------------------------------------------
    def state(self, epoch):
        """``(metadata, tensors)`` of the selection at the end of ``epoch``, for a
        checkpoint whose parameters are that epoch's: those weights are not repeated."""
        if self.criterion is None:
            return {"kept": sorted(self.kept)}, {}
        meta = {"kept": sorted(self.kept), "best_epoch": self.best_epoch,
                "scores": {str(e): s for e, s in self.context.scores.items()}}
        if hasattr(self.space, "state"):  # what the space chose (lexical_weight="auto")
            meta["space"] = self.space.state()
        tensors = {f"labels.{e}": torch.from_numpy(np.asarray(labels, dtype=np.int64))
                   for e, labels in self.context.labels.items()}
        tensors.update({f"centres.{e}": torch.from_numpy(centres)
                        for e, centres in self.context.centres.items()})
        tensors.update({f"pseudo.{e}": torch.from_numpy(np.asarray(labels, dtype=np.int64))
                        for e, labels in self.context.pseudo_labels.items()})
        if self.context.untuned is not None:
            tensors["untuned"] = torch.from_numpy(np.ascontiguousarray(self.context.untuned))
        for kept_epoch, weights in self.kept.items():
            if kept_epoch != epoch:
                tensors.update({f"weights.{kept_epoch}.{name}": value
                                for name, value in weights.items()})
        return meta, tensors

    def load_state(self, meta, tensors, net, epoch):
        """Restore :meth:`state` of ``epoch``; ``net`` holds that epoch's parameters."""
        self.kept = {}
        for kept_epoch in meta["kept"]:
            if kept_epoch == epoch:
                self.kept[epoch] = _cpu_copy(net.module_)
            else:
                prefix = f"weights.{kept_epoch}."
                self.kept[kept_epoch] = {name[len(prefix):]: value
                                         for name, value in tensors.items()
                                         if name.startswith(prefix)}
        if self.criterion is not None:
            self.best_epoch = meta["best_epoch"]
            self.context.scores = {int(e): s for e, s in meta["scores"].items()}
            self.context.labels = {e: tensors[f"labels.{e}"].numpy()
                                   for e in self.context.scores}
            self.context.centres = {e: tensors[f"centres.{e}"].numpy()
                                    for e in self.context.scores
                                    if f"centres.{e}" in tensors}
            self.context.pseudo_labels = {e: tensors[f"pseudo.{e}"].numpy()
                                          for e in self.context.scores
                                          if f"pseudo.{e}" in tensors}
            if "untuned" in tensors:
                self.context.untuned = tensors["untuned"].numpy()
            if meta.get("space") is not None and self.space is not None:
                self.space.load_state(meta["space"])
