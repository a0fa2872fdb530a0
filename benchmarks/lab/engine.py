"""The embedder's training engine and transform, measured beside sentence-transformers:
the views, the two sides (``ContrastiveNet`` and sentence-transformers' low-level training
step), timing, FLOP counts and the transform and training measurements. ``bench_embedder``
and ``gpu_check`` are command lines on it; see ``bench_embedder.py`` for what is measured."""

import gc
import os
import re
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

DATA_HOME = None  # scikit-learn's data home: SCIKIT_LEARN_DATA, else its default
TEMPERATURE = 0.1  # ours; sentence-transformers' scale is 1 / temperature
LEARNING_RATE, WEIGHT_DECAY = 3e-5, 0.01

# name: what one run measures. "pairs" per training batch; "docs" embedded by transform.
FULL = dict(
    n_docs=3000, repeat=2, transform_repeat=3, mini_batch_size=32,
    transform=[dict(max_length=128, docs=128), dict(max_length=512, docs=64)],
    train=[dict(name="small", max_length=128, pairs=16, peer="MNRL"),
           dict(name="small", max_length=128, pairs=32, peer="MNRL"),
           dict(name="small", max_length=512, pairs=16, peer="MNRL"),
           dict(name="large", max_length=128, pairs=128, peer="CachedMNRL")],
    memory=dict(pairs=320, max_length=256, probe_views=24, mini_batch_sizes=[32, 16]),
)
QUICK = dict(
    n_docs=1000, repeat=1, transform_repeat=2, mini_batch_size=32,
    transform=[dict(max_length=128, docs=32), dict(max_length=512, docs=16)],
    train=[dict(name="small", max_length=128, pairs=16, peer="MNRL"),
           dict(name="small", max_length=512, pairs=8, peer="MNRL"),
           dict(name="large", max_length=128, pairs=32, peer="CachedMNRL")],
    memory=dict(pairs=32, max_length=256, probe_views=8, mini_batch_sizes=[32, 16]),
)
TARGETS = dict(train_ratio=1.2, transform_ratio=1.1, mfu=0.5, peak_rss_gib=4.0)


# -- helpers ---------------------------------------------------------------------------
def split_sentences(document):
    """A regex sentence splitter (fast; Punkt is not what is measured here)."""
    return re.split(r"(?<=[.!?])\s+", document)


def load_documents(n_docs, data_home=DATA_HOME):
    """The first ``n_docs`` cleaned 20 Newsgroups documents, in a fixed shuffled order."""
    from sklearn_shufdiv.datasets import fetch_20newsgroups_clean

    bunch = fetch_20newsgroups_clean(data_home=data_home, download_if_missing=False,
                                     shuffle=True, random_state=0)
    return list(bunch.data[:n_docs])


def load_views(n_docs, data_home=DATA_HOME, documents=None):
    """The documents (:func:`load_documents` unless given) and one draw of their Shuffle &
    Divide pairs, in a fixed random order (batches mix lengths as training batches do)."""
    from lab.internals import ShuffleDividePositives

    if documents is None:
        documents = load_documents(n_docs, data_home)
    documents = list(documents[:n_docs])
    strategy = ShuffleDividePositives(sentence_splitter=split_sentences).fit(documents, 0)
    pairs = strategy.sample(np.random.default_rng(0))
    permutation = np.random.default_rng(1).permutation(len(pairs))
    return documents, pairs, permutation


def view_batch(keys, texts):
    """A training batch as the engine takes it."""
    from lab.internals import ViewBatch

    keys = np.asarray(keys)
    return ViewBatch(list(texts), torch.as_tensor(keys), keys)


def pair_batch(pairs, permutation, n_pairs, start=0):
    """The batch as ``EpochBatches`` makes it, and the two columns for the peer."""
    chunk = permutation[start:start + n_pairs]
    anchors = [pairs.texts_a[i] for i in chunk]
    positives = [pairs.texts_b[i] for i in chunk]
    keys = np.concatenate([pairs.keys_a[chunk], pairs.keys_b[chunk]])
    return view_batch(keys, anchors + positives), anchors, positives


def token_lengths(tokenizer, texts, max_length):
    """Tokens of each text, special tokens included, as the engine tokenises them."""
    ids = tokenizer(list(texts), truncation=True, max_length=max_length)["input_ids"]
    return np.array([len(row) for row in ids])


def synchronize(device):
    if torch.device(device).type == "cuda":
        torch.cuda.synchronize()


def timed(fn, device):
    synchronize(device)
    start = time.perf_counter()
    fn()
    synchronize(device)
    return time.perf_counter() - start


