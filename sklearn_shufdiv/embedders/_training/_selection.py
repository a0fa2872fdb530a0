"""The epoch selection: which epoch's weights a fit keeps, epoch 0 being the untuned encoder.

:class:`EpochSelection` is the skorch callback that, with ``n_clusters`` set, embeds the
selection's sample after each epoch (and before training, for the untuned encoder),
clusters it (:func:`~sklearn_shufdiv.cluster.cluster_on_sphere`) and lets the criterion
(``_criteria.py``) score the candidate; it keeps the weights the criterion may choose, and
restores the chosen ones at the end. With no criterion (``n_clusters=None``) it keeps the
weights of the last completed epoch, so that an interrupted fit returns a model that
matches its history. With ``n_clusters="auto"``, the number of clusters of every epoch's
clustering is chosen once, on the untuned encoder's embeddings of the sample
(:func:`~sklearn_shufdiv.cluster.choose_n_clusters`). Its state (scores, labels, kept
weights, the number of clusters chosen) goes into checkpoints.
"""

import numpy as np
import torch
from sklearn.utils import Bunch
from skorch.callbacks import Callback

from ...cluster import choose_n_clusters, cluster_on_sphere
from ._criteria import Candidate


def _cpu_copy(module):
    return {name: value.detach().to("cpu", copy=True)
            for name, value in module.state_dict().items()}


