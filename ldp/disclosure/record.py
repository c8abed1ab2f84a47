"""The whole record's Bayes accuracy: sum over every combination of reports (one per question) of
max over combinations of answers x of pi(x) prod_i P_i(r_i | x_i), the reports independent given the answers.

Only the combinations with a share count; the products are built question by question (depth first), so
a combination of reports costs one multiplication per combination of answers. The report classes are
`channels.rows`' (merging proportional reports changes no guess, in a product either).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction

from .channels import Number, Rows

CELLS_MAX = 4_000_000  # report combinations x answer combinations enumerated at most


def accuracy(channels: Sequence[Rows], prior: Mapping[tuple[int, ...], Fraction]) -> Number:
    """sum_r max_x pi(x) prod_i P_i(r_i | x_i) over the answers with a share (see the module docstring)."""
    cells = [(cell, share) for cell, share in prior.items() if share]
    reports = 1
    for rows in channels:
        reports *= len(rows)
    if reports * len(cells) > CELLS_MAX:
        raise ValueError(f"{reports} combinations of reports by {len(cells)} of answers: too many to enumerate")
    exact = all(isinstance(value, Fraction) for rows in channels for row in rows for value in row)
    start: list[Number] = [share if exact else float(share) for _, share in cells]
    return _sum(channels, [cell for cell, _ in cells], 0, start)


def _sum(channels: Sequence[Rows], cells: list[tuple[int, ...]], depth: int, partial: list[Number]) -> Number:
    if depth == len(channels):
        return max(partial, default=Fraction(0))
    found: Number = Fraction(0)
    for row in channels[depth]:
        found += _sum(channels, cells, depth + 1, [value * row[cell[depth]] for value, cell in zip(partial, cells,
                                                                                                 strict=True)])
    return found
