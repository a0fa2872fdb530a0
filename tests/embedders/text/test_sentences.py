"""Sentences of every script: documents of scripts Punkt does not know are split on their
own sentence-final marks, and a fit says what share of the corpus it trains on."""

import warnings

import numpy as np
import pytest

from sklearn_shufdiv import ShuffleDivideEmbedder, exceptions
from sklearn_shufdiv.embedders._text import _coverage
from sklearn_shufdiv.embedders._text._positives import ShuffleDividePositives
from sklearn_shufdiv.embedders._text._sentences import make_sentence_splitter

CHINESE = "今天天气很好。我们去公园散步！公园里有很多人。你想一起去吗？孩子们在玩。"
ARABIC = ("هل قرأت الكتاب؟ نعم قرأته أمس. كان الكتاب طويلا. هل أعجبك؟ "
          "أعجبني كثيرا. سأقرأ غيره؟")
URDU = "میں گھر جا رہا ہوں۔ آج بارش ہے۔ کل دھوپ تھی۔ پرسوں بادل تھے۔"
HINDI = "मैं घर जा रहा हूँ। आज बारिश है। कल धूप थी। परसों बादल थे।"


@pytest.mark.parametrize("text, sentences", [
    (CHINESE, ["今天天气很好。", "我们去公园散步！", "公园里有很多人。", "你想一起去吗？",
               "孩子们在玩。"]),
    (URDU, ["میں گھر جا رہا ہوں۔", "آج بارش ہے۔", "کل دھوپ تھی۔", "پرسوں بادل تھے۔"]),
    (HINDI, ["मैं घर जा रहा हूँ।", "आज बारिश है।", "कल धूप थी।", "परसों बादल थे।"]),
], ids=["chinese", "urdu", "hindi"])
def test_auto_splits_other_scripts_on_their_final_marks(text, sentences):
    split = make_sentence_splitter("auto", [text, "An English text. It has two."])
    assert split(text) == sentences


def test_arabic_question_marks_end_sentences():
    split = make_sentence_splitter("auto", [ARABIC])
    sentences = split(ARABIC)
    assert [s[-1] for s in sentences] == ["؟", ".", ".", "؟", ".", "؟"]
    assert " ".join(sentences) == ARABIC.strip()


def test_latin_text_is_split_as_before():
    docs = ["The match ended. Fans cheered! Did the coach smile? Goals came late."]
    assert make_sentence_splitter("auto", docs)(docs[0]) == [
        "The match ended.", "Fans cheered!", "Did the coach smile?", "Goals came late."]


def _chinese_corpus(n=8):
    rng = np.random.default_rng(0)
    sentences = [s + "。" for s in CHINESE.replace("！", "。").replace("？", "。").split("。") if s]
    return ["".join(rng.permutation(sentences)) for _ in range(n)]


def test_an_all_chinese_corpus_trains_on_every_document(tiny_bert_path, capsys):
    docs = _chinese_corpus()
    assert ShuffleDividePositives(4).fit(docs).n_pairs == len(docs)
    embedder = ShuffleDivideEmbedder(tiny_bert_path, max_epochs=1, batch_size=4,
                                     lexical_weight=0, random_state=0, verbose=1)
    embedder.fit(docs)
    assert embedder.training_fraction_ == 1.0
    assert "training on 8 of 8 documents (100%)" in capsys.readouterr().out


def test_training_fraction_is_reported_and_warned_of_when_small(tiny_bert_path, corpus):
    long_docs = corpus[0][:4]
    short = ["One sentence only."] * 16 + [f"Short text {i}. Two sentences." for i in range(4)]
    docs = long_docs + short
    expected = sum(len(make_sentence_splitter("auto", docs)(d)) >= 4 for d in docs) / len(docs)
    assert expected == 4 / 24 < _coverage.MIN_TRAINING_FRACTION
    embedder = ShuffleDivideEmbedder(tiny_bert_path, max_epochs=1, batch_size=4,
                                     lexical_weight=0, random_state=0, verbose=0)
    with pytest.warns(exceptions.FewTrainingDocumentsWarning,
                      match=r"trains on 17% of the documents: only 4 of 24 documents have "
                            r"at least min_sentences=4"):
        embedder.fit(docs)
    assert embedder.training_fraction_ == expected


def test_no_warning_when_most_documents_are_trained_on(tiny_bert_path, corpus):
    docs = corpus[0][:12] + ["One sentence only."] * 4
    embedder = ShuffleDivideEmbedder(tiny_bert_path, max_epochs=1, batch_size=4,
                                     lexical_weight=0, random_state=0, verbose=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", exceptions.FewTrainingDocumentsWarning)
        embedder.fit(docs)
    split = make_sentence_splitter("auto", docs)
    assert embedder.training_fraction_ == sum(len(split(d)) >= 4 for d in docs) / len(docs)
    assert embedder.training_fraction_ >= _coverage.MIN_TRAINING_FRACTION


def test_no_training_means_a_fraction_of_zero(tiny_bert_path, corpus):
    embedder = ShuffleDivideEmbedder(tiny_bert_path, max_epochs=0, lexical_weight=0,
                                     verbose=0).fit(corpus[0][:8])
    assert embedder.training_fraction_ == 0.0


def _returns_none(text):
    return None


def _returns_ints(text):
    return [1, 2, 3, 4]


def _returns_the_text(text):
    return text


def _returns_none_items(text):
    return ["One.", None, "Three.", "Four."]


@pytest.mark.parametrize("splitter, returned", [
    (_returns_none, r"NoneType \(None\)"),
    (_returns_ints, r"a list holding int \(1\)"),
    (_returns_the_text, r"str \('The match"),
    (_returns_none_items, r"a list holding NoneType \(None\)"),
], ids=["none", "ints", "a-string", "none-items"])
def test_a_splitter_that_does_not_return_sentences_is_named(tiny_bert_path, corpus, splitter,
                                                            returned):
    embedder = ShuffleDivideEmbedder(tiny_bert_path, max_epochs=1, batch_size=4,
                                     sentence_splitter=splitter, verbose=0)
    docs = ["The match ended. Fans cheered. The coach smiled. Goals came late."] * 8
    with pytest.raises(TypeError, match=r"sentence_splitter must return a list of str .*for "
                                        rf"document 0 it returned {returned}"):
        embedder.fit(docs)


def _generator(text):
    yield from (s + "." for s in text.split(".") if s.strip())


def test_a_splitter_may_return_any_iterable_of_str():
    docs = ["One. Two. Three. Four."]
    positives = ShuffleDividePositives(4, sentence_splitter=_generator).fit(docs)
    assert positives.sentences_ == [["One.", " Two.", " Three.", " Four."]]
