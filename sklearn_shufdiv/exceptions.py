"""The exceptions the package raises beyond Python's and scikit-learn's own."""

__all__ = ["FitInterruptedWarning", "InvalidParameterError"]


class InvalidParameterError(ValueError, TypeError):
    """A parameter of a function or an estimator has an invalid type or value.

    Raised, before any work is done, by every public function and ``fit`` of the package
    whose argument breaks its documented constraints (a type, a range, a set of options).
    It is both a :class:`ValueError` and a :class:`TypeError`, as scikit-learn's own
    ``InvalidParameterError``, so code that catches either for a bad parameter catches it.

    Examples
    --------
    >>> from sklearn_shufdiv.cluster import SphericalKMeans
    >>> from sklearn_shufdiv.exceptions import InvalidParameterError
    >>> try:
    ...     SphericalKMeans(n_clusters=0).fit([[1.0, 0.0], [0.0, 1.0]])
    ... except InvalidParameterError as error:
    ...     print(error)
    The 'n_clusters' parameter of SphericalKMeans must be an int in the range [1, inf)...
    >>> issubclass(InvalidParameterError, ValueError), issubclass(InvalidParameterError, TypeError)
    (True, True)
    """


class FitInterruptedWarning(RuntimeWarning):
    """An embedder's ``fit`` was interrupted (Ctrl-C) and returned the model of its
    completed epochs (``best_epoch_`` and ``history_`` say which); with a
    ``checkpoint_dir``, calling ``fit`` again resumes it."""
