"""The fixture the JavaScript tests check static/js/history.js's historyLoss against: what the waves a browser
answered cost together, worked out here independently by enumerating the joint distribution of all its reports.

One question's waves are each randomized afresh (a wave made before its series, or a series that does not remember)
or through a permanent layer, whose response the browser draws once per permanent sampler and true answer and keeps
(static/js/remember.js). For two histories of true answers, every permanent response and every report of every wave
is enumerated with exact fractions of the samplers' integers; the loss is the largest log-ratio of the probability of
the same reports under the two histories, over every pair of histories:

- "unchanged": the answer is the same in every wave (x, x, ...) against (x', x', ...), x != x': what the page states;
- "changed": the answer changes between waves, the same way in both histories ((x, y) against (x', y'), x != y and
  x' != y'), which the page bounds by the number of different answers times its figure.

Questions are independent given the answers: their ratios multiply (their losses add).

    python -m tests.ldp.js_history_fixture        # rewrite tests/js/fixtures/history.json

tests/ldp/test_js_history_fixture.py fails when the file differs from what this builds.
"""

from __future__ import annotations

import itertools
import json
import math
from collections import defaultdict
from decimal import Decimal, getcontext
from fractions import Fraction
from pathlib import Path
from typing import Any

import ldp

PATH = Path(__file__).resolve().parents[1] / "js" / "fixtures" / "history.json"

Sampler = dict[str, Any]
Wave = tuple[Sampler, Sampler | None]  # (the sampler the wave randomized with, its permanent layer's or None)


def outputs(sampler: Sampler) -> list[Any]:
    """What a sampler can report: an index, or a tuple of k bits."""
    if sampler["kind"] == "grr":
        return list(range(sampler["k"]))
    return list(itertools.product((0, 1), repeat=sampler["k"]))


def probability(sampler: Sampler, truth: Any, report: Any) -> Fraction:
    """P(report | truth) from the integers; `truth` an index, or for unary a tuple of bits (a permanent response)."""
    modulus = sampler["modulus"]
    if sampler["kind"] == "grr":
        return Fraction(sampler["keep"] if report == truth else sampler["other"], modulus)
    bits = truth if isinstance(truth, tuple) else tuple(int(j == truth) for j in range(sampler["k"]))
    found = Fraction(1)
    for bit, reported in zip(bits, report, strict=True):
        one = Fraction(sampler["one_if_true" if bit else "one_if_false"], modulus)
        found *= one if reported else 1 - one
    return found


def joint(waves: list[Wave], truths: tuple[int, ...]) -> dict[tuple[Any, ...], Fraction]:
    """P(every wave's report) for these true answers: each permanent response drawn once per (permanent sampler,
    answer), enumerated."""
    keys = sorted({(json.dumps(permanent, sort_keys=True), truth) for (_, permanent), truth in zip(waves, truths,
                                                                                                   strict=True)
                   if permanent is not None})
    samplers = {key: json.loads(key[0]) for key in keys}
    found: dict[tuple[Any, ...], Fraction] = defaultdict(Fraction)
    for drawn in itertools.product(*(outputs(samplers[key]) for key in keys)):
        weight = math.prod((probability(samplers[key], key[1], b) for key, b in zip(keys, drawn, strict=True)),
                           start=Fraction(1))
        kept = dict(zip(keys, drawn, strict=True))
        sources = [truth if permanent is None else kept[(json.dumps(permanent, sort_keys=True), truth)]
                   for (_, permanent), truth in zip(waves, truths, strict=True)]
        each = [{report: probability(sampler, source, report) for report in outputs(sampler)}
                for (sampler, _), source in zip(waves, sources, strict=True)]
        for reports in itertools.product(*(list(table.items()) for table in each)):
            found[tuple(report for report, _ in reports)] += weight * math.prod((p for _, p in reports),
                                                                                start=Fraction(1))
    return found


def largest_ratio(waves: list[Wave], pairs: list[tuple[tuple[int, ...], tuple[int, ...]]]) -> Fraction:
    best = Fraction(1)
    known: dict[tuple[int, ...], dict[tuple[Any, ...], Fraction]] = {}
    for first, second in pairs:
        a, b = (known.setdefault(truths, joint(waves, truths)) if truths not in known else known[truths]
                for truths in (first, second))
        best = max([best, *(a[y] / b[y] for y in a)])
    return best


