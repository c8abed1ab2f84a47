"""One BLAS thread while the model is fitted: its products are small (hundreds of rows), and a threaded OpenBLAS
on a busy machine spends a hundred times longer waiting for its threads than computing (measured: a 400 x 400 by
400 x 16 product, 20 ms threaded against 0.2 ms on one thread, with the machine's cores shared). numpy's bundled
OpenBLAS is found among the loaded libraries and told through its own setter (what threadpoolctl does); where it
is not found nothing changes."""

from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Iterator
from pathlib import Path

import numpy as np

NAMES = ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_", "openblas_set_num_threads")
GETTERS = ("scipy_openblas_get_num_threads64_", "openblas_get_num_threads64_", "openblas_get_num_threads")


def _library() -> ctypes.CDLL | None:
    folder = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for path in sorted(folder.glob("libscipy_openblas*.so*")) if folder.is_dir() else []:
        try:
            return ctypes.CDLL(str(path))
        except OSError:
            continue
    return None


@contextlib.contextmanager
def one_blas_thread() -> Iterator[None]:
    library = _library()
    setter = next((getattr(library, name) for name in NAMES if library is not None and hasattr(library, name)), None)
    getter = next((getattr(library, name) for name in GETTERS if library is not None and hasattr(library, name)),
                  None)
    if setter is None or getter is None:
        yield
        return
    before = int(getter())
    setter(1)
    try:
        yield
    finally:
        setter(before)
