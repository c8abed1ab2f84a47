"""Power: the respondents needed to detect an odds ratio OR of a binary covariate present in a share f,
with a baseline prevalence pi0 among the unexposed, by a two-sided Wald test at level alpha with
power 1 - beta: n = (z_{1-alpha/2} + z_{1-beta})^2 (1 / ((1 - f) i0) + 1 / (f i1)) / log(OR)^2, where
i = dP^2 / (P (1 - P)) is the expected information per respondent in each group.
"""

from __future__ import annotations

import math
from statistics import NormalDist


def respondents_for_odds_ratio(odds_ratio: float, p: float, q: float, *, baseline: float, exposed: float = 0.5,
                               alpha: float = 0.05, power: float = 0.8) -> int:
    """Respondents needed to detect `odds_ratio` of a binary covariate (the module's docstring).

    >>> respondents_for_odds_ratio(2.0, 1.0, 0.0, baseline=0.2)  # a direct question
    352
    >>> respondents_for_odds_ratio(2.0, 0.75, 0.25, baseline=0.2)  # q-RR, q = 0.5: about five times as many
    1805
    """
    if not (odds_ratio > 0 and odds_ratio != 1.0):
        raise ValueError("the odds ratio must be positive and not 1")
    for name, value in (("baseline", baseline), ("exposed", exposed), ("alpha", alpha), ("power", power)):
        if not 0.0 < value < 1.0:
            raise ValueError(f"{name} must lie strictly between 0 and 1")
    if not 0.0 <= q < p <= 1.0:
        raise ValueError("the channel must have 0 <= q < p <= 1")
    odds = baseline / (1.0 - baseline) * odds_ratio
    info = []
    for pi in (baseline, odds / (1.0 + odds)):
        prob = q + (p - q) * pi
        info.append(((p - q) * pi * (1.0 - pi)) ** 2 / (prob * (1.0 - prob)))
    variance = 1.0 / ((1.0 - exposed) * info[0]) + 1.0 / (exposed * info[1])
    z = NormalDist().inv_cdf(1.0 - alpha / 2.0) + NormalDist().inv_cdf(power)
    return math.ceil(z * z * variance / math.log(odds_ratio) ** 2)
