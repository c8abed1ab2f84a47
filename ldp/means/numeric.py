"""Numeric questions: which of the 1-bit mean and discrete Laplace estimates a mean with less noise.

The variance the randomization adds per report to the estimate of the respondents' mean, given
their true values, in the question's units squared (the estimate's variance is this over n):
* 1-bit mean: (hi - lo)^2 lambda_i (1 - lambda_i) / (p - q)^2, lambda_i = q + (i / N)(p - q), largest for
  a true value in the middle of the range: about (hi - lo)^2 (e^eps + 1)^2 / (4 (e^eps - 1)^2);
* discrete Laplace: step^2 Var(Z) = step^2 2a / (1 - a)^2 with a = e^(-eps / N), whatever the true value.
`per_report_variance` gives both, worst case over the true values, from the mechanisms' own integers.
At small epsilon the 1-bit mean wins ((hi - lo)^2 / eps^2 against 2 (hi - lo)^2 / eps^2); at large
epsilon Laplace does (its noise vanishes, while the 1-bit mean keeps the rounding to an end of the range),
except with a single step (two grid values, nothing to round), where the 1-bit mean has half Laplace's variance.
When the respondents are a random sample, the spread of their true values adds the same Var(x) <=
(hi - lo)^2 / 4 to both; `ldp.planning.sizes.mean_respondents_needed` includes it.
"""

from __future__ import annotations

from typing import Any

from ..mechanisms.dlaplace import DiscreteLaplace
from ..mechanisms.grid import GridMechanism
from ..mechanisms.onebit import OneBitMean

__all__ = ["COMPARED", "DiscreteLaplace", "OneBitMean", "per_report_variance", "worst_report_variance",
           "worst_mean_variance"]


def worst_report_variance(mechanism: GridMechanism) -> float:
    """`GridMechanism.worst_report_variance`."""
    return mechanism.worst_report_variance()


def worst_mean_variance(mechanism: GridMechanism) -> float:
    """`GridMechanism.worst_mean_variance`: each mean mechanism's own formula.

    >>> round(worst_mean_variance(OneBitMean(1.0, "0", "1", "1")), 4)
    1.1707
    """
    return mechanism.worst_mean_variance()


COMPARED = (OneBitMean.name, DiscreteLaplace.name)  # the mean mechanisms `per_report_variance` compares, in order


def per_report_variance(epsilon: float, lo: Any, hi: Any, step: Any) -> dict[str, float]:
    """{"onebit": v1, "dlaplace": v2}: each mechanism's worst-case per-report variance (units squared).

    >>> small, large = per_report_variance(0.1, "0", "10", "1"), per_report_variance(8.0, "0", "10", "1")
    >>> small["onebit"] < small["dlaplace"], large["dlaplace"] < large["onebit"]
    (True, True)
    """
    return {mechanism.name: mechanism.worst_report_variance()
            for mechanism in (OneBitMean(epsilon, lo, hi, step), DiscreteLaplace(epsilon, lo, hi, step))}
