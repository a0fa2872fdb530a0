"""The training room: objectives, loss, the cached step, epoch selection, checkpoints.

How the encoder is tuned: the objective values and the loss pieces they are made of,
GradCache, the epoch-selection criteria and the callback that keeps the chosen weights,
pseudo-labels, per-epoch checkpoints (fingerprint, folder lock), interrupts, distributed
runs and the skorch engine that ties them together.
"""
