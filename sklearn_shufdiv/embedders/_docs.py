"""The documentation the two embedders share, written once and filled into both docstrings.

An embedder's docstring holds the lines ``{shared_parameters}`` and ``{shared_attributes}``
where these go (at the class docstring's indentation); :func:`fill_shared_docs` fills them.
"""

SHARED_PARAMETERS = """\
model_name_or_path : str or path-like, default="bert-base-uncased"
    A Hugging Face model name or a local directory (any ``AutoModel``: BERT, RoBERTa...).
max_length : int, default=None
    Tokens per window, special tokens included (None is the model's limit). A
    document longer than that is read whole, as windows of ``max_length`` tokens
    that cover it: its embedding is the token-weighted mean of its windows' mean
    pooled embeddings, which without overlap is mean pooling over all its tokens
    with attention limited to each window (see :ref:`long-documents`).
max_windows : int or None, default=16
    Windows per document at most, in ``transform`` and the epoch selection: a
    document's first ``max_windows * (max_length - 2)`` tokens (for BERT's two
    special tokens) are read, cut into the fewest windows of near-equal sizes. None
    reads every document whole; 1 is truncation at ``max_length``. Measured with the
    frozen MiniLM-L6 and windows of 128 tokens (ACC / AMI, spherical k-means, best of
    10 runs, mean of 5 seeds; ``benchmarks/bench_windows.py``): on BBC (2,225
    articles) 0.943 / 0.834 with 1 window, 0.956 / 0.868 with 4, 0.959 / 0.876 with
    16, 0.959 / 0.875 whole; on Reuters-10 (7,456 stories) 0.423 / 0.565, 0.435 /
    0.567, 0.430 / 0.560, 0.430 / 0.560 (within k-means noise); on 2,000 20
    Newsgroups posts 0.579 / 0.577, 0.577 / 0.587, 0.564 / 0.577, 0.578 / 0.587
    (k-means std up to 0.026). 16 windows read 99% of BBC's tokens and all of
    Reuters', and bound the cost of the longest 20 Newsgroups posts (up to 138,000
    tokens: 16 windows read 75% of that corpus' tokens).
window_stride : int or None, default=None
    Tokens between the starts of two windows: below a window's text
    (``max_length`` less the special tokens), windows overlap, and the token
    weights count the overlapping tokens twice. None: no overlap, which is
    exact mean pooling over the document's tokens. Measured on BBC (frozen MiniLM-L6,
    windows of 128 tokens, as for ``max_windows``): ACC 0.959 / AMI 0.875 without
    overlap, 0.957 / 0.870 with ``window_stride=63`` (half a window), which reads
    1.9 times the tokens.
max_view_windows : int or None, default=1
    Windows per training view at most. 1 truncates each view (a half of a document,
    or a document) at ``max_length``; more reads longer views whole, the view's
    embedding being the pooled embedding of its windows, through which the
    gradient flows into every window. Measured on 1,000 BBC articles (MiniLM-L6, 1
    epoch, batch 64, 128-token windows, one training seed, ACC / AMI over 5 k-means
    seeds; ``benchmarks/bench_view_windows.py``): truncated views 0.952 / 0.862,
    whole views 0.943 / 0.844 for 2.1 times the training time, the frozen encoder
    0.953 / 0.864; so views stay truncated by default.
lexical_weight : float in [0, 1) or "auto", default=0.5
    The share of the words in the embedding. Above 0, ``fit`` also fits the
    corpus' LSA space (sublinear TF-IDF without English stop words, terms in 2
    documents to half of them, truncated SVD), and ``transform`` returns
    ``[sqrt(1 - w) e, sqrt(w) l]`` for the document's unit encoder embedding ``e``
    and unit LSA vector ``l``: the cosine of two documents is ``1 - w`` times their
    encoder cosine plus ``w`` times their LSA cosine, and the epoch selection
    clusters this space. 0 returns the encoder's embeddings alone (also
    ``set_params(lexical_weight=0)`` after ``fit``). The encoder misses what the
    words say where a bag of words clusters better. Measured with the frozen
    MiniLM-L6 (128-token windows, at most 16; ACC / AMI, spherical k-means best of
    10 runs, mean of 5 seeds; ``benchmarks/bench_lexical.py``), 0.5 is above the
    encoder alone on every corpus and at or near the best bag of words: BBC (2,225)
    0.967 / 0.897 against the encoder's 0.959 / 0.876 and LSA's 0.968 / 0.896;
    Reuters-10 (7,456) 0.430 / 0.590 against 0.413 / 0.550 and TF-IDF's 0.436 /
    0.570; 4,000 20 Newsgroups posts 0.631 / 0.625 against 0.583 / 0.587 and LSA's
    0.573 / 0.555. No weight wins everywhere (0.7 is best on BBC, 0.3 on Reuters,
    0.5 on 20 Newsgroups); the default is the even mix, chosen before measuring.
    "auto" chooses it, with ``n_clusters``, from 0, 0.1, ..., 0.9 on the selection's
    sample embedded by the untuned encoder, without labels: the weight whose
    clustering has the greatest silhouette in the encoder's space plus in the LSA
    space, each relative to that space's own clustering
    (:func:`~sklearn_shufdiv.embedders.choose_lexical_weight`; 0.5 without
    ``n_clusters``). It is not the default because it did not beat 0.5 everywhere:
    same protocol, BBC 0.970 / 0.904 (chose 0.7-0.8), Reuters 0.430 / 0.586, the 4,000
    20 Newsgroups posts 0.628 / 0.625; on a 1,000-post sample of 20 Newsgroups it
    chose 0.4-0.7 where the ACC curve is flat within its noise, 0.544 / 0.552 against
    0.5's 0.578 / 0.572. The weight used is ``lexical_weight_``. The lexical space is
    part of the fitted embedder, not of the encoder that ``save_pretrained`` exports.
    See :ref:`lexical`.
lexical_components : int, default=100
    Dimensions of the LSA space at most (fewer for a corpus of fewer documents or
    terms); ``transform`` returns the encoder's dimension plus these.
temperature : float, default=0.2
    NT-Xent temperature. Lower values push harder on the closest negatives, which
    in a corpus of few topics are mostly documents of the same topic. Measured on
    600 BBC articles (MiniLM-L6, 2 epochs, batch 64, 128 tokens; frozen encoder
    ACC 0.922): ACC 0.942 / 0.950 / 0.948 at 0.1 / 0.2 / 0.5
    (``benchmarks/reproduce.py --quick --temperature T``).
learning_rate : float, default=3e-5
    AdamW learning rate (the fused kernel where torch has one for the device). A
    schedule (warm-up, decay) is a skorch ``LRScheduler`` in ``callbacks``.
weight_decay : float, default=0.01
    AdamW weight decay.
batch_size : int, default=320
    Positive pairs per batch, across all processes: each view has
    ``2 * batch_size - 2`` negatives. An epoch's pairs are cut into nearly equal
    batches, none larger than ``batch_size`` except that no batch is left with a
    single pair (with ``batch_size=2`` and an odd number of pairs, one batch has 3).
    A smaller corpus trains in one batch.
mini_batch_size : int or "auto", default="auto"
    Views per forward pass (gradient caching): bounds memory without shrinking the
    batch; also the batch size of ``transform``. "auto" is 16 on a CPU (as fast as
    32, and a 320-pair step of 256-token MiniLM-L6 views peaks at 3.1 GiB instead
    of 5.3 GiB), 32 on CUDA, 64 on a GPU of at least 40 GiB.
max_epochs : int, default=3
    Training epochs; 0 keeps the encoder untuned.
n_clusters : int, default=None
    When set, each epoch (and the untuned encoder, epoch 0) embeds a sample of the
    corpus, clusters it with :class:`~sklearn_shufdiv.cluster.SphericalKMeans` into
    this many clusters (its default restarts, the best objective kept) and is scored
    by ``selection``; the best epoch's weights are kept. When None, the last epoch's
    are.
selection : {"untuned-silhouette", "silhouette", "stability"} or SelectionCriterion, \
default="untuned-silhouette"
    How the epochs are scored when ``n_clusters`` is set. "untuned-silhouette"
    scores each epoch's clustering (found in that epoch's space) by its cosine
    silhouette in the untuned encoder's space as ``transform`` returns it: one fixed
    space for all epochs, in which epoch 0's clustering is k-means' own, so a tuned
    epoch is kept only when it partitions the untuned space better; the criterion
    leans to the untuned encoder on purpose. "silhouette" scores each clustering in
    its own epoch's space, which training tightens, so that it rises whatever the
    clusters become. "stability"
    (:class:`~sklearn_shufdiv.embedders.StabilityCriterion`) does not compare
    partitions: it keeps the last epoch while the sample's k-means clusters stay
    reproducible (the mean pairwise adjusted Rand index of 5 seeded clusterings at
    least 0.9), and epoch 0 where the untuned encoder's are not, skipping training
    then; it is meant for the prototype term, which sharpens the clusters it starts
    from. With the term, on all of BBC, it kept epoch 2 in 5 training seeds of 5,
    0.972 / 0.910 against the untuned 0.966 / 0.895; on 20 Newsgroups (4,000) it
    skipped training in every seed; on Reuters it trained 2 seeds of 5 (stability
    0.87-0.95 there). A :class:`~sklearn_shufdiv.embedders.SelectionCriterion`
    instance is any other criterion (see :ref:`model-selection`). Screened on
    1,000-document samples, one training seed (``benchmarks/research/selection.py``,
    ``results/*_default1000``): the own-space silhouette kept a tuned epoch on all 5
    runs with every epoch kept, 0.5 ACC point worse on BBC, 4.0 worse on 20
    Newsgroups, 3.5 better on Reuters; this criterion kept epoch 0 on 4 and a
    0.4-point-better epoch on the fifth. Safe there, not yet useful: see
    :ref:`model-selection`.
selection_sample_size : int, default=5000
    Documents embedded to score an epoch (a fixed random sample); None for all.
cluster_negatives : {None, "exclude", "positive"}, default=None
    Cluster-aware negatives (needs ``n_clusters``). Before each epoch, every
    document of the selection's sample gets a pseudo-label: its cluster in the
    selection's clustering of the previous epoch (epoch 0: the untuned encoder, in
    the space ``transform`` returns, the words included). In the loss, the views of
    the anchor's pseudo-cluster are then no negatives: "exclude" leaves them out of
    the denominator, "positive" makes them positives too (SupCon with the
    pseudo-labels as labels); documents outside the sample are as with None, which
    is Shuffle & Divide's instance discrimination, every other view a negative.
    Screened on 1,000-document samples (one training seed, 2 epochs, the research
    code of ``benchmarks/research/train.py``, clustered in the fused space of
    ``lexical_weight=0.5``, ACC / AMI over 5 k-means seeds): "positive" 0.583 / 0.588
    after epoch 1 on 20 Newsgroups against 0.575 / 0.577 without and 0.551 / 0.556
    untuned; 0.444 / 0.598 after epoch 2 on Reuters against 0.409 / 0.560 untuned.
    In the package, one epoch from the default's untuned space (1,000 documents, one
    seed, one k-means seed; ``results/*_supcon1000``), ACC went below epoch 0's on
    BBC (0.956 against 0.960), Reuters (0.406 against 0.435) and 20 Newsgroups
    (0.599 against 0.626, where plain Shuffle & Divide gave 0.522); "exclude", 2
    epochs (``results/*_exclude1000``), lowered BBC to 0.956 / 0.869 (epoch 0: 0.960
    / 0.883) and 20 Newsgroups to 0.556 / 0.575 (0.626 / 0.607), where the
    selection kept that epoch 2: with pseudo-labels shaping the space, check the
    chosen epoch on labelled data like yours. Off by default.
prototype_weight : float or "auto", default=0.0
    Weight of a clustering term added to NT-Xent (needs ``n_clusters``; 0 is Shuffle &
    Divide's loss alone; "auto" is 1 with ``n_clusters`` and 0 without, so that it
    never asks for prototypes a fit has not got): ProtoNCE's prototype term (Li et
    al., ICLR 2021, :func:`~sklearn_shufdiv.embedders.prototype_loss`), the
    cross-entropy of each view's cosine similarity to the centres of the selection's
    clustering of the previous epoch (as for ``cluster_negatives``; centres in the
    encoder's space, at the loss's ``temperature``), with its document's cluster as
    the target. It pulls
    each document towards its cluster while instance discrimination pushes documents
    apart. Documents outside the selection's sample add nothing to it. On
    1,000-document samples (MiniLM-L6, weight 1, 2 epochs, ACC / AMI over 5 k-means
    seeds of the space ``transform`` returns), the tuned epoch 2 against epoch 0: BBC
    +0.4 / +1.0 and +0.6 / +1.5 (two training seeds; plain Shuffle & Divide, seed 0:
    -0.1 / -0.7), 20 Newsgroups +2.6 / +2.7 and -1.1 / +1.6 (plain, seed 0: -1.0 /
    +0.5), Reuters +2.4 / +0.8 and -0.7 / -1.5; the default selection kept epoch 0 on
    BBC. On all of BBC (2 epochs, two seeds) epoch 2 gave 0.971 / 0.907 and 0.972 /
    0.909 against the untuned 0.967 / 0.897 and 0.966 / 0.895 and LSA's 0.968 / 0.896,
    and the selection kept epoch 0; a third epoch lowered Reuters' samples by 1-2 ACC
    points. With ``selection="stability"``, which trains only where the untuned
    clusters are stable and keeps the last epoch: all of BBC 0.972 / 0.910 over 5
    training seeds (frozen encoder 0.959 / 0.876, LSA 0.968 / 0.896), training
    skipped on 20 Newsgroups; on Reuters the gate opened for 2 seeds of 5. Off by
    default: not better on every corpus and seed (see :ref:`training`).
pseudo_clusters : int or None, default=None
    Clusters of the pseudo-labels that ``cluster_negatives`` and the prototype term
    train on; None: ``n_clusters``, the selection's own clustering. Another number
    clusters the selection's sample a second time each epoch, in the same space (an
    over-clustering, e.g. 2-4 times ``n_clusters``, as ProtoNCE's finer prototypes:
    where the first clustering is poor, finer clusters are purer, at the price of
    treating documents of one class in different sub-clusters as negatives). The
    epoch selection still clusters into ``n_clusters``. No effect with neither
    ``cluster_negatives`` nor ``prototype_weight``; at most the selection's sample
    size. With the prototype term at weight 1, 3 times the classes, 1,000-document
    samples, 2 epochs (ACC / AMI over 5 k-means seeds against epoch 0): 20 Newsgroups
    +1.8 / +2.6 (``n_clusters``: +2.6 / +2.7), BBC +0.2 / +0.1 (+0.4 / +1.0), Reuters
    -2.1 / -1.2 (+2.4 / +0.8); one training seed each. Not better: None stays the
    default.
pseudo_fraction : float in (0, 1], default=1.0
    The fraction of each pseudo-cluster that keeps its pseudo-label for
    ``cluster_negatives`` and the prototype term: its documents of largest margin, the
    cosine similarity to their own cluster's centre minus that to the nearest other
    centre (in the space clustered); the others are treated as documents outside the
    selection's sample, and the prototypes are the centres of the documents kept. 1
    labels them all. A first clustering's errors lie mostly at its clusters' borders;
    training on the confident cores keeps fewer of them. No effect with neither
    ``cluster_negatives`` nor ``prototype_weight``. With the prototype term at weight
    1 and 0.5 here (1,000-document samples, 2 epochs, two training seeds, ACC / AMI
    over 5 k-means seeds against epoch 0): 20 Newsgroups +0.5 / +1.4 and -1.7 / +1.6
    (all labelled: +2.6 / +2.7 and -1.1 / +1.6), Reuters -2.1 / -1.2 and -0.5 / -1.1
    (+2.4 / +0.8 and -0.7 / -1.5). Not better: 1 stays the default.
normalize : bool, default=True
    L2-normalise the output of ``transform`` (the loss only trains directions). With
    ``lexical_weight`` above 0 the rows are two weighted unit vectors, of norm 1
    either way.
device : str, default="auto"
    "auto" (CUDA when available, else CPU), "cpu", "cuda" or "cuda:N". CUDA uses
    bfloat16 autocast; the CPU computes in float32.
checkpoint_dir : str or path-like, default=None
    Save the fit after every epoch there; calling ``fit`` again with the same
    parameters, documents and model resumes from the last completed epoch (see
    :ref:`checkpoints`).
random_state : int, RandomState instance or None, default=None
    Seeds the views (Shuffle & Divide's shuffles), the batch order, dropout and the
    selection's k-means. An int gives the same embeddings on the CPU.
verbose : int, default=1
    0 is silent; 1 shows progress bars (moving with every mini-batch) and a line per
    epoch.
callbacks : list of skorch callbacks or (name, callback) pairs, default=None
    skorch callbacks run after the engine's own, each epoch and batch:
    ``LRScheduler``, ``GradientNormClipping``, ``EarlyStopping``, loggers, your own
    ``Callback``. They can monitor the history keys ``train_loss``,
    ``selection_score`` and ``selection_score_best`` (see :ref:`training`)."""

SHARED_ATTRIBUTES = """\
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
best_epoch_ : int
    The epoch whose weights were kept (0: tuning did not help). After an
    interruption (Ctrl-C), at most the last completed epoch.
selection_indices_ : ndarray of shape (n_selection,)
    The documents scored to select the epoch (only when ``n_clusters`` is set).
selection_labels_ : ndarray of shape (n_epochs + 1, n_selection)
    Their spherical k-means clusters after each epoch (row 0: untuned), so that the
    selection can be checked against labels where some exist (the benchmarks do).
lexical_ : LexicalSpace or None
    The corpus' LSA space (TF-IDF vocabulary and SVD) that ``transform`` appends,
    None when ``lexical_weight=0``.
lexical_weight_ : float
    The weight of the words the fit used: ``lexical_weight``, or the one "auto"
    chose.
prototype_weight_ : float
    The prototype term's weight the fit used: ``prototype_weight``, "auto" being 1
    with ``n_clusters`` and 0 without."""


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
