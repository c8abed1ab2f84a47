"""Argument parsing shared by the `python -m ldp` commands: typed values and mechanisms, with
errors that name the argument (one line, exit status 2)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import NoReturn

import numpy as np
import numpy.typing as npt

from ..mechanisms import exact_q
from ..mechanisms.base import IntArray
from ..mechanisms.fields import FieldRefusal, build
from ..mechanisms.registry import MECHANISMS, YES_NO, Mechanism


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line naming the argument, exit status 2.
        self.exit(2, f"{self.prog}: error: {message}\n")


def fraction_list(text: str) -> list[float]:
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("must be comma-separated numbers") from None
    if any(not 0.0 <= v <= 1.0 for v in values):
        raise argparse.ArgumentTypeError("each fraction must lie in [0, 1]")
    return values


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a positive integer") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value


def number_in(low: float, high: float, closed: str) -> Callable[[str], float]:
    """A parser for a number in an interval; `closed` says which ends belong to it ('', 'low', 'both')."""
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError("must be a number") from None
        above = value >= low if closed in ("low", "both") else value > low
        below = value <= high if closed == "both" else value < high
        if not (above and below):
            left = "[" if closed in ("low", "both") else "("
            right = "]" if closed == "both" else ")"
            raise argparse.ArgumentTypeError(f"must lie in {left}{low:g}, {high:g}{right}")
        return value
    return parse


def seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a non-negative integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be a non-negative integer")
    return value


def mechanism(parser: argparse.ArgumentParser, name: str, k: int | None, q: str | None, epsilon: float | None,
              suffix: str = "", k_default: int | None = None) -> Mechanism:
    """Build `name` from the values of --k, --q, --epsilon (each name followed by `suffix`);
    without --k a multi-option mechanism takes `k_default`, or is refused if there is none."""
    k_arg, q_arg, epsilon_arg = f"--k{suffix}", f"--q{suffix}", f"--epsilon{suffix}"
    if name in YES_NO and k not in (None, 2):
        parser.error(f"argument {k_arg}: {name} is for yes/no questions")
    if name not in YES_NO and k is None:
        if k_default is None:
            parser.error(f"argument {k_arg}: required for {name}")
        k = k_default
    given = {q_arg: q, epsilon_arg: epsilon}
    parameter = MECHANISMS[name].parameter  # "q", "epsilon", or None (not randomized: k only)
    if parameter is None:
        wanted, unwanted = k_arg, [q_arg, epsilon_arg]
    else:
        wanted, other = (q_arg, epsilon_arg) if parameter == "q" else (epsilon_arg, q_arg)
        unwanted = [other]
    for argument in unwanted:
        if given[argument] is not None:
            parser.error(f"argument {argument}: not used by {name}" + ("" if parameter is None else f"; give {wanted}"))
    if wanted != k_arg and given[wanted] is None:
        parser.error(f"argument {wanted}: required for {name}")
    try:  # a typed q must be sampled exactly as typed, never rounded (ldp.mechanisms.exact_q)
        exact = None if q is None else exact_q.typed(q)
    except (ValueError, TypeError) as error:
        parser.error(f"argument {wanted}: {error}")
    try:  # a yes/no mechanism takes no k (its two answers are fixed)
        return build(name, k=(k or 2) if "k" in MECHANISMS[name].keys else None, q=exact, epsilon=epsilon)
    except FieldRefusal as refusal:
        parser.error(f"argument {k_arg if refusal.field == 'k' else wanted}: {refusal}")


def truth(parser: argparse.ArgumentParser, text: str, name: str, k: int) -> npt.NDArray[np.float64]:
    """--truth of a one-of-k mechanism: the yes fraction (yes/no, as [no, yes]) or k fractions summing to 1."""
    try:
        values = fraction_list(text)
    except argparse.ArgumentTypeError as error:
        parser.error(f"argument --truth: {error}")
    if name in YES_NO:
        if len(values) != 1:
            parser.error("argument --truth: give the single true yes fraction")
        values = [1.0 - values[0], values[0]]
    if len(values) != k or abs(sum(values) - 1.0) > 1e-9:
        parser.error(f"argument --truth: give {k} fractions that sum to 1")
    return np.asarray(values)


def apportion(fractions: npt.NDArray[np.float64], n: int) -> IntArray:
    """Counts of n in the given fractions exactly: floors, then the largest remainders get one more."""
    raw = fractions * n
    counts = np.floor(raw).astype(np.int64)
    order = np.argsort(-(raw - counts), kind="stable")
    counts[order[: n - counts.sum()]] += 1
    return counts
