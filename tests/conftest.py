"""Shared fixtures: a small topical corpus and tiny encoders built locally; hypothesis profiles;
the settings of a small embedder (``SMALL``).

Nothing is downloaded: the tiny models are trained/initialised here and saved with
``save_pretrained`` into a temporary directory, then loaded through the same
``from_pretrained(path)`` code a user's model name goes through.
"""

import os
import shutil

import numpy as np
import pytest
import torch
from hypothesis import settings

# Tiny models gain nothing from threads, and threads that spin on a busy 2-core machine
# slow every test down.
torch.set_num_threads(1)

# Property tests: few examples by default (every run, CI included), many on demand with
# HYPOTHESIS_PROFILE=thorough (e.g. before a release, or after changing a metric). Tests
# set only what they need (deadline=None), so the profile chooses the number of examples.
settings.register_profile("fast", max_examples=40, deadline=None)
settings.register_profile("thorough", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "fast"))

TOPICS = {
    "sport": "team match goal player coach season league score win cup referee stadium",
    "space": "orbit rocket planet moon launch star galaxy telescope nasa astronaut comet",
    "cooking": "recipe oven flour sugar butter bake dinner kitchen spice sauce garlic onion",
    "finance": "market stock bank price trade investor profit share fund bond loan rate",
}
#: The settings of a small, fast fit on the tiny encoders; tests add what they vary, e.g.
#: ``ShuffleDivideEmbedder(tiny_bert_path, **{**SMALL, "n_clusters": 4})``.
SMALL = dict(max_epochs=2, batch_size=8, mini_batch_size=6, max_length=32, random_state=0,
             verbose=0)
FILLER = "the a of and to in is was it that with for on as at by this".split()


def make_corpus(n_per_topic=12, n_sentences=(4, 9), seed=0):
    """Documents of several sentences, each drawn from one topic's vocabulary."""
    rng = np.random.default_rng(seed)
    docs, labels = [], []
    for label, words in enumerate(TOPICS.values()):
        words = words.split()
        for _ in range(n_per_topic):
            sentences = []
            for _ in range(rng.integers(*n_sentences)):
                n = rng.integers(5, 10)
                tokens = [
                    words[rng.integers(len(words))] if rng.random() < 0.6
                    else FILLER[rng.integers(len(FILLER))]
                    for _ in range(n)
                ]
                sentences.append(" ".join(tokens).capitalize() + ".")
            docs.append(" ".join(sentences))
            labels.append(label)
    return docs, np.array(labels)


@pytest.fixture(scope="session")
def corpus():
    """(documents, labels): 48 short documents in 4 topics."""
    return make_corpus()


def _train_wordpiece(texts, path):
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, trainers
    from transformers import BertTokenizerFast

    tok = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tok.normalizer = normalizers.BertNormalizer(lowercase=True)
    tok.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    tok.decoder = decoders.WordPiece()
    trainer = trainers.WordPieceTrainer(
        vocab_size=300, special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    )
    tok.train_from_iterator(texts, trainer)
    fast = BertTokenizerFast(tokenizer_object=tok, model_max_length=64)
    fast.save_pretrained(path)
    return fast


@pytest.fixture(scope="session")
def tiny_bert_path(tmp_path_factory, corpus):
    """Directory of a tiny randomly initialised BERT with a WordPiece vocabulary."""
    import torch
    from transformers import BertConfig, BertModel

    path = tmp_path_factory.mktemp("tiny-bert")
    docs, _ = corpus
    tokenizer = _train_wordpiece(docs + [" ".join(TOPICS.values())], path)
    torch.manual_seed(0)
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=64,
    )
    BertModel(config).save_pretrained(path)
    return str(path)


@pytest.fixture(scope="session")
def tiny_roberta_path(tmp_path_factory, corpus):
    """Directory of a tiny randomly initialised RoBERTa with a byte-level BPE vocabulary."""
    import torch
    from tokenizers import ByteLevelBPETokenizer, processors
    from transformers import RobertaConfig, RobertaModel, RobertaTokenizerFast

    path = tmp_path_factory.mktemp("tiny-roberta")
    docs, _ = corpus
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(
        docs, vocab_size=400, special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    )
    bpe.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0))
    tokenizer = RobertaTokenizerFast(tokenizer_object=bpe._tokenizer, model_max_length=64)
    tokenizer.save_pretrained(path)
    torch.manual_seed(0)
    config = RobertaConfig(
        vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, max_position_embeddings=66, pad_token_id=tokenizer.pad_token_id,
    )
    RobertaModel(config).save_pretrained(path)
    return str(path)


