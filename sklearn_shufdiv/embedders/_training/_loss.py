"""The training losses, as small pieces that compose.

- :func:`contrastive_masks`: which views are an anchor's positives and which are left out
  of its denominator, from the batch's layout (view ``i`` and view ``i + N`` are a pair),
  the views' content keys (copies of one text) and, optionally, their groups
  (pseudo-clusters);
- :func:`info_nce`: one masked InfoNCE over the batch's cosine similarities;
- :func:`nt_xent_loss` (SimCLR's NT-Xent) and :func:`prototype_loss` (ProtoNCE's
  prototype term): the two losses, as functions;
- modules the training engine calls as ``loss(views, keys, groups, prototypes)``:
  :class:`NTXentLoss` (instance discrimination), :class:`PrototypeLoss`, and
  :class:`WeightedSum` of such terms.

Which of them a fit trains with is its ``objective`` (``_objectives.py``).
"""

import torch
import torch.nn.functional as F
from torch import nn

__all__ = ["NTXentLoss", "PrototypeLoss", "WeightedSum",
           "contrastive_masks", "info_nce", "nt_xent_loss", "prototype_loss"]

#: What the views of an anchor's group are, with groups: out of the denominator, or positives.
SAME_GROUP = ("exclude", "positive")


def contrastive_masks(n_views, keys=None, groups=None, same_group="exclude", device=None):
    """The positive and excluded masks of ``n_views`` views, view ``i``'s partner being
    view ``i + n_views / 2`` (and back).

    Each view's positive is its partner. A view is left out of an anchor's denominator
    (*excluded*) when it is the anchor itself, or, with ``keys``, a copy of the anchor's
    text or of its partner's (the same key): such a view is neither a positive nor a
    negative. With ``groups``, the other views of the anchor's group (not -1) are
    excluded too (``same_group="exclude"``) or are positives (``"positive"``).

    Parameters
    ----------
    n_views : int
    keys : torch.Tensor of shape (n_views,), default=None
        An id of each view's content; None: all views are distinct.
    groups : torch.Tensor of shape (n_views,), default=None
        A group id of each view, -1 for none; None: no groups.
    same_group : {"exclude", "positive"}, default="exclude"
    device : torch.device, default=None

    Returns
    -------
    positive, excluded : torch.Tensor of shape (n_views, n_views), bool
        Row ``i`` says which views are anchor ``i``'s positives, and which are left out.

    Examples
    --------
    >>> positive, excluded = contrastive_masks(4, keys=torch.tensor([0, 1, 0, 2]))
    >>> positive.int().tolist()
    [[0, 0, 1, 0], [0, 0, 0, 1], [1, 0, 0, 0], [0, 1, 0, 0]]
    >>> excluded.int().tolist()  # views 0 and 2 are one text: only each other's positive
    [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    """
    index = torch.arange(n_views, device=device)
    partner = (index + n_views // 2) % n_views
    positive = index[None, :] == partner[:, None]
    excluded = index[:, None] == index[None, :]
    if keys is not None:
        keys = keys.to(device)
        same = (keys[None, :] == keys[:, None]) | (keys[None, :] == keys[partner][:, None])
        excluded = excluded | (same & ~positive)
    if groups is not None:
        if same_group not in SAME_GROUP:
            raise ValueError(f"same_group must be 'exclude' or 'positive'; got {same_group!r}.")
        groups = groups.to(device)
        together = (groups[:, None] == groups[None, :]) & (groups[:, None] >= 0)
        together = together & ~excluded & ~positive
        if same_group == "exclude":
            excluded = excluded | together
        else:
            positive = positive | together
    return positive, excluded


def info_nce(views, positive, excluded, temperature):
    """InfoNCE over the cosine similarities of ``views``, masked.

    The loss of anchor ``i`` is the mean over its positives ``p`` of
    ``-log(exp(s_ip) / sum_a exp(s_ia))``, ``s`` the cosines divided by ``temperature``
    and ``a`` every view not excluded from row ``i`` (the positives included). With one
    positive per anchor this is the cross-entropy of NT-Xent; with several, supervised
    contrastive learning's "out" form.

    Parameters
    ----------
    views : torch.Tensor of shape (n_views, dim)
        Embeddings (any norm: they are normalised).
    positive, excluded : torch.Tensor of shape (n_views, n_views), bool
        As :func:`contrastive_masks` makes them; every anchor needs a positive.
    temperature : float

    Returns
    -------
    loss : torch.Tensor
        The mean over the anchors (a scalar).
    """
    z = F.normalize(views.float(), dim=1)
    logits = (z @ z.T / temperature).masked_fill(excluded, float("-inf"))
    counts = positive.sum(1)
    if bool((counts == 1).all()):  # one positive each: the cross-entropy, fused
        return F.cross_entropy(logits, positive.long().argmax(1))
    log_p = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    per_anchor = -log_p.masked_fill(~positive, 0).sum(1) / counts
    return per_anchor.mean()


def _check_pairs(views):
    n_views = views.shape[0]
    if n_views % 2 or n_views < 4:
        raise ValueError(f"Need an even number of at least 4 views (2 pairs); got {n_views}.")


def nt_xent_loss(views, temperature=0.1, keys=None, groups=None, same_group="exclude"):
    """NT-Xent over ``2N`` views where view ``i`` and view ``i + N`` are a positive pair.

    Each view's positive is its partner; every other view of the batch is a negative
    (``2N - 2`` of them), except copies of the same text: when ``keys`` is given, a view
    whose key equals the anchor's or its partner's key (the same document seen twice in
    the batch) is left out of the denominator, so it is neither a positive nor a negative.

    With ``groups`` (e.g. each view's document's pseudo-cluster), the views of the
    anchor's group are not negatives either: ``same_group="exclude"`` leaves them out of
    the denominator, ``"positive"`` makes them positives too (supervised contrastive
    learning with the groups as labels). A group of -1 is none. The masks are
    :func:`contrastive_masks`', the loss :func:`info_nce`.

    Parameters
    ----------
    views : torch.Tensor of shape (2N, dim)
        Embeddings, first the N "a" views, then their N partners in the same order.
    temperature : float, default=0.1
        Softmax temperature; similarities are cosines divided by it.
    keys : torch.Tensor of shape (2N,), default=None
        An id of the content of each view (e.g. the document index). ``None`` means all
        views are distinct.
    groups : torch.Tensor of shape (2N,), default=None
        A group id of each view, -1 for none. ``None``: no groups.
    same_group : {"exclude", "positive"}, default="exclude"
        What the views of the anchor's group are, with ``groups``.

    Returns
    -------
    loss : torch.Tensor
        The mean over the 2N views (a scalar).

    Examples
    --------
    Two pairs of nearly aligned views: each view's positive is far more similar to it
    than its two negatives, so the loss is small, and positive.

    >>> import math
    >>> import torch
    >>> views = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 0.2], [0.2, 1.0]])
    >>> loss = float(nt_xent_loss(views, temperature=0.5))
    >>> round(loss, 4)
    0.3564

    The same value written out view by view, from SimCLR's definition:

    >>> z = torch.nn.functional.normalize(views, dim=1)
    >>> sim = (z @ z.T / 0.5).tolist()
    >>> terms = [-math.log(math.exp(sim[i][(i + 2) % 4])
    ...                    / sum(math.exp(sim[i][j]) for j in range(4) if j != i))
    ...          for i in range(4)]
    >>> round(sum(terms) / 4, 4)
    0.3564
    """
    _check_pairs(views)
    positive, excluded = contrastive_masks(views.shape[0], keys, groups, same_group,
                                           views.device)
    return info_nce(views, positive, excluded, temperature)


def prototype_loss(views, prototypes, labels, temperature=0.1):
    """Cross-entropy of each view's cosine similarity to cluster centers (ProtoNCE's term).

    View ``i`` is scored against every prototype by ``cos(z_i, c_j) / temperature``; its
    loss is the cross-entropy of those logits with its own cluster ``labels[i]`` as the
    target, ``-log(exp(s_i,label) / sum_j exp(s_ij))`` (Li et al., ICLR 2021, "Prototypical
    Contrastive Learning", with one temperature for all clusters). It pulls each view
    towards its cluster's center and away from the others, which instance discrimination
    alone does not: there every other document, of the same topic or not, is a negative.
    A label of -1 is none: such a view adds nothing.

    Parameters
    ----------
    views : torch.Tensor of shape (n_views, dim)
        Embeddings (any norm: they are normalised).
    prototypes : torch.Tensor of shape (n_clusters, dim)
        The cluster centers (normalised here too; a zero row, an empty cluster, scores 0).
    labels : torch.Tensor of shape (n_views,)
        Each view's cluster, an index into ``prototypes``, or -1 for none.
    temperature : float, default=0.1
        Softmax temperature.

    Returns
    -------
    loss : torch.Tensor
        The mean over the views with a label (a scalar); 0 if none has one.

    Examples
    --------
    Two views near the first of two centers, one labelled with it, one with the other:
    the first costs little, the second much.

    >>> import math
    >>> import torch
    >>> views = torch.tensor([[1.0, 0.1], [1.0, -0.1]])
    >>> prototypes = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> loss = prototype_loss(views, prototypes, torch.tensor([0, 1]), temperature=0.5)
    >>> round(float(loss), 4)
    1.2248

    The same value written out view by view:

    >>> z = torch.nn.functional.normalize(views, dim=1)
    >>> sim = (z @ prototypes.T / 0.5).tolist()
    >>> terms = [-math.log(math.exp(sim[i][c]) / sum(math.exp(s) for s in sim[i]))
    ...          for i, c in enumerate([0, 1])]
    >>> round(sum(terms) / 2, 4)
    1.2248
    """
    labels = labels.to(views.device)
    known = labels >= 0
    if not bool(known.any()):
        return views.sum() * 0.0  # keeps the graph: a batch without pseudo-labels
    z = F.normalize(views[known].float(), dim=1)
    centers = F.normalize(prototypes.to(views.device).float(), dim=1)
    return F.cross_entropy(z @ centers.T / temperature, labels[known])


class NTXentLoss(nn.Module):
    """NT-Xent, :func:`nt_xent_loss`: every other view of the batch a negative, copies of
    one text (equal ``keys``) neither positives nor negatives.

    Called as ``loss(views, keys=None, groups=None, prototypes=None)``, as every loss of
    the training engine; the groups and prototypes are not read.
    """

    def __init__(self, temperature=0.1):
        super().__init__()
        self.temperature = temperature

    def forward(self, views, keys=None, groups=None, prototypes=None):
        return nt_xent_loss(views, self.temperature, keys)

    def extra_repr(self):
        return f"temperature={self.temperature}"


class PrototypeLoss(nn.Module):
    """:func:`prototype_loss`, the groups being each view's cluster among the
    ``prototypes``."""

    def __init__(self, temperature=0.1):
        super().__init__()
        self.temperature = temperature

    def forward(self, views, keys=None, groups=None, prototypes=None):
        if groups is None or prototypes is None:
            raise ValueError("The prototype term needs each view's pseudo-label (groups) and "
                             "the clusters' centers (prototypes).")
        return prototype_loss(views, prototypes, groups, self.temperature)

    def extra_repr(self):
        return f"temperature={self.temperature}"


class WeightedSum(nn.Module):
    """The sum of loss terms, each times its weight: ``sum_i weights[i] * terms[i](...)``.

    Parameters
    ----------
    terms : list of (float, nn.Module)
        ``(weight, loss)`` pairs; each loss is called with the arguments the sum gets.
    """

    def __init__(self, terms):
        super().__init__()
        self.weights = [float(weight) for weight, _ in terms]
        self.terms = nn.ModuleList([term for _, term in terms])

    def forward(self, views, keys=None, groups=None, prototypes=None):
        return sum(weight * term(views, keys, groups, prototypes)
                   for weight, term in zip(self.weights, self.terms))

    def extra_repr(self):
        return f"weights={self.weights}"
