"""`python -m ldp`: simulate a mechanism on a known truth, or plan a sample size."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import NoReturn

import numpy as np
import numpy.typing as npt

from .mechanism import IntArray
from .mechanisms import MECHANISMS, YES_NO, Mechanism, make
from .planning import respondents_needed


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # One line naming the argument, exit status 2.
        self.exit(2, f"{self.prog}: error: {message}\n")


def _fraction_list(text: str) -> list[float]:
    try:
        values = [float(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError("must be comma-separated numbers") from None
    if any(not 0.0 <= v <= 1.0 for v in values):
        raise argparse.ArgumentTypeError("each fraction must lie in [0, 1]")
    return values


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a positive integer") from None
    if value <= 0:
        raise argparse.ArgumentTypeError("must be a positive integer")
    return value


def _number_in(low: float, high: float, closed: str) -> Callable[[str], float]:
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


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be a non-negative integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must be a non-negative integer")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m ldp", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    simulate = commands.add_parser("simulate", help="randomize a known truth and estimate it back")
    plan = commands.add_parser("plan", help="respondents needed for a margin")
    for sub in (simulate, plan):
        sub.add_argument("--mechanism", required=True, choices=sorted(MECHANISMS))
        sub.add_argument("--q", type=str, help="q of q-randomized response (qrr only)")
        sub.add_argument("--epsilon", type=float, help="epsilon (all but qrr)")
        sub.add_argument("--k", type=_positive_int, default=None, help="options (krr, sue, oue)")
        sub.add_argument("--confidence", type=_number_in(0.5, 1.0, "low"), default=0.95)
    simulate.add_argument("--truth", required=True, type=_fraction_list,
                          help="yes/no: the true yes fraction; k options: k fractions summing to 1")
    simulate.add_argument("--n", required=True, type=_positive_int)
    simulate.add_argument("--reps", type=_positive_int, default=1)
    simulate.add_argument("--seed", type=_seed, default=None)
    simulate.add_argument("--interval", choices=["wilson", "exact"], default="wilson")
    plan.add_argument("--margin", required=True, type=_number_in(0.0, 1.0, ""))
    plan.add_argument("--expected", type=_number_in(0.0, 1.0, "both"), default=None,
                      help="expected fraction (default: worst case)")
    return parser


def _mechanism(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Mechanism:
    name = args.mechanism
    if name in YES_NO and args.k not in (None, 2):
        parser.error(f"argument --k: {name} is for yes/no questions")
    if name not in YES_NO and args.k is None:
        parser.error(f"argument --k: required for {name}")
    wanted, unwanted = ("--q", "--epsilon") if name == "qrr" else ("--epsilon", "--q")
    if getattr(args, unwanted.lstrip("-")) is not None:
        parser.error(f"argument {unwanted}: not used by {name}; give {wanted}")
    if getattr(args, wanted.lstrip("-")) is None:
        parser.error(f"argument {wanted}: required for {name}")
    try:
        return make(name, k=args.k or 2, q=args.q, epsilon=args.epsilon)
    except (ValueError, TypeError) as error:
        text = str(error)
        parser.error(f"argument {'--k' if text.startswith('k ') else wanted}: {text}")


def _truth(parser: argparse.ArgumentParser, args: argparse.Namespace, k: int) -> npt.NDArray[np.float64]:
    truth: list[float] = args.truth
    if args.mechanism in YES_NO:
        if len(truth) != 1:
            parser.error("argument --truth: give the single true yes fraction")
        truth = [1.0 - truth[0], truth[0]]
    if len(truth) != k or abs(sum(truth) - 1.0) > 1e-9:
        parser.error(f"argument --truth: give {k} fractions that sum to 1")
    return np.asarray(truth)


def _simulate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    mechanism = _mechanism(parser, args)
    truth = _truth(parser, args, mechanism.k)
    rng = np.random.default_rng(args.seed)
    # The true answers are the stated fractions of n exactly (largest remainder), as in a real panel.
    values = np.repeat(np.arange(mechanism.k), _apportion(truth, args.n))
    pick = slice(1, 2) if args.mechanism in YES_NO else slice(None)
    for _ in range(args.reps):
        counts = mechanism.counts(mechanism.randomize(values, rng))
        est = mechanism.estimate(counts, args.n, confidence=args.confidence, interval=args.interval)
        print(json.dumps({
            "estimate": list(est.estimate[pick]),
            "std_error": list(est.std_error[pick]),
            "ci_low": list(est.ci_low[pick]),
            "ci_high": list(est.ci_high[pick]),
            "n": args.n,
        }))


def _apportion(fractions: npt.NDArray[np.float64], n: int) -> IntArray:
    raw = fractions * n
    counts = np.floor(raw).astype(np.int64)
    order = np.argsort(-(raw - counts), kind="stable")
    counts[order[: n - counts.sum()]] += 1
    return counts


def _plan(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    mechanism = _mechanism(parser, args)
    needed = respondents_needed(mechanism, args.margin, args.confidence, args.expected)
    print(json.dumps({
        "mechanism": mechanism.to_dict(),
        "effective_epsilon": mechanism.effective_epsilon,
        "margin": args.margin,
        "confidence": args.confidence,
        "respondents": needed,
    }))


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "simulate":
        _simulate(parser, args)
    else:
        _plan(parser, args)
    return 0
