"""Windows over whole documents: how they are cut, and how they are pooled back."""

import numpy as np
import pytest
import torch
from transformers import AutoModel, AutoTokenizer

from sklearn_shufdiv.embedders._encoder._batching import tokenize
from sklearn_shufdiv.embedders._encoder._windows import cut_windows, pool_windows, special_tokens


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


def test_too_short_max_length(tokenizer):
    with pytest.raises(ValueError, match="max_length=2 leaves no room"):
        cut_windows(tokenizer, ["some text"], 2)


def test_pooling_is_mean_pooling_over_all_windows_tokens(tiny_bert_path, tokenizer,
                                                         long_docs):
    from sklearn_shufdiv.embedders._encoder._batching import padded_groups
    from sklearn_shufdiv.embedders._encoder._pooling import MeanPoolingEncoder

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


def test_pooling_weights_the_windows_by_their_tokens():
    windows_of = type("W", (), {})  # a stand-in with the three fields pool_windows reads
    windows_of.weights = np.array([2.0, 1.0, 3.0])
    windows_of.owners = np.array([0, 0, 1])
    windows_of.n_documents = 2
    embeddings = torch.tensor([[1.0, 0.0], [4.0, 3.0], [0.0, 5.0]])
    pooled = pool_windows(embeddings, windows_of)
    torch.testing.assert_close(pooled, torch.tensor([[2.0, 1.0], [0.0, 5.0]]))


# -- the estimators read whole documents ------------------------------------------------
# The encoder's embeddings alone (lexical_weight=0): these tests compare them with direct
# computations of the windows' hidden states.
# The untuned encoder in float32: compared with transformers' own float32 forward pass.
FROZEN = dict(max_epochs=0, max_length=16, mini_batch_size=4, verbose=0, random_state=0,
              normalize=False, lexical_weight=0, inference_dtype="float32")


def _direct(transformer, token_ids):
    """Mean of the last hidden states of all tokens of ``token_ids`` (a list of windows),
    each window run alone, without padding."""
    with torch.no_grad():
        hidden = [transformer(input_ids=torch.tensor([ids])).last_hidden_state[0]
                  for ids in token_ids]
    return torch.cat(hidden).mean(0).numpy()


