"""A Hugging Face transformer followed by mean pooling: one vector per token sequence.

Embedding (inference) and exporting in the Hugging Face and sentence-transformers layout
live here, beside the module they serve; loading is in ``_loading``.
"""

import json
from pathlib import Path

import numpy as np
import torch
from torch import nn
from tqdm.auto import tqdm

from ._batching import padded_groups, tokenize
from ._device import autocast_context


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


def encode(encoder, tokenizer, texts, *, max_length, batch_size, device, amp_dtype=None,
           verbose=0):
    """Embed ``texts``: length-sorted batches of similar lengths, dynamic padding, inference mode.

    Returns
    -------
    embeddings : numpy.ndarray of shape (len(texts), dim), float32, in the order of ``texts``.
    """
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


def save_pretrained(encoder, tokenizer, path, *, max_length, normalize):
    """Write ``encoder`` and ``tokenizer`` in Hugging Face format, plus the files that
    describe the mean pooling (and normalisation) to sentence-transformers.

    Parameters
    ----------
    encoder : MeanPoolingEncoder
    tokenizer : transformers tokenizer
    path : str or os.PathLike
        The directory to write (created if needed).
    max_length : int
        sentence-transformers' ``max_seq_length``.
    normalize : bool
        Add sentence-transformers' ``Normalize`` module.

    Returns
    -------
    path : pathlib.Path
    """
    path = Path(path)
    encoder.transformer.save_pretrained(path)
    tokenizer.save_pretrained(path)
    modules = [
        {"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
        {"idx": 1, "name": "1", "path": "1_Pooling",
         "type": "sentence_transformers.models.Pooling"},
    ]
    if normalize:
        modules.append({"idx": 2, "name": "2", "path": "2_Normalize",
                        "type": "sentence_transformers.models.Normalize"})
        (path / "2_Normalize").mkdir(exist_ok=True)
    (path / "1_Pooling").mkdir(exist_ok=True)
    (path / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": encoder.dim, "pooling_mode_mean_tokens": True}))
    (path / "modules.json").write_text(json.dumps(modules, indent=2))
    (path / "sentence_bert_config.json").write_text(json.dumps(
        {"max_seq_length": max_length, "do_lower_case": False}))
    return path
