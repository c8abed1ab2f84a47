"""`python -m ldp joint`: randomize a known joint table of two questions and estimate it back.

The true answers are the table's fractions of n exactly (largest remainder over the cells, as
`simulate` does), each question is randomized independently with its own mechanism, and each
repetition prints one JSON object: the k_A x k_B estimate, std_error, ci_low, ci_high (rows:
A's options; yes/no: 0 = no, 1 = yes), n and the p-value of the test of independence.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np
import numpy.typing as npt

from ..joint.association import independence
from ..joint.tables import JointCounts, estimate_joint
from ..mechanisms.registry import ONE_OF_K, Mechanism
from . import args as cli_args
from .args import apportion, number_in, positive_int, seed


def table(text: str) -> list[list[float]]:
    """'r1c1,r1c2;r2c1,r2c2': rows separated by ';', the fractions of a row by ','."""
    try:
        rows = [[float(part) for part in row.split(",")] for row in text.split(";")]
    except ValueError:
        raise argparse.ArgumentTypeError("must be rows of comma-separated numbers, separated by ';'") from None
    if len({len(row) for row in rows}) != 1:
        raise argparse.ArgumentTypeError("every row must have the same number of fractions")
    if any(not 0.0 <= v <= 1.0 for row in rows for v in row):
        raise argparse.ArgumentTypeError("each fraction must lie in [0, 1]")
    return rows


def add_parser(commands: Any) -> None:
    joint = commands.add_parser("joint", help="randomize a known joint table of two questions and estimate it back")
    for side in ("a", "b"):
        joint.add_argument(f"--mechanism-{side}", required=True, choices=sorted(ONE_OF_K))
        joint.add_argument(f"--q-{side}", type=str, help="q of q-randomized response (qrr only)")
        joint.add_argument(f"--epsilon-{side}", type=float, help="epsilon (all but qrr and direct)")
        joint.add_argument(f"--k-{side}", type=positive_int, default=None,
                           help="options (krr, sue, oue, direct; default: from --truth)")
    joint.add_argument("--truth", required=True, type=table,
                       help="the k_A x k_B table of true joint fractions, rows (A's options) separated by ';'")
    joint.add_argument("--n", required=True, type=positive_int)
    joint.add_argument("--reps", type=positive_int, default=1)
    joint.add_argument("--seed", type=seed, default=None)
    joint.add_argument("--confidence", type=number_in(0.5, 1.0, "low"), default=0.95)


def _question(parser: argparse.ArgumentParser, args: argparse.Namespace, side: str, options: int) -> Mechanism:
    name, k = getattr(args, f"mechanism_{side}"), getattr(args, f"k_{side}")
    built = cli_args.mechanism(parser, name, k, getattr(args, f"q_{side}"), getattr(args, f"epsilon_{side}"),
                               suffix=f"-{side}", k_default=options)
    if built.k != options:
        what = "rows" if side == "a" else "columns"
        culprit = "--truth" if k is None else f"--k-{side}"
        parser.error(f"argument {culprit}: question {side.upper()} ({name}) has {built.k} options "
                     f"but --truth has {options} {what}")
    return built


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    truth = np.asarray(args.truth, dtype=float)
    k_a, k_b = truth.shape
    if k_a < 2 or k_b < 2:
        parser.error("argument --truth: give at least 2 rows and 2 columns")
    if abs(truth.sum() - 1.0) > 1e-9:
        parser.error("argument --truth: the fractions must sum to 1")
    a, b = _question(parser, args, "a", k_a), _question(parser, args, "b", k_b)
    cells = np.repeat(np.arange(k_a * k_b), apportion(truth.reshape(-1), args.n))
    values_a, values_b = cells // k_b, cells % k_b
    rng = np.random.default_rng(args.seed)
    for _ in range(args.reps):
        counts = JointCounts.from_reports(a, a.randomize(values_a, rng), b, b.randomize(values_b, rng))
        est = estimate_joint(a, b, counts, confidence=args.confidence)
        print(json.dumps({
            "estimate": _rows(est.estimate),
            "std_error": _rows(est.std_error),
            "ci_low": _rows(est.ci_low),
            "ci_high": _rows(est.ci_high),
            "n": args.n,
            "independence_p": independence(a, b, counts).p_value,
        }))


def _rows(values: npt.ArrayLike) -> list[list[float]]:
    return [list(row) for row in np.asarray(values, dtype=float).tolist()]
