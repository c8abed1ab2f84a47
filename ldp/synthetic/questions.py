"""A question's reports read from text cells, its variables (`ldp.synthetic.channels`) and, back, the true
answers written from its variables' sampled values.

Reports (one text cell per row; an empty cell is a missing report, that row not counting for the question):
an option index (qrr, bitflip, krr, direct), the bits as 0/1 characters, option 0 first (sue, oue,
multiselect), the reported bit (onebit), r = the grid index plus noise (dlaplace), the grid index
(direct_number). True answers: an option index; multiselect's ticked options as 0/1 characters; a numeric
question's grid index (onebit: 0 or steps, the rounded bit's end; the reports identify only the mean of i /
steps, which these ends keep, with every covariance of it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from ..mechanisms.base import Mechanism
from ..mechanisms.dlaplace import DiscreteLaplace
from ..mechanisms.grid import GridMechanism
from ..mechanisms.multiselect import MultiSelect
from . import channels

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


class ReportCellError(ValueError):
    """A cell that is no report of its question; the message names the row (1 = the first data row)."""


@dataclass(eq=False)
class Variable:
    """One categorical variable: its name, P(code | value), each row's code (-1: missing) and, for the debiased
    estimates, its report slots (an (n, k) 0/1 array, or None: each code is its own slot) with their channel
    (p, q_other); `debiased` False where no per-value estimate exists (discrete Laplace)."""

    name: str
    channel: FloatArray
    codes: IntArray
    p: float
    q_other: float
    bits: npt.NDArray[np.uint8] | None = None
    debiased: bool = True
    bins: IntArray | None = None  # a grid's bins (first index of each, then steps + 1)
    within: FloatArray | None = None  # a grid's distribution over its points, for drawing within a bin
    subsets: int | None = None  # a multi-select's subsets as one variable: the most options one may tick

    @property
    def k(self) -> int:
        return int(self.channel.shape[1])

    @property
    def bits_k(self) -> int:
        """The bits of a report with bits (0 without)."""
        return 0 if self.bits is None else int(self.bits.shape[1])

    @property
    def slots(self) -> int:
        """The counters of a report: its bits, or one per code (an index report is its own code)."""
        return self.bits_k or int(self.channel.shape[0])

    @property
    def present(self) -> npt.NDArray[np.bool_]:
        return self.codes >= 0


def _integers(cells: npt.NDArray[np.str_], low: int, high: int, column: str) -> tuple[IntArray, npt.NDArray[np.bool_]]:
    """The whole numbers in [low, high] and which cells are empty (missing), read digit by digit (numpy's own
    conversion of text is ten times slower)."""
    missing = cells == ""
    width = max(1, int(np.char.str_len(cells).max(initial=1)))
    points = np.ascontiguousarray(cells.astype(f"<U{width}")).view(np.uint32).reshape(-1, width).astype(np.int64)
    lengths = (points != 0).sum(axis=1)
    negative = points[:, 0] == 45  # "-"
    place = np.arange(width)[None, :]
    digit = points - 48
    is_digit = (digit >= 0) & (digit <= 9)
    wanted = (place < lengths[:, None]) & ~((place == 0) & negative[:, None])
    bad = ~missing & ((wanted & ~is_digit).any(axis=1) | (lengths - negative > 18) | (lengths == negative))
    if bad.any():
        row = int(np.argmax(bad))
        raise ReportCellError(f"row {row + 1}, column {column}: {str(cells[row])!r} is not a whole number")
    power = np.where(wanted, lengths[:, None] - 1 - place, 0)
    values = np.where(wanted, digit * 10 ** power.clip(0, 18), 0).sum(axis=1)
    values = np.where(negative, -values, values)
    outside = ~missing & ((values < low) | (values > high))
    if outside.any():
        row = int(np.argmax(outside))
        raise ReportCellError(f"row {row + 1}, column {column}: {cells[row]} is out of range [{low}, {high}]")
    return values, missing


def _bits(cells: npt.NDArray[np.str_], k: int, column: str) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
    missing = cells == ""
    filled = np.where(missing, "0" * k, cells)
    lengths = np.char.str_len(filled)
    if (lengths != k).any():
        row = int(np.argmax(lengths != k))
        raise ReportCellError(f"row {row + 1}, column {column}: {str(cells[row])!r} is not {k} bits (0/1 characters)")
    points = np.ascontiguousarray(filled.astype(f"<U{k}")).view(np.uint32).reshape(-1, k).astype(np.int64) - 48
    bad = ((points < 0) | (points > 1)).any(axis=1)
    if bad.any():
        row = int(np.argmax(bad))
        raise ReportCellError(f"row {row + 1}, column {column}: {str(cells[row])!r} is not {k} bits (0/1 characters)")
    return points.astype(np.uint8), missing


def variables(column: str, mechanism: Mechanism, cells: npt.ArrayLike) -> list[Variable]:
    """The question's variables from its column of report cells (ReportCellError for a cell out of range)."""
    text = np.asarray(cells, dtype=str)
    return _variables(column, mechanism, lambda k: _bits(text, k, column),
                      lambda low, high: _integers(text, low, high, column))


