"""lexical_weight: the encoder's embeddings fused with the corpus' LSA space."""

import pickle

import numpy as np
import pytest
from conftest import SMALL
from sklearn.decomposition import TruncatedSVD
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.preprocessing import normalize

from sklearn_shufdiv.cluster import cluster_on_sphere as cluster
from sklearn_shufdiv.embedders import (
    SelectionCriterion,
    ShuffleDivideEmbedder,
    TfidfPositiveEmbedder,
)
from sklearn_shufdiv.embedders._spaces._lexical import LexicalSpace, fuse
from sklearn_shufdiv.metrics import cosine_silhouette

ONE_EPOCH = {**SMALL, "max_epochs": 1}


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
        ShuffleDivideEmbedder(tiny_bert_path, **{**ONE_EPOCH, "max_epochs": 0}).fit(docs)
    # ... and lexical_weight=0 embeds them.
    out = ShuffleDivideEmbedder(tiny_bert_path, **{**ONE_EPOCH, "max_epochs": 0},
                                lexical_weight=0).fit_transform(docs)
    assert out.shape == (len(docs), 32)


@pytest.mark.parametrize("Embedder", [ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def test_transform_is_the_encoder_fused_with_the_lsa(Embedder, tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = Embedder(tiny_bert_path, lexical_weight=0.3, lexical_components=8,
                        **ONE_EPOCH).fit(docs)
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
    embedder = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=0, **ONE_EPOCH).fit(docs)
    assert embedder.lexical_ is None
    assert embedder.get_feature_names_out().shape == (32,)
    with pytest.raises(ValueError, match="lexical_weight=0.5: this embedder was fitted with "
                                         "lexical_weight=0"):
        embedder.set_params(lexical_weight=0.5).transform(docs)


@pytest.mark.parametrize("bad", [1.0, -0.1, 2])
def test_lexical_weight_validated(tiny_bert_path, corpus, bad):
    docs, _ = corpus
    with pytest.raises(ValueError, match="lexical_weight"):
        ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=bad, **ONE_EPOCH).fit(docs)


class Recording(SelectionCriterion):
    """The silhouette of each candidate's clustering, recording what each candidate was."""

    def prepare(self, context):
        self.seen = {}

    def score(self, candidate, context):
        self.seen[candidate.epoch] = candidate.embeddings
        return cosine_silhouette(candidate.clustering.unit, candidate.labels)


def test_selection_scores_the_space_transform_returns(tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=0.5, n_clusters=4,
                                     selection_sample_size=30, head=None,  # the untuned
                                     **{**ONE_EPOCH, "max_epochs": 0}).fit(docs)
    sample = [docs[i] for i in embedder.selection_indices_]
    expected = embedder.transform(sample)
    labels = cluster(expected, 4, 0).labels
    np.testing.assert_array_equal(embedder.selection_labels_[0], labels)
    # The criterion sees the fused sample, as transform returns it.
    criterion = Recording()
    embedder = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=0.5, n_clusters=4,
                                     selection_sample_size=30, selection=criterion,
                                     **ONE_EPOCH).fit(docs)
    net_criterion = embedder.net_.callbacks_[[n for n, _ in embedder.net_.callbacks_]
                                             .index("selection")][1].criterion
    seen = net_criterion.seen
    assert sorted(seen) == [0, 1] and seen[0].shape == (30, 32 + embedder.lexical_.n_components_)
    np.testing.assert_allclose(seen[embedder.best_epoch_], embedder.transform(sample), atol=1e-6)


def test_pickle_keeps_the_lexical_space(tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters=4, **ONE_EPOCH).fit(docs)
    restored = pickle.loads(pickle.dumps(embedder))
    np.testing.assert_array_equal(restored.transform(docs), embedder.transform(docs))
    # What only training needed is gone from the selection callback.
    selection = dict(embedder.net_.callbacks_)["selection"]
    assert selection.space is None and selection.context.texts is None


