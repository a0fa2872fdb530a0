"""The fit's time budget (``max_time``): a clock and the callback that stops training."""

import time
import warnings

from skorch.callbacks import Callback
from tqdm.auto import tqdm


def clock():
    """Seconds on a monotonic clock: what the time budget of a fit is measured by."""
    return time.monotonic()



class TimeBudget(Callback):
    """Stops training when ``max_time`` seconds have passed since ``started`` (a
    :func:`clock` reading): at the end of the batch that spends it, dropping that
    unfinished epoch, or at the end of an epoch when the next one, as long as this one,
    would end past it. After the first batch it warns when the first epoch is estimated
    (that batch's time, times the batches of the epoch) to end past the budget.

    It stops as skorch's callbacks do, by raising ``KeyboardInterrupt``, noted in the
    net's ``stop_requested_by_`` so that it is not taken for Ctrl-C; ``stopped_`` says
    whether it stopped training.
    """

    def __init__(self, max_time, started, verbose=1):
        self.max_time, self.started, self.verbose = max_time, started, verbose
        self.stopped_, self.warned_ = False, False

    def on_epoch_begin(self, net, dataset_train=None, **kwargs):
        self.epoch_start_, self.batch_, self.n_batches_ = clock(), 0, len(dataset_train)

    def on_batch_end(self, net, **kwargs):
        now, self.batch_ = clock(), self.batch_ + 1
        if not self.warned_:
            self.warned_ = True
            estimate = (now - self.epoch_start_) * self.n_batches_
            if self.epoch_start_ + estimate > self.started + self.max_time:
                warnings.warn(
                    f"max_time={self.max_time:g}: this epoch is estimated at about "
                    f"{estimate:.0f} s ({self.n_batches_} batches), past the time left: "
                    "training will stop before it ends and the fit keep the epochs "
                    "completed. Raise max_time, or train less (a smaller batch_size or "
                    "max_length, or max_epochs=0).", UserWarning, stacklevel=2)
        if now - self.started >= self.max_time and self.batch_ < self.n_batches_:
            self._stop(net, f"{now - self.started:.0f} s spent during epoch "
                            f"{len(net.history)}, which is dropped")

    def on_epoch_end(self, net, **kwargs):
        now = clock()
        if (len(net.history) < net.max_epochs
                and now - self.started + (now - self.epoch_start_) > self.max_time):
            self._stop(net, f"{now - self.started:.0f} s spent after epoch "
                            f"{len(net.history)}, and another would end past it")

    def _stop(self, net, why):
        self.stopped_, net.stop_requested_by_ = True, "time_budget"
        if self.verbose:
            tqdm.write(f"max_time={self.max_time:g}: training stops ({why}).")
        raise KeyboardInterrupt
