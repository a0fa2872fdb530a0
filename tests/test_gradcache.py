import numpy as np
import pytest
import torch

from sklearn_shufdiv.embedders import load_encoder, nt_xent_loss
from sklearn_shufdiv.embedders._batching import padded_groups, tokenize
from sklearn_shufdiv.embedders._gradcache import cached_backward


def padded_chunks(token_ids, size, pad_token_id, device):
    """As few length-sorted mini-batches of at most ``size`` views as possible."""
    return padded_groups(token_ids, size, pad_token_id, device, overhead_tokens=10**9)


@pytest.fixture(scope="module")
def setup(tiny_bert_path, corpus):
    tokenizer, encoder = load_encoder(tiny_bert_path)
    docs, _ = corpus
    texts = docs[:5] + [d[: 40 + 7 * i] for i, d in enumerate(docs[5:10])]  # varied lengths
    return tokenizer, encoder, tokenize(tokenizer, texts, 48)


def gradients(encoder):
    return {n: p.grad.clone() for n, p in encoder.named_parameters() if p.grad is not None}


def cached(encoder, tokenizer, token_ids, mini_batch_size, keys=None):
    encoder.zero_grad()
    batches, order = padded_chunks(token_ids, mini_batch_size, tokenizer.pad_token_id, "cpu")
    loss = cached_backward(encoder, batches, order, lambda v: nt_xent_loss(v, 0.1, keys))
    return float(loss), gradients(encoder)


def uncached(encoder, tokenizer, token_ids, mini_batch_size, keys=None):
    """The plain loss: mini-batches embedded *with* a graph, one backward at the end."""
    encoder.zero_grad()
    batches, order = padded_chunks(token_ids, mini_batch_size, tokenizer.pad_token_id, "cpu")
    embeddings = torch.cat([encoder(ids, mask) for ids, mask in batches])
    loss = nt_xent_loss(embeddings[np.argsort(order)], 0.1, keys)
    loss.backward()
    return float(loss.detach()), gradients(encoder)


def assert_same(a, b):
    assert a[0] == pytest.approx(b[0], rel=1e-5)
    assert a[1].keys() == b[1].keys() and len(a[1]) > 10
    for name in a[1]:
        torch.testing.assert_close(a[1][name], b[1][name], rtol=1e-4, atol=1e-6)


@pytest.mark.parametrize("mini_batch_size", [1, 3, 4, 10])
def test_cached_gradients_equal_full_batch_gradients(setup, mini_batch_size):
    tokenizer, encoder, token_ids = setup
    encoder.eval()  # no dropout: the full batch in one pass is the reference
    reference = uncached(encoder, tokenizer, token_ids, len(token_ids))
    assert_same(cached(encoder, tokenizer, token_ids, mini_batch_size), reference)


def test_dropout_is_replayed(setup):
    tokenizer, encoder, token_ids = setup
    encoder.train()
    keys = torch.tensor([0, 1, 2, 3, 4, 0, 6, 7, 8, 9])
    torch.manual_seed(3)
    got = cached(encoder, tokenizer, token_ids, 3, keys)
    torch.manual_seed(3)
    assert_same(got, uncached(encoder, tokenizer, token_ids, 3, keys))
    # Without replaying the random state, dropout masks would differ and so would gradients.
    torch.manual_seed(4)
    other = uncached(encoder, tokenizer, token_ids, 3, keys)
    assert not torch.allclose(got[1]["transformer.embeddings.word_embeddings.weight"],
                              other[1]["transformer.embeddings.word_embeddings.weight"])
    encoder.eval()


def test_chunks_are_sorted_by_length_and_padded_dynamically(setup):
    tokenizer, _, token_ids = setup
    batches, order = padded_chunks(token_ids, 4, tokenizer.pad_token_id, "cpu")
    lengths = [len(token_ids[i]) for i in order]
    assert lengths == sorted(lengths, reverse=True)
    assert sorted(order.tolist()) == list(range(len(token_ids)))
    for ids, mask in batches:
        assert mask[:, -1].any()  # no all-padding column
        assert (ids[mask == 0] == tokenizer.pad_token_id).all()
