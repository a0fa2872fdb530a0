"""lexical_weight: the encoder's embeddings fused with the corpus' LSA space."""

import pickle

import numpy as np
import pytest
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

from sklearn_shufdiv.embedders import ShuffleDivideEmbedder, TfidfPositiveEmbedder
from sklearn_shufdiv.embedders._lexical import LexicalSpace, fuse
from sklearn_shufdiv.embedders._selection import SilhouetteCriterion, cluster

SMALL = dict(max_epochs=1, batch_size=8, mini_batch_size=6, max_length=32, random_state=0,
             verbose=0)


def test_fuse_weights_the_two_cosines():
    rng = np.random.default_rng(0)
    e = rng.normal(size=(6, 5)) * rng.uniform(0.1, 10, size=(6, 1))
    lex = normalize(rng.normal(size=(6, 3)))
    for w in (0.0, 0.3, 0.5, 0.9):
        fused = fuse(e, lex, w).astype(np.float64)
        assert fused.shape == (6, 8) and fused.dtype == np.float64
        np.testing.assert_allclose(np.linalg.norm(fused, axis=1), 1, rtol=1e-6)
        cos_e = normalize(e) @ normalize(e).T
        np.testing.assert_allclose(fused @ fused.T, (1 - w) * cos_e + w * lex @ lex.T,
                                   atol=1e-6)
    with pytest.raises(ValueError, match="6 embeddings but 5 lexical rows"):
        fuse(e, lex[:5], 0.5)


def test_lexical_space_is_the_benchmarks_lsa(corpus):
    docs, _ = corpus
    space = LexicalSpace(10, random_state=3).fit(docs)
    counts = TfidfVectorizer(sublinear_tf=True, stop_words="english", min_df=2,
                             max_df=0.5).fit_transform(docs)
    expected = normalize(TruncatedSVD(10, random_state=3).fit_transform(counts))
    np.testing.assert_allclose(space.transform(docs), expected, atol=1e-10)
    assert space.n_components_ == 10
    # A document without any of the vocabulary's words is a zero row, not NaN.
    np.testing.assert_array_equal(space.transform(["zzz qqq"]), np.zeros((1, 10)))


def test_lexical_space_shrinks_to_a_small_corpus(corpus):
    docs, _ = corpus
    space = LexicalSpace(100).fit(docs[::8])
    n_terms = len(space.vectorizer_.vocabulary_)
    assert space.n_components_ == min(n_terms - 1, 5)
    assert space.transform(docs[::8]).shape == (6, space.n_components_)


@pytest.mark.parametrize("docs", [["one text.", "another."],
                                  ["a cat sat", "a dog ran", "the sun set", "rain fell"]])
def test_empty_lexical_space_names_the_parameter(tiny_bert_path, docs):
    with pytest.raises(ValueError, match=r"lexical_weight.*set lexical_weight=0 "
                                         r"\(--lexical-weight 0 on the command line\)"):
        ShuffleDivideEmbedder(tiny_bert_path, **{**SMALL, "max_epochs": 0}).fit(docs)
    # ... and lexical_weight=0 embeds them.
    out = ShuffleDivideEmbedder(tiny_bert_path, **{**SMALL, "max_epochs": 0},
                                lexical_weight=0).fit_transform(docs)
    assert out.shape == (len(docs), 32)


