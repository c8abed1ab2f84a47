"""`python -m ldp simulate` and `plan` for multi-select and numeric questions.

multiselect (--epsilon, --k, optional --at-most): --truth gives the k fractions of respondents who tick
each option (each in [0, 1]; they need not sum to 1). Option j is ticked by round(f_j n) respondents,
handed out in turn around the panel (option 0 to respondents 0, 1, ...; option 1 carries on where option
0 stopped, wrapping around), so nobody ticks an option twice and every respondent ticks the same number
of options give or take one. With --at-most m the ticks must then fit: sum_j round(f_j n) <= m n.
The output is the per-option estimate, as for the one-of-k mechanisms.

onebit, dlaplace (--epsilon, --lo, --hi, --step): --truth is a distribution over grid values,
"v:p,v:p,..." (e.g. "0:0.25,7.5:0.75"), the fractions summing to 1; the panel holds exactly those
fractions of n (largest remainder); write --truth=-2:1 when it starts with a minus sign, or argparse takes it
for an option. The output has the same keys with one entry: the mean in units.
`plan` takes --margin in the question's units for these two (any positive number).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np
import numpy.typing as npt

from ..mechanisms.fields import FieldRefusal, build
from ..mechanisms.grid import GridMechanism
from ..mechanisms.registry import MECHANISMS, Mechanism, MultiSelect
from ..planning.sizes import mean_respondents_needed, respondents_needed
from ..stats.estimates import MeanEstimate
from .args import apportion, fraction_list, positive_int

NAMES = frozenset(name for name, cls in MECHANISMS.items() if not cls.one_of_k)  # ticks, or a numeric mean
GRID_ARGUMENTS = {"lo": "--lo", "hi": "--hi", "step": "--step"}
FLAGS = {"k": "--k", "epsilon": "--epsilon", "at_most": "--at-most", **GRID_ARGUMENTS}  # by the field each sets


def add_arguments(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--at-most", type=positive_int, default=None,
                     help="multiselect: at most this many options may be ticked (default: any subset)")
    for name in GRID_ARGUMENTS:
        sub.add_argument(f"--{name}", type=str, default=None, help=f"onebit, dlaplace: the grid's {name} (a decimal)")


def refuse_extras(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The one-of-k mechanisms take none of --at-most, --lo, --hi, --step."""
    for name, flag in {"at_most": "--at-most", **GRID_ARGUMENTS}.items():
        if getattr(args, name) is not None:
            parser.error(f"argument {flag}: not used by {args.mechanism}")


def mechanism(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Mechanism:
    name = args.mechanism
    takes = MECHANISMS[name].keys  # the one rule of which fields a mechanism takes (`ldp.mechanisms.fields`)
    unused = {"--q": args.q} | {flag: getattr(args, key) for key, flag in FLAGS.items() if key not in takes}
    for flag, value in unused.items():
        if value is not None:
            parser.error(f"argument {flag}: not used by {name}")
    for key in ("epsilon", "k", *GRID_ARGUMENTS):
        if key in takes and getattr(args, key) is None:
            parser.error(f"argument {FLAGS[key]}: required for {name}")
    try:
        return build(name, **{key: getattr(args, key) for key in FLAGS if key in takes})
    except FieldRefusal as refusal:
        parser.error(f"argument {FLAGS.get(refusal.field, '--epsilon')}: {refusal}")


def simulate(parser: argparse.ArgumentParser, args: argparse.Namespace, built: Mechanism) -> None:
    rng = np.random.default_rng(args.seed)
    if isinstance(built, GridMechanism):
        values: npt.NDArray[Any] = _numeric_panel(parser, built, args.truth, args.n)
    else:
        assert isinstance(built, MultiSelect)
        values = _multiselect_panel(parser, built, args.truth, args.n)
    for _ in range(args.reps):
        reports = built.randomize(values, rng)
        if isinstance(built, GridMechanism):
            mean: MeanEstimate = built.estimate_mean(*built.histogram(reports), confidence=args.confidence)
            record = {"estimate": [mean.mean], "std_error": [mean.std_error], "ci_low": [mean.ci_low],
                      "ci_high": [mean.ci_high]}
        else:
            est = built.estimate(built.counts(reports), args.n, confidence=args.confidence, interval=args.interval)
            record = {"estimate": list(est.estimate), "std_error": list(est.std_error), "ci_low": list(est.ci_low),
                      "ci_high": list(est.ci_high)}
        print(json.dumps({**record, "n": args.n}))


def _numeric_panel(parser: argparse.ArgumentParser, built: GridMechanism, text: str, n: int) -> npt.NDArray[np.int64]:
    indexes, fractions = [], []
    try:
        for part in text.split(","):
            value, _, fraction = part.partition(":")
            indexes.append(built.index(value))
            fractions.append(float(fraction))
    except (ValueError, TypeError) as error:
        parser.error(f"argument --truth: give grid values and fractions as v:p,v:p ({error})")
    share = np.asarray(fractions)
    if (share < 0).any() or (share > 1).any() or abs(share.sum() - 1.0) > 1e-9 or len(set(indexes)) != len(indexes):
        parser.error("argument --truth: give distinct grid values with fractions in [0, 1] that sum to 1")
    return np.repeat(np.asarray(indexes, dtype=np.int64), apportion(share, n))


def _multiselect_panel(parser: argparse.ArgumentParser, built: MultiSelect, text: str,
                       n: int) -> npt.NDArray[np.uint8]:
    try:
        fractions = fraction_list(text)
    except argparse.ArgumentTypeError as error:
        parser.error(f"argument --truth: {error}")
    if len(fractions) != built.k:
        parser.error(f"argument --truth: give {built.k} fractions, one per option")
    ticks = np.floor(np.asarray(fractions) * n + 0.5).astype(np.int64)
    if built.at_most is not None and ticks.sum() > built.at_most * n:
        parser.error(f"argument --truth: with --at-most {built.at_most} the fractions may add up to at most "
                     f"{built.at_most}")
    bits = np.zeros((n, built.k), dtype=np.uint8)
    start = 0
    for option, count in enumerate(ticks):
        bits[(start + np.arange(count)) % n, option] = 1
        start = (start + int(count)) % n
    return bits


def plan(parser: argparse.ArgumentParser, args: argparse.Namespace, built: Mechanism) -> dict[str, Any]:
    if isinstance(built, GridMechanism):
        if args.expected is not None:
            parser.error(f"argument --expected: not used by {built.name} (the plan is for any true values)")
        try:
            return {"respondents": mean_respondents_needed(built, args.margin, args.confidence)}
        except ValueError as error:
            parser.error(f"argument --margin: {error}")
    if not args.margin < 1.0:
        parser.error("argument --margin: must lie in (0, 1)")
    return {"respondents": respondents_needed(built, args.margin, args.confidence, args.expected)}
