"""The central privacy of releasing n randomized reports shuffled (no order, no other columns).

Feldman, McMillan & Talwar, "Hiding among the clones" (FOCS 2021): n reports of eps0-LDP randomizers,
shuffled, are (eps, delta)-DP for the eps this module computes numerically, as their public code does
(github.com/apple/ml-shuffling-amplification), exactly up to floating point and never below the truth.
"""

from __future__ import annotations


def default_delta(n: int) -> float:
    """The delta stated when the admin chooses none: min(1 / n^1.1, 1e-6)."""
    raise NotImplementedError


def epsilon_c(epsilon0: float, n: int, delta: float) -> float:
    """The numerical bound: the smallest eps (to 1e-4 relative, rounded up) with the shuffled release of n
    eps0-LDP reports (eps, delta)-DP; at most epsilon0 (shuffling never costs privacy)."""
    raise NotImplementedError


def closed_form(epsilon0: float, n: int, delta: float) -> float:
    """Their Theorem 3.1's closed form (looser); epsilon0 outside its regime eps0 <= ln(n / (16 ln(4 / delta)))."""
    raise NotImplementedError