@pytest.mark.parametrize("Embedder", [ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def test_transform_is_the_encoder_fused_with_the_lsa(Embedder, tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = Embedder(tiny_bert_path, lexical_weight=0.3, lexical_components=8,
                        **SMALL).fit(docs)
    out = embedder.transform(docs)
    assert out.shape == (len(docs), 32 + 8) and out.dtype == np.float32
    encoder_only = embedder.set_params(lexical_weight=0).transform(docs)
    assert encoder_only.shape == (len(docs), 32)
    # The lexical space is the corpus' LSA, seeded by random_state.
    lsa = LexicalSpace(8, random_state=0).fit(docs).transform(docs)
    np.testing.assert_allclose(out[:, 32:], np.sqrt(0.3) * lsa, atol=1e-6)
    np.testing.assert_allclose(out[:, :32], np.sqrt(0.7) * encoder_only, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1, rtol=1e-5)
    # Read at transform time, like max_windows: another weight without fitting again.
    np.testing.assert_allclose(embedder.set_params(lexical_weight=0.6).transform(docs),
                               fuse(encoder_only, lsa, 0.6), atol=1e-6)
    # New documents go through the fitted vocabulary and SVD.
    new = ["The team won the match with a late goal.", "A rocket left orbit."]
    np.testing.assert_allclose(
        embedder.transform(new),
        fuse(embedder.set_params(lexical_weight=0).transform(new),
             embedder.lexical_.transform(new), 0.6), atol=1e-6)


def test_lexical_weight_zero_has_no_lexical_space(tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=0, **SMALL).fit(docs)
    assert embedder.lexical_ is None
    assert embedder.get_feature_names_out().shape == (32,)
    with pytest.raises(ValueError, match="lexical_weight=0.5: this embedder was fitted with "
                                         "lexical_weight=0"):
        embedder.set_params(lexical_weight=0.5).transform(docs)


@pytest.mark.parametrize("bad", [1.0, -0.1, 2])
def test_lexical_weight_validated(tiny_bert_path, corpus, bad):
    docs, _ = corpus
    with pytest.raises(ValueError, match="lexical_weight"):
        ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=bad, **SMALL).fit(docs)


class Recording(SilhouetteCriterion):
    """The silhouette, recording what each candidate was."""

    def prepare(self, context):
        self.seen = {}

    def score(self, candidate, context):
        self.seen[candidate.epoch] = candidate.embeddings
        return super().score(candidate, context)


def test_selection_scores_the_space_transform_returns(tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=0.5, n_clusters=4,
                                     selection_sample_size=30,
                                     **{**SMALL, "max_epochs": 0}).fit(docs)
    sample = [docs[i] for i in embedder.selection_indices_]
    expected = embedder.transform(sample)
    labels = cluster(expected, 4, 0).labels
    np.testing.assert_array_equal(embedder.selection_labels_[0], labels)
    # The criterion sees the fused sample, as transform returns it.
    criterion = Recording()
    embedder = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=0.5, n_clusters=4,
                                     selection_sample_size=30, selection=criterion,
                                     **SMALL).fit(docs)
    net_criterion = embedder.net_.callbacks_[[n for n, _ in embedder.net_.callbacks_]
                                             .index("selection")][1].criterion
    seen = net_criterion.seen
    assert sorted(seen) == [0, 1] and seen[0].shape == (30, 32 + embedder.lexical_.n_components_)
    np.testing.assert_allclose(seen[embedder.best_epoch_], embedder.transform(sample), atol=1e-6)


def test_pickle_keeps_the_lexical_space(tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters=4, **SMALL).fit(docs)
    restored = pickle.loads(pickle.dumps(embedder))
    np.testing.assert_array_equal(restored.transform(docs), embedder.transform(docs))
    # What only training needed is gone from the selection callback.
    selection = dict(embedder.net_.callbacks_)["selection"]
    assert selection.space is None and selection.context.texts is None


def test_cli_default_is_the_embedders():
    from sklearn_shufdiv._cli._parser import DEFAULT_LEXICAL_WEIGHT, build_parser

    for cls in (ShuffleDivideEmbedder, TfidfPositiveEmbedder):
        assert cls().lexical_weight == DEFAULT_LEXICAL_WEIGHT
    parser = build_parser()
    assert parser.parse_args(["demo"]).lexical_weight == DEFAULT_LEXICAL_WEIGHT
    assert parser.parse_args(["demo", "--lexical-weight", "0"]).lexical_weight == 0


@pytest.mark.parametrize("bad", ["1", "-0.2", "x"])
def test_cli_refuses_a_bad_weight(bad, capsys):
    from sklearn_shufdiv._cli._parser import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["demo", "--lexical-weight", bad])
    assert "--lexical-weight" in capsys.readouterr().err


def test_cli_clusters_with_the_words(tmp_path, capsys, tiny_bert_path, corpus):
    import json

    from sklearn_shufdiv.__main__ import main

    docs, _ = corpus
    path = tmp_path / "docs.txt"
    path.write_text("\n".join(docs) + "\n", encoding="utf-8")
    common = ["cluster", str(path), "-k", "4", "--model", tiny_bert_path, "--method",
              "frozen", "--max-length", "32", "--quiet"]
    reports = {}
    for weight in ("0.5", "0"):
        out = tmp_path / f"o{weight}.csv"
        assert main([*common, "-o", str(out), "--lexical-weight", weight,
                     "--report", str(tmp_path / f"r{weight}.json")]) == 0
        reports[weight] = json.loads((tmp_path / f"r{weight}.json").read_text())
    assert reports["0.5"]["settings"]["lexical_weight"] == 0.5
    assert reports["0"]["settings"]["lexical_weight"] == 0
    assert "words weighted 0.5" in capsys.readouterr().out
    # Three documents share too few words for a lexical space: refused, with the fix.
    small = tmp_path / "small.txt"
    small.write_text("first doc here\nthird doc\nfourth doc\n", encoding="utf-8")
    status = main(["cluster", str(small), "-k", "2", "-o", str(tmp_path / "s.csv"),
                   "--model", tiny_bert_path, "--method", "frozen", "--max-length", "32",
                   "--quiet"])
    assert status == 2
    assert "--lexical-weight 0" in capsys.readouterr().err
