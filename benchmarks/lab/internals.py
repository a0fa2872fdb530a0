"""The package's internals that the benchmarks measure or build on, in one place.

The scripts import no private module of the package: what they time or compare below the
public estimators (the k-means steps, the windows, the encoder's batching and precision,
the training engine, the LSA space and its join, the TF-IDF neighbours) they reach through
here, so that a change of the package's internals shows in this file only.
"""

from sklearn_shufdiv.cluster._modularity import plateau_choice
from sklearn_shufdiv.cluster._numerics import scaled_rows
from sklearn_shufdiv.cluster._seeding import _unit_rows_at as unit_rows
from sklearn_shufdiv.cluster._seeding import kmeans_plusplus as spherical_kmeans_plusplus
from sklearn_shufdiv.embedders import load_encoder
from sklearn_shufdiv.embedders._encoder._pooling import encode
from sklearn_shufdiv.embedders._encoder._precision import (
    check_inference_dtype,
    cpu_has_bfloat16,
    inference_encoder,
)
from sklearn_shufdiv.embedders._encoder._windows import cut_windows
from sklearn_shufdiv.embedders._spaces._lexical import (
    LexicalSpace,
    choose_lexical_weight,
    fuse,
    join_words,
)
from sklearn_shufdiv.embedders._spaces._views import choose_view_weights, join_views
from sklearn_shufdiv.embedders._text._frozen_views import HalfViews
from sklearn_shufdiv.embedders._text._neighbors import top1_cosine_neighbors
from sklearn_shufdiv.embedders._text._positives import (
    DEFAULT_TFIDF_PARAMS,
    ShuffleDividePositives,
    TfidfNeighborPositives,
    content_keys,
    mine_tfidf_positives,
    pair_label_agreement,
)
from sklearn_shufdiv.embedders._training._criteria import (
    CRITERIA,
    UntunedSilhouetteCriterion,
    resolve_criterion,
    silhouette_or_worst,
)
from sklearn_shufdiv.embedders._training._engine import ContrastiveNet, ViewBatch
from sklearn_shufdiv.embedders._training._head import (
    LinearHead,
    PseudoLabelSpace,
    apply_head,
    resolve_head,
    train_head,
    view_agreement,
)
from sklearn_shufdiv.embedders._training._loss import NTXentLoss, nt_xent_loss, prototype_loss
from sklearn_shufdiv.utils._graph import cluster_graph, modularity, neighbor_graph
from sklearn_shufdiv.utils._param_validation import Interval, Options, validate_params

__all__ = [
    "HalfViews", "LinearHead", "PseudoLabelSpace", "apply_head", "content_keys", "resolve_head",
    "train_head", "view_agreement", "TfidfNeighborPositives",
    "cluster_graph", "modularity", "neighbor_graph", "plateau_choice",
    "Interval", "Options", "validate_params",
    'CRITERIA', 'ContrastiveNet', 'DEFAULT_TFIDF_PARAMS', 'LexicalSpace', 'NTXentLoss',
    'ShuffleDividePositives', 'UntunedSilhouetteCriterion', 'ViewBatch',
    'check_inference_dtype', 'choose_lexical_weight', 'choose_view_weights',
    'cpu_has_bfloat16', 'cut_windows', 'encode', 'fuse',
    'inference_encoder', 'join_views', 'join_words', 'load_encoder', 'mine_tfidf_positives',
    'nt_xent_loss', 'pair_label_agreement', 'prototype_loss', 'resolve_criterion', 'scaled_rows',
    'silhouette_or_worst', 'spherical_kmeans_plusplus', 'top1_cosine_neighbors', 'unit_rows'
]
