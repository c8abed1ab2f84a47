"""A stream of reports in arrival order, turned into confidence sequences at chosen looks.

The reports are what `Mechanism.randomize` gives (and what an export holds, decoded): an option index per
respondent for an index channel (q-RR, bit flip, k-RR, direct) and the 1-bit mean's bit; k bits per
respondent for a unary encoding and a multi-select (an (n, k) array); discrete Laplace's integer r as sent.
Each look counts the first n reports; the default looks are after every report.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

from .fractions import Channel, Sequence, fraction_sequence
from .means import Sequenced


class Reports(Channel, Sequenced, Protocol):
    """What a stream's sequence reads of its mechanism (every `ldp.Mechanism`)."""

    def report_range(self) -> tuple[int, int]: ...


def check_looks(looks: npt.ArrayLike | None, reports: int) -> npt.NDArray[np.int64]:
    """The looks as sorted distinct sample sizes in [1, reports]; all of them when None.

    >>> check_looks([10, 3, 10], 12).tolist()
    [3, 10]
    """
    if looks is None:
        return np.arange(1, reports + 1, dtype=np.int64)
    chosen = np.unique(np.asarray(looks, dtype=np.int64).reshape(-1))
    if chosen.size == 0 or chosen[0] < 1 or chosen[-1] > reports:
        raise ValueError(f"each look must be a number of reports from 1 to {reports}")
    return chosen


def stream_sequence(mechanism: Reports, reports: npt.ArrayLike, *, looks: npt.ArrayLike | None = None,
                    confidence: float = 0.95, planned: int | None = None) -> Sequence:
    """The confidence sequence of `mechanism`'s reports in the order given, at `looks` (default: every report).
    One entry per option (bits for unary encodings and multi-select), or one for a numeric question's mean.

    >>> from ldp import QRandomizedResponse
    >>> seq = stream_sequence(QRandomizedResponse("0.5"), [1, 0, 1, 1] * 100, looks=[4, 400])
    >>> seq.n.tolist(), [round(float(v), 3) for v in seq.estimate[-1]]
    ([4, 400], [0.0, 1.0])
    """
    data = np.asarray(reports, dtype=np.int64)
    unary = mechanism.encoding == "bits"
    if unary:
        data = data.reshape(-1, mechanism.k)
    elif data.ndim != 1:
        raise ValueError("reports must be a flat array of one report per respondent")
    low, high = mechanism.report_range()
    if data.size and (data.min() < low or data.max() > high):
        raise ValueError(f"reports must lie in [{low}, {high}]")
    at = check_looks(looks, data.shape[0]) - 1
    if mechanism.has_mean_sequence:
        return mechanism.mean_sequence(at + 1, np.cumsum(data)[at], confidence=confidence, planned=planned)
    if unary:
        counts = np.cumsum(data, axis=0)[at]
    else:
        counts = np.stack([np.cumsum(data == j)[at] for j in range(mechanism.k)], axis=1)
    return fraction_sequence(mechanism, at + 1, counts, confidence=confidence, planned=planned)

