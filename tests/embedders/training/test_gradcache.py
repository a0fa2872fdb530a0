import numpy as np
import pytest
import torch

from sklearn_shufdiv.embedders import load_encoder
from sklearn_shufdiv.embedders._encoder._batching import padded_groups, tokenize
from sklearn_shufdiv.embedders._encoder._device import autocast_context
from sklearn_shufdiv.embedders._training._gradcache import cached_backward
from sklearn_shufdiv.embedders._training._loss import nt_xent_loss


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


def cached(encoder, tokenizer, token_ids, mini_batch_size, keys=None, amp_dtype=None):
    encoder.zero_grad()
    batches, order = padded_chunks(token_ids, mini_batch_size, tokenizer.pad_token_id, "cpu")
    loss = cached_backward(encoder, batches, order, lambda v: nt_xent_loss(v, 0.1, keys),
                           amp_dtype=amp_dtype)
    return float(loss), gradients(encoder)


def uncached(encoder, tokenizer, token_ids, mini_batch_size, keys=None, amp_dtype=None):
    """The plain loss: mini-batches embedded *with* a graph, one backward at the end.
    Each mini-batch in its own autocast region, as in a GradCache step: each casts the
    weights anew, and their gradients are summed in float32."""
    encoder.zero_grad()
    batches, order = padded_chunks(token_ids, mini_batch_size, tokenizer.pad_token_id, "cpu")
    rows = []
    for ids, mask in batches:
        with autocast_context("cpu", amp_dtype):
            rows.append(encoder(ids, mask).float())
    embeddings = torch.cat(rows)
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


# bfloat16 autocast: each mini-batch's forward pass is the same bfloat16 computation in
# the cached step and in the reference (one autocast region per mini-batch in both), and
# the parameter gradients are summed in float32 in both: the tolerance is float32's, the
# same as without autocast (relative 1e-4, absolute 1e-6).
@pytest.mark.parametrize("mini_batch_size", [1, 3, 10])
def test_cached_gradients_equal_full_batch_gradients_in_bfloat16(setup, mini_batch_size):
    tokenizer, encoder, token_ids = setup
    encoder.eval()
    reference = uncached(encoder, tokenizer, token_ids, mini_batch_size,
                         amp_dtype=torch.bfloat16)
    got = cached(encoder, tokenizer, token_ids, mini_batch_size, amp_dtype=torch.bfloat16)
    assert_same(got, reference)
    # And bfloat16 ran: the gradients differ from float32's, yet point the same way.
    full = uncached(encoder, tokenizer, token_ids, mini_batch_size)
    flat = torch.cat([got[1][name].flatten() for name in sorted(got[1])])
    flat_full = torch.cat([full[1][name].flatten() for name in sorted(full[1])])
    assert not torch.equal(flat, flat_full)
    assert torch.nn.functional.cosine_similarity(flat, flat_full, dim=0) > 0.99


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


@pytest.mark.parametrize("cpu_amp_dtype", [None, torch.bfloat16])
def test_the_training_step_autocasts_on_the_cpu_when_asked(tiny_bert_path, corpus,
                                                           cpu_amp_dtype):
    """``ContrastiveNet(cpu_amp_dtype=torch.bfloat16)`` runs the encoder's linear layers
    in bfloat16 on the CPU; by default they run in float32."""
    from sklearn_shufdiv.embedders._training._engine import ContrastiveNet, ViewBatch

    tokenizer, encoder = load_encoder(tiny_bert_path)
    net = ContrastiveNet(encoder, tokenizer=tokenizer, max_length=24, mini_batch_size=3,
                         amp_dtype=torch.bfloat16, cpu_amp_dtype=cpu_amp_dtype,
                         max_epochs=1, device="cpu", verbose=0).initialize()
    assert net.autocast_dtype is cpu_amp_dtype
    seen = []
    layer = net.module_.transformer.encoder.layer[0].intermediate.dense
    handle = layer.register_forward_hook(lambda module, args, out: seen.append(out.dtype))
    docs, _ = corpus
    keys = np.arange(4).repeat(2)
    try:
        net.train_step(ViewBatch(docs[:8], torch.as_tensor(keys), keys))
    finally:
        handle.remove()
    assert seen and set(seen) == {cpu_amp_dtype or torch.float32}
    assert all(p.dtype == torch.float32 for p in net.module_.parameters())
