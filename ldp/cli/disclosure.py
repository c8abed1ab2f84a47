"""`python -m ldp breach` and `python -m ldp shuffle`: the figures of `ldp.disclosure` on the command line.

breach --mechanism M (--q Q | --epsilon E) [--k K] [--at-most M] --prior P1,P2,... prints
{"attacker_accuracy": A, "baseline_accuracy": B, "odds_bound": O} (O null for a question sent as given).
The prior has one entry per answer, each in [0, 1], summing to 1 (within 1e-9), read as exact decimals:
- qrr, bitflip: 2 entries, [no, yes]; krr, sue, oue, direct: k entries, one per option (for sue and oue the
  reports are the 2^k bit patterns);
- multiselect: 2^k entries, one per subset of the k options in bitmask order (entry s: the options j with
  bit j of s set; "0.5,0.2,0.2,0.1" for k = 2 is nothing 0.5, only option 0 0.2, only option 1 0.2, both 0.1);
  with --at-most, subsets of more options must have 0;
- onebit, dlaplace, direct_number: K entries, one per grid value: the grid 0, 1, ..., K - 1 (the figures depend
  on the number of grid steps and epsilon only, not on lo and step).
Without --k, k (or K) is read from the prior's length.

shuffle --epsilon0 E --n N [--delta D] prints {"epsilon": EPS, "delta": D}: n reports of an E-LDP randomizer,
shuffled, are (EPS, D)-DP (Feldman, McMillan & Talwar 2021; `ldp.disclosure.shuffle`); D defaults to
min(1 / n^1.1, 1e-6).
"""

from __future__ import annotations

import argparse
import json
from fractions import Fraction
from typing import Any

from ..disclosure import shuffle
from ..disclosure.breach import breach
from ..mechanisms.base import Mechanism
from ..mechanisms.registry import MECHANISMS, make
from . import args as cli_args
from .args import number_in, positive_int

GRID = frozenset({"onebit", "dlaplace", "direct_number"})


def add_parsers(commands: Any) -> None:
    found = commands.add_parser("breach", help="what a stolen report reveals: the Bayes attacker's accuracy")
    found.add_argument("--mechanism", required=True, choices=sorted(MECHANISMS))
    found.add_argument("--q", type=str, help="q of q-randomized response (qrr only)")
    found.add_argument("--epsilon", type=float, help="epsilon (all but qrr, direct and direct_number)")
    found.add_argument("--k", type=positive_int, default=None,
                       help="options (multiselect: options, the prior then has 2^k entries); onebit, dlaplace, "
                            "direct_number: grid values; default: from --prior")
    found.add_argument("--at-most", type=positive_int, default=None, help="multiselect: at most this many ticks")
    found.add_argument("--prior", required=True, type=str,
                       help="the answers' shares, comma-separated, summing to 1: k options ([no, yes] for "
                            "yes/no); multiselect: 2^k subsets in bitmask order; onebit, dlaplace: the grid values")
    released = commands.add_parser("shuffle", help="the central epsilon of n shuffled reports (Feldman et al.)")
    released.add_argument("--epsilon0", required=True, type=number_in(0.0, shuffle.EPSILON0_MAX, ""),
                          help="the local epsilon of each report")
    released.add_argument("--n", required=True, type=positive_int, help="the number of reports released")
    released.add_argument("--delta", type=number_in(0.0, 1.0, ""), default=None,
                          help="the delta of the central guarantee (default: min(1 / n^1.1, 1e-6))")


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.command == "shuffle":
        delta = shuffle.default_delta(args.n) if args.delta is None else args.delta
        print(json.dumps({"epsilon": shuffle.epsilon_c(args.epsilon0, args.n, delta), "delta": delta}))
        return
    prior = _prior(parser, args.prior)
    mechanism = _mechanism(parser, args, len(prior))
    try:
        found = breach(mechanism, prior)
    except ValueError as error:
        parser.error(f"argument --prior: {error} (for {mechanism.name}: {_entries(mechanism)})")
    print(json.dumps(found.as_dict()))


def _prior(parser: argparse.ArgumentParser, text: str) -> list[Fraction]:
    try:  # exact decimals: "0.1" is 1/10, so a prior that sums to 1 as typed sums to 1 exactly
        return [Fraction(part.strip()) for part in text.split(",")]
    except (ValueError, ZeroDivisionError):
        parser.error("argument --prior: must be comma-separated numbers")


def _mechanism(parser: argparse.ArgumentParser, args: argparse.Namespace, entries: int) -> Mechanism:
    name = args.mechanism
    if args.at_most is not None and name != "multiselect":
        parser.error(f"argument --at-most: not used by {name}")
    if name not in GRID and name != "multiselect":
        return cli_args.mechanism(parser, name, args.k, args.q, args.epsilon, k_default=max(entries, 2))
    if args.q is not None:
        parser.error(f"argument --q: not used by {name}; give --epsilon" if name != "direct_number" else
                     "argument --q: not used by direct_number")
    k = args.k if args.k is not None else _k_from(parser, name, entries)
    try:
        if name == "multiselect":
            return make(name, k=k, epsilon=args.epsilon, at_most=args.at_most)
        if k < 2:
            raise ValueError("k must be at least 2 grid values")
        return make(name, epsilon=args.epsilon, lo="0", hi=str(k - 1), step="1")
    except (ValueError, TypeError) as error:
        text = str(error)
        flag = next((f for start, f in {"k ": "--k", "at_most": "--at-most", "(hi - lo)": "--k"}.items()
                     if text.startswith(start)), "--epsilon")
        parser.error(f"argument {flag}: {text}")


def _k_from(parser: argparse.ArgumentParser, name: str, entries: int) -> int:
    if name != "multiselect":
        return entries
    k = entries.bit_length() - 1
    if entries != 1 << k or k < 2:
        parser.error(f"argument --prior: multiselect's prior has 2^k entries (k >= 2), one per subset, got {entries}")
    return k


def _entries(mechanism: Mechanism) -> str:
    if mechanism.name == "multiselect":
        return f"{1 << mechanism.k} entries, one per subset of its {mechanism.k} options in bitmask order"
    if mechanism.name in GRID:
        return f"{getattr(mechanism, 'steps', 0) + 1} entries, one per grid value"
    return f"{mechanism.k} entries, one per option" + (" ([no, yes])" if mechanism.yes_no else "")
