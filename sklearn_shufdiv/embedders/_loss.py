"""NT-Xent, SimCLR's normalised temperature-scaled cross-entropy, over the 2N views of a batch."""

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


class NTXentLoss(nn.Module):
    """:func:`nt_xent_loss` as a module with a fixed ``temperature`` and ``same_group``."""

    def __init__(self, temperature=0.1, same_group="exclude"):
        super().__init__()
        self.temperature = temperature
        self.same_group = same_group

    def forward(self, views, keys=None, groups=None):
        return nt_xent_loss(views, self.temperature, keys, groups, self.same_group)

    def extra_repr(self):
        return f"temperature={self.temperature}, same_group={self.same_group!r}"