@dataclass(frozen=True)
class Stored:
    """A question's reports as the app stores them (`stored_variables`), instead of text cells."""

    values: npt.ArrayLike
    missing: npt.ArrayLike


def stored_variables(column: str, mechanism: Mechanism, stored: npt.ArrayLike,
                     missing: npt.ArrayLike) -> list[Variable]:
    """`variables` from the values as the app stores them (`Mechanism.encode`: an option index, a bitmask of bits
    with bit j = option j, discrete Laplace's r + bound) and which responses have none: no text made per report
    (`stored_cells` and back cost 30 s of 10^6 responses x 30 questions)."""
    values = np.asarray(stored, dtype=np.int64).reshape(-1)
    absent = np.asarray(missing, dtype=bool).reshape(-1)
    shift = mechanism.bound if isinstance(mechanism, DiscreteLaplace) else 0

    def bits(k: int) -> tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]:
        _checked(values, absent, 0, (1 << k) - 1, column)
        return ((np.where(absent, 0, values)[:, None] >> np.arange(k)) & 1).astype(np.uint8), absent

    def integers(low: int, high: int) -> tuple[IntArray, npt.NDArray[np.bool_]]:
        found = np.where(absent, low, values - shift)
        _checked(found, absent, low, high, column)
        return found, absent

    return _variables(column, mechanism, bits, integers)


def _checked(values: IntArray, missing: npt.NDArray[np.bool_], low: int, high: int, column: str) -> None:
    outside = ~missing & ((values < low) | (values > high))
    if outside.any():
        row = int(np.argmax(outside))
        raise ReportCellError(f"row {row + 1}, column {column}: {values[row]} is out of range [{low}, {high}]")


Bits = Callable[[int], tuple[npt.NDArray[np.uint8], npt.NDArray[np.bool_]]]
Integers = Callable[[int, int], tuple[IntArray, npt.NDArray[np.bool_]]]


def _variables(column: str, mechanism: Mechanism, read_bits: Bits, read_integers: Integers) -> list[Variable]:
    p, q = (mechanism.p, mechanism.q_other) if not isinstance(mechanism, DiscreteLaplace) else (1.0, 0.0)
    if isinstance(mechanism, MultiSelect) and mechanism.k <= channels.SUBSET_K:
        bits, missing = read_bits(mechanism.k)
        codes = np.where(missing, -1, bits.astype(np.int64) @ (np.int64(1) << np.arange(mechanism.k)))
        return [Variable(column, channels.subset_channel(p, mechanism.k), codes, p, q, bits=bits,
                         subsets=mechanism.at_most if mechanism.at_most is not None else mechanism.k)]
    if isinstance(mechanism, MultiSelect):
        bits, missing = read_bits(mechanism.k)
        two = channels.index_channel(p, q, 2)
        return [Variable(f"{column}[{j}]", two, np.where(missing, -1, bits[:, j].astype(np.int64)), p, q)
                for j in range(mechanism.k)]
    if mechanism.unary:
        bits, missing = read_bits(mechanism.k)
        codes = np.where(missing, -1, channels.unary_codes(bits.astype(np.int64), mechanism.k))
        return [Variable(column, channels.unary_channel(p, q, mechanism.k), codes, p, q, bits=bits)]
    if isinstance(mechanism, GridMechanism) and mechanism.encoding == "integer":
        return [_grid(column, mechanism, read_integers)]
    reports, missing = read_integers(0, mechanism.k - 1)  # an option, or the 1-bit mean's bit
    return [Variable(column, channels.index_channel(p, q, mechanism.k), np.where(missing, -1, reports), p, q)]


def _grid(column: str, mechanism: GridMechanism, read_integers: Integers) -> Variable:
    bins = channels.grid_bins(mechanism.steps)
    if isinstance(mechanism, DiscreteLaplace):
        reports, missing = read_integers(-mechanism.bound, mechanism.steps + mechanism.bound)
        edges = channels.laplace_report_edges(mechanism.steps, mechanism.ratio, mechanism.bound)
        codes = np.where(missing, -1, channels.bin_of(reports, edges))
        return Variable(column, channels.laplace_channel(mechanism.ratio, edges, bins), codes, 1.0, 0.0,
                        debiased=False, bins=bins)
    reports, missing = read_integers(0, mechanism.steps)  # a number sent as given: its grid index
    present = ~missing
    within = np.bincount(reports[present], minlength=mechanism.steps + 1).astype(float)
    codes = np.where(present, channels.bin_of(reports, bins), -1)
    return Variable(column, np.eye(bins.size - 1), codes, 1.0, 0.0, bins=bins, within=within)