def histories(waves: list[Wave], changed: bool) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Pairs of true-answer histories: constant ones (x != x'), or ones changing the same way (not constant)."""
    k, n = waves[0][0]["k"], len(waves)
    sequences = list(itertools.product(range(k), repeat=n))
    pattern = lambda s: tuple(s.index(v) for v in s)  # noqa: E731  which waves share an answer
    if not changed:
        return [((x,) * n, (y,) * n) for x in range(k) for y in range(k) if x != y]
    return [(s, t) for s in sequences for t in sequences if len(set(s)) > 1 and pattern(s) == pattern(t)
            and all(a != b for a, b in zip(s, t, strict=True))]


def millis_up(ratio: Fraction) -> int:
    """The smallest m with ln(ratio) <= m / 1000 (60 digits: no case here is within 10^-40 of a thousandth)."""
    getcontext().prec = 60
    return math.ceil((Decimal(ratio.numerator).ln() - Decimal(ratio.denominator).ln()) * 1000)


def remembered(permanent: ldp.Mechanism, instant: ldp.Mechanism) -> Wave:
    return instant.sampler(), permanent.sampler()


def afresh(mechanism: ldp.Mechanism) -> Wave:
    return mechanism.sampler(), None


def cases() -> list[tuple[str, list[list[Wave]]]]:
    """(name, per question its waves in the order answered)."""
    yes_no = ldp.QRandomizedResponse("0.75")
    half = ldp.QRandomizedResponse("0.6")
    k3 = [ldp.KaryRR(e, 3) for e in (1.0, 2.0, 3.0)]
    k4 = [ldp.KaryRR(e, 4) for e in (0.5, 1.5)]
    sue = [ldp.SymmetricUnary(e, 3) for e in (1.0, 2.0)]
    oue = ldp.OptimizedUnary(1.5, 3)
    return [
        ("one remembered wave: the layers composed", [[remembered(yes_no, half)]]),
        ("a wave made before its series, then a remembered one (two questions)",
         [[afresh(yes_no), remembered(yes_no, yes_no)], [afresh(half), remembered(half, yes_no)]]),
        ("two remembered waves, the same layers", [[remembered(yes_no, half), remembered(yes_no, half)]]),
        ("three remembered waves of 3 options, each its own instantaneous layer",
         [[remembered(k3[1], k3[0]), remembered(k3[1], k3[2]), remembered(k3[1], k3[1])]]),
        ("a changed permanent layer draws afresh (4 options)",
         [[remembered(k4[0], k4[1]), remembered(k4[1], k4[1]), remembered(k4[1], k4[0])]]),
        ("bits: afresh, then two remembered waves", [[afresh(sue[0]), remembered(sue[1], sue[0]),
                                                        remembered(sue[1], sue[0])]]),
        ("bits: two remembered waves of the optimized encoding", [[remembered(oue, oue), remembered(oue, sue[0])]]),
    ]


# Answers that change are enumerated where it takes under a second or so: histories x permanent responses x reports.
CHANGED_WORK = 100_000


def work(waves: list[Wave]) -> int:
    k, n = waves[0][0]["k"], len(waves)
    reports = math.prod(len(outputs(sampler)) for sampler, _ in waves)
    return k**n * reports * len(outputs(waves[0][0])) ** sum(permanent is not None for _, permanent in waves)


def build() -> dict[str, Any]:
    found = []
    for name, questions in cases():
        unchanged = math.prod((largest_ratio(w, histories(w, False)) for w in questions), start=Fraction(1))
        case: dict[str, Any] = {
            "name": name,
            "waves": [[{"lineage": f"q{i}", "sampler": waves[n][0], "permanent": waves[n][1]}
                       for i, waves in enumerate(questions)] for n in range(len(questions[0]))],
            "unchanged_millis": millis_up(unchanged)}
        if len(questions[0]) > 1 and all(work(w) <= CHANGED_WORK for w in questions):
            changed = math.prod((largest_ratio(w, histories(w, True)) for w in questions), start=Fraction(1))
            case["changed_millis"] = millis_up(changed)
        found.append(case)
    return {"cases": found}


if __name__ == "__main__":
    PATH.write_text(json.dumps(build(), indent=1, sort_keys=True) + "\n")
