"""Declarative parameter validation, on public scikit-learn API only.

scikit-learn validates ``_parameter_constraints`` with helpers that live in a private module
(``sklearn.utils._param_validation``); depending on them is how third-party packages break on
upgrades. This module keeps the same declarative style and the same entry points:

- :func:`validate_params`, a decorator for public functions, as scikit-learn's;
- :func:`fit_context`, a decorator for ``fit`` and ``partial_fit`` that validates the
  estimator's parameters against its ``_parameter_constraints``, as scikit-learn's private
  ``_fit_context``;
- :func:`validate_parameter_constraints`, the check both run;
- :class:`InvalidParameterError`, both a ``ValueError`` and a ``TypeError``, as
  scikit-learn's, so that code catching either for a bad parameter catches it.

Validation is skipped under scikit-learn's public ``skip_parameter_validation`` setting
(:func:`sklearn.set_config`, :func:`sklearn.config_context`); a validated function or fit
sets it for what it calls, unless ``prefer_skip_nested_validation=False``.

A constraint is one of:

- a type (``int``, ``float``, ``str``, ``list``, ...), matched with ``isinstance``
  (``bool`` is not accepted where ``int`` or ``float`` is asked for);
- ``None``;
- ``"boolean"``, ``"random_state"``, ``"array-like"`` (not a str or bytes),
  ``"sparse matrix"``, ``"callable"``;
- an :class:`Interval`, :class:`Options` or :class:`HasMethods` instance.
"""

import functools
import inspect
import math
import numbers
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from sklearn import config_context, get_config
from sklearn.exceptions import NotFittedError
from sklearn.utils.validation import check_is_fitted

from ..exceptions import InvalidParameterError

__all__ = [
    "HasMethods",
    "Interval",
    "InvalidParameterError",
    "Options",
    "fit_context",
    "validate_estimator_params",
    "validate_parameter_constraints",
    "validate_params",
]


@dataclass(frozen=True)
class Interval:
    """Numbers of a given type between ``left`` and ``right`` (``None`` is unbounded).

    ``closed`` is one of ``"both"``, ``"left"``, ``"right"``, ``"neither"``. NaN is never
    in an interval, nor are infinities: an unbounded side is open.
    """

    type: type
    left: float | None
    right: float | None
    closed: str = "both"

    def is_satisfied_by(self, value):
        if isinstance(value, bool) or not isinstance(value, self.type):
            return False
        if not isinstance(value, numbers.Integral) and not math.isfinite(value):
            return False  # NaN compares False with every bound; +-inf is beyond them
        if self.left is not None:
            if value < self.left or (value == self.left and self.closed in ("right", "neither")):
                return False
        if self.right is not None:
            if value > self.right or (value == self.right and self.closed in ("left", "neither")):
                return False
        return True

    def __str__(self):
        name = "an int" if self.type is numbers.Integral else "a float"
        lo = "-inf" if self.left is None else self.left
        hi = "inf" if self.right is None else self.right
        lb = "[" if self.closed in ("both", "left") and self.left is not None else "("
        rb = "]" if self.closed in ("both", "right") and self.right is not None else ")"
        return f"{name} in the range {lb}{lo}, {hi}{rb}"


@dataclass(frozen=True)
class Options:
    """One of a fixed set of values (e.g. strings)."""

    options: frozenset

    def __init__(self, options):
        object.__setattr__(self, "options", frozenset(options))

    def is_satisfied_by(self, value):
        return isinstance(value, str) and value in self.options

    def __str__(self):
        return "a str among " + str(sorted(self.options))


@dataclass(frozen=True)
class HasMethods:
    """An object with all the given methods (e.g. ``HasMethods(["fit_transform"])``)."""

    methods: tuple

    def __init__(self, methods):
        object.__setattr__(self, "methods", tuple(methods))

    def is_satisfied_by(self, value):
        return all(callable(getattr(value, method, None)) for method in self.methods)

    def __str__(self):
        return "an object implementing " + " and ".join(repr(m) for m in self.methods)


def _is_array_like(value):
    """Array-like, as scikit-learn's validator has it: not a str, bytes or 0-d array."""
    if isinstance(value, (str, bytes)):
        return False
    ndim = getattr(value, "ndim", None)
    if ndim is not None:
        return ndim > 0
    return hasattr(value, "__len__") or hasattr(value, "__array__")


def _satisfies(value, constraint):
    if constraint is None:
        return value is None
    if isinstance(constraint, (Interval, Options, HasMethods)):
        return constraint.is_satisfied_by(value)
    if constraint == "boolean":
        return isinstance(value, (bool, np.bool_))
    if constraint == "random_state":
        return (
            value is None
            or isinstance(value, np.random.RandomState)
            or (isinstance(value, numbers.Integral) and not isinstance(value, bool))
        )
    if constraint == "array-like":
        return _is_array_like(value)
    if constraint == "sparse matrix":
        return sp.issparse(value)
    if constraint == "callable":
        return callable(value)
    if isinstance(constraint, type):
        if isinstance(value, bool) and constraint in (numbers.Integral, numbers.Real, int, float):
            return False
        return isinstance(value, constraint)
    raise TypeError(f"Unknown constraint {constraint!r}")


