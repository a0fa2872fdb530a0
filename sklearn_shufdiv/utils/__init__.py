"""Small shared utilities: declarative parameter validation.

:class:`~sklearn_shufdiv.exceptions.InvalidParameterError`, the error every invalid
parameter raises, is re-exported here beside the validators that raise it.
"""

from ..exceptions import InvalidParameterError

__all__ = ["InvalidParameterError"]