def test_cli_default_is_the_embedders():
    from sklearn_shufdiv._cli._parser import DEFAULT_LEXICAL_WEIGHT, build_parser

    for cls in (ShuffleDivideEmbedder, TfidfPositiveEmbedder):
        # The default is the even mix of the two cosines; "auto" is opt-in.
        assert cls().lexical_weight == DEFAULT_LEXICAL_WEIGHT == 0.5
    parser = build_parser()
    assert parser.parse_args(["demo"]).lexical_weight == DEFAULT_LEXICAL_WEIGHT
    assert parser.parse_args(["demo", "--lexical-weight", "0"]).lexical_weight == 0
    assert parser.parse_args(["demo", "--lexical-weight", "auto"]).lexical_weight == "auto"


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
    # float32: bfloat16 matmuls may round differently between two runs of a busy CPU,
    # and "auto" compares near-equal scores on this tiny model.
    common = ["cluster", str(path), "-k", "4", "--model", tiny_bert_path, "--method",
              "frozen", "--max-length", "32", "--inference-dtype", "float32", "--quiet"]
    reports = {}
    for weight in ("0.5", "0"):
        out = tmp_path / f"o{weight}.csv"
        assert main([*common, "-o", str(out), "--lexical-weight", weight,
                     "--report", str(tmp_path / f"r{weight}.json")]) == 0
        reports[weight] = json.loads((tmp_path / f"r{weight}.json").read_text())
    assert reports["0.5"]["settings"]["lexical_weight"] == 0.5
    assert reports["0"]["settings"]["lexical_weight"] == 0
    assert reports["0"]["settings"]["lexical_weight_used"] == 0
    assert "words weighted 0.5" in capsys.readouterr().out
    # "auto": the frozen encoder too clusters its sample to choose, as the embedder does.
    from sklearn_shufdiv.embedders._spaces._lexical import AUTO_WEIGHTS

    assert main([*common, "-o", str(tmp_path / "auto.csv"), "--lexical-weight", "auto",
                 "--report", str(tmp_path / "auto.json")]) == 0
    settings = json.loads((tmp_path / "auto.json").read_text())["settings"]
    chosen = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight="auto", n_clusters=4,
                                   max_length=32, max_epochs=0, inference_dtype="float32",
                                   verbose=0).fit(docs)
    assert settings["lexical_weight"] == "auto"
    assert settings["lexical_weight_used"] == chosen.lexical_weight_ in AUTO_WEIGHTS
    out = capsys.readouterr().out
    assert "words weighted by the clusters (auto)" in out
    assert f"words:        weighted {chosen.lexical_weight_:g} (--lexical-weight auto" in out
    # Three documents share too few words for a lexical space: refused, with the fix.
    small = tmp_path / "small.txt"
    small.write_text("first doc here\nthird doc\nfourth doc\n", encoding="utf-8")
    status = main(["cluster", str(small), "-k", "2", "-o", str(tmp_path / "s.csv"),
                   "--model", tiny_bert_path, "--method", "frozen", "--max-length", "32",
                   "--quiet"])
    assert status == 2
    assert "--lexical-weight 0" in capsys.readouterr().err


def _direct_modularity_sum(spaces, labels, n_neighbors):
    """The sum over ``spaces`` of Newman's modularity of ``labels`` on each space's
    graph of every document's ``n_neighbors`` most similar others (either direction),
    pair by pair."""
    total = 0.0
    for rows in spaces:
        cos = normalize(rows) @ normalize(rows).T
        np.fill_diagonal(cos, -np.inf)
        adj = np.zeros_like(cos)
        for i, row in enumerate(cos):
            adj[i, np.argsort(-row, kind="stable")[:n_neighbors]] = 1
        adj = np.maximum(adj, adj.T)
        degree, same = adj.sum(axis=1), labels[:, None] == labels[None, :]
        total += ((adj - np.outer(degree, degree) / degree.sum()) * same).sum() / degree.sum()
    return total


def test_choose_lexical_weight_is_the_modularity_sum():
    """Each weight's clustering scored by the sum of its modularities on the encoder's
    and the LSA space's 20-neighbour graphs: computed here pair by pair."""
    from sklearn_shufdiv import SphericalKMeans
    from sklearn_shufdiv.embedders._spaces._lexical import (
        AUTO_NEIGHBORS,
        AUTO_WEIGHTS,
        choose_lexical_weight,
    )

    rng = np.random.default_rng(1)
    topic = np.repeat([0, 1, 2, 3], 40)
    # The encoder merges topics 2 and 3, the words merge 0 and 1.
    enc = np.eye(4)[np.where(topic == 3, 2, topic)] * 3 + rng.normal(size=(160, 4))
    lex = normalize(np.eye(4)[np.where(topic == 1, 0, topic)] * 3 + rng.normal(size=(160, 4)))
    weight, scores = choose_lexical_weight(enc, lex, 4, random_state=2)

    expected, inertia = {}, {}
    for w in AUTO_WEIGHTS:
        km = SphericalKMeans(4, random_state=2).fit(fuse(enc, lex, w))
        expected[w] = _direct_modularity_sum((enc, lex), km.labels_, AUTO_NEIGHBORS)
        inertia[w] = km.inertia_
    assert scores.keys() == expected.keys()
    np.testing.assert_allclose(list(scores.values()), list(expected.values()), rtol=1e-9)
    best = max(expected.values())
    assert weight == min((w for w in expected if expected[w] >= best - 1e-12), key=inertia.get)
    assert 0 < weight < max(AUTO_WEIGHTS)  # each space alone merges two topics: a mix
    # A single candidate is returned as it is.
    assert choose_lexical_weight(enc, lex, 4, weights=[0.3])[0] == 0.3


