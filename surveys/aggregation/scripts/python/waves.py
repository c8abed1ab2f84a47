"""The waves of a series (--waves): each wave read (raked to its own margins when weighted), each question's
estimates per wave and the change between two waves with the covariance of the shared respondents."""

from __future__ import annotations

import csv
import math
import os
from fractions import Fraction
from statistics import NormalDist
from typing import Any

import numpy as np

from .debiasing import debias, project_to_simplex
from .header import CODEBOOK
from .raking import Unweightable, Weighted
from .reading import read_codebook, read_columns, tally
from .shapes import Found, Question

WAVES_COLUMNS = [
    "row", "question_id", "question_key", "question_order", "question_text", "option_index", "option_label",
    "wave", "wave_slug", "wave_title", "wave_status", "opens_at", "closes_at", "first_response_on",
    "last_response_on", "responses", "answered_an_earlier_wave",
    "mechanism", "parameters", "epsilon", "p", "q_other", "permanent_mechanism", "all_waves_epsilon",
    "same_as_this_wave",
    "n", "estimate", "std_error", "ci_low", "ci_high", "confidence",
    "first_wave", "second_wave", "z", "p_value", "shared", "correlation", "assumption",
    "weighted", "weighted_responses", "left_out", "design_effect", "effective_n",
]


def read_wave(folder: str, weighted: bool = False) -> Found:
    """One wave's codebook and tallies from a folder holding its downloaded <slug>-codebook.json and
    <slug>-reports.csv (the names the dashboard gives them); weighted, a wave with responses raked to the margins
    of its own codebook (an `Unweightable` that names the wave when it cannot be)."""
    books = sorted(name for name in os.listdir(folder) if name.endswith("-codebook.json"))
    if len(books) != 1:
        raise ValueError(f"{folder}: expected one <slug>-codebook.json, found {len(books)}")
    book = read_codebook(os.path.join(folder, books[0]), own=books[0] == CODEBOOK)
    if "questions" not in book.get("wave", {}):
        raise ValueError(f"{folder}: its codebook is of no wave of a series (or from before the waves' lineages)")
    reports = os.path.join(folder, f"{book['survey']['slug']}-reports.csv")
    counts, _, n = tally(reports, book)
    with open(reports, newline="", encoding="utf-8") as file:
        days = sorted(row["submitted_on"] for row in csv.DictReader(file))
    found = dict(book=book, number=book["wave"]["number"], counts=counts, n=n, own=books[0] == CODEBOOK,
                 days=days, responses=max(n.values(), default=0), columns=None, weights=None)
    if weighted and found["responses"]:  # a wave without responses has no weights (and no figures)
        found["columns"] = read_columns(reports, book)
        try:
            found["weights"] = Weighted(found["columns"], book)
        except Unweightable as refusal:
            raise Unweightable(f"Wave {found['number']} ({folder}): {refusal}") from None
    return found


def wave_design(q: Question) -> tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction] | None]:
    """(p, q_other) of the channel the wave's reports are debiased through (the composed one when it remembers
    randomization) and the permanent layer's (None without one), exact."""
    mechanism = q["mechanism"]
    layer = mechanism.get("permanent")
    permanent = None if layer is None else (Fraction(layer["p_exact"]), Fraction(layer["q_other_exact"]))
    return (Fraction(mechanism["p_exact"]), Fraction(mechanism["q_other_exact"])), permanent


def wave_point(wave: Found, q: Question, confidence: float) -> Found:
    """One question's estimate in one wave: weighted under the wave's own weights when it has them."""
    (p, q_other), permanent = wave_design(q)
    n = wave["n"][q["key"]]
    weights = wave["weights"]
    if weights is not None:
        try:
            reports = weights.reports(wave["columns"], q)
        except Unweightable as refusal:
            raise Unweightable(f"Wave {wave['number']}: {refusal}") from None
        y = reports.astype(float) if reports.ndim == 2 else (reports[:, None] == np.arange(len(q["options"]))) * 1.0
        n = weights.n
        estimate, std_error, low, high = weights.fractions(y, float(p), float(q_other), confidence)
    else:
        estimate, std_error, low, high, _ = debias(wave["counts"][q["key"]], n, float(p), float(q_other),
                                                   confidence, "wilson", False)
    return dict(wave=wave, q=q, n=n, estimate=estimate, std_error=std_error, ci_low=low, ci_high=high,
                design=((p, q_other), permanent))


