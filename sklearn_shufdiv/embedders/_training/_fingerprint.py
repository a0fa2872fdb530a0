"""What a fit is, as JSON and a hash: the checkpoints' test that they belong to this fit.

A checkpoint resumes a fit only if three things match: the parameters that shape training
(:func:`describe_params`, stored in the checkpoint as JSON so that a refusal can say which
one differs), the documents (:func:`documents_digest`) and the model itself
(:func:`model_digest`: its configuration, its weights before training and its tokenizer's
vocabulary, not the name it was loaded by).

Every value is described by what it is, never by a ``repr`` that holds a memory address:
a ``RandomState`` by its state, a function by its module and qualified name. Values that
cannot be recognised in another process (a lambda, a function defined inside another)
are refused with a message that says what to pass instead.
"""

import functools
import hashlib
import json
import types
from pathlib import PurePath

import numpy as np
import torch

#: Parameters that do not shape training (a fit may resume with other values), and the
#: model, which is fingerprinted by what it is rather than by its name.
NOT_FINGERPRINTED = ("verbose", "checkpoint_dir", "device", "inference_dtype", "max_epochs",
                     "max_time", "callbacks", "model_name_or_path",
                     "head")  # trained after the epochs, again by each fit


class UnfingerprintableError(ValueError):
    """A parameter value cannot be recognised again by a later fit."""


def _describe_function(value, name):
    qualname = getattr(value, "__qualname__", None) or getattr(value, "__name__", None)
    module = getattr(value, "__module__", None)
    if qualname is None or "<lambda>" in qualname or "<locals>" in qualname:
        kind = "lambda" if qualname and "<lambda>" in qualname else "function defined inside "\
            "another function"
        raise UnfingerprintableError(
            f"checkpoint_dir needs a {name} that a later run can recognise, but {value!r} is "
            f"a {kind}. Define it at the top level of a module (or leave checkpoint_dir=None)."
        )
    return {"function": f"{module}.{qualname}"}


def describe(value, name="value"):
    """A JSON-serialisable description of ``value`` that another process would give too.

    Examples
    --------
    >>> describe(np.random.RandomState(0)) == describe(np.random.RandomState(0))
    True
    >>> describe(np.random.RandomState(0)) == describe(np.random.RandomState(1))
    False
    >>> describe(len)
    {'function': 'builtins.len'}
    >>> describe(lambda text: [text], "sentence_splitter")  # doctest: +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    UnfingerprintableError: checkpoint_dir needs a ...
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float, np.integer, np.floating)):
        return value.item() if isinstance(value, np.generic) else value
    if isinstance(value, PurePath):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [describe(item, name) for item in value]
    if isinstance(value, dict):
        return {str(key): describe(item, f"{name}[{key!r}]")
                for key, item in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, np.ndarray):
        return {"ndarray": str(value.dtype), "shape": list(value.shape),
                "sha256": hashlib.sha256(np.ascontiguousarray(value).tobytes()).hexdigest()}
    if isinstance(value, np.random.RandomState):
        kind, keys, position, has_gauss, gauss = value.get_state()
        return {"RandomState": [kind, *keys.tolist(), position, has_gauss, gauss]}
    if isinstance(value, np.random.Generator):
        return {"Generator": describe(value.bit_generator.state, name)}
    if isinstance(value, functools.partial):
        return {"partial": describe(value.func, name), "args": describe(value.args, name),
                "keywords": describe(value.keywords, name)}
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, types.MethodType,
                          type)):
        return _describe_function(value, name)
    if hasattr(value, "get_params"):  # estimators, skorch callbacks, selection criteria
        return {"class": _describe_function(type(value), name)["function"],
                "params": describe(value.get_params(deep=False), name)}
    if hasattr(value, "__dict__"):
        return {"class": _describe_function(type(value), name)["function"],
                "state": describe(vars(value), name)}
    raise UnfingerprintableError(
        f"checkpoint_dir cannot recognise {name}={value!r} in a later run. Pass a plain "
        "value (or leave checkpoint_dir=None)."
    )


def describe_params(params):
    """The described parameters that shape training (``NOT_FINGERPRINTED`` left out)."""
    return {name: describe(value, name) for name, value in sorted(params.items())
            if name not in NOT_FINGERPRINTED}


def documents_digest(documents):
    """A hash of the documents, in order."""
    digest = hashlib.sha256()
    for document in documents:
        digest.update(hashlib.sha256(document.encode("utf-8", "surrogatepass")).digest())
    return digest.hexdigest()


def model_digest(tokenizer, encoder):
    """A hash of what the model is: its configuration, its weights and its vocabulary."""
    # Not where it was loaded from, nor by which version of transformers.
    config = {key: value for key, value in encoder.transformer.config.to_dict().items()
              if not key.startswith("_") and key != "transformers_version"}
    digest = hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode())
    for name, tensor in sorted(encoder.state_dict().items()):
        digest.update(name.encode())
        digest.update(str(tensor.dtype).encode() + str(tuple(tensor.shape)).encode())
        digest.update(tensor.detach().cpu().contiguous().view(-1).view(torch.uint8).numpy())
    digest.update(json.dumps(sorted(tokenizer.get_vocab().items())).encode())
    return digest.hexdigest()


def fingerprint(params, documents, model):
    """The hash a checkpoint must carry: of ``describe_params(...)``, the documents' and the
    model's digests."""
    return hashlib.sha256(json.dumps(
        {"params": params, "documents": documents, "model": model}, sort_keys=True
    ).encode()).hexdigest()


