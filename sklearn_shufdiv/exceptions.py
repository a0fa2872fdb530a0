"""The exceptions the package raises beyond Python's and scikit-learn's own."""

__all__ = ["InvalidParameterError"]


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