class MatmulPeak:
    """Best matrix-multiply rate seen in this run (FLOP/s), sampled between measurements."""

    def __init__(self, device, dtype, n=2048):  # 8192 on a GPU: 2048 leaves it idle
        self.device, self.dtype, self.n = device, dtype, n
        self.samples = []

    def sample(self, repeat=3):
        a = torch.randn(self.n, self.n, device=self.device, dtype=self.dtype)
        b = torch.randn(self.n, self.n, device=self.device, dtype=self.dtype)
        best = min(timed(lambda: a @ b, self.device) for _ in range(repeat))
        self.samples.append(2 * self.n ** 3 / best)
        return self.samples[-1]

    @property
    def best(self):
        return max(self.samples)


def non_embedding_parameters(encoder):
    """Parameters of the transformer layers: what 6ND counts (not the embeddings, not the
    pooler, which runs once per text)."""
    return sum(p.numel() for p in encoder.transformer.encoder.parameters())


def engine_plan(net, texts):
    """Token counts of the net's training step on ``texts`` (its own plan of mini-batches,
    at its ``max_length`` and ``mini_batch_size``): real, padded, and those run twice."""
    batches, _, keep = net.mini_batches(texts)
    real = [int(mask.sum()) for _, mask in batches]
    return dict(real_tokens=sum(real), padded_tokens=sum(ids.numel() for ids, _ in batches),
                mini_batches=len(batches), kept_graphs=keep,
                recomputed_tokens=sum(real[keep:]))


def peer_plan(tokenizer, anchors, positives, max_length, mini_batch_size=None):
    """Padded tokens of sentence-transformers' step: each column padded to its longest
    member, or, cached, each ``mini_batch_size`` slice of a column to its own longest."""
    padded = real = 0
    for column in (anchors, positives):
        lengths = token_lengths(tokenizer, column, max_length)
        real += int(lengths.sum())
        step = mini_batch_size or len(lengths)
        padded += sum(int(lengths[i:i + step].max()) * len(lengths[i:i + step])
                      for i in range(0, len(lengths), step))
    return dict(real_tokens=real, padded_tokens=padded)


def quiet_transformers():
    from transformers.utils import logging

    logging.disable_progress_bar()
    logging.set_verbosity_error()


# -- the two sides ---------------------------------------------------------------------
def make_net(model_path, max_length, mini_batch_size, device):
    """Our engine, built as ``BaseContrastiveEmbedder.fit`` builds it (AdamW, fused where
    torch has a kernel for the device)."""
    from lab.internals import ContrastiveNet, load_encoder

    tokenizer, encoder = load_encoder(model_path)
    net = ContrastiveNet(
        encoder.to(device), tokenizer=tokenizer, max_length=max_length,
        mini_batch_size=mini_batch_size, amp_dtype=torch.bfloat16,
        lr=LEARNING_RATE, optimizer__weight_decay=WEIGHT_DECAY,
        criterion__temperature=TEMPERATURE, max_epochs=1, device=device, verbose=0,
    )
    return net.initialize()


class Peer:
    """sentence-transformers' training step and encode, on the same model."""

    def __init__(self, model_path, device):
        from sentence_transformers import SentenceTransformer

        self.device = device
        self.model = SentenceTransformer(str(model_path), device=device)
        if torch.device(device).type == "cuda":
            # bf16 autocast around the model's forward, as their trainer (accelerate) puts
            # it: it then also covers the forward that the cached loss replays in backward.
            self.model.forward = torch.autocast("cuda", dtype=torch.bfloat16)(
                self.model.forward)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=LEARNING_RATE,
                                           weight_decay=WEIGHT_DECAY)
        self.losses = {}

    def loss(self, kind, mini_batch_size):
        try:
            from sentence_transformers.sentence_transformer import losses
        except ImportError:  # sentence-transformers < 6
            from sentence_transformers import losses

        if (kind, mini_batch_size) not in self.losses:
            if kind == "MNRL":
                loss = losses.MultipleNegativesRankingLoss(self.model, scale=1 / TEMPERATURE)
            else:
                loss = losses.CachedMultipleNegativesRankingLoss(
                    self.model, scale=1 / TEMPERATURE, mini_batch_size=mini_batch_size)
            self.losses[kind, mini_batch_size] = loss
        return self.losses[kind, mini_batch_size]

    def train_step(self, anchors, positives, kind, max_length, mini_batch_size):
        self.model.max_seq_length = max_length
        self.model.train()
        loss = self.loss(kind, mini_batch_size)
        preprocess = getattr(self.model, "preprocess", None) or self.model.tokenize
        features = [preprocess(anchors), preprocess(positives)]
        features = [{k: v.to(self.device) if torch.is_tensor(v) else v for k, v in f.items()}
                    for f in features]
        value = loss(features, None)
        value.backward()
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
        return float(value.detach())

    def encode(self, documents, max_length, batch_size):
        self.model.max_seq_length = max_length
        return self.model.encode(documents, batch_size=batch_size, convert_to_numpy=True)


