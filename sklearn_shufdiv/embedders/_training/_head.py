"""A linear head over the frozen encoder: training that costs one pass of the encoder.

The values of the embedders' ``head`` parameter: :class:`LinearHead`, or None (no head).
A head is a linear map of the encoder's embeddings (``W x + b``, starting at the
identity) trained on *frozen* views: each view's embedding is computed once, by the
encoder as it is after its own epochs, and every epoch of the head only recombines them
(:meth:`HalfViews.sample`: a half of a document is the mean of its sentences'
embeddings), so that an epoch costs a few matrix products instead of a pass of the
transformer. ``transform`` maps the encoder's embeddings by the head before the words
are joined; ``save_pretrained`` writes it as sentence-transformers' ``Dense`` module.
"""

import math
from dataclasses import dataclass, field
from numbers import Integral, Real

import numpy as np
import torch
from sklearn.metrics import adjusted_mutual_info_score
from sklearn.utils import check_random_state
from tqdm.auto import tqdm

from ...cluster import cluster_centers, cluster_on_sphere, confident_labels
from ...utils._param_validation import Interval, validate_parameter_constraints
from ._objectives import OBJECTIVES, Objective, resolve_objective
from ._values import ParamsValue

__all__ = ["HEAD_OPTIONS", "MAX_SENTENCES", "MIN_AGREEMENT", "SENTENCE_TOKENS", "LinearHead",
           "PseudoLabelSpace", "apply_head", "identity_linear", "resolve_head", "train_head",
           "view_agreement"]

#: ``head="auto"`` trains a :class:`LinearHead` where the clusters of the untuned
#: encoder and those of the words agree at least this much (adjusted mutual information of
#: their k-means partitions of the selection's sample).
MIN_AGREEMENT = 0.5

HEAD_OPTIONS = ("auto",)

#: A head's sentences: each is read up to ``SENTENCE_TOKENS`` tokens (at most
#: ``max_length``), and a document's first ``MAX_SENTENCES`` are embedded, so that the
#: pass over the sentences reads at most 4,096 tokens a document, half of what 16 windows
#: of 512 tokens hold. They are embedded ``mini_batch_size * max_length // SENTENCE_TOKENS``
#: at a time, as many tokens as a mini-batch of windows: a forward pass has a fixed cost,
#: which many small ones would pay many times.
SENTENCE_TOKENS, MAX_SENTENCES = 64, 64


class LinearHead(ParamsValue):
    """A linear map of the frozen encoder's embeddings, trained on the corpus.

    The encoder stays as it is (untuned, or as its own epochs left it); each training
    view is embedded by it once, and the head ``W x + b`` (W starting at the identity)
    is trained for ``max_epochs`` epochs on those frozen embeddings with ``objective``,
    in batches of the embedder's ``batch_size`` pairs at its ``temperature``. For Shuffle &
    Divide, a half of a document is the mean of its sentences' embeddings, redrawn every
    epoch; for TF-IDF positives, the views are the two documents' embeddings. An epoch
    costs milliseconds, so a fit with a head costs about one more pass of the encoder
    (over the sentences) than a fit without one. See :ref:`head`.

    Parameters
    ----------
    objective : {"prototype", "nt-xent"} or Objective, default="prototype"
        The head's loss. ``"prototype"`` (:class:`ProtoNCE`) also pulls each document
        towards its cluster: the clusters are those of the space ``transform`` returns
        (the head's output joined with the words), redrawn before every epoch, so it
        needs the embedder's ``n_clusters``; without it, the head trains with NT-Xent.
    max_epochs : int, default=10
        Epochs over the training views.
    learning_rate : float, default=1e-3
        AdamW's learning rate.
    weight_decay : float, default=0.01
        AdamW's weight decay.

    Examples
    --------
    >>> from sklearn_shufdiv.embedders import LinearHead
    >>> LinearHead(max_epochs=5)
    LinearHead(objective='prototype', max_epochs=5, learning_rate=0.001, weight_decay=0.01)
    """

    _parameter_constraints = {
        "max_epochs": [Interval(Integral, 1, None)],
        "learning_rate": [Interval(Real, 0, None, closed="neither")],
        "weight_decay": [Interval(Real, 0, None)],
    }

    def __init__(self, objective="prototype", max_epochs=10, learning_rate=1e-3,
                 weight_decay=0.01):
        self.objective = objective
        self.max_epochs = max_epochs
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay

    def check(self, n_clusters, sample_size):
        """Validate the parameters, and those of the objective, for a fit with
        ``n_clusters`` whose selection clusters ``sample_size`` documents; raises an error
        that names ``head``."""
        validate_parameter_constraints(self._parameter_constraints, self.get_params(),
                                       f"head={self!r}")
        if not (isinstance(self.objective, Objective) or self.objective in OBJECTIVES):
            raise ValueError(f"head={self!r}: objective must be one of {sorted(OBJECTIVES)} "
                             "or an Objective instance.")
        objective = resolve_objective(self.objective)
        try:
            if objective.needs_pseudo_labels and n_clusters is None:  # NT-Xent instead
                Objective.check(objective, n_clusters, sample_size)
            else:
                objective.check(n_clusters, sample_size)
        except ValueError as exc:
            raise ValueError(f"head={self!r}: {exc}") from exc

    def resolved_objective(self, n_clusters):
        """The :class:`Objective` the head trains with: NT-Xent where a cluster-aware
        objective has no ``n_clusters``."""
        objective = resolve_objective(self.objective)
        if objective.needs_pseudo_labels and n_clusters is None:
            return resolve_objective("nt-xent")
        return objective