def wave_change(one: Found, two: Found, shared: int, confidence: float, known: bool = True) -> Found:
    """second - first per option; their covariance through the `shared` respondents of the later wave taken to
    have answered both, as few of them changing their answer as the estimates allow (the app's ldp.waves.pairs).
    known=False (weighted): the shared respondents' covariance through the weights is not worked out, so any
    shared respondent makes it the largest variance any correlation allows."""
    n1, n2 = one["n"], two["n"]
    shared = max(0, min(int(shared), n1, n2))
    (c1, perm1), (c2, perm2) = one["design"], two["design"]
    se1, se2 = one["std_error"], two["std_error"]
    if shared == 0:
        correlation = "independent"
    elif not known:
        correlation = "unknown"
    elif perm1 is not None and perm2 is not None and perm1 != perm2:
        correlation = "unknown"
    else:
        correlation = "fewest_changes"
    gap1, gap2 = float(c1[0] - c1[1]), float(c2[0] - c2[1])
    if correlation == "unknown":
        variance = (se1 + se2) ** 2
    else:
        fit1, fit2 = project_to_simplex(one["estimate"]), project_to_simplex(two["estimate"])
        kept = np.minimum(fit1, fit2)
        moment = gap1 * gap2 * (kept - fit1 * fit2)
        if perm1 is not None and perm1 == perm2:  # the permanent response both reports share
            p1, q1 = float(perm1[0]), float(perm1[1])
            instant1 = float((c1[0] - c1[1]) / (perm1[0] - perm1[1]))  # composed gap = permanent gap x instant gap
            instant2 = float((c2[0] - c2[1]) / (perm2[0] - perm2[1]))
            moment = moment + instant1 * instant2 * (kept * p1 * (1 - p1) + (kept.sum() - kept) * q1 * (1 - q1))
        variance = se1 ** 2 + se2 ** 2 - 2.0 * shared * moment / (n1 * n2 * gap1 * gap2)
    se = np.sqrt(np.maximum(variance, 0.0))
    change = two["estimate"] - one["estimate"]
    half = NormalDist().inv_cdf(1.0 - (1.0 - confidence) / 2.0) * se
    z = np.array([c / s if s > 0 else math.nan for c, s in zip(change, se)])
    p_value = np.array([math.erfc(abs(v) / math.sqrt(2.0)) if math.isfinite(v) else math.nan for v in z])
    return dict(estimate=change, std_error=se, ci_low=change - half, ci_high=change + half, z=z, p_value=p_value,
                shared=shared, correlation=correlation)


def assumption_words(correlation: str, shared: int, first: int, second: int, weighted: bool = False,
                     fixed: bool = False) -> str:
    """The change's assumption about respondents in both waves, in the app's words (fixed: weighted, and in both
    waves a margin the responses are raked to)."""
    later, earlier = max(first, second), min(first, second)
    respondents = "respondent" if shared == 1 else "respondents"
    if fixed:
        return ("Fixed by the weighting: in both waves the responses are raked to this question's population "
                "margins, so each wave's weighted figures are its margins' shares and the change is theirs, with no "
                "sampling error to give an interval or a test.")
    if correlation == "independent":
        return (f"No respondent of wave {later} said they had answered an earlier wave: the two waves are taken "
                "as independent.")
    if correlation == "unknown" and weighted:
        return (f"{shared} {respondents} of wave {later} said they had answered an earlier wave; how their weighted "
                "reports go together across waves is not worked out (their reports are never linked), so the "
                "interval allows for the largest variance any correlation gives (its standard error is the sum of "
                "the two waves' weighted standard errors).")
    if correlation == "unknown":
        return ("The two waves remember different permanent layers, so how the reports of respondents who "
                "answered both go together is not known: the interval allows for the largest variance any "
                "correlation gives.")
    kept = ("as having changed their answer no more than these estimates require" if shared == 1
            else "as few of them as these estimates allow as having changed their answer")
    return (f"{shared} {respondents} of wave {later} said they had answered an earlier wave; the interval takes "
            f"them as having answered wave {earlier} too, and {kept} (their reports are never linked, so neither is "
            "observed).")


