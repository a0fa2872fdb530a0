"""The settings of a run, chosen by the device, and an estimate of its length.

On a CPU the command line trains what the README's CPU results used (128 tokens, batches
of 64 pairs, 1 epoch); on a GPU, the embedder's own defaults (the model's length limit,
batches of 320 pairs, 3 epochs). Options given explicitly always win. Before training,
the run's length is estimated from the time the encoder takes on a sample of the
documents, and the options that shorten it are named.
"""

import time
from dataclasses import dataclass

import numpy as np

from ..embedders import ShuffleDivideEmbedder
from ._parser import DEFAULT_LEXICAL_WEIGHT, DEFAULT_MAX_WINDOWS, DEFAULT_OBJECTIVE

#: Settings for a CPU: those of the README's CPU results (benchmarks/README.md).
CPU_SETTINGS = {"max_length": 128, "batch_size": 64, "max_epochs": 1}

#: A training view costs this many inference passes of its tokens: a forward pass without
#: gradients, another with them and the backward pass (GradCache), in train mode. Measured
#: with MiniLM-L6 on 2 CPU cores shared with other jobs (load average 6-9), 1 epoch: with
#: 4, the estimates for 150 BBC articles were 221 s and 78 s for runs of 320 s and 112 s
#: (128 and 64 tokens); with 6, 35 min for the demo's 15.5 min (600 articles). On such a
#: machine an estimate is good to a factor of about 2 either way.
TRAINING_PASSES_PER_VIEW = 6.0

#: Documents embedded to time the encoder (the median of a few timings), and documents
#: tokenised to measure lengths.
TIMING_SAMPLE, TIMING_REPEATS, LENGTH_SAMPLE = 32, 3, 512


@dataclass
class Settings:
    """What a run uses; ``from_device`` names the options the device chose."""

    device: str
    max_length: int
    batch_size: int
    max_epochs: int
    from_device: tuple = ()
    max_windows: object = DEFAULT_MAX_WINDOWS
    lexical_weight: object = DEFAULT_LEXICAL_WEIGHT
    objective: str = DEFAULT_OBJECTIVE

    def describe(self, training=True):
        """In words; without ``training`` (the frozen method), the length alone."""
        read = ("whole documents" if self.max_windows is None else
                f"{self.max_windows} window{'s' if self.max_windows != 1 else ''} a document")
        if self.lexical_weight == "auto":
            read += ", words weighted by the clusters (auto)"
        elif self.lexical_weight > 0:
            read += f", words weighted {self.lexical_weight:g}"
        if training:
            epochs = f"{self.max_epochs} epoch{'s' if self.max_epochs != 1 else ''}"
            text = (f"{self.device}, {self.max_length} tokens, {read}, batch "
                    f"{self.batch_size}, {epochs}")
            if self.objective != DEFAULT_OBJECTIVE:
                text += f", objective {self.objective}"
            chosen = self.from_device
        else:
            text = f"{self.device}, {self.max_length} tokens, {read}, no training"
            chosen = [option for option in self.from_device if "--max-length" in option]
        if chosen:
            text += f" (the {self.device} defaults: {', '.join(chosen)})"
        return text


def choose_settings(args, device, limit):
    """The settings of a run: the options given, else the device's defaults.

    Parameters
    ----------
    args : argparse.Namespace
        With ``max_length``, ``batch_size``, ``max_epochs`` (None: not given),
        ``max_windows``, ``lexical_weight`` and ``objective``.
    device : str
        The device the run uses (``--device`` resolved: "cpu", "cuda", "cuda:N").
    limit : int
        The model's length limit, in tokens.

    Returns
    -------
    settings : Settings
    """
    if device.startswith("cuda"):
        embedder = ShuffleDivideEmbedder().get_params()
        defaults = {"max_length": limit, "batch_size": embedder["batch_size"],
                    "max_epochs": embedder["max_epochs"]}
    else:
        defaults = dict(CPU_SETTINGS, max_length=min(CPU_SETTINGS["max_length"], limit))
    given = {name: getattr(args, name) for name in defaults}
    chosen = tuple(f"--{name.replace('_', '-')} {defaults[name]}"
                   for name, value in given.items() if value is None)
    values = {name: defaults[name] if value is None else value for name, value in given.items()}
    return Settings(device, from_device=chosen, max_windows=args.max_windows,
                    lexical_weight=args.lexical_weight, objective=args.objective, **values)