def answers(mechanism: Mechanism, values: list[IntArray], rng: np.random.Generator) -> npt.NDArray[np.int64] | \
        npt.NDArray[np.uint8]:
    """The true answers from the question's variables' values (one array per variable): an option index, a
    multi-select's ticks as an (n, k) array of bits, a numeric question's grid index."""
    if isinstance(mechanism, MultiSelect):
        if len(values) == 1:  # the subsets as one variable: its bitmask
            bits = ((values[0][:, None] >> np.arange(mechanism.k)) & 1).astype(np.uint8)
        else:
            bits = np.stack(values, axis=1).astype(np.uint8)
        if mechanism.at_most is not None:
            bits = _at_most(bits, mechanism.at_most, rng)
        return bits
    (value,) = values
    if isinstance(mechanism, GridMechanism) and mechanism.encoding != "integer":  # the 1-bit mean: u's end
        value = value * mechanism.steps
    return np.asarray(value, dtype=np.int64)


def answer_cells(answered: npt.NDArray[np.int64] | npt.NDArray[np.uint8]) -> list[str]:
    """`answers` as text cells: an index as a number, a multi-select's bits as 0/1 characters, option 0 first."""
    if answered.ndim == 2:
        return list((answered + 48).astype(np.uint32).view(f"<U{answered.shape[1]}").reshape(-1).tolist())
    return _text(np.asarray(answered, dtype=np.int64))


def _text(values: IntArray) -> list[str]:
    """Whole numbers as text, through a table of the distinct ones (numpy's own conversion is slow)."""
    if values.size == 0:
        return []
    low = int(values.min())
    table = np.asarray([str(v) for v in range(low, int(values.max()) + 1)])
    return list(table[values - low].tolist())


def within_bins(variable: Variable, bins_drawn: IntArray, rng: np.random.Generator) -> IntArray:
    """A grid index for each drawn bin: by the variable's distribution within the bin (uniform without one)."""
    edges = variable.bins
    assert edges is not None
    if edges.size - 1 == int(edges[-1]):  # one point per bin
        return bins_drawn
    weights = np.ones(int(edges[-1])) if variable.within is None else variable.within + 1e-12
    found = np.empty_like(bins_drawn)
    for b in range(edges.size - 1):
        rows = np.flatnonzero(bins_drawn == b)
        share = weights[edges[b]:edges[b + 1]]
        found[rows] = edges[b] + rng.choice(share.size, size=rows.size, p=share / share.sum())
    return found


def _at_most(bits: npt.NDArray[np.uint8], at_most: int, rng: np.random.Generator) -> npt.NDArray[np.uint8]:
    """Rows ticking more than at_most options keep at_most of their ticks, chosen at random (a respondent could
    not have given more)."""
    over = np.flatnonzero(bits.sum(axis=1) > at_most)
    for row in over:
        ticked = np.flatnonzero(bits[row])
        bits[row, rng.choice(ticked, size=ticked.size - at_most, replace=False)] = 0
    return bits


def stored_cells(mechanism: Mechanism, values: npt.ArrayLike, missing: npt.ArrayLike | None = None) -> npt.NDArray[
        np.str_]:
    """The report cells of stored values, as the app stores them (`Mechanism.encode`: an option index, a bitmask of
    bits with bit j = option j, discrete Laplace's r + bound), `missing` marking responses without a report.

    >>> from ldp import make
    >>> stored_cells(make("oue", epsilon=1.0, k=3), [1, 6, 0], [False, False, True]).tolist()
    ['100', '011', '']
    >>> laplace = make("dlaplace", epsilon=1.0, lo="0", hi="4", step="1")
    >>> stored_cells(laplace, [laplace.encode(-2), laplace.encode(5)]).tolist()
    ['-2', '5']
    """
    stored = np.asarray(values, dtype=np.int64).reshape(-1)
    absent = np.zeros(stored.size, dtype=bool) if missing is None else np.asarray(missing, dtype=bool).reshape(-1)
    if mechanism.unary:
        bits = ((stored[:, None] >> np.arange(mechanism.k)) & 1).astype(np.uint32) + 48
        text = np.ascontiguousarray(bits).view(f"<U{mechanism.k}").reshape(-1)
    else:
        shift = mechanism.bound if isinstance(mechanism, DiscreteLaplace) else 0
        text = np.asarray(_text(np.where(absent, shift, stored) - shift), dtype=str)
    return np.asarray(np.where(absent, "", text), dtype=str)
