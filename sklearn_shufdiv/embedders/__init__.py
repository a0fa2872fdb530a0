"""Transformer encoders fine-tuned contrastively on the corpus, as scikit-learn transformers."""

from ..exceptions import FitInterruptedWarning
from ._encoder._loading import load_encoder
from ._encoder._pooling import MeanPoolingEncoder
from ._spaces._lexical import LexicalSpace, choose_lexical_weight, fuse
from ._text._neighbors import top1_cosine_neighbors
from ._text._positives import (
    DEFAULT_TFIDF_PARAMS,
    ShuffleDividePositives,
    TfidfNeighborPairs,
    TfidfNeighborPositives,
    mine_tfidf_positives,
    pair_label_agreement,
)
from ._training._criteria import (
    Candidate,
    SelectionContext,
    SelectionCriterion,
    SilhouetteCriterion,
    StabilityCriterion,
    UntunedSilhouetteCriterion,
)
from ._training._engine import ContrastiveNet, ViewBatch
from ._training._loss import NTXentLoss, nt_xent_loss, prototype_loss
from ._training._objectives import ClusterNegatives, NTXent, Objective, ProtoNCE
from .shuffle_divide import ShuffleDivideEmbedder
from .tfidf_positive import TfidfPositiveEmbedder

__all__ = [
    "DEFAULT_TFIDF_PARAMS",
    "Candidate",
    "ClusterNegatives",
    "ContrastiveNet",
    "FitInterruptedWarning",
    "LexicalSpace",
    "MeanPoolingEncoder",
    "NTXent",
    "NTXentLoss",
    "Objective",
    "ProtoNCE",
    "SelectionContext",
    "SelectionCriterion",
    "ShuffleDivideEmbedder",
    "ShuffleDividePositives",
    "SilhouetteCriterion",
    "StabilityCriterion",
    "TfidfNeighborPairs",
    "TfidfNeighborPositives",
    "TfidfPositiveEmbedder",
    "UntunedSilhouetteCriterion",
    "ViewBatch",
    "choose_lexical_weight",
    "fuse",
    "load_encoder",
    "mine_tfidf_positives",
    "nt_xent_loss",
    "pair_label_agreement",
    "prototype_loss",
    "top1_cosine_neighbors",
]