@pytest.fixture
def embed_calls(monkeypatch):
    """The number of texts of every ``ContrastiveNet.embed`` call, in order."""
    from sklearn_shufdiv.embedders._training import _engine

    calls = []
    embed = _engine.ContrastiveNet.embed

    def spy(net, texts, *args, **kwargs):
        calls.append(len(texts))
        return embed(net, texts, *args, **kwargs)

    monkeypatch.setattr(_engine.ContrastiveNet, "embed", spy)
    return calls


def spy_training(monkeypatch):
    """What the loss sees each step (epoch, the batch's documents, pseudo-labels,
    prototypes) and every sample embedding the selection computed, in order."""
    from sklearn_shufdiv.embedders._training import _engine

    seen, embedded = [], []
    batch_loss = _engine.ContrastiveNet.batch_loss
    embed = _engine.ContrastiveNet.embed

    def spy_loss(net, views, batch):
        prototypes = None if net.prototypes_ is None else net.prototypes_.numpy().copy()
        seen.append((len(net.history), batch.documents.copy(), net.pseudo_labels_.copy(),
                     prototypes))
        return batch_loss(net, views, batch)

    def spy_embed(net, texts, *args, **kwargs):
        out = embed(net, texts, *args, **kwargs)
        embedded.append(out)
        return out

    monkeypatch.setattr(_engine.ContrastiveNet, "batch_loss", spy_loss)
    monkeypatch.setattr(_engine.ContrastiveNet, "embed", spy_embed)
    return seen, embedded


@pytest.fixture
def interrupt_at(monkeypatch):
    """Make the training step raise KeyboardInterrupt (Ctrl-C) on its n-th call.

    ``install(n)`` returns a function that puts the real step back;
    ``install.steps["n"]`` counts the training steps attempted since (each call,
    interrupted or not).
    """
    from sklearn_shufdiv.embedders._training._engine import ContrastiveNet

    step = ContrastiveNet.train_step_single
    steps = {"n": 0}

    def install(n):
        steps["n"] = 0

        def interrupted(self, batch, **kwargs):
            steps["n"] += 1
            if steps["n"] == n:
                raise KeyboardInterrupt
            return step(self, batch, **kwargs)

        monkeypatch.setattr(ContrastiveNet, "train_step_single", interrupted)
        return lambda: monkeypatch.setattr(ContrastiveNet, "train_step_single", step)

    install.steps = steps
    return install


@pytest.fixture
def model_copy(tmp_path, tiny_bert_path):
    """A copy of the tiny BERT's folder that a test may damage."""
    return shutil.copytree(tiny_bert_path, tmp_path / "model")


@pytest.fixture
def folder(tmp_path, corpus):
    """An input folder of the command line: 16 documents of ``corpus`` in 4 topic
    folders (sport, space, cooking, finance)."""
    docs, labels = corpus
    names = ["sport", "space", "cooking", "finance"]
    root = tmp_path / "in"
    for i, (doc, label) in enumerate(zip(docs[::3], labels[::3])):
        (root / names[label]).mkdir(parents=True, exist_ok=True)
        (root / names[label] / f"doc{i:02d}.txt").write_text(doc, encoding="utf-8")
    return root


def sphere_blobs(n_clusters, n_samples=240, n_features=12, spread=0.05, seed=0):
    """Rows around ``n_clusters`` orthogonal directions (well separated), random lengths."""
    rng = np.random.default_rng(seed)
    directions = np.linalg.qr(rng.standard_normal((n_features, n_clusters)))[0].T
    labels = np.arange(n_samples) % n_clusters
    X = directions[labels] + spread * rng.standard_normal((n_samples, n_features))
    return X * rng.uniform(0.5, 2.0, size=(n_samples, 1)), labels


def unit(X):
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def blobs_on_sphere(n_blobs, per_blob, dim, noise, seed):
    """Rows of norm 1 around ``n_blobs`` random directions, and their blob."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(n_blobs, dim))
    centers /= np.linalg.norm(centers, axis=1, keepdims=True)
    blob = np.repeat(np.arange(n_blobs), per_blob)
    X = centers[blob] + noise * rng.normal(size=(len(blob), dim)) / np.sqrt(dim)
    return X / np.linalg.norm(X, axis=1, keepdims=True), blob
