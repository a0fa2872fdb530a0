"""Tokenisation and length-sorted mini-batches with dynamic padding.

Padding is the main waste in transformer throughput when lengths vary (halves of documents
do): sorting the texts of a batch by length and padding each mini-batch only to its own
longest member keeps the encoder computing on real tokens. :func:`padded_groups` goes one
step further and cuts the sorted texts where the length drops, so that no mini-batch pads
a short text to a long one's length.
"""

import numpy as np
import torch

# What one more forward pass costs, in padded tokens: a mini-batch is cut in two only when
# that saves more padding than this. A CPU multiplies a few hundred rows as fast as many
# thousands (a forward's fixed cost is a few tokens' worth of compute); a GPU needs large
# mini-batches to be busy.
GROUP_OVERHEAD_TOKENS = {"cpu": 64, "cuda": 8192}


def tokenize(tokenizer, texts, max_length):
    """Token ids of each text (with special tokens), truncated to ``max_length``; None
    keeps them all (``verbose=False``: no warning that they exceed the model's limit)."""
    limit = ({"truncation": False, "verbose": False} if max_length is None
             else {"truncation": True, "max_length": max_length})
    return tokenizer(
        list(texts), add_special_tokens=True, return_attention_mask=False,
        return_token_type_ids=False, **limit,
    )["input_ids"]


def _lengths(token_ids):
    return np.fromiter((len(ids) for ids in token_ids), dtype=np.int64, count=len(token_ids))


def length_groups(token_ids, max_size, overhead_tokens):
    """Indices of ``token_ids`` sorted by decreasing length, cut into groups of similar length.

    The cuts minimise the padded size of all groups (each padded to its longest member)
    plus ``overhead_tokens`` per group, with at most ``max_size`` texts a group: an exact
    dynamic programme over the sorted lengths. With ``overhead_tokens`` large this makes as
    few groups as ``max_size`` allows; with 0, every distinct length gets its own group.
    """
    lengths = _lengths(token_ids)
    order = np.argsort(-lengths, kind="stable")
    widths = lengths[order].astype(np.float64)  # widths[i]: pad width of a group starting at i
    n = len(order)
    cost = np.zeros(n + 1)
    start = np.zeros(n + 1, dtype=np.int64)
    for end in range(1, n + 1):
        first = np.arange(max(0, end - max_size), end)
        candidates = cost[first] + (end - first) * widths[first] + overhead_tokens
        # The last minimum: of equal cuts, the one with the longest groups first, so that
        # the largest mini-batch comes first (an out-of-memory error shows on the first).
        best = len(candidates) - 1 - int(np.argmin(candidates[::-1]))
        cost[end], start[end] = candidates[best], first[best]
    bounds, end = [], n
    while end > 0:
        bounds.append(end)
        end = start[end]
    bounds = [0] + bounds[::-1]
    return [order[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def pad(token_ids, pad_token_id, device):
    """Right-pad a list of id lists to their longest member: ``(input_ids, attention_mask)``."""
    width = max(len(ids) for ids in token_ids)
    input_ids = torch.full((len(token_ids), width), pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros((len(token_ids), width), dtype=torch.long)
    for row, ids in enumerate(token_ids):
        input_ids[row, : len(ids)] = torch.as_tensor(ids, dtype=torch.long)
        attention_mask[row, : len(ids)] = 1
    return input_ids.to(device), attention_mask.to(device)


def _padded(token_ids, chunks, pad_token_id, device):
    batches = [pad([token_ids[i] for i in chunk], pad_token_id, device) for chunk in chunks]
    order = np.concatenate(chunks) if chunks else np.empty(0, dtype=np.int64)
    return batches, order


def padded_groups(token_ids, max_size, pad_token_id, device, overhead_tokens=None):
    """Length-sorted, dynamically padded mini-batches, cut by :func:`length_groups`: at most
    ``max_size`` texts a mini-batch, and a new one where the length drops enough to pay for
    it. ``overhead_tokens`` defaults to the value for ``device``'s type in
    ``GROUP_OVERHEAD_TOKENS``.

    Returns
    -------
    batches : list of (input_ids, attention_mask)
    order : numpy.ndarray
        ``order[k]`` is the position in ``token_ids`` of the k-th row of the concatenated
        batches, so ``np.argsort(order)`` puts outputs back in input order.
    """
    if overhead_tokens is None:
        overhead_tokens = GROUP_OVERHEAD_TOKENS.get(torch.device(device).type, 8192)
    return _padded(token_ids, length_groups(token_ids, max_size, overhead_tokens),
                   pad_token_id, device)


def graph_prefix(batches, budget):
    """How many leading ``batches`` (the longest texts) fit, together, in ``budget`` padded
    tokens; at least one.

    A GradCache step keeps their graphs from its first forward pass instead of running
    them a second time. The largest mini-batch comes first, as in a GradCache step, whose
    second pass it starts: what is freed then is reused by the smaller ones that follow,
    and the peak memory stays that of ``budget`` tokens.
    """
    total, kept = 0, 0
    for input_ids, _ in batches:
        total += input_ids.numel()
        if kept and total > budget:
            break
        kept += 1
    return kept