def identity_linear(dim):
    """``torch.nn.Linear(dim, dim)`` that starts as the identity map."""
    linear = torch.nn.Linear(dim, dim)
    with torch.no_grad():
        linear.weight.copy_(torch.eye(dim))
        linear.bias.zero_()
    return linear


def apply_head(linear, embeddings):
    """``embeddings`` (a numpy array) mapped by ``linear``, float32; None maps nothing."""
    if linear is None:
        return embeddings
    with torch.no_grad():
        return linear.cpu()(torch.as_tensor(np.asarray(embeddings, dtype=np.float32))).numpy()


@dataclass
class PseudoLabelSpace:
    """Where a cluster-aware head draws its pseudo-labels before each epoch.

    The documents of ``encoded`` are mapped by the head, joined with their words
    (``join``) as ``transform`` joins them, and clustered; each views-document takes the
    cluster of its row (``positions``), or none (-1) outside them.

    Attributes
    ----------
    encoded : ndarray of shape (n_sample, dim)
        The encoder's embeddings of the clustered documents (the selection's sample,
        embedded whole as ``transform`` embeds them).
    positions : ndarray of shape (n_views_documents,)
        Each views-document's row in ``encoded``, -1 for none.
    join : callable or None
        Maps the head's output of ``encoded`` to ``transform``'s space; None: itself.
    """

    encoded: np.ndarray = field(repr=False)
    positions: np.ndarray = field(repr=False)
    join: object = None

    @classmethod
    def of_sample(cls, encoded, sample, documents, join=None):
        """The space of the documents ``sample`` (sorted corpus indices; ``encoded`` their
        rows), for views-documents of corpus indices ``documents``."""
        sample, documents = np.asarray(sample), np.asarray(documents)
        at = np.minimum(np.searchsorted(sample, documents), len(sample) - 1)
        return cls(encoded, np.where(sample[at] == documents, at, -1), join)

    def labels(self, objective, linear, n_clusters, seed):
        """``(labels, centers)``: each views-document's pseudo-label (-1: none), as a
        tensor, and the clusters' centers in the head's space."""
        k = objective.pseudo_clusters(n_clusters)
        mapped = apply_head(linear, self.encoded)
        space = mapped if self.join is None else self.join(mapped)
        labels = cluster_on_sphere(space, k, seed, n_init=3).labels
        if objective.fraction < 1:
            labels = confident_labels(space, labels, k, objective.fraction)
        centers = cluster_centers(mapped, labels, k)
        positions = np.asarray(self.positions)
        of_views = np.where(positions >= 0, labels[np.maximum(positions, 0)], -1)
        return torch.as_tensor(of_views, dtype=torch.int64), torch.as_tensor(centers)