def test_transform_reads_whole_documents(tiny_bert_path, tokenizer, long_docs):
    from sklearn_shufdiv import ShuffleDivideEmbedder

    embedder = ShuffleDivideEmbedder(tiny_bert_path, max_windows=None, **FROZEN).fit(long_docs)
    got = embedder.transform(long_docs)
    transformer = AutoModel.from_pretrained(tiny_bert_path).eval()
    prefix, suffix = special_tokens(tokenizer)
    whole = tokenizer(long_docs, add_special_tokens=False)["input_ids"]
    for document, ids in enumerate(whole):
        # Windows of at most 14 text tokens, of near-equal sizes, covering the document.
        count = -(-len(ids) // 14)
        bounds = np.linspace(0, len(ids), count + 1).round().astype(int)
        windows = [prefix + ids[a:b] + suffix for a, b in zip(bounds[:-1], bounds[1:])]
        np.testing.assert_allclose(got[document], _direct(transformer, windows), atol=1e-5)
    assert count > 3  # the longest document really has many windows


def test_short_documents_embed_exactly_as_before(tiny_bert_path, corpus):
    from sklearn_shufdiv import ShuffleDivideEmbedder

    docs = [doc[:30] for doc in corpus[0][:12]]
    params = {**FROZEN, "max_length": 32}
    one = ShuffleDivideEmbedder(tiny_bert_path, max_windows=1, **params).fit(docs)
    whole = ShuffleDivideEmbedder(tiny_bert_path, max_windows=None, **params).fit(docs)
    assert max(len(ids) for ids in tokenize(one.tokenizer_, docs, 10**6)) <= 32
    np.testing.assert_array_equal(whole.transform(docs), one.transform(docs))


def test_max_windows_one_is_truncation(tiny_bert_path, tokenizer, long_docs):
    from sklearn_shufdiv import ShuffleDivideEmbedder

    embedder = ShuffleDivideEmbedder(tiny_bert_path, max_windows=1, **FROZEN).fit(long_docs)
    transformer = AutoModel.from_pretrained(tiny_bert_path).eval()
    for document, ids in enumerate(tokenize(tokenizer, long_docs, 16)):
        np.testing.assert_allclose(embedder.transform(long_docs)[document],
                                   _direct(transformer, [ids]), atol=1e-5)


def test_order_and_batching_do_not_change_embeddings(tiny_bert_path, corpus):
    from sklearn_shufdiv import ShuffleDivideEmbedder

    docs = corpus[0][:10] + [" ".join(corpus[0][:6])]
    a = ShuffleDivideEmbedder(tiny_bert_path, max_windows=None, **FROZEN).fit(docs)
    b = ShuffleDivideEmbedder(tiny_bert_path, max_windows=None,
                              **{**FROZEN, "mini_batch_size": 1}).fit(docs)
    reference = a.transform(docs)
    np.testing.assert_allclose(a.transform(docs[::-1])[::-1], reference, atol=1e-6)
    np.testing.assert_allclose(b.transform(docs), reference, atol=1e-6)
    np.testing.assert_allclose(np.vstack(list(a.transform_iter(iter(docs), chunk_size=3))),
                               reference, atol=1e-6)


def test_selection_embeds_whole_documents(tiny_bert_path, corpus):
    from sklearn_shufdiv import ShuffleDivideEmbedder

    docs = [" ".join(corpus[0][i:i + 3]) for i in range(0, 24)]
    embedder = ShuffleDivideEmbedder(tiny_bert_path, max_windows=None, n_clusters=3,
                                     selection_sample_size=None,
                                     **{**FROZEN, "normalize": True}).fit(docs)
    # With the whole corpus scored, fit_transform returns the selection's embeddings:
    # the same as transform's.
    np.testing.assert_allclose(embedder.fit_transform(docs), embedder.transform(docs),
                               atol=1e-6)
    truncated = ShuffleDivideEmbedder(tiny_bert_path, max_windows=1,
                                      **{**FROZEN, "normalize": True}).fit(docs)
    assert np.abs(truncated.transform(docs) - embedder.transform(docs)).max() > 1e-3


def test_command_line_max_windows():
    from sklearn_shufdiv import ShuffleDivideEmbedder, TfidfPositiveEmbedder
    from sklearn_shufdiv._cli._parser import DEFAULT_MAX_WINDOWS, build_parser

    for cls in (ShuffleDivideEmbedder, TfidfPositiveEmbedder):
        assert cls().max_windows == DEFAULT_MAX_WINDOWS
    parser = build_parser()
    assert parser.parse_args(["demo"]).max_windows == DEFAULT_MAX_WINDOWS
    assert parser.parse_args(["demo", "--max-windows", "all"]).max_windows is None
    assert parser.parse_args(["demo", "--max-windows", "3"]).max_windows == 3
    with pytest.raises(SystemExit):
        parser.parse_args(["demo", "--max-windows", "0"])


def test_max_windows_is_read_when_transform_is_called(tiny_bert_path, long_docs):
    from sklearn_shufdiv import ShuffleDivideEmbedder
    from sklearn_shufdiv.exceptions import InvalidParameterError

    whole = ShuffleDivideEmbedder(tiny_bert_path, max_windows=None, **FROZEN).fit(long_docs)
    one = ShuffleDivideEmbedder(tiny_bert_path, max_windows=1, **FROZEN).fit(long_docs)
    assert np.abs(whole.transform(long_docs) - one.transform(long_docs)).max() > 1e-3
    np.testing.assert_array_equal(whole.set_params(max_windows=1).transform(long_docs),
                                  one.transform(long_docs))
    with pytest.raises(InvalidParameterError, match="max_windows"):
        whole.set_params(max_windows=0).transform(long_docs)
