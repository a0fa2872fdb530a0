"""The training objective: SimCLR's NT-Xent over the 2N views of a batch, and a prototype
term (ProtoNCE's) that pulls each view towards its document's cluster centre.

Each loss is a small function; :class:`NTXentLoss`, the module the training engine uses,
composes them: ``nt_xent_loss + prototype_weight * prototype_loss``.
"""

import torch
import torch.nn.functional as F
from torch import nn


def nt_xent_loss(views, temperature=0.1, keys=None, groups=None, same_group="exclude"):
    """NT-Xent over ``2N`` views where view ``i`` and view ``i + N`` are a positive pair.

    Each view's positive is its partner; every other view of the batch is a negative
    (``2N - 2`` of them), except copies of the same text: when ``keys`` is given, a view
    whose key equals the anchor's or its partner's key (the same document seen twice in
    the batch) is left out of the denominator, so it is neither a positive nor a negative.

    With ``groups`` (e.g. each view's document's pseudo-cluster), the views of the
    anchor's group are not negatives either: ``same_group="exclude"`` leaves them out of
    the denominator (the hard mask of cluster-aware negatives), ``"positive"`` makes
    them positives too, the loss of the anchor being the mean over its positives ``p``
    of ``-log(exp(s_p) / sum_a exp(s_a))`` (supervised contrastive, SupCon's "out"
    form, with the pseudo-labels as labels). A group of -1 is none: such a view, as an
    anchor or as another view, is treated as without ``groups``.

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
    n_views = views.shape[0]
    if n_views % 2 or n_views < 4:
        raise ValueError(f"Need an even number of at least 4 views (2 pairs); got {n_views}.")
    z = F.normalize(views.float(), dim=1)
    logits = z @ z.T / temperature
    index = torch.arange(n_views, device=views.device)
    partner = (index + n_views // 2) % n_views
    excluded = index[:, None] == index[None, :]
    if keys is not None:
        keys = keys.to(views.device)
        same = (keys[None, :] == keys[:, None]) | (keys[None, :] == keys[partner][:, None])
        excluded = excluded | (same & (index[None, :] != partner[:, None]))
    positive = index[None, :] == partner[:, None]
    if groups is not None:
        if same_group not in ("exclude", "positive"):
            raise ValueError(f"same_group must be 'exclude' or 'positive'; got {same_group!r}.")
        groups = groups.to(views.device)
        together = (groups[:, None] == groups[None, :]) & (groups[:, None] >= 0)
        together = together & ~excluded & ~positive
        if same_group == "exclude":
            excluded = excluded | together
        else:
            positive = positive | together
    logits = logits.masked_fill(excluded, float("-inf"))
    if groups is None or same_group == "exclude":
        return F.cross_entropy(logits, partner)
    log_p = logits - torch.logsumexp(logits, dim=1, keepdim=True)
    per_anchor = -(log_p.masked_fill(~positive, 0)).sum(1) / positive.sum(1)
    return per_anchor.mean()


def prototype_loss(views, prototypes, labels, temperature=0.1):
    """Cross-entropy of each view's cosine similarity to cluster centres (ProtoNCE's term).

    View ``i`` is scored against every prototype by ``cos(z_i, c_j) / temperature``; its
    loss is the cross-entropy of those logits with its own cluster ``labels[i]`` as the
    target, ``-log(exp(s_i,label) / sum_j exp(s_ij))`` (Li et al., ICLR 2021, "Prototypical
    Contrastive Learning", with one temperature for all clusters). It pulls each view
    towards its cluster's centre and away from the others, which instance discrimination
    alone does not: there every other document, of the same topic or not, is a negative.
    A label of -1 is none: such a view adds nothing.

    Parameters
    ----------
    views : torch.Tensor of shape (n_views, dim)
        Embeddings (any norm: they are normalised).
    prototypes : torch.Tensor of shape (n_clusters, dim)
        The cluster centres (normalised here too; a zero row, an empty cluster, scores 0).
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
    Two views near the first of two centres, one labelled with it, one with the other:
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
    centres = F.normalize(prototypes.to(views.device).float(), dim=1)
    return F.cross_entropy(z @ centres.T / temperature, labels[known])


class NTXentLoss(nn.Module):
    """The training loss: :func:`nt_xent_loss`, plus ``prototype_weight`` times
    :func:`prototype_loss` when prototypes are given.

    ``same_group`` (None, "exclude" or "positive") is what the views of the anchor's
    group are in NT-Xent; None: groups do not change it. The groups are also the
    prototype term's labels. Both terms share ``temperature``.
    """

    def __init__(self, temperature=0.1, same_group=None, prototype_weight=0.0):
        super().__init__()
        self.temperature = temperature
        self.same_group = same_group
        self.prototype_weight = prototype_weight

    def forward(self, views, keys=None, groups=None, prototypes=None):
        if self.same_group is None:
            loss = nt_xent_loss(views, self.temperature, keys)
        else:
            loss = nt_xent_loss(views, self.temperature, keys, groups, self.same_group)
        if self.prototype_weight and prototypes is not None and groups is not None:
            loss = loss + self.prototype_weight * prototype_loss(
                views, prototypes, groups, self.temperature)
        return loss

    def extra_repr(self):
        return (f"temperature={self.temperature}, same_group={self.same_group!r}, "
                f"prototype_weight={self.prototype_weight}")