@pytest.mark.parametrize("noise", ["words", "encoder"])
def test_auto_gives_a_noise_space_its_least_weight(noise):
    """Words that carry no topic get the least candidate weight (0, the encoder alone);
    an encoder that carries none leaves the words their largest (0.9)."""
    from sklearn_shufdiv.embedders._spaces._lexical import AUTO_WEIGHTS, choose_lexical_weight

    rng = np.random.default_rng(3)
    topic = np.repeat([0, 1, 2], 30)
    informative = np.eye(3)[topic] * 2 + rng.normal(size=(90, 3))
    random_rows = rng.normal(size=(90, 5))
    enc, lex = ((informative, normalize(random_rows)) if noise == "words"
                else (random_rows, normalize(informative)))
    weight, scores = choose_lexical_weight(enc, lex, 3)
    assert weight == (min(AUTO_WEIGHTS) if noise == "words" else max(AUTO_WEIGHTS))
    # Not a tie broken by order: the noise-free end beats the other end.
    far = max(AUTO_WEIGHTS) if noise == "words" else min(AUTO_WEIGHTS)
    assert scores[weight] > scores[far]


def test_auto_weight_is_chosen_on_the_untuned_sample(tiny_bert_path, corpus, tmp_path):
    from sklearn_shufdiv.embedders._spaces._lexical import choose_lexical_weight

    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight="auto", n_clusters=4,
                                     selection_sample_size=30, **ONE_EPOCH).fit(docs)
    # The choice, made on the sample's embeddings by the untuned encoder and its words.
    untuned = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight=0,
                                    **{**ONE_EPOCH, "max_epochs": 0}).fit(docs)
    sample = [docs[i] for i in embedder.selection_indices_]
    rows = embedder.lexical_.transform(sample)
    expected, _ = choose_lexical_weight(untuned.transform(sample), rows, 4, random_state=0)
    assert embedder.lexical_weight_ == expected
    # transform fuses at the chosen weight; a number set later is used as it is.
    encoder_only = embedder.set_params(lexical_weight=0).transform(docs)
    for weight in ("auto", 0.2):
        got = embedder.set_params(lexical_weight=weight).transform(docs)
        w = expected if weight == "auto" else weight
        np.testing.assert_allclose(got, fuse(encoder_only, embedder.lexical_.transform(docs), w),
                                   atol=1e-6)
    assert got.shape[1] == embedder.get_feature_names_out().shape[0]
    # A fit resumed from its checkpoints has the weight it chose (epoch 0, the untuned
    # encoder, is not embedded again).
    first = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight="auto", n_clusters=4,
                                  checkpoint_dir=tmp_path, **{**ONE_EPOCH, "max_epochs": 2})
    first.fit(docs)
    resumed = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight="auto", n_clusters=4,
                                    checkpoint_dir=tmp_path, **{**ONE_EPOCH, "max_epochs": 2})
    resumed.fit(docs)
    assert resumed.lexical_weight_ == first.lexical_weight_
    np.testing.assert_array_equal(resumed.transform(docs), first.transform(docs))


def test_auto_weight_without_clusters_is_the_even_mix(tiny_bert_path, corpus):
    docs, _ = corpus
    embedder = ShuffleDivideEmbedder(tiny_bert_path, lexical_weight="auto",
                                     **{**ONE_EPOCH, "max_epochs": 0}).fit(docs)
    assert embedder.lexical_weight_ == 0.5
    np.testing.assert_array_equal(
        embedder.transform(docs), embedder.set_params(lexical_weight=0.5).transform(docs))