def fitted_embedder(model_path, documents, max_length, mini_batch_size, device):
    """The estimator, untuned (``max_epochs=0``): its ``transform`` is what is timed,
    truncating at ``max_length`` as sentence-transformers' ``encode`` does
    (``max_windows=1``; whole documents are ``bench_windows.py``'s subject)."""
    from sklearn_shufdiv import ShuffleDivideEmbedder

    return ShuffleDivideEmbedder(
        model_path, max_length=max_length, max_windows=1, mini_batch_size=mini_batch_size,
        max_epochs=0, lexical_weight=0,  # the encoder alone, as sentence-transformers
        device=device, verbose=0, random_state=0,
    ).fit(documents[:4])


# -- measurements ----------------------------------------------------------------------
def measure_transform(case, documents, model_path, peer, config, device, peak):
    docs = documents[:case["docs"]]
    embedder = fitted_embedder(model_path, documents, case["max_length"],
                               config["mini_batch_size"], device)
    embedder.transform(docs[:2])  # warm-up
    peer.encode(docs[:2], case["max_length"], config["mini_batch_size"])
    ours, theirs, out = [], [], {}
    repeat = config.get("transform_repeat", config["repeat"])
    for r in range(repeat):
        runs = [("ours", lambda: out.__setitem__("ours", embedder.transform(docs))),
                ("theirs", lambda: out.__setitem__("theirs", peer.encode(
                    docs, case["max_length"], config["mini_batch_size"])))]
        for name, fn in runs if r % 2 == 0 else runs[::-1]:
            (ours if name == "ours" else theirs).append(timed(fn, device))
        peak.sample()
    difference = float(np.abs(out["ours"] - out["theirs"]).max())
    lengths = token_lengths(embedder.tokenizer_, docs, case["max_length"])
    ours_s, theirs_s = min(ours), min(theirs)
    return dict(case, batch_size=config["mini_batch_size"], repeat=repeat,
                ours_s=ours_s, theirs_s=theirs_s,
                ours_docs_per_s=len(docs) / ours_s, theirs_docs_per_s=len(docs) / theirs_s,
                ratio=theirs_s / ours_s, real_tokens=int(sum(lengths)),
                max_abs_difference=difference, ours_runs=ours, theirs_runs=theirs)


def measure_train(case, net, peer, pairs, permutation, config, device, peak, n_params):
    mbs = config["mini_batch_size"]
    batch, anchors, positives = pair_batch(pairs, permutation, case["pairs"])
    net.max_length, net.mini_batch_size = case["max_length"], mbs
    plan = engine_plan(net, batch.texts)
    peer_mbs = mbs if case["peer"] == "CachedMNRL" else None
    their_plan = peer_plan(net.tokenizer, anchors, positives, case["max_length"], peer_mbs)
    ours, theirs = [], []
    for r in range(config["repeat"]):
        runs = [("ours", lambda: net.train_step(batch)),
                ("theirs", lambda: peer.train_step(anchors, positives, case["peer"],
                                                   case["max_length"], mbs))]
        for name, fn in runs if r % 2 == 0 else runs[::-1]:
            (ours if name == "ours" else theirs).append(timed(fn, device))
            gc.collect()
        peak.sample()
    views = 2 * case["pairs"]
    ours_s, theirs_s = min(ours), min(theirs)
    flops = 6 * n_params * plan["real_tokens"]
    return dict(
        case, mini_batch_size=mbs, views=views, ours_s=ours_s, theirs_s=theirs_s,
        ours_views_per_s=views / ours_s, theirs_views_per_s=views / theirs_s,
        ratio=theirs_s / ours_s, ours_plan=plan, theirs_plan=their_plan,
        ours_padding=plan["padded_tokens"] / plan["real_tokens"],
        theirs_padding=their_plan["padded_tokens"] / their_plan["real_tokens"],
        cached_step=plan["kept_graphs"] < plan["mini_batches"],
        model_flops_per_s=flops / ours_s,
        # 6ND plus the second forward (2ND) of the views GradCache runs again.
        hardware_flops_per_s=(flops + 2 * n_params * plan["recomputed_tokens"]) / ours_s,
        theirs_model_flops_per_s=6 * n_params * their_plan["real_tokens"] / theirs_s,
        ours_runs=ours, theirs_runs=theirs,
    )
