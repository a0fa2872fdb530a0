"""Transformer encoders fine-tuned contrastively on the corpus, as scikit-learn transformers."""

from ._encoder import MeanPoolingEncoder, load_encoder
from ._loss import NTXentLoss, nt_xent_loss
from ._neighbors import mine_tfidf_positives, pair_label_agreement
from .shuffle_divide import ShuffleDivideEmbedder
from .tfidf_positive import TfidfPositiveEmbedder

__all__ = [
    "MeanPoolingEncoder",
    "NTXentLoss",
    "ShuffleDivideEmbedder",
    "TfidfPositiveEmbedder",
    "load_encoder",
    "mine_tfidf_positives",
    "nt_xent_loss",
    "pair_label_agreement",
]