def across_waves(folders: list[str], confidence: float = 0.95, change: list[int] | None = None,
                 weighted: bool = False) -> Found:
    """The waves of the folders compared, as the dashboard's waves section: per compared question its points
    (one per wave that asks it with the same options) and the change from wave `change[0]` to `change[1]`
    (default the last two with responses, else the first and the last); the questions of this survey's wave (else
    the last) name the rows.
    Weighted: each wave raked to the margins of its own codebook (an `Unweightable` naming a wave that cannot be)."""
    waves = sorted((read_wave(folder, weighted) for folder in folders), key=lambda wave: wave["number"])
    numbers = [wave["number"] for wave in waves]
    if len(set(numbers)) != len(numbers):
        raise ValueError("each folder must hold another wave")
    if len({wave["book"]["wave"]["series_link"] for wave in waves}) != 1:
        raise ValueError("the folders hold waves of different series")
    answered = [wave["number"] for wave in waves if wave["responses"]]  # a wave just opened has none: no change
    first, second = change if change else tuple(answered[-2:] if len(answered) >= 2 else (numbers[0], numbers[-1]))
    if first not in numbers or second not in numbers or first == second:
        raise ValueError("--change takes two different waves among " + ", ".join(map(str, numbers)))
    here = next((wave for wave in waves if wave["own"]), waves[-1])
    later = next(wave for wave in waves if wave["number"] == max(first, second))
    trends, not_compared = [], []
    for q in here["book"]["questions"]:
        entry = here["book"]["wave"]["questions"][q["key"]]
        if not entry["compared"]:
            not_compared.append(q)
            continue
        points = []
        for wave in waves:
            keys = [key for key, e in wave["book"]["wave"]["questions"].items() if e["lineage"] == entry["lineage"]]
            asked = [a for a in wave["book"]["questions"] if a["key"] in keys]
            if asked and asked[0]["options"] == q["options"]:
                points.append(wave_point(wave, asked[0], confidence))
        own = next((point["design"] for point in points if point["wave"] is here), None)
        found = {point["wave"]["number"]: point for point in points}
        pair = None
        if first in found and second in found and found[first]["n"] and found[second]["n"]:
            pair = wave_change(found[first], found[second], later["book"]["wave"]["answered_an_earlier_wave"],
                               confidence, known=not weighted)
        fixed = pair is not None and weighted and all(margin_of(found[w]) for w in (first, second))
        trends.append(dict(q=q, points=points, own=own, change=pair, fixed=fixed))
    return dict(waves=waves, first=first, second=second, confidence=confidence, trends=trends,
                not_compared=not_compared, weighted=weighted)


def margin_of(point: Found) -> bool:
    """Whether the point's wave is raked to a margin of its question (its weighted figures are the margin's)."""
    weights = point["wave"]["weights"]
    return weights is not None and point["q"]["key"] in {m["question"] for m in weights.margins}


def wave_cell(x: float | None) -> float | str:
    return "" if x is None or not math.isfinite(x) else float(x)


def wave_weights(weighted: bool, wave: Found | None) -> list[Any]:
    """waves.csv's last columns: whether the figures are weighted and, on a wave's row, what its weights cost."""
    weights = wave and wave["weights"]
    if not weights:
        return [str(weighted).lower(), "", "", "", ""]
    return ["true", weights.n, weights.left_out, weights.design_effect(), weights.effective_n()]
