"""transform_iter reads a stream in bounded chunks and names a bad item by its position
in the stream."""

import numpy as np
import pytest

from sklearn_shufdiv import ShuffleDivideEmbedder
from sklearn_shufdiv.exceptions import InvalidParameterError


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
