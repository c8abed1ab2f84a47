"""Grouped rows: a row that stands for `count` identical respondents, so that a fit, a raking or a variance over a
survey's distinct answers is the one over its respondents (`ldp.weighting.raking`, `ldp.regression.logistic`,
`ldp.regression.linear`)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]


def row_counts(counts: npt.ArrayLike | None, rows: int, error: type[ValueError] = ValueError) -> FloatArray | None:
    """Grouped rows' counts (a row stands for that many identical respondents), checked: whole numbers of at least
    1, one per row; None for rows that are one respondent each."""
    if counts is None:
        return None
    m = np.asarray(counts, dtype=float).reshape(-1)
    if m.shape != (rows,) or not np.all(np.isfinite(m)) or np.any(m < 1) or np.any(m % 1):
        raise error("counts must be whole numbers of at least 1, one per row")
    return m


def same_counts(a: FloatArray | None, b: FloatArray | None) -> bool:
    """Whether a design and the rows fitted with it count the same respondents."""
    return a is b or (a is not None and b is not None and np.array_equal(a, b))