def train_head(views, dim, head, *, objective, temperature, batch_size, pseudo_space=None,
               n_clusters=None, keys=None, random_state=None, verbose=0):
    """Train a linear head on frozen ``views`` and return it (``torch.nn.Linear``).

    Parameters
    ----------
    views : HalfViews or PairViews
        The frozen views (``_text._frozen_views``).
    dim : int
        The encoder's embedding size.
    head : LinearHead
        Epochs, learning rate and weight decay.
    objective : Objective
        The loss (:meth:`Objective.make_loss`); a cluster-aware one draws its
        pseudo-labels before every epoch, ``n_clusters`` of them, in ``pseudo_space``.
    temperature : float
    batch_size : int
        Pairs per step.
    pseudo_space : PseudoLabelSpace or None
        Where the pseudo-labels are drawn; None: the views' own document embeddings
        (``views.document_embeddings()``), without words.
    n_clusters : int or None
    keys : ndarray of shape (n_views_documents,) or None
        A key of each views-document's text: copies of one text (equal keys) are
        neither positives nor negatives of each other.
    random_state : int, RandomState or None
    verbose : int
        A progress bar over the epochs.
    """
    rng = check_random_state(random_state)
    with torch.random.fork_rng(devices=[]):  # the user's generator is left alone
        linear = identity_linear(dim)
    optimizer = torch.optim.AdamW(linear.parameters(), lr=head.learning_rate,
                                  weight_decay=head.weight_decay)
    loss_fn = objective.make_loss(temperature)
    if objective.needs_pseudo_labels and pseudo_space is None:
        pseudo_space = PseudoLabelSpace(views.document_embeddings(),
                                        np.arange(len(views.documents)))
    first, second = (torch.as_tensor(index) for index in views.pairs)
    keys = None if keys is None else torch.as_tensor(np.asarray(keys))
    for epoch in tqdm(range(head.max_epochs), desc="head", unit="epoch", disable=not verbose,
                      leave=False):
        labels = prototypes = None
        if objective.needs_pseudo_labels:
            labels, prototypes = pseudo_space.labels(objective, linear, n_clusters, epoch)
        a, b = views.sample(rng)
        order = torch.as_tensor(rng.permutation(len(a)))
        n_steps = max(1, math.ceil(len(order) / batch_size))
        for batch in order.tensor_split(n_steps):
            if len(batch) < 2:
                continue
            ends = torch.cat([first[batch], second[batch]])  # each view's document
            groups = None if labels is None else labels[ends]
            out = linear(torch.cat([a[batch], b[batch]]))
            batch_keys = None if keys is None else keys[ends]
            loss = loss_fn(out, keys=batch_keys, groups=groups, prototypes=prototypes)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return linear


def view_agreement(encoded, lexical_rows, n_clusters, seed):
    """The adjusted mutual information between the spherical k-means partitions (3
    restarts, ``seed``) of the encoder's rows ``encoded`` and of the same documents'
    ``lexical_rows``: 1 when the two views cluster the documents alike, about 0 when
    their clusters are unrelated.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.RandomState(0)
    >>> blobs = np.repeat(np.eye(3), 20, axis=0) + 0.05 * rng.randn(60, 3)
    >>> round(view_agreement(blobs, blobs[:, ::-1], 3, seed=0), 6)
    1.0
    """
    first = cluster_on_sphere(encoded, n_clusters, seed, n_init=3).labels
    second = cluster_on_sphere(lexical_rows, n_clusters, seed, n_init=3).labels
    return float(adjusted_mutual_info_score(first, second))


def resolve_head(head, *, max_epochs, n_clusters, agreement, gated=True):
    """``(head, reason)``: the :class:`LinearHead` a fit trains (None: no head) for the
    ``head`` parameter, and why, in one line.

    ``"auto"`` is ``LinearHead()`` where the encoder is not trained (``max_epochs`` 0),
    the number of clusters is known and ``agreement()`` (the untuned encoder's and the
    words' clusters, :func:`view_agreement`; None without words) is at least
    :data:`MIN_AGREEMENT`; else no head. Not ``gated`` (TF-IDF pairs, which carry the
    words themselves), any agreement will do, but not the lack of words. A
    :class:`LinearHead` is itself.

    Examples
    --------
    >>> resolve_head("auto", max_epochs=0, n_clusters=4, agreement=lambda: 0.9)[0]
    LinearHead(objective='prototype', max_epochs=10, learning_rate=0.001, weight_decay=0.01)
    >>> print(resolve_head("auto", max_epochs=0, n_clusters=4, agreement=lambda: 0.3)[1])
    head='auto': no head, the encoder's clusters and the words' agree too little (AMI 0.30 < 0.5)
    """
    if head is None:
        return None, "head=None: no head"
    if isinstance(head, LinearHead):
        return head, f"head={head!r}"
    if max_epochs > 0:
        return None, f"head='auto': no head over an encoder trained for {max_epochs} epochs"
    if n_clusters is None:
        return None, ("head='auto': no head without n_clusters (its clusters are what the "
                      "head trains on)")
    score = agreement()
    if score is None:
        return None, "head='auto': no head without the words (lexical_weight=0)"
    if not gated:
        return LinearHead(), (f"head='auto': a LinearHead on TF-IDF pairs, whatever the "
                              f"agreement of the encoder's clusters and the words' (AMI "
                              f"{score:.2f})")
    if score < MIN_AGREEMENT:
        return None, (f"head='auto': no head, the encoder's clusters and the words' agree "
                      f"too little (AMI {score:.2f} < {MIN_AGREEMENT})")
    return LinearHead(), (f"head='auto': a LinearHead, the encoder's clusters and the "
                          f"words' agree (AMI {score:.2f} >= {MIN_AGREEMENT})")
