"""scikit-learn's 20 Newsgroups cache, read without running code.

:func:`sklearn.datasets.fetch_20newsgroups` keeps the corpus as a zlib-compressed pickle
(``20news-bydate_py3.pkz``) and loads it with :func:`pickle.loads`, which runs whatever
code a crafted file names. Here the cache is read by an unpickler that builds only what
scikit-learn writes there (a dict of :class:`~sklearn.utils.Bunch` holding lists of
strings and numpy arrays of strings and integers) and refuses every other class or
function by name, so a file that is not scikit-learn's cache is an error, never code
run. scikit-learn's fetcher is called only to download the corpus when no cache exists;
what it selects and strips afterwards is done here on the safely read cache.
"""

import codecs
import io
import pickle
import zlib

import numpy as np
from sklearn.utils import Bunch


def _reconstruct():
    try:
        from numpy._core.multiarray import _reconstruct as function
    except ImportError:  # numpy 1
        from numpy.core.multiarray import _reconstruct as function
    return function


#: The globals scikit-learn's 20 Newsgroups cache refers to (under the names of numpy 1
#: and 2, and of scikit-learn's releases since the cache was introduced).
_ALLOWED = {
    ("numpy._core.multiarray", "_reconstruct"): _reconstruct(),
    ("numpy.core.multiarray", "_reconstruct"): _reconstruct(),
    ("numpy", "ndarray"): np.ndarray,
    ("numpy", "dtype"): np.dtype,
    ("sklearn.utils._bunch", "Bunch"): Bunch,
    ("sklearn.utils", "Bunch"): Bunch,
    ("sklearn.datasets.base", "Bunch"): Bunch,
    ("sklearn.datasets._base", "Bunch"): Bunch,
}


class ForeignCacheError(OSError):
    """The file is not scikit-learn's 20 Newsgroups cache: it names other code."""


class _CacheUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise ForeignCacheError(f"it refers to {module}.{name}") from None

    def persistent_load(self, pid):
        raise ForeignCacheError("it holds a persistent reference")


def read_news_cache(path):
    """The ``{"train": Bunch, "test": Bunch}`` of scikit-learn's cache at ``path``.

    Raises
    ------
    OSError
        Naming ``path``: :class:`ForeignCacheError` when the file refers to anything
        but the classes of scikit-learn's cache (it is not loaded), else when it cannot
        be read (truncated, damaged, not a cache).
    """
    where = (f"{path}: not loaded as scikit-learn's 20 Newsgroups cache, because "
             "{why}. ")
    advice = ("Delete it and call fetch_20newsgroups_clean with download_if_missing=True "
              "to download the corpus anew (about 14 MB).")
    try:
        with open(path, "rb") as file:
            raw = codecs.decode(file.read(), "zlib_codec")
        cache = _CacheUnpickler(io.BytesIO(raw)).load()
    except ForeignCacheError as exc:
        raise ForeignCacheError(where.format(why=f"{exc}, which such a cache never does "
                                             "(a pickle can run code)") + advice) from None
    except (zlib.error, pickle.UnpicklingError, EOFError, ValueError, TypeError,
            AttributeError, IndexError, MemoryError, RecursionError) as exc:
        raise OSError(where.format(why=f"it is truncated or damaged ({type(exc).__name__}: "
                                   f"{str(exc)[:200]})") + advice) from None
    if not _looks_like_the_cache(cache):
        raise OSError(where.format(why="it does not hold the train and test subsets")
                      + advice)
    return cache


def _looks_like_the_cache(cache):
    if not isinstance(cache, dict) or not {"train", "test"} <= set(cache):
        return False
    for subset in (cache["train"], cache["test"]):
        if not isinstance(subset, Bunch) or not {"data", "target", "filenames",
                                                  "target_names"} <= set(subset):
            return False
        if not (len(subset.data) == len(subset.target) == len(subset.filenames)):
            return False
        if not all(isinstance(text, str) for text in subset.data):
            return False
    return True


def select_news(cache, subset, categories, remove):
    """What :func:`sklearn.datasets.fetch_20newsgroups` returns from ``cache`` for
    ``subset``, ``categories`` and ``remove`` (not shuffled): a Bunch of ``data``,
    ``target``, ``filenames``, ``target_names``."""
    from sklearn.datasets._twenty_newsgroups import (
        strip_newsgroup_footer,
        strip_newsgroup_header,
        strip_newsgroup_quoting,
    )

    parts = [cache["train"], cache["test"]] if subset == "all" else [cache[subset]]
    data = [text for part in parts for text in part.data]
    target = np.concatenate([np.asarray(part.target) for part in parts])
    filenames = np.concatenate([np.asarray(part.filenames) for part in parts])
    target_names = list(parts[0].target_names)
    for step, strip in (("headers", strip_newsgroup_header),
                        ("footers", strip_newsgroup_footer),
                        ("quotes", strip_newsgroup_quoting)):
        if step in remove:
            data = [strip(text) for text in data]
    if categories is not None:
        labels = sorted((target_names.index(name), name) for name in categories)
        codes = [code for code, _ in labels]
        mask = np.isin(target, codes)
        data = [text for text, keep in zip(data, mask) if keep]
        target = np.searchsorted(codes, target[mask])
        filenames = filenames[mask]
        target_names = [name for _, name in labels]
    return Bunch(data=data, target=target, filenames=filenames, target_names=target_names)
