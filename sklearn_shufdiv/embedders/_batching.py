"""Tokenisation and length-sorted mini-batches with dynamic padding.

Padding is the main waste in transformer throughput when lengths vary (halves of documents
do): sorting the texts of a batch by length and padding each mini-batch only to its own
longest member keeps the encoder computing on real tokens.
"""

import numpy as np
import torch


def tokenize(tokenizer, texts, max_length):
    """Token ids of each text (with special tokens), truncated to ``max_length``."""
    return tokenizer(
        list(texts), truncation=True, max_length=max_length, add_special_tokens=True,
        return_attention_mask=False, return_token_type_ids=False,
    )["input_ids"]


def length_sorted_chunks(token_ids, chunk_size):
    """Indices of ``token_ids`` sorted by decreasing length, cut into chunks of ``chunk_size``.

    The longest chunk comes first, so an out-of-memory error shows on the first step.
    """
    lengths = np.fromiter((len(ids) for ids in token_ids), dtype=np.int64, count=len(token_ids))
    order = np.argsort(-lengths, kind="stable")
    return [order[start:start + chunk_size] for start in range(0, len(order), chunk_size)]


def pad(token_ids, pad_token_id, device):
    """Right-pad a list of id lists to their longest member: ``(input_ids, attention_mask)``."""
    width = max(len(ids) for ids in token_ids)
    input_ids = torch.full((len(token_ids), width), pad_token_id, dtype=torch.long)
    attention_mask = torch.zeros((len(token_ids), width), dtype=torch.long)
    for row, ids in enumerate(token_ids):
        input_ids[row, : len(ids)] = torch.as_tensor(ids, dtype=torch.long)
        attention_mask[row, : len(ids)] = 1
    return input_ids.to(device), attention_mask.to(device)


def padded_chunks(token_ids, chunk_size, pad_token_id, device):
    """Length-sorted, dynamically padded mini-batches.

    Returns
    -------
    batches : list of (input_ids, attention_mask)
    order : numpy.ndarray
        ``order[k]`` is the position in ``token_ids`` of the k-th row of the concatenated
        batches, so ``np.argsort(order)`` puts outputs back in input order.
    """
    chunks = length_sorted_chunks(token_ids, chunk_size)
    batches = [pad([token_ids[i] for i in chunk], pad_token_id, device) for chunk in chunks]
    order = np.concatenate(chunks) if chunks else np.empty(0, dtype=np.int64)
    return batches, order