def _token_lengths(tokenizer, texts, cap, seed):
    """Token counts (special tokens included) of a sample of ``texts``, at most ``cap``
    (None: whole)."""
    rng = np.random.default_rng(seed)
    sample = [texts[i] for i in rng.permutation(len(texts))[:LENGTH_SAMPLE]]
    ids = tokenizer(sample, add_special_tokens=True, truncation=cap is not None,
                    max_length=cap, verbose=False)["input_ids"]
    return np.array([len(row) for row in ids], dtype=float)


def seconds_per_token(probe, texts, seed):
    """Inference time of the encoder per token, timed on a sample of ``texts``.

    ``probe`` is an untuned embedder fitted as :func:`~._pipeline.fit_probe` makes it:
    its ``transform`` is the encoder alone, each document truncated at its
    ``max_length`` (one window), in batches of :data:`TIMING_SAMPLE`.
    """
    rng = np.random.default_rng(seed)
    sample = [texts[i] for i in rng.permutation(len(texts))[:TIMING_SAMPLE]]
    probe.transform(sample[:2])  # warm-up: allocations, kernels
    timings = []
    for _ in range(TIMING_REPEATS):  # the median: other jobs come and go on a shared machine
        start = time.perf_counter()
        probe.transform(sample)
        timings.append(time.perf_counter() - start)
    seconds = float(np.median(timings))
    tokens = _token_lengths(probe.tokenizer_, sample, probe.net_.max_length, seed).sum()
    return seconds / max(tokens, 1.0)


@dataclass
class Estimate:
    """Seconds of each part of a run, estimated."""

    training: float
    embedding: float

    @property
    def total(self):
        return self.training + self.embedding


def clusters_a_sample(select, max_epochs, settings):
    """Whether a run embeds and clusters the selection's sample (``n_clusters`` is passed
    to the embedder): to choose the epoch, or without training to choose the weight of
    the words (``--lexical-weight auto``)."""
    return select and (max_epochs > 0 or settings.lexical_weight == "auto")


def estimate(tokenizer, texts, settings, per_token, *, method, select, sample_size, seed):
    """Estimate a run's length from ``per_token``, the encoder's inference seconds per
    token; ``select``: whether each epoch (and the untuned encoder) is scored, on at
    most ``sample_size`` documents."""
    # A document is read up to max_windows windows (each with its special tokens); the
    # lengths go up to 2 windows at least, for the halves of documents below.
    windows = settings.max_windows
    lengths = _token_lengths(tokenizer, texts, None if windows is None
                             else max(windows, 2) * settings.max_length, seed)
    document = (lengths if windows is None
                else np.minimum(lengths, windows * settings.max_length)).mean()
    n = len(texts)
    epochs = 0 if method == "frozen" else settings.max_epochs
    # Shuffle & Divide trains on halves of documents, TF-IDF positives on whole ones.
    view = np.minimum(lengths / 2 if method == "shuffle-divide" else lengths,
                      settings.max_length).mean()
    training = epochs * n * 2 * view * TRAINING_PASSES_PER_VIEW * per_token
    scored = min(n, sample_size) if clusters_a_sample(select, epochs, settings) else 0
    final = 0 if scored == n else n  # the selection's embeddings are reused when whole
    embedding = ((epochs + 1) * scored + final) * document * per_token
    return Estimate(float(training), float(embedding))


def duration_text(seconds):
    """Seconds in words: "40 s", "12 min", "1 h 20 min"."""
    if seconds < 90:
        return f"{max(seconds, 1):.0f} s"
    minutes = round(seconds / 60)
    return f"{minutes} min" if minutes < 90 else f"{minutes // 60} h {minutes % 60:02d} min"


def estimate_lines(estimate, settings, *, method, select):
    """The estimate, and what would shorten the run, as lines for stderr."""
    parts = (f"training {duration_text(estimate.training)}, embedding "
             f"{duration_text(estimate.embedding)}" if estimate.training else "embedding")
    lines = [f"estimated time: about {duration_text(estimate.total)} on {settings.device} "
             f"({parts}), from the encoder's speed on "
             f"{TIMING_SAMPLE} of the documents just now (other jobs on the machine make "
             "it vary)"]
    if method != "frozen" and settings.device == "cpu":
        shorter = []
        if settings.max_length > 64:
            shorter.append("--max-length 64 (about half the time)")
        if settings.max_epochs > 1:
            shorter.append("--max-epochs 1")
        if select:
            shorter.append("--no-select-epoch")
        shorter += ["--method frozen (no training)", "a GPU (--device cuda)"]
        lines.append("  to shorten it: " + ", ".join(shorter))
    return lines
