"""Epoch-selection criteria studied and not shipped, plugged in as ``selection=`` values.

``SilhouetteCriterion`` (``"silhouette"`` in the scripts) scores each epoch's clustering
in the epoch's own space: contrastive training tightens the space, and the score rises
with it, so it kept tuned epochs whether they were better or worse (see
``benchmarks/README.md``). :func:`criterion` gives the value of a name of the scripts.
"""

from sklearn_shufdiv.embedders import SelectionCriterion

from .internals import CRITERIA as PACKAGE_CRITERIA
from .internals import resolve_criterion, silhouette_or_worst

__all__ = ["CRITERIA", "SilhouetteCriterion", "criterion"]


class SilhouetteCriterion(SelectionCriterion):
    """The cosine silhouette of the chosen k-means clustering (-1 where undefined).

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn_shufdiv.cluster import cluster_on_sphere
    >>> from sklearn_shufdiv.embedders import Candidate
    >>> X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    >>> candidate = Candidate(1, X, cluster_on_sphere(X, 2))
    >>> round(SilhouetteCriterion().score(candidate, None), 3)
    0.993
    """

    name = "silhouette"

    def score(self, candidate, context):
        return silhouette_or_worst(candidate.clustering.unit, candidate.labels)


#: Every criterion the scripts name: the package's and the lab's.
CRITERIA = {**PACKAGE_CRITERIA, "silhouette": SilhouetteCriterion}


def criterion(selection):
    """The ``selection`` value of a script's name: the package's names as they are, the
    lab's as an instance; a :class:`SelectionCriterion` as it is."""
    if isinstance(selection, str) and selection not in PACKAGE_CRITERIA:
        if selection not in CRITERIA:
            raise ValueError(f"selection={selection!r}: expected one of {sorted(CRITERIA)}.")
        return CRITERIA[selection]()
    return selection


def resolve(selection):
    """The fit's own criterion of a script's ``selection`` (a fresh copy)."""
    return resolve_criterion(criterion(selection))