def _describe(constraint):
    if constraint is None:
        return "None"
    if isinstance(constraint, type):
        return f"an instance of {constraint.__name__!r}"
    if isinstance(constraint, str):
        return {"random_state": "an int, a numpy RandomState or None",
                "array-like": "an array-like (not a str)",
                "boolean": "a bool"}.get(constraint, f"a {constraint}")
    return str(constraint)


def validate_parameter_constraints(constraints, params, caller):
    """Check each parameter in ``params`` against its list of ``constraints``.

    Parameters
    ----------
    constraints : dict
        Parameter name to a list of constraints; the value must satisfy at least one.
        A parameter with the constraint ``"no_validation"``, or not in ``constraints``, is
        not checked.
    params : dict
        Parameter name to value, e.g. ``estimator.get_params(deep=False)``.
    caller : str
        The name shown in error messages (the function's or the estimator's class name).

    Raises
    ------
    InvalidParameterError
        If a value satisfies none of its constraints: both a ValueError and a TypeError.

    Examples
    --------
    >>> from numbers import Integral
    >>> validate_parameter_constraints({"n": [Interval(Integral, 1, None)]}, {"n": 3}, "f")
    >>> validate_parameter_constraints({"n": [Interval(Integral, 1, None)]}, {"n": 0}, "f")
    Traceback (most recent call last):
    ...
    sklearn_shufdiv.exceptions.InvalidParameterError: The 'n' parameter of f must \
be an int in the range [1, inf). Got 0 instead.
    """
    for name, value in params.items():
        allowed = constraints.get(name)
        if allowed is None or allowed == "no_validation":
            continue
        if any(_satisfies(value, c) for c in allowed):
            continue
        described = [_describe(c) for c in allowed]
        text = described[0] if len(described) == 1 else (
            ", ".join(described[:-1]) + " or " + described[-1]
        )
        raise InvalidParameterError(
            f"The {name!r} parameter of {caller} must be {text}. Got {value!r:.200} instead."
        )


def validate_params(parameter_constraints, *, prefer_skip_nested_validation=True):
    """Decorator: validate a public function's arguments against ``parameter_constraints``.

    Every parameter of the function must be listed (``"no_validation"`` for one that is
    checked elsewhere, e.g. data checked with its own message).

    Parameters
    ----------
    parameter_constraints : dict
        Parameter name to a list of constraints (see the module's docstring).
    prefer_skip_nested_validation : bool, default=True
        Skip the parameter validation of the functions and estimators the function calls
        (their parameters are then the function's own, already checked). False where the
        function passes on values it did not check itself (a metric name, an estimator).

    Returns
    -------
    decorator : callable

    Examples
    --------
    >>> from numbers import Integral
    >>> @validate_params({"n": [Interval(Integral, 1, None)]})
    ... def twice(n):
    ...     return 2 * n
    >>> twice(3)
    6
    >>> twice(n=2.5)
    Traceback (most recent call last):
    ...
    sklearn_shufdiv.exceptions.InvalidParameterError: The 'n' parameter of twice \
must be an int in the range [1, inf). Got 2.5 instead.
    """

    def decorator(function):
        signature = inspect.signature(function)
        missing = set(signature.parameters) - set(parameter_constraints)
        if missing:
            raise ValueError(f"{function.__qualname__}: no constraints for {sorted(missing)}")

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            skip = get_config()["skip_parameter_validation"]
            if not skip:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                validate_parameter_constraints(parameter_constraints, bound.arguments,
                                               function.__qualname__)
            with config_context(skip_parameter_validation=prefer_skip_nested_validation or skip):
                return function(*args, **kwargs)

        return wrapper

    return decorator


def _is_fitted(estimator):
    try:
        check_is_fitted(estimator)
    except NotFittedError:
        return False
    return True


def validate_estimator_params(estimator):
    """Check ``estimator.get_params(deep=False)`` against its ``_parameter_constraints``.

    What :func:`fit_context` runs; for a fit that cannot take the decorator. Honours
    scikit-learn's ``skip_parameter_validation`` setting.

    Raises
    ------
    InvalidParameterError
        Naming the parameter and the estimator's class.
    """
    if not get_config()["skip_parameter_validation"]:
        validate_parameter_constraints(estimator._parameter_constraints,
                                       estimator.get_params(deep=False),
                                       type(estimator).__name__)


def fit_context(*, prefer_skip_nested_validation=True):
    """Decorator of ``fit`` methods: validate the estimator's parameters, once, first.

    The parameters (``get_params(deep=False)``) are checked against the class's
    ``_parameter_constraints`` before anything else runs; ``partial_fit`` checks them on
    its first call only (while the estimator is not fitted).

    Parameters
    ----------
    prefer_skip_nested_validation : bool, default=True
        Skip the parameter validation of what ``fit`` calls (see :func:`validate_params`).

    Returns
    -------
    decorator : callable
    """

    def decorator(fit_method):
        @functools.wraps(fit_method)
        def wrapper(estimator, *args, **kwargs):
            skip = get_config()["skip_parameter_validation"]
            if not (fit_method.__name__ == "partial_fit" and _is_fitted(estimator)):
                validate_estimator_params(estimator)
            with config_context(skip_parameter_validation=prefer_skip_nested_validation or skip):
                return fit_method(estimator, *args, **kwargs)

        return wrapper

    return decorator
