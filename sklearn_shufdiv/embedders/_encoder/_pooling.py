"""A Hugging Face transformer followed by mean pooling: one vector per token sequence.

Embedding (inference) and exporting in the Hugging Face and sentence-transformers layout
live here, beside the module they serve; loading is in ``_loading``.
"""

import json
from pathlib import Path

import numpy as np
import torch
from safetensors.torch import save_file
from torch import nn
from tqdm.auto import tqdm

from ._batching import padded_groups
from ._device import autocast_context
from ._precision import check_inference_dtype, inference_encoder
from ._windows import cut_windows, pool_windows


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
        if hidden.dtype in (torch.bfloat16, torch.float16):  # pooled in float32
            hidden = hidden.float()
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


def encode(encoder, tokenizer, texts, *, max_length, batch_size, device, amp_dtype=None,
           dtype="float32", max_windows=1, verbose=0):
    """Embed ``texts`` whole: each is cut into windows of at most ``max_length`` tokens
    (:func:`~._windows.cut_windows`), the windows of all texts are embedded in
    length-sorted batches with dynamic padding, in inference mode, and each text's
    embedding is the token-weighted mean of its windows' (:func:`~._windows.pool_windows`).

    ``max_windows=1`` is truncation at ``max_length``; ``None`` reads every text whole.
    ``batch_size`` counts windows. The pooling is computed in float64, so that a text of
    one window gets exactly that window's embedding.

    ``dtype`` is the precision of the encoder's arithmetic: ``"float32"`` (with
    ``amp_dtype``, autocast to it), or ``"bfloat16"`` or ``"int8"``, run by a copy of the
    encoder in that precision (:func:`~._precision.inference_encoder`: made once per state
    of the weights, which stay float32).

    Returns
    -------
    embeddings : numpy.ndarray of shape (len(texts), dim), float32, in the order of ``texts``.
    """
    check_inference_dtype(dtype, device, name="dtype")
    windows = cut_windows(tokenizer, texts, max_length, max_windows=max_windows)
    if not windows.token_ids:
        return np.empty((0, encoder.dim), dtype=np.float32)
    batches, order = padded_groups(windows.token_ids, batch_size, tokenizer.pad_token_id,
                                   device)
    was_training = encoder.training
    encoder.eval()
    outputs = []
    try:
        with torch.no_grad():
            model = inference_encoder(encoder, dtype, device)
        autocast = autocast_context(device, amp_dtype if dtype == "float32" else None)
        with torch.inference_mode(), autocast:
            for input_ids, attention_mask in tqdm(
                batches, desc="embedding", unit="batch", disable=not verbose, leave=False
            ):
                outputs.append(model(input_ids, attention_mask).float().cpu())
    finally:
        encoder.train(was_training)
    embeddings = torch.empty((len(order), encoder.dim), dtype=torch.float64)
    embeddings[torch.as_tensor(order)] = torch.cat(outputs).double()
    return pool_windows(embeddings, windows).float().numpy()


def save_pretrained(encoder, tokenizer, path, *, max_length, normalize, head=None):
    """Write ``encoder`` and ``tokenizer`` in Hugging Face format, plus the files that
    describe the mean pooling (then the head, and normalisation) to sentence-transformers.

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
    head : torch.nn.Linear or None
        A linear map of the pooled embeddings, written as sentence-transformers'
        ``Dense`` module (identity activation).

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
    (path / "1_Pooling").mkdir(exist_ok=True)
    (path / "1_Pooling" / "config.json").write_text(json.dumps(
        {"word_embedding_dimension": encoder.dim, "pooling_mode_mean_tokens": True}))
    if head is not None:
        folder = f"{len(modules)}_Dense"
        modules.append({"idx": len(modules), "name": str(len(modules)), "path": folder,
                        "type": "sentence_transformers.models.Dense"})
        (path / folder).mkdir(exist_ok=True)
        (path / folder / "config.json").write_text(json.dumps(
            {"in_features": head.in_features, "out_features": head.out_features,
             "bias": True, "activation_function": "torch.nn.modules.linear.Identity"}))
        save_file({"linear.weight": head.weight.detach().cpu().contiguous(),
                   "linear.bias": head.bias.detach().cpu().contiguous()},
                  str(path / folder / "model.safetensors"))
    if normalize:
        folder = f"{len(modules)}_Normalize"
        modules.append({"idx": len(modules), "name": str(len(modules)), "path": folder,
                        "type": "sentence_transformers.models.Normalize"})
        (path / folder).mkdir(exist_ok=True)
    (path / "modules.json").write_text(json.dumps(modules, indent=2))
    (path / "sentence_bert_config.json").write_text(json.dumps(
        {"max_seq_length": max_length, "do_lower_case": False}))
    return path
