"""Parameters named in their errors: the epoch selection's sample against n_clusters."""

import pytest

from sklearn_shufdiv import ShuffleDivideEmbedder, TfidfPositiveEmbedder


@pytest.mark.parametrize("estimator", [ShuffleDivideEmbedder, TfidfPositiveEmbedder])
def test_a_selection_sample_smaller_than_n_clusters_names_the_parameter(
        tiny_bert_path, corpus, estimator, monkeypatch):
    from sklearn_shufdiv.embedders import _base

    def never(*args, **kwargs):
        raise AssertionError("the model was loaded before the check")

    monkeypatch.setattr(_base, "load_encoder", never)
    embedder = estimator(tiny_bert_path, n_clusters=4, selection_sample_size=3, max_epochs=1,
                         verbose=0)
    with pytest.raises(ValueError, match=r"selection_sample_size=3 is fewer documents than "
                                         r"n_clusters=4.*Raise selection_sample_size to 4"):
        embedder.fit(corpus[0])


def test_more_clusters_than_documents_names_n_clusters(tiny_bert_path, corpus):
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters=50, max_epochs=1, verbose=0)
    with pytest.raises(ValueError, match=r"n_clusters=50 is more clusters than the 48 "
                                         r"documents"):
        embedder.fit(corpus[0])


def test_a_sample_of_exactly_n_clusters_is_accepted(tiny_bert_path, corpus):
    embedder = ShuffleDivideEmbedder(tiny_bert_path, n_clusters=4, selection_sample_size=4,
                                     max_epochs=1, batch_size=8, lexical_weight=0,
                                     random_state=0, verbose=0).fit(corpus[0])
    assert embedder.selection_indices_.shape == (4,)
