"""The embedders' checks of the documents they are given (``check_documents``)."""

import numpy as np
import pytest

from sklearn_shufdiv import ShuffleDivideEmbedder
from sklearn_shufdiv.embedders._text._validation import check_documents

DOCS = ["First document. It has sentences.", "Second one. Also short."]


@pytest.mark.parametrize("corpus, message", [
    ({"a.txt": DOCS[0], "b.txt": DOCS[1]}, r"X is a dict, a mapping: iterating it would "
                                           r"embed its keys.*list\(X\.values\(\)\)"),
    (set(DOCS), r"X is a set: a set has no order.*sorted\(X\)"),
    (frozenset(DOCS), r"X is a frozenset: a set has no order"),
    ({"a": DOCS[0]}.keys(), r"X is a dict_keys: a set has no order"),
])
def test_mappings_and_sets_are_refused(corpus, message):
    with pytest.raises(TypeError, match=message):
        check_documents(corpus)


def test_ordered_containers_are_accepted():
    assert check_documents({"a": DOCS[0], "b": DOCS[1]}.values()) == DOCS
    assert check_documents(np.array(DOCS, dtype=object)) == DOCS
    assert check_documents(iter(DOCS)) == DOCS


def test_lone_surrogate_names_the_document():
    # Text decoded with errors="surrogateescape": b"caf\xe9" -> "caf\udce9".
    broken = b"caf\xe9 au lait".decode("utf-8", errors="surrogateescape")
    with pytest.raises(ValueError, match=r"X\[1\] is not valid Unicode: it holds the lone "
                                         r"surrogate '\\udce9' at character 3"):
        check_documents([DOCS[0], broken, DOCS[1]])
    assert check_documents(["café au lait", "naïve 東京"]) == ["café au lait", "naïve 東京"]


def test_embedder_refuses_a_dict_and_a_surrogate_before_loading(tmp_path):
    # The model does not exist: the documents are checked first, so their error shows.
    embedder = ShuffleDivideEmbedder(tmp_path / "no-model", max_epochs=0, verbose=0)
    with pytest.raises(TypeError, match="X is a dict, a mapping"):
        embedder.fit({"a": DOCS[0], "b": DOCS[1]})
    with pytest.raises(ValueError, match=r"X\[0\] is not valid Unicode"):
        embedder.fit(["caf\udce9"])
