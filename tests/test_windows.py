"""Windows over whole documents: how they are cut, and how they are pooled back."""

import numpy as np
import pytest
import torch
from transformers import AutoModel, AutoTokenizer

from sklearn_shufdiv.embedders._batching import tokenize
from sklearn_shufdiv.embedders._windows import cut_windows, pool_windows, special_tokens


@pytest.fixture(scope="module")
def tokenizer(tiny_bert_path):
    return AutoTokenizer.from_pretrained(tiny_bert_path)


@pytest.fixture(scope="module")
def long_docs(corpus):
    docs, _ = corpus
    # Three documents of very different lengths: a short one, a long one, a longer one.
    return [docs[0][:40], " ".join(docs[:3]), " ".join(docs[3:9])]


def _bodies(tokenizer, windows):
    prefix, suffix = special_tokens(tokenizer)
    for ids in windows.token_ids:
        assert ids[: len(prefix)] == prefix and ids[len(ids) - len(suffix):] == suffix
    return [ids[len(prefix): len(ids) - len(suffix)] for ids in windows.token_ids]


def test_special_tokens_of_bert(tokenizer):
    assert special_tokens(tokenizer) == ([tokenizer.cls_token_id], [tokenizer.sep_token_id])


def test_windows_cover_each_document_once_in_near_equal_parts(tokenizer, long_docs):
    windows = cut_windows(tokenizer, long_docs, 16)
    whole = tokenizer(long_docs, add_special_tokens=False)["input_ids"]
    bodies = _bodies(tokenizer, windows)
    assert max(map(len, windows.token_ids)) <= 16
    for document, ids in enumerate(whole):
        mine = [body for body, owner in zip(bodies, windows.owners) if owner == document]
        assert sum(mine, []) == ids  # in order, no token lost or repeated
        assert len(mine) == -(-len(ids) // 14)  # the fewest windows of 14 body tokens
        assert max(map(len, mine)) - min(map(len, mine)) <= 1
    assert np.bincount(windows.owners).tolist()[0] == 1  # the short one: one window


def test_one_window_is_truncation(tokenizer, long_docs):
    windows = cut_windows(tokenizer, long_docs, 16, max_windows=1)
    assert windows.token_ids == tokenize(tokenizer, long_docs, 16)
    assert windows.owners.tolist() == [0, 1, 2]


def test_max_windows_keeps_the_first_tokens(tokenizer, long_docs):
    whole = tokenizer(long_docs, add_special_tokens=False)["input_ids"]
    windows = cut_windows(tokenizer, long_docs, 16, max_windows=2)
    bodies = _bodies(tokenizer, windows)
    assert np.bincount(windows.owners).tolist() == [1, 2, 2]
    assert sum(bodies[3:5], []) == whole[2][:28]


def test_overlapping_windows(tokenizer, long_docs):
    windows = cut_windows(tokenizer, long_docs[1:2], 16, window_stride=7)
    whole = tokenizer(long_docs[1:2], add_special_tokens=False)["input_ids"][0]
    bodies = _bodies(tokenizer, windows)
    assert all(len(body) == 14 for body in bodies)
    starts = [7 * i for i in range(len(bodies) - 1)] + [len(whole) - 14]
    assert bodies == [whole[s: s + 14] for s in starts]
    assert starts[-1] - starts[-2] <= 7  # the last window ends at the end


def test_too_short_max_length(tokenizer):
    with pytest.raises(ValueError, match="max_length=2 leaves no room"):
        cut_windows(tokenizer, ["some text"], 2)


def test_pooling_is_mean_pooling_over_all_windows_tokens(tiny_bert_path, tokenizer,
                                                         long_docs):
    from sklearn_shufdiv.embedders._batching import padded_groups
    from sklearn_shufdiv.embedders._encoder import MeanPoolingEncoder

    transformer = AutoModel.from_pretrained(tiny_bert_path).eval()
    encoder = MeanPoolingEncoder(transformer).eval()
    windows = cut_windows(tokenizer, long_docs, 16)
    batches, order = padded_groups(windows.token_ids, 3, tokenizer.pad_token_id, "cpu")
    with torch.no_grad():
        rows = torch.cat([encoder(ids, mask) for ids, mask in batches])
    per_window = torch.empty_like(rows)
    per_window[torch.as_tensor(order)] = rows
    pooled = pool_windows(per_window, windows)
    # Direct: every token of every window of the document, one window at a time.
    for document in range(len(long_docs)):
        hidden = [
            transformer(input_ids=torch.tensor([ids])).last_hidden_state[0]
            for ids, owner in zip(windows.token_ids, windows.owners) if owner == document
        ]
        expected = torch.cat(hidden).mean(0)
        torch.testing.assert_close(pooled[document], expected.detach(), atol=1e-5, rtol=1e-5)


def test_pooling_passes_gradients_to_every_window():
    windows_of = type("W", (), {})  # a stand-in with the three fields pool_windows reads
    windows_of.weights = np.array([2.0, 1.0, 3.0])
    windows_of.owners = np.array([0, 0, 1])
    windows_of.n_documents = 2
    embeddings = torch.tensor([[1.0, 0.0], [4.0, 3.0], [0.0, 5.0]], requires_grad=True)
    pooled = pool_windows(embeddings, windows_of)
    torch.testing.assert_close(pooled, torch.tensor([[2.0, 1.0], [0.0, 5.0]]))
    pooled.sum().backward()
    torch.testing.assert_close(embeddings.grad[:, 0], torch.tensor([2 / 3, 1 / 3, 1.0]))
