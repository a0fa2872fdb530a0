"""Small values with an estimator's parameter protocol: the objectives and the heads."""

import inspect

__all__ = ["ParamsValue"]


class ParamsValue:
    """A value whose parameters are those of its ``__init__``, stored as they are (as an
    estimator's), with scikit-learn's ``get_params`` and ``set_params``: an embedder
    holding one clones, and a grid search reaches its parameters
    (``{"objective__weight": [0.5, 1.0]}``). Equal when of one type with equal
    parameters."""

    @classmethod
    def _param_names(cls):
        signature = inspect.signature(cls.__init__)
        return [name for name in signature.parameters if name != "self"]

    def get_params(self, deep=True):
        """The value's parameters, as a dict (``deep`` is ignored: they are plain)."""
        return {name: getattr(self, name) for name in self._param_names()}

    def set_params(self, **params):
        """Set parameters by name; returns the value."""
        for name, value in params.items():
            if name not in self._param_names():
                raise ValueError(f"Invalid parameter {name!r} for {type(self).__name__}; "
                                 f"valid parameters: {self._param_names()}.")
            setattr(self, name, value)
        return self

    def __repr__(self):
        params = ", ".join(f"{name}={value!r}" for name, value in self.get_params().items())
        return f"{type(self).__name__}({params})"

    def __eq__(self, other):
        return type(self) is type(other) and self.get_params() == other.get_params()

    def __hash__(self):
        return hash((type(self).__name__, tuple(self.get_params().items())))
