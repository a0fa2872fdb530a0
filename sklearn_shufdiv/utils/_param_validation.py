"""Declarative parameter validation, on public scikit-learn API only.

scikit-learn validates ``_parameter_constraints`` with helpers that live in a private module
(``sklearn.utils._param_validation``); depending on them is how third-party packages break on
upgrades. This module keeps the same declarative style with a few small constraint objects.

A constraint is one of:

- a type (``int``, ``float``, ``str``, ``list``, ...), matched with ``isinstance``
  (``bool`` is not accepted where ``int`` or ``float`` is asked for);
- ``None``;
- ``"boolean"``, ``"random_state"``, ``"array-like"``, ``"callable"``;
- an :class:`Interval` or :class:`Options` instance.
"""

import numbers
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Interval:
    """Numbers of a given type between ``left`` and ``right`` (``None`` is unbounded).

    ``closed`` is one of ``"both"``, ``"left"``, ``"right"``, ``"neither"``.
    """

    type: type
    left: float | None
    right: float | None
    closed: str = "both"

    def is_satisfied_by(self, value):
        if isinstance(value, bool) or not isinstance(value, self.type):
            return False
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


def _satisfies(value, constraint):
    if constraint is None:
        return value is None
    if isinstance(constraint, (Interval, Options)):
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
        return hasattr(value, "__len__") or hasattr(value, "__array__")
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
        return {"random_state": "an int, a numpy RandomState or None"}.get(constraint, constraint)
    return str(constraint)


def validate_params(params, constraints, caller):
    """Check each parameter in ``params`` against its list of ``constraints``.

    Parameters
    ----------
    params : dict
        Parameter name to value, e.g. ``estimator.get_params(deep=False)``.
    constraints : dict
        Parameter name to a list of constraints; the value must satisfy at least one.
        A parameter with the constraint ``"no_validation"`` is skipped.
    caller : str
        The name shown in error messages (usually the estimator's class name).

    Raises
    ------
    ValueError
        If a value satisfies none of its constraints (``InvalidParameterError``-like message).

    Examples
    --------
    >>> from numbers import Integral
    >>> validate_params({"n": 3}, {"n": [Interval(Integral, 1, None)]}, "f")
    >>> validate_params({"n": 0}, {"n": [Interval(Integral, 1, None)]}, "f")
    Traceback (most recent call last):
    ...
    ValueError: The 'n' parameter of f must be an int in the range [1, inf). Got 0 instead.
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
        raise ValueError(
            f"The {name!r} parameter of {caller} must be {text}. Got {value!r} instead."
        )
