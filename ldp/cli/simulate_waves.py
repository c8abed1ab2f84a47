"""`python -m ldp simulate --waves W [--memoize (--permanent-q Q | --permanent-epsilon E)]`: one population
answering W waves (`ldp.mechanisms.remembered`).

--truth gives every wave's truth, `t1|t2|...`, each as for one wave. The n respondents' answers are the
stated fractions of n exactly in every wave; from one wave to the next a respondent keeps the answer unless
the new fractions need a change, and the fewest respondents change. With --memoize each respondent's
permanent response to a value is drawn once and every wave sends an instantaneous randomization of it
(--q or --epsilon is then the instantaneous layer); without it every wave is randomized afresh.

Per repetition one JSON line: {"waves": [{"estimate", "std_error", "ci_low", "ci_high", "n"}, ...],
"difference": {"estimate", "std_error", "ci_low", "ci_high"} (the last wave minus the first),
"epsilon": {"wave", "all_waves_unchanged"}}; a yes/no question's lists hold the yes entry alone.
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import numpy.typing as npt

from ..mechanisms import exact_q
from ..mechanisms.base import IntArray, Mechanism
from ..mechanisms.registry import ONE_OF_K, YES_NO, make
from ..mechanisms.remembered import Remembered, channel, difference
from . import args as cli_args
from .args import apportion, positive_int


def add_arguments(simulate: argparse.ArgumentParser) -> None:
    simulate.add_argument("--waves", type=positive_int, default=None, help="waves answered by the same respondents")
    simulate.add_argument("--memoize", action="store_true",
                          help="remember each respondent's permanent randomized response across waves")
    simulate.add_argument("--permanent-q", type=str, default=None, help="q of the permanent layer (qrr)")
    simulate.add_argument("--permanent-epsilon", type=float, default=None, help="epsilon of the permanent layer")


def refuse_alone(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The wave options make sense only together: --memoize needs --waves and one permanent layer."""
    permanent = [name for name, value in (("--permanent-q", args.permanent_q),
                                          ("--permanent-epsilon", args.permanent_epsilon)) if value is not None]
    if args.memoize and args.waves is None:
        parser.error("argument --memoize: needs --waves")
    if permanent and not args.memoize:
        parser.error(f"argument {permanent[0]}: only with --memoize")
    if args.memoize and len(permanent) != 1:
        parser.error("argument --memoize: give one of --permanent-q (qrr) or --permanent-epsilon")


def simulate(parser: argparse.ArgumentParser, args: argparse.Namespace, mechanism: Mechanism) -> None:
    if not mechanism.one_of_k:
        parser.error(f"argument --waves: for questions with one answer of k ({', '.join(sorted(ONE_OF_K))})")
    remembered = _remembered(parser, args, mechanism) if args.memoize else None
    parts = args.truth.split("|")
    if len(parts) != args.waves:
        parser.error(f"argument --truth: give {args.waves} truths separated by |, one per wave")
    answers = panel([cli_args.truth(parser, part, args.mechanism, mechanism.k) for part in parts], args.n)
    rng = np.random.default_rng(args.seed)
    pick = slice(1, 2) if args.mechanism in YES_NO else slice(None)
    options = {"confidence": args.confidence, "interval": args.interval}
    if remembered is not None:
        wave, all_waves = remembered.wave_epsilon, remembered.all_waves_epsilon
    else:
        wave, all_waves = mechanism.effective_epsilon, args.waves * mechanism.effective_epsilon
    for _ in range(args.reps):
        if remembered is not None:
            reports = remembered.randomize(answers, rng)
            estimates = [remembered.estimate(remembered.counts(r), args.n, **options) for r in reports]
            change = remembered.difference(estimates[0], estimates[-1], args.confidence)
        else:
            estimates = [mechanism.estimate(mechanism.counts(mechanism.randomize(a, rng)), args.n, **options)
                         for a in answers]
            change = difference(estimates[0], estimates[-1], channel(mechanism), None, args.confidence)
        print(json.dumps({
            "waves": [{"estimate": list(e.estimate[pick]), "std_error": list(e.std_error[pick]),
                       "ci_low": list(e.ci_low[pick]), "ci_high": list(e.ci_high[pick]), "n": args.n}
                      for e in estimates],
            "difference": {"estimate": list(change.estimate[pick]), "std_error": list(change.std_error[pick]),
                           "ci_low": list(change.ci_low[pick]), "ci_high": list(change.ci_high[pick])},
            "epsilon": {"wave": wave, "all_waves_unchanged": all_waves},
        }))


def panel(truths: list[npt.NDArray[np.float64]], n: int) -> IntArray:
    """(waves, n) true answers: each wave the stated fractions of n exactly, reached from the previous wave by
    the fewest changes (the respondents an option loses move to the options that gain)."""
    k = truths[0].size
    current = np.repeat(np.arange(k), apportion(truths[0], n))
    rows = [current]
    for fractions in truths[1:]:
        wanted = apportion(fractions, n)
        have = np.bincount(current, minlength=k)
        current = current.copy()
        leaving = np.concatenate([np.flatnonzero(current == j)[: max(have[j] - wanted[j], 0)] for j in range(k)])
        current[leaving] = np.repeat(np.arange(k), np.maximum(wanted - have, 0))
        rows.append(current)
    return np.stack(rows)


def _remembered(parser: argparse.ArgumentParser, args: argparse.Namespace, instant: Mechanism) -> Remembered:
    name = args.mechanism
    if (args.permanent_q is not None) != (name == "qrr"):
        parser.error(f"argument --permanent-q: the permanent layer of {name} takes "
                     + ("--permanent-q" if name == "qrr" else "--permanent-epsilon"))
    try:
        q = None if args.permanent_q is None else exact_q.typed(args.permanent_q, "--permanent-q")
        permanent = make(name, k=instant.k, q=q, epsilon=args.permanent_epsilon)
        return Remembered(permanent, instant)
    except (ValueError, TypeError) as error:
        parser.error(f"argument --memoize: {error}")
