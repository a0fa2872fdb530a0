"""The package's internals that the benchmarks measure or build on, imported in this one
place: a script imports them from here, never from a private module of the package, so
that a reorganisation of the package changes this file only."""

from sklearn_shufdiv.cluster._numerics import scaled_rows
from sklearn_shufdiv.cluster._seeding import _unit_rows_at as unit_rows
from sklearn_shufdiv.cluster._seeding import kmeans_plusplus as spherical_kmeans_plusplus
from sklearn_shufdiv.embedders import (
    ContrastiveNet,
    LexicalSpace,
    ShuffleDividePositives,
    ViewBatch,
    fuse,
    load_encoder,
)
from sklearn_shufdiv.embedders._criteria import resolve_criterion
from sklearn_shufdiv.embedders._encoder import encode
from sklearn_shufdiv.embedders._precision import (
    check_inference_dtype,
    cpu_has_bfloat16,
    inference_encoder,
)
from sklearn_shufdiv.embedders._windows import cut_windows

__all__ = ["ContrastiveNet", "LexicalSpace", "ShuffleDividePositives", "ViewBatch",
           "check_inference_dtype", "cpu_has_bfloat16", "cut_windows", "encode", "fuse",
           "inference_encoder", "load_encoder", "resolve_criterion", "spherical_kmeans_plusplus",
           "scaled_rows", "unit_rows"]