class EpochSelection(Callback):
    """skorch callback: scores each completed epoch and keeps the weights a fit returns.

    Parameters
    ----------
    criterion : SelectionCriterion or None
        None keeps the last completed epoch, and embeds nothing.
    context : SelectionContext or None
        Needed with a criterion.
    last_epoch : int
        The fit's ``max_epochs``: training ends with that epoch's weights in the encoder,
        so they need no copy.
    keep_embeddings : bool, default=False
        Keep the sample's embeddings by the weights kept (those of every candidate with
        a criterion that ``keep_all_weights``), so that the chosen epoch's are
        ``best_embeddings`` after :meth:`restore`.
    space : callable or None, default=None
        Maps the sample's encoder embeddings to the space that is clustered and
        scored: the space ``transform`` returns (with the words, a
        :class:`~sklearn_shufdiv.embedders._spaces._lexical.FusedSpace`, whose ``state`` is
        checkpointed). None: the embeddings.

    Attributes
    ----------
    completed : int
        The last epoch whose end was processed: the history and the weights returned
        stop there, even when training was interrupted later.
    kept : dict of int to dict
        Epoch -> its weights on the CPU: the best candidate (every candidate with a
        criterion that ``keep_all_weights``), or the last completed epoch.
    candidate : Candidate or None
        The candidate scored last (its embeddings, in the space scored and by the
        encoder alone, and its clustering), for the callbacks that learn from the
        selection's clustering (``_pseudo_labels.PseudoLabels``); None before any.
    n_clusters_scores : Bunch or None
        With ``context.n_clusters="auto"``, the per-candidate scores of the choice, once
        made (:func:`~sklearn_shufdiv.cluster.choose_n_clusters`'s second value).
    """

    def __init__(self, criterion=None, context=None, *, last_epoch, keep_embeddings=False,
                 space=None):
        self.criterion = criterion
        self.context = context
        self.last_epoch = last_epoch
        self.keep_embeddings = keep_embeddings
        self.space = space
        self.completed = 0
        self.kept = {}
        self.best_epoch = None
        self.best_embeddings = None
        self.kept_embeddings = {}
        self.candidate = None
        self.n_clusters_scores = None

    @property
    def name(self):
        """The criterion's history key, or None."""
        return None if self.criterion is None else self.criterion.name

    def begin(self, net, start):
        """Before training, ``start`` epochs being done (resumed from a checkpoint, or 0):
        prepare the criterion, score the untuned encoder, keep the weights to return."""
        self.completed = start
        if self.criterion is None:
            self.kept = {start: _cpu_copy(net.module_)} if start < self.last_epoch else {}
            return
        self.criterion.prepare(self.context)
        if start == 0:
            self._evaluate(net, 0)

    def on_epoch_end(self, net, **kwargs):
        epoch = len(net.history)
        if self.criterion is None:
            self.kept = {epoch: _cpu_copy(net.module_)} if epoch < self.last_epoch else {}
        else:
            score = self._evaluate(net, epoch)
            net.history.record(self.criterion.name, score)
            net.history.record("selection_score", score)
            net.history.record("selection_score_best", self.best_epoch == epoch)
        self.completed = epoch

    def final(self):
        """Whether the criterion will choose none of the epochs not yet trained."""
        return self.criterion is not None and self.criterion.final(self.context)

    def _worth_keeping(self, epoch):
        return self.criterion.keep_all_weights or epoch == self.best_epoch

    def n_clusters(self):
        """``(k, scores)``: the number of clusters every epoch was clustered into (None
        without a criterion) and, where it was chosen, the scores of the choice."""
        return (None if self.context is None else self.context.n_clusters,
                self.n_clusters_scores)

    def _choose_n_clusters(self, embeddings, verbose=0):
        """Choose the number of clusters on the untuned encoder's ``embeddings`` of the
        sample, in the space scored; with the words, at their fixed weight (the
        fallback of ``lexical_weight="auto"``, whose own choice needs the number)."""
        space = embeddings if self.space is None else self.space.provisional(embeddings)
        try:
            k, self.n_clusters_scores = choose_n_clusters(space, random_state=self.context.seed,
                                                          verbose=verbose)
        except ValueError as exc:
            raise ValueError(f"n_clusters='auto': {exc} Give n_clusters as an int, or more "
                             "distinct documents.") from exc
        self._set_n_clusters(k)

    def _set_n_clusters(self, k):
        self.context.n_clusters = k
        if self.space is not None:
            self.space.n_clusters = k

    def _evaluate(self, net, epoch):
        embeddings = net.embed(self.context.texts, verbose=net.verbose)  # a bar when verbose
        if self.context.n_clusters == "auto":
            self._choose_n_clusters(embeddings, net.verbose)
        scored = embeddings if self.space is None else self.space(embeddings)
        candidate = Candidate(epoch, scored, cluster_on_sphere(
            scored, self.context.n_clusters, self.context.seed), encoded=embeddings)
        if epoch == 0:
            self.context.untuned = candidate.clustering.unit
        score = float(self.criterion.score(candidate, self.context))
        best = self.context.scores.get(self.best_epoch, np.nan)
        if self.best_epoch is None or score > best or (np.isnan(best) and not np.isnan(score)):
            self.best_epoch = epoch
        if self._worth_keeping(epoch):
            if not self.criterion.keep_all_weights:
                self.kept.clear()
                self.kept_embeddings.clear()
            self.kept[epoch] = _cpu_copy(net.module_)
            if self.keep_embeddings:
                self.kept_embeddings[epoch] = embeddings
        self.context.labels[epoch] = candidate.labels
        self.context.scores[epoch] = score
        self.candidate = candidate
        return score

    def restore(self, net):
        """Load the weights of the epoch to return into ``net``; return that epoch."""
        if self.criterion is None:
            epoch = self.completed
        else:
            for later in [e for e in self.context.scores if e > self.completed]:
                del self.context.scores[later], self.context.labels[later]
            epoch = self.criterion.choose(self.context)
        if epoch in self.kept:
            net.module_.load_state_dict(self.kept[epoch])
        elif epoch != self.completed or self.completed < self.last_epoch:
            raise RuntimeError(
                f"The selection chose epoch {epoch}, whose weights were not kept; a "
                "criterion whose choice is not its best score needs keep_all_weights = True.")
        self.best_embeddings = self.kept_embeddings.get(epoch)
        return epoch

    def history(self, net, name):
        """The fit's history: a row for epoch 0 (the untuned encoder, scored only) and one
        for each completed epoch of ``net``, with the score under ``selection_score`` and
        under ``name`` (None without a criterion)."""
        scores = self.context.scores if self.context is not None else {}
        first = {"epoch": 0, "train_loss": None, "selection_score": scores.get(0),
                 name: scores.get(0)}
        return [first] + [
            {"epoch": int(row["epoch"]), "train_loss": float(row["train_loss"]),
             "selection_score": row.get("selection_score"), name: row.get(name),
             "duration": float(row["dur"])}
            for row in net.history
        ]

    def release(self):
        """Drop what only training needs (the sample's texts and lexical rows, kept weights
        and embeddings)."""
        self.kept, self.best_embeddings, self.space = {}, None, None
        self.kept_embeddings, self.candidate = {}, None
        if self.context is not None:
            self.context.texts = self.context.untuned = None

    # -- checkpoints -----------------------------------------------------------------
    def state(self, epoch):
        """``(metadata, tensors)`` of the selection at the end of ``epoch``, for a
        checkpoint whose parameters are that epoch's: those weights are not repeated."""
        if self.criterion is None:
            return {"kept": sorted(self.kept)}, {}
        meta = {"kept": sorted(self.kept), "best_epoch": self.best_epoch,
                "scores": {str(e): s for e, s in self.context.scores.items()}}
        if hasattr(self.space, "state"):  # what the space chose (lexical_weight="auto")
            meta["space"] = self.space.state()
        if self.n_clusters_scores is not None:  # what n_clusters="auto" chose
            meta["n_clusters"] = int(self.context.n_clusters)
            meta["n_clusters_scores"] = {
                key: value.tolist() if isinstance(value, np.ndarray | np.generic) else value
                for key, value in self.n_clusters_scores.items()}
        tensors = {f"labels.{e}": torch.from_numpy(np.asarray(labels, dtype=np.int64))
                   for e, labels in self.context.labels.items()}
        if self.context.untuned is not None:
            tensors["untuned"] = torch.from_numpy(np.ascontiguousarray(self.context.untuned))
        for kept_epoch, weights in self.kept.items():
            if kept_epoch != epoch:
                tensors.update({f"weights.{kept_epoch}.{name}": value
                                for name, value in weights.items()})
        return meta, tensors

    def load_state(self, meta, tensors, net, epoch):
        """Restore :meth:`state` of ``epoch``; ``net`` holds that epoch's parameters."""
        self.kept = {}
        for kept_epoch in meta["kept"]:
            if kept_epoch == epoch:
                self.kept[epoch] = _cpu_copy(net.module_)
            else:
                prefix = f"weights.{kept_epoch}."
                self.kept[kept_epoch] = {name[len(prefix):]: value
                                         for name, value in tensors.items()
                                         if name.startswith(prefix)}
        if self.criterion is not None:
            self.best_epoch = meta["best_epoch"]
            self.context.scores = {int(e): s for e, s in meta["scores"].items()}
            self.context.labels = {e: tensors[f"labels.{e}"].numpy()
                                   for e in self.context.scores}
            if "untuned" in tensors:
                self.context.untuned = tensors["untuned"].numpy()
            if meta.get("space") is not None and self.space is not None:
                self.space.load_state(meta["space"])
            if "n_clusters" in meta:
                self._set_n_clusters(int(meta["n_clusters"]))
                self.n_clusters_scores = Bunch(**{
                    key: np.asarray(value) if isinstance(value, list) else value
                    for key, value in meta["n_clusters_scores"].items()})
