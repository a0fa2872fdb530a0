"""The embedders' checks of the documents they are given, in a list or a stream."""

import numpy as np
import pytest

from sklearn_shufdiv import ShuffleDivideEmbedder
from sklearn_shufdiv.exceptions import InvalidParameterError

DOCS = ["First document. It has sentences.", "Second one. Also short."]


def refused_before_loading(tmp_path, documents):
    """Fit an embedder whose model does not exist: the documents are checked first, so
    their error is the one that shows."""
    ShuffleDivideEmbedder(tmp_path / "no-model", max_epochs=0, verbose=0).fit(documents)


@pytest.mark.parametrize("corpus, message", [
    ({"a.txt": DOCS[0], "b.txt": DOCS[1]}, r"X is a dict, a mapping: iterating it would "
                                           r"embed its keys.*list\(X\.values\(\)\)"),
    (set(DOCS), r"X is a set: a set has no order.*sorted\(X\)"),
    (frozenset(DOCS), r"X is a frozenset: a set has no order"),
    ({"a": DOCS[0]}.keys(), r"X is a dict_keys: a set has no order"),
])
def test_mappings_and_sets_are_refused(tmp_path, corpus, message):
    with pytest.raises(TypeError, match=message):
        refused_before_loading(tmp_path, corpus)


@pytest.mark.parametrize("documents", [{"a": DOCS[0], "b": DOCS[1]}.values(),
                                       np.array(DOCS, dtype=object), iter(DOCS)])
def test_ordered_containers_are_accepted(tiny_bert_path, documents):
    embedder = ShuffleDivideEmbedder(tiny_bert_path, max_epochs=0, lexical_weight=0,
                                     verbose=0, inference_dtype="float32")
    expected = embedder.fit(DOCS).transform(DOCS)
    np.testing.assert_allclose(embedder.fit(documents).transform(DOCS), expected, atol=1e-6)


def test_lone_surrogate_names_the_document(tmp_path):
    # Text decoded with errors="surrogateescape": b"caf\xe9" -> "caf\udce9".
    broken = b"caf\xe9 au lait".decode("utf-8", errors="surrogateescape")
    with pytest.raises(ValueError, match=r"X\[1\] is not valid Unicode: it holds the lone "
                                         r"surrogate '\\udce9' at character 3"):
        refused_before_loading(tmp_path, [DOCS[0], broken, DOCS[1]])
    with pytest.raises(OSError):  # valid Unicode passes the check, on to the model
        refused_before_loading(tmp_path, ["café au lait", "naïve 東京"])


def test_embedder_refuses_a_dict_and_a_surrogate_before_loading(tmp_path):
    # The model does not exist: the documents are checked first, so their error shows.
    embedder = ShuffleDivideEmbedder(tmp_path / "no-model", max_epochs=0, verbose=0)
    with pytest.raises(TypeError, match="X is a dict, a mapping"):
        embedder.fit({"a": DOCS[0], "b": DOCS[1]})
    with pytest.raises(ValueError, match=r"X\[0\] is not valid Unicode"):
        embedder.fit(["caf\udce9"])


# -- streams of documents ----------------------------------------------------------------
# transform_iter reads a stream in bounded chunks and names a bad item by its position
# in the stream.
@pytest.fixture(scope="module")
def fitted(tiny_bert_path, corpus):
    # float32: a document's embedding does not depend on the chunk it is batched in (to
    # 1e-6; bfloat16's to 1e-3, tests/test_embedders.py).
    return ShuffleDivideEmbedder(tiny_bert_path, max_epochs=0, lexical_weight=0,
                                 inference_dtype="float32", verbose=0).fit(corpus[0][:8])


@pytest.mark.parametrize("chunk_size", [0, -1, 2.5, True])
def test_chunk_size_below_one_is_refused(fitted, corpus, chunk_size):
    read = []

    def stream():
        for document in corpus[0]:
            read.append(document)
            yield document

    with pytest.raises(InvalidParameterError, match=r"'chunk_size' parameter of "
                                                    r"transform_iter must be an int in the "
                                                    r"range \[1, inf\)"):
        next(fitted.transform_iter(stream(), chunk_size=chunk_size))
    assert read == []  # refused before reading the stream


def test_a_bad_item_is_named_by_its_position_in_the_stream(fitted, corpus):
    docs = corpus[0][:5] + [None] + corpus[0][5:8]
    chunks = fitted.transform_iter(iter(docs), chunk_size=2)
    first = [next(chunks), next(chunks)]
    with pytest.raises(TypeError, match=r"item 5 of the stream is NoneType"):
        next(chunks)
    np.testing.assert_allclose(np.vstack(first), fitted.transform(corpus[0][:4]), atol=1e-6)


def test_a_lone_surrogate_is_named_by_its_position_in_the_stream(fitted):
    docs = ["fine text"] * 3 + ["bad \udcff text"]
    with pytest.raises(ValueError, match=r"documents\[3\] is not valid Unicode"):
        list(fitted.transform_iter(iter(docs), chunk_size=2))


def test_chunks_are_bounded_and_equal_transform(fitted, corpus):
    docs = corpus[0][:7]
    chunks = list(fitted.transform_iter(iter(docs), chunk_size=3))
    assert [len(chunk) for chunk in chunks] == [3, 3, 1]
    np.testing.assert_allclose(np.vstack(chunks), fitted.transform(docs), atol=1e-6)


@pytest.mark.parametrize("documents", ["one document", {"a": "b"}, {"x", "y"}])
def test_containers_that_are_not_streams_of_documents_are_refused(fitted, documents):
    with pytest.raises(TypeError, match="documents"):
        next(fitted.transform_iter(documents))
