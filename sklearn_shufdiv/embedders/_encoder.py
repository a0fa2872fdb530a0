"""A Hugging Face transformer followed by mean pooling: one vector per token sequence."""

import os
from contextlib import contextmanager

import torch
from torch import nn


class MeanPoolingEncoder(nn.Module):
    """Transformer encoder + attention-mask-weighted mean of the last hidden states.

    Parameters
    ----------
    transformer : transformers.PreTrainedModel
        Any ``AutoModel`` whose output has ``last_hidden_state`` (BERT, RoBERTa, ...).
    """

    def __init__(self, transformer):
        super().__init__()
        self.transformer = transformer

    @property
    def dim(self):
        """Size of the embeddings (the model's hidden size)."""
        return self.transformer.config.hidden_size

    def forward(self, input_ids, attention_mask):
        hidden = self.transformer(
            input_ids=input_ids, attention_mask=attention_mask
        ).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


@contextmanager
def _quiet_transformers(quiet):
    """Silence transformers' own progress bars (weight loading) for the duration."""
    from transformers.utils import logging

    enabled = logging.is_progress_bar_enabled()
    if quiet and enabled:
        logging.disable_progress_bar()
    try:
        yield
    finally:
        if quiet and enabled:
            logging.enable_progress_bar()


def load_encoder(model_name_or_path, verbose=0):
    """Load a tokenizer and a :class:`MeanPoolingEncoder` by hub name or local directory.

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
        If the model can be found neither locally nor on the hub, with a message that says
        how to run offline.
    """
    from transformers import AutoModel, AutoTokenizer

    name = os.fspath(model_name_or_path)
    try:
        with _quiet_transformers(not verbose):
            tokenizer = AutoTokenizer.from_pretrained(name)
            transformer = AutoModel.from_pretrained(name, dtype=torch.float32)
    except (OSError, ValueError) as exc:
        raise OSError(
            f"Could not load the model {name!r}: it is neither a directory holding a Hugging "
            "Face model (config.json, weights and tokenizer files) nor a model that could be "
            "downloaded from the hub. Offline, pass the path of a local copy (for example one "
            "written by `save_pretrained`)."
        ) from exc
    if tokenizer.pad_token is None:
        raise ValueError(
            f"The tokenizer of {name!r} has no padding token; set one "
            "(e.g. tokenizer.pad_token = tokenizer.eos_token) and save it."
        )
    return tokenizer, MeanPoolingEncoder(transformer).eval()


def model_max_length(tokenizer, encoder):
    """The longest sequence the model accepts: the tokenizer's limit, else the config's."""
    config = encoder.transformer.config
    limits = [getattr(config, "max_position_embeddings", None)]
    if getattr(config, "model_type", "") in ("roberta", "xlm-roberta", "camembert"):
        # RoBERTa-style position ids start after the padding index.
        limits = [limits[0] - (config.pad_token_id or 0) - 1]
    if tokenizer.model_max_length and tokenizer.model_max_length < 1_000_000:
        limits.append(tokenizer.model_max_length)
    limits = [x for x in limits if x]
    return min(limits) if limits else 512


def encode(encoder, tokenizer, texts, *, max_length, batch_size, device, amp_dtype=None,
           verbose=0):
    """Embed ``texts``: length-sorted batches of similar lengths, dynamic padding, inference mode.

    Returns
    -------
    embeddings : numpy.ndarray of shape (len(texts), dim), float32, in the order of ``texts``.
    """
    import numpy as np
    from tqdm.auto import tqdm

    from ._batching import padded_groups, tokenize
    from ._gradcache import autocast_context

    token_ids = tokenize(tokenizer, texts, max_length)
    batches, order = padded_groups(token_ids, batch_size, tokenizer.pad_token_id, device)
    was_training = encoder.training
    encoder.eval()
    outputs = []
    try:
        with torch.inference_mode(), autocast_context(device, amp_dtype):
            for input_ids, attention_mask in tqdm(
                batches, desc="embedding", unit="batch", disable=not verbose, leave=False
            ):
                outputs.append(encoder(input_ids, attention_mask).float().cpu())
    finally:
        encoder.train(was_training)
    embeddings = torch.cat(outputs).numpy() if outputs else np.empty((0, encoder.dim))
    result = np.empty_like(embeddings, dtype=np.float32)
    result[order] = embeddings
    return result
