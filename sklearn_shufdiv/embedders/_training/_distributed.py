"""Training across processes (``torchrun``): one global contrastive batch.

When ``torch.distributed`` is initialised, each process takes a contiguous share of every
batch of pairs, and the loss sees the views of *all* processes: the embeddings are
gathered with gradients (``torch.distributed.nn.functional.all_gather``), so every view
has the negatives of the global batch, as in SimCLR. Each of the W processes computes the
whole global loss L; the gather's backward sums what reaches each process's own views
(W times their share of dL), and averaging the parameter gradients across processes
before the optimizer step leaves exactly dL/dtheta: the update a single process would
make on the global batch. Only rank 0 writes checkpoints and prints progress.
"""

import torch
import torch.distributed as dist
from skorch.callbacks import Callback
from torch import nn


def rank_and_world():
    """``(rank, world_size)`` of this process; ``(0, 1)`` outside ``torch.distributed``."""
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def _gather(tensor, with_grad):
    if with_grad:
        # Here, not at the top: torch.distributed.nn imports only where torch was built
        # with distributed support, and only multi-process fits need it.
        from torch.distributed.nn.functional import all_gather

        return torch.cat(all_gather(tensor))
    parts = [torch.empty_like(tensor) for _ in range(dist.get_world_size())]
    dist.all_gather(parts, tensor)
    return torch.cat(parts)


class CrossProcessLoss(nn.Module):
    """``loss`` over the views of all processes (each holds ``[a views; b views]``): the
    views, their keys and their groups are gathered, the views with their gradients.

    Parameters
    ----------
    loss : nn.Module
        A loss of the training engine, called as ``loss(views, keys, groups, prototypes)``.
    """

    def __init__(self, loss):
        super().__init__()
        self.loss = loss

    def forward(self, views, keys=None, groups=None, prototypes=None):
        def gather_halves(tensor, with_grad=False):
            # [a; b] of this process -> [a of all processes; b of all processes]
            if tensor is None:
                return None
            tensor = tensor.to(views.device)
            half = tensor.shape[0] // 2
            return torch.cat([_gather(tensor[:half], with_grad),
                              _gather(tensor[half:], with_grad)])

        # The prototypes are the same on every process (each computes them from the
        # same selection), so they are not gathered.
        return self.loss(gather_halves(views, True), gather_halves(keys),
                         gather_halves(groups), prototypes)


class AverageGradients(Callback):
    """Averages the parameter gradients across processes before each optimizer step."""

    def on_grad_computed(self, net, named_parameters, **kwargs):
        world = dist.get_world_size()
        for _, parameter in named_parameters:
            if parameter.grad is not None:
                dist.all_reduce(parameter.grad)
                parameter.grad /= world
