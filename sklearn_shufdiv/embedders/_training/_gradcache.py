"""Gradient caching (GradCache): a huge contrastive batch in the memory of a mini-batch.

The loss couples every view of a batch with every other one, so the batch cannot simply be
split into independent mini-batches. GradCache (Gao et al., 2021) splits the work instead:

1. embed every mini-batch without building a graph, remembering the random state;
2. compute the loss on all embeddings and its gradient with respect to the embeddings;
3. re-run each mini-batch with a graph, replaying its random state so dropout draws the
   same masks, and back-propagate the cached embedding gradients through it.

The parameter gradients are those of the full-batch loss; the memory is that of one
mini-batch of activations plus the (small) matrix of embeddings. The first mini-batches
(the longest views), as many as fit in that memory together, keep their graph from step 1
and are not run again; a batch that fits whole is an ordinary forward and backward.
"""

from contextlib import contextmanager

import torch

from .._encoder._batching import graph_prefix
from .._encoder._device import autocast_context


class RandomState:
    """The CPU (and CUDA) random state at creation, replayable with :meth:`replay`."""

    def __init__(self, device):
        self.device = torch.device(device)
        self.cpu_state = torch.get_rng_state()
        self.cuda_state = (
            torch.cuda.get_rng_state(self.device) if self.device.type == "cuda" else None
        )

    @contextmanager
    def replay(self):
        devices = [self.device] if self.cuda_state is not None else []
        with torch.random.fork_rng(devices=devices):
            torch.set_rng_state(self.cpu_state)
            if self.cuda_state is not None:
                torch.cuda.set_rng_state(self.cuda_state, self.device)
            yield


def _ignore(n_views):
    pass


def cached_backward(encoder, batches, order, loss_fn, amp_dtype=None, keep=None,
                    progress=None):
    """Back-propagate ``loss_fn`` of all views through ``encoder``, one mini-batch at a time.

    Parameters
    ----------
    encoder : torch.nn.Module
        Maps ``(input_ids, attention_mask)`` to embeddings.
    batches : list of (input_ids, attention_mask)
        The views, in mini-batches (as made by ``padded_groups``), largest first.
    order : array-like of int
        ``order[k]``: the position, in the loss's view order, of the k-th embedded row.
    loss_fn : callable
        Maps the (n_views, dim) float32 embeddings, in loss order, to a scalar.
    amp_dtype : torch.dtype or None
        Autocast dtype for the encoder (e.g. ``torch.bfloat16`` on CUDA).
    keep : int or None
        How many leading mini-batches keep their graph from the first forward pass (their
        activations are held together): only the others are embedded without a graph and
        run again. ``len(batches)`` is an ordinary forward and backward, with no second
        pass. None keeps the leading mini-batches that fit in the padded size of the
        largest one (see :func:`~._batching.graph_prefix`), which the second pass needs
        anyway: the memory of caching them all.
    progress : callable or None
        Called with a number of views after each mini-batch's first forward pass and
        after each backward pass (each view is reported twice), for a progress bar.

    Returns
    -------
    loss : torch.Tensor
        The detached loss. Gradients are accumulated into the encoder's parameters.
    """
    progress = progress or _ignore
    device = batches[0][0].device
    inverse = torch.argsort(torch.as_tensor(order, device=device))
    if keep is None:
        keep = graph_prefix(batches, max(input_ids.numel() for input_ids, _ in batches))
    # In input order, so that dropout draws the masks a forward pass of all views would.
    kept, states, cached = [], [], []
    for index, (input_ids, attention_mask) in enumerate(batches):
        if index < keep:
            with autocast_context(device, amp_dtype):
                kept.append(encoder(input_ids, attention_mask).float())
            progress(len(input_ids))
            continue
        states.append(RandomState(device))
        with torch.no_grad(), autocast_context(device, amp_dtype):
            cached.append(encoder(input_ids, attention_mask).float())
        progress(len(input_ids))
    n_kept = sum(len(input_ids) for input_ids, _ in batches[:keep])
    if not cached:  # nothing to cache: an ordinary backward
        loss = loss_fn(torch.cat(kept)[inverse])
        loss.backward()
        progress(n_kept)
        return loss.detach()

    detached = torch.cat(cached).requires_grad_()
    loss = loss_fn(torch.cat([*kept, detached])[inverse])
    loss.backward()  # through the kept graphs, and into detached.grad
    progress(n_kept)
    gradients = detached.grad.split([len(chunk) for chunk in cached])
    del kept, cached, detached
    for (input_ids, attention_mask), state, gradient in zip(batches[keep:], states, gradients):
        with state.replay(), autocast_context(device, amp_dtype):
            replayed = encoder(input_ids, attention_mask).float()
        replayed.backward(gradient)
        progress(len(input_ids))
    return loss.detach()
