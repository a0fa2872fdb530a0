"""How much of the corpus a fit trains on, said when it is fitted.

A document without a positive pair (too few sentences for Shuffle & Divide, no TF-IDF
neighbor) is embedded but not trained on; a corpus where most are so is tuned on a few
documents only, which the user should hear of rather than find out from the scores.
"""

import warnings

from tqdm.auto import tqdm

from ...exceptions import FewTrainingDocumentsWarning

#: Below this share of the documents trained on, ``fit`` warns. Chosen on BBC, 20
#: Newsgroups, WebKB-4 and Classic3, where Shuffle & Divide's default (4 sentences)
#: trains on 74% to 100% of the documents; Reuters-10's short stories give 41%, no
#: warning, and its tuned encoder still clusters them at least as well as the frozen one.
MIN_TRAINING_FRACTION = 0.25


def training_fraction(estimator, positives, n_documents, verbose=0):
    """The share of the ``n_documents`` that ``positives`` (a fitted positive-pair
    strategy, None when nothing is trained) trains on; said on a line when ``verbose``,
    and warned of when below :data:`MIN_TRAINING_FRACTION`.
    """
    if positives is None:
        return 0.0
    trained = len(positives.document_indices_)
    fraction = trained / n_documents
    if verbose:
        tqdm.write(f"training on {trained} of {n_documents} documents ({fraction:.0%})")
    if fraction < MIN_TRAINING_FRACTION:
        warnings.warn(FewTrainingDocumentsWarning(
            f"{type(estimator).__name__} trains on {fraction:.0%} of the documents: "
            f"{positives.describe_shortage(n_documents)} The others are embedded but not "
            "trained on (training_fraction_ says the share)."), stacklevel=5)
    return fraction
