"""Each question's true answer as one or more categorical variables, with the exact channel from a variable's
true value to a code computed from its report: P(code | truth), a (codes x values) matrix.

| mechanism | variables | values | report code |
|---|---|---|---|
| qrr, bitflip, krr, direct (composed waves too) | one | the k options | the reported option |
| sue, oue | one | the k options | the bit pattern (k <= 6); else the one bit set, "none" or "several" |
| multiselect, k <= SUBSET_K | one | the subsets (at most at_most ticked) | the reported bits' pattern |
| multiselect, larger k | one per option | ticked or not | the option's reported bit (its channel is the bit flip) |
| onebit | one: the rounded bit u, P(u = 1 | i) = i / steps | 0, 1 | the reported bit |
| dlaplace | one: the grid index, in at most BINS bins | bins | r, in at most REPORT_BINS bins (tails lumped) |
| direct_number | one: the grid index, in at most BINS bins | bins | the bin of the index |

Coarsening a report keeps its channel exact (a code's probability is a sum of reports'), so every fit is
consistent; it only loses some efficiency. A binned grid's channel averages the grid points of a bin
(exact when the bin is one point).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
PATTERN_K = 6  # a unary report's pattern of bits is its code up to this many options (2^6 codes)
SUBSET_K = 4  # a multi-select question up to this many options is one variable over its subsets
BINS = 20  # a numeric grid's values for the pairs, at most
REPORT_BINS = 30  # discrete Laplace reports' codes, at most
POINTS_PER_BIN = 64  # grid points averaged per bin for a binned channel


def index_channel(p: float, q: float, k: int) -> FloatArray:
    """P(report r | truth t) = p if r == t else q."""
    return np.full((k, k), q) + np.eye(k) * (p - q)


def unary_channel(p: float, q: float, k: int) -> FloatArray:
    """Unary bits, independently 1 with p (the true option's bit) or q (the others'): the pattern's probability
    (k <= PATTERN_K: code = the bitmask), or codes j (only bit j set), k (none set), k + 1 (several)."""
    if k <= PATTERN_K:
        patterns = (np.arange(1 << k)[:, None] >> np.arange(k)[None, :]) & 1  # (codes, bits)
        others = np.prod(np.where(patterns == 1, q, 1.0 - q), axis=1)  # every bit as a non-true one
        own = np.where(patterns == 1, p / q, (1.0 - p) / (1.0 - q))  # the true bit's correction, per truth t
        return np.asarray(others[:, None] * own, dtype=float)
    channel = np.zeros((k + 2, k))
    rest = (1.0 - q) ** (k - 2)
    channel[:k, :] = q * (1.0 - p) * rest
    channel[np.arange(k), np.arange(k)] = p * (1.0 - q) * rest
    channel[k, :] = (1.0 - p) * (1.0 - q) * rest
    channel[k + 1, :] = 1.0 - channel[: k + 1, :].sum(axis=0)
    return channel


def subset_channel(p: float, k: int) -> FloatArray:
    """Multi-select bits, each kept with p: P(reported pattern | true subset) = p^(k - d) (1 - p)^d, d the
    bits they differ in (codes and values both bitmasks, bit j = option j)."""
    masks = np.arange(1 << k)
    differ = np.zeros((masks.size, masks.size), dtype=np.int64)
    for j in range(k):
        differ += ((masks[:, None] ^ masks[None, :]) >> j) & 1
    return np.asarray(p ** (k - differ) * (1.0 - p) ** differ, dtype=float)


def unary_codes(bits: npt.NDArray[np.int64], k: int) -> npt.NDArray[np.int64]:
    """The codes of `unary_channel` from an (n, k) array of report bits."""
    if k <= PATTERN_K:
        return np.asarray(bits @ (np.int64(1) << np.arange(k, dtype=np.int64)), dtype=np.int64)
    ones = bits.sum(axis=1)
    return np.where(ones == 1, np.argmax(bits, axis=1), np.where(ones == 0, k, k + 1)).astype(np.int64)


def grid_bins(steps: int) -> npt.NDArray[np.int64]:
    """The first grid index of each bin and, last, steps + 1: one bin per grid point up to BINS points."""
    if steps + 1 <= BINS:
        return np.arange(steps + 2, dtype=np.int64)
    return np.unique(np.round(np.linspace(0, steps + 1, BINS + 1)).astype(np.int64))


def laplace_cdf(z: npt.ArrayLike, a: float) -> FloatArray:
    """P(Z <= z) for integer z, Z two-sided geometric with ratio a."""
    at = np.asarray(z, dtype=float)
    with np.errstate(over="ignore"):
        below = a ** (-np.minimum(at, 0.0)) / (1.0 + a)
        above = 1.0 - a ** (np.maximum(at, -1.0) + 1.0) / (1.0 + a)
    return np.asarray(np.where(at < 0, below, above), dtype=float)


def laplace_report_edges(steps: int, a: float, bound: int) -> npt.NDArray[np.int64]:
    """Report codes: r clipped to [-w, steps + w] (w about four noise deviations, at most the bound), cut
    into at most REPORT_BINS intervals; the first lower edge stands for -infinity, the last for +infinity."""
    deviation = math.sqrt(2.0 * a) / (1.0 - a)
    w = min(bound, int(math.ceil(4.0 * deviation)) + 1)
    low, high = -w, steps + w + 1
    if high - low <= REPORT_BINS:
        return np.arange(low, high + 1, dtype=np.int64)
    return np.unique(np.round(np.linspace(low, high, REPORT_BINS + 1)).astype(np.int64))


def laplace_channel(a: float, report_edges: npt.NDArray[np.int64], bins: npt.NDArray[np.int64]) -> FloatArray:
    """P(code | bin): the probability of r in [edge_c, edge_c+1) averaged over (up to POINTS_PER_BIN of) the bin's
    grid points, the outer codes reaching to infinity (the clamp at the bound only moves reports within them)."""
    channel = np.zeros((report_edges.size - 1, bins.size - 1))
    for b in range(bins.size - 1):
        points = np.unique(np.linspace(bins[b], bins[b + 1] - 1, min(POINTS_PER_BIN, bins[b + 1] - bins[b]))
                           .round().astype(np.int64))
        upper = laplace_cdf(report_edges[1:, None] - 1 - points[None, :], a)
        lower = laplace_cdf(report_edges[:-1, None] - 1 - points[None, :], a)
        upper[-1, :], lower[0, :] = 1.0, 0.0
        channel[:, b] = (upper - lower).mean(axis=1)
    return channel


def bin_of(values: npt.NDArray[np.int64], edges: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The interval of each value among [edge_j, edge_j+1), values outside clipped to the first or last."""
    return np.clip(np.searchsorted(edges, values, side="right") - 1, 0, edges.size - 2).astype(np.int64)
