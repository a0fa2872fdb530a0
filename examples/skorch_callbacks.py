"""Plug skorch callbacks into the fine-tuning: a learning-rate schedule, clipping, your own.

The embedders train with skorch, so its callbacks plug into ``fit`` through the
``callbacks`` parameter. They run after the engine's own callbacks, each batch and epoch,
and see what the engine writes to the history (``net_.history``): ``train_loss``, and
with ``n_clusters`` set the epoch selection's ``selection_score`` (here the silhouette)
and ``selection_score_best``. This example adds:

* ``LRScheduler``: linear warm-up over the first steps, then linear decay, which
  contrastive fine-tuning of a pretrained encoder usually wants;
* ``GradientNormClipping``: the gradients' norm bounded before each AdamW step;
* ``EarlyStopping`` on the selection score: stop when it has not improved for a while;
* a callback of our own, which prints the learning rate and the score of each epoch.

Run it with ``python examples/skorch_callbacks.py``.
"""

from skorch.callbacks import Callback, EarlyStopping, GradientNormClipping, LRScheduler
from torch.optim.lr_scheduler import LambdaLR

from sklearn_shufdiv import ShuffleDivideEmbedder, SphericalKMeans, clustering_accuracy

from _shared import SETTINGS, load_corpus, model_name_or_path

documents, labels, topics = load_corpus()
steps_per_epoch = -(-len(documents) // SETTINGS["batch_size"])  # batches of an epoch
total_steps = steps_per_epoch * SETTINGS["max_epochs"]
warm_up = max(1, total_steps // 10)


def warm_up_then_linear_decay(step):
    """The learning rate's factor at optimizer step ``step`` (0-based)."""
    if step < warm_up:
        return (step + 1) / warm_up
    return max(0.0, (total_steps - step) / max(1, total_steps - warm_up))


class EpochReport(Callback):
    """Our own callback: a line per epoch, from the history the engine wrote."""

    def on_epoch_end(self, net, **kwargs):
        row = net.history[-1]
        lr = net.optimizer_.param_groups[0]["lr"]
        best = " (best so far)" if row["selection_score_best"] else ""
        print(f"epoch {row['epoch']}: loss {row['train_loss']:.4f}, "
              f"silhouette {row['selection_score']:.3f}{best}, learning rate {lr:.2e}")


embedder = ShuffleDivideEmbedder(
    model_name_or_path(), n_clusters=len(topics), random_state=0, verbose=0, **SETTINGS,
    callbacks=[
        ("schedule", LRScheduler(LambdaLR, lr_lambda=warm_up_then_linear_decay,
                                 step_every="batch")),
        ("clip", GradientNormClipping(gradient_clip_value=1.0)),
        ("stop", EarlyStopping(monitor="selection_score", lower_is_better=False,
                               patience=2)),
        ("report", EpochReport()),
    ],
)
embeddings = embedder.fit_transform(documents)

print(f"kept epoch {embedder.best_epoch_} of {len(embedder.history_) - 1} trained "
      f"(0 = the untuned encoder)")
clusters = SphericalKMeans(n_clusters=len(topics), random_state=0).fit_predict(embeddings)
print(f"ACC {clustering_accuracy(labels, clusters):.3f}")
# skorch's own history holds every batch too: the learning rate the schedule set.
first_epoch = embedder.net_.history[0]
print("learning rates of epoch 1:",
      ", ".join(f"{batch['event_lr']:.1e}" for batch in first_epoch["batches"]))
