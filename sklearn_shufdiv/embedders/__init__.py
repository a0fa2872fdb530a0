"""Transformer encoders fine-tuned contrastively on the corpus, as scikit-learn transformers.

The two estimators differ only in how they make positive pairs. Training objectives
(``objective=``), the head trained over the frozen encoder (``head=``,
:class:`LinearHead`) and epoch-selection criteria (``selection=``) are values with a small
protocol: :class:`Objective` and :class:`SelectionCriterion` (which scores a
:class:`Candidate` in its :class:`SelectionContext`); a new one is a small subclass.

The code is grouped by stage: ``_text`` (documents, sentences, positive pairs),
``_encoder`` (loading, pooling, windows, batching, precision, device), ``_training``
(objectives, loss, epoch selection, checkpoints, the engine) and ``_spaces`` (the LSA
space and its join with the encoder's).
"""

from ._encoder._loading import load_encoder
from ._training._criteria import Candidate, SelectionContext, SelectionCriterion, StabilityCriterion
from ._training._head import LinearHead
from ._training._objectives import NTXent, Objective, ProtoNCE
from .shuffle_divide import ShuffleDivideEmbedder
from .tfidf_positive import TfidfPositiveEmbedder

__all__ = [
    "Candidate",
    "LinearHead",
    "NTXent",
    "Objective",
    "ProtoNCE",
    "SelectionContext",
    "SelectionCriterion",
    "ShuffleDivideEmbedder",
    "StabilityCriterion",
    "TfidfPositiveEmbedder",
    "load_encoder",
]
