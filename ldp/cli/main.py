"""`python -m ldp`: simulate a mechanism on a known truth, or two questions' joint table, plan a sample size,
analyze an export, print intervals valid at every look from a column of reports (`sequence`), regress a
report on covariates or estimate weighted fractions from a CSV (`ldp.cli.regress`), state what a stolen
report reveals and what a shuffled release costs (`breach`, `shuffle`: `ldp.cli.disclosure`), or draw synthetic
respondents from stored reports (`synthesize`, `ldp.cli.synthesize`).

Multi-select and numeric questions (multiselect, onebit, dlaplace) read --truth and --margin as
`ldp.cli.multiselect_and_numeric` says: inclusion fractions per option, or a distribution "v:p,v:p" over grid values.
"""

from __future__ import annotations

import argparse
import json
import math

import numpy as np

from ..mechanisms.registry import MECHANISMS, YES_NO, Mechanism
from . import analyze as analyze_cli
from . import args as cli_args
from . import disclosure as disclosure_cli
from . import joint as joint_cli
from . import multiselect_and_numeric as cli_ticks_and_numbers
from . import regress as regress_cli
from . import sequence as sequence_cli
from . import simulate_waves as waves_cli
from . import synthesize as synthesizing
from .args import Parser, apportion, number_in, positive_int, seed


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="python -m ldp", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    simulate = commands.add_parser("simulate", help="randomize a known truth and estimate it back")
    plan = commands.add_parser("plan", help="respondents needed for a margin")
    for sub in (simulate, plan):
        sub.add_argument("--mechanism", required=True, choices=sorted(MECHANISMS))
        sub.add_argument("--q", type=str, help="q of q-randomized response (qrr only)")
        sub.add_argument("--epsilon", type=float, help="epsilon (all but qrr and direct)")
        sub.add_argument("--k", type=positive_int, default=None, help="options (krr, sue, oue, direct, multiselect)")
        sub.add_argument("--confidence", type=number_in(0.5, 1.0, "low"), default=0.95)
        cli_ticks_and_numbers.add_arguments(sub)
    simulate.add_argument("--truth", required=True, type=str,
                          help="yes/no: the true yes fraction; k options: k fractions summing to 1; "
                               "multiselect: k inclusion fractions; onebit, dlaplace: v:p,v:p over grid values; "
                               "with --waves one per wave, t1|t2|...")
    simulate.add_argument("--n", required=True, type=positive_int)
    simulate.add_argument("--reps", type=positive_int, default=1)
    simulate.add_argument("--seed", type=seed, default=None)
    simulate.add_argument("--interval", choices=["wilson", "exact"], default="wilson")
    waves_cli.add_arguments(simulate)
    joint_cli.add_parser(commands)
    analyze_cli.add_parser(commands)
    sequence_cli.add_parser(commands)
    regress_cli.add_parsers(commands)
    disclosure_cli.add_parsers(commands)
    synthesizing.add_parser(commands)
    plan.add_argument("--margin", required=True, type=number_in(0.0, math.inf, ""),
                      help="half-width: a fraction in (0, 1), or for onebit and dlaplace in the question's units")
    plan.add_argument("--expected", type=number_in(0.0, 1.0, "both"), default=None,
                      help="expected fraction (default: worst case)")
    return parser


def _mechanism(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Mechanism:
    if args.mechanism in cli_ticks_and_numbers.NAMES:
        return cli_ticks_and_numbers.mechanism(parser, args)
    cli_ticks_and_numbers.refuse_extras(parser, args)
    return cli_args.mechanism(parser, args.mechanism, args.k, args.q, args.epsilon)


def _simulate(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    mechanism = _mechanism(parser, args)
    waves_cli.refuse_alone(parser, args)
    if args.waves is not None:
        waves_cli.simulate(parser, args, mechanism)
        return
    if args.mechanism in cli_ticks_and_numbers.NAMES:
        cli_ticks_and_numbers.simulate(parser, args, mechanism)
        return
    truth = cli_args.truth(parser, args.truth, args.mechanism, mechanism.k)
    rng = np.random.default_rng(args.seed)
    # The true answers are the stated fractions of n exactly (largest remainder), as in a real panel.
    values = np.repeat(np.arange(mechanism.k), apportion(truth, args.n))
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


def _plan(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    mechanism = _mechanism(parser, args)
    planned = cli_ticks_and_numbers.plan(parser, args, mechanism)
    print(json.dumps(allow_nan=False, obj={
        "mechanism": mechanism.to_dict(),
        # null for a direct question (not randomized: no finite loss), as in the codebook
        "effective_epsilon": mechanism.effective_epsilon if mechanism.randomized else None,
        "margin": args.margin,
        "confidence": args.confidence,
        **planned,
    }))


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "simulate":
        _simulate(parser, args)
    elif args.command == "joint":
        joint_cli.run(parser, args)
    elif args.command == "analyze":
        analyze_cli.run(parser, args)
    elif args.command == "sequence":
        sequence_cli.run(parser, args)
    elif args.command in ("regress", "estimate"):
        regress_cli.run(parser, args)
    elif args.command in ("breach", "shuffle"):
        disclosure_cli.run(parser, args)
    elif args.command == "synthesize":
        synthesizing.run(parser, args)
    else:
        _plan(parser, args)
    return 0
