"""The results across waves printed, and written in waves.csv's columns."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterator
from typing import Any

from .crosstab import NUMBERS_OF_CELL
from .shapes import Found
from .waves import WAVES_COLUMNS, assumption_words, wave_cell, wave_weights


def wave_rows(found: Found) -> Iterator[list[Any]]:
    """waves.csv's rows (without its header): per compared question its waves' rows, then its change's."""
    confidence, first, second, weighted = found["confidence"], found["first"], found["second"], found["weighted"]
    for trend in found["trends"]:
        q = trend["q"]
        for point in trend["points"]:
            wave, mechanism, book = point["wave"], point["q"]["mechanism"], point["wave"]["book"]
            layer = mechanism.get("permanent")
            instant = {key: value for key, value in mechanism["parameters"].items() if key != "permanent"}
            (p, q_other), _ = point["design"]
            p, q_other = (float(p), float(q_other)) if layer else (mechanism["p"], mechanism["q_other"])
            made = [mechanism["name"], json.dumps(instant, sort_keys=True), wave_cell(mechanism["effective_epsilon"]),
                    p, q_other, "" if layer is None else json.dumps(layer["parameters"], sort_keys=True),
                    "" if layer is None else wave_cell(layer["effective_epsilon"]),
                    str(point["design"] == trend["own"]).lower()]
            days = wave["days"]
            identity = [wave["number"], book["survey"]["slug"], book["survey"]["title"], book["survey"]["status"],
                        book["wave"]["opens_at"] or "", book["wave"]["closes_at"] or "",
                        days[0] if days else "", days[-1] if days else "", wave["responses"],
                        book["wave"]["answered_an_earlier_wave"]]
            for j, label in enumerate(q["options"]):
                yield ["wave", q["id"], q["key"], q["order"], q["text"], j, label, *identity, *made, point["n"],
                       *(wave_cell(point[name][j]) for name in NUMBERS_OF_CELL), confidence,
                       *[""] * 7, *wave_weights(weighted, wave)]
        change = trend["change"]
        if change is None:
            continue
        found_points = {point["wave"]["number"]: point for point in trend["points"]}
        same = str(found_points[first]["design"] == found_points[second]["design"]).lower()
        words = assumption_words(change["correlation"], change["shared"], first, second, weighted, trend["fixed"])
        for j, label in enumerate(q["options"]):
            yield ["change", q["id"], q["key"], q["order"], q["text"], j, label, *[""] * 17, same, "",
                   *(wave_cell(change[name][j]) for name in NUMBERS_OF_CELL), confidence, first, second,
                   wave_cell(change["z"][j]), wave_cell(change["p_value"][j]), change["shared"],
                   change["correlation"], words, *wave_weights(weighted, None)]


def show_waves(found: Found) -> None:
    first, second = found["first"], found["second"]
    print(f"Waves {', '.join(str(wave['number']) for wave in found['waves'])} of the series "
          f"{found['waves'][0]['book']['wave']['series']!r}; the change from wave {first} to wave {second}")
    if found["weighted"]:
        print("Weighted: each wave's responses raked to that wave's own population margins")
    for wave in found["waves"]:
        weights = wave["weights"]
        if weights is None:
            continue
        margins = ", ".join(m["question"] for m in weights.margins)
        difference = getattr(weights, "largest_difference", math.nan)
        print(f"  wave {wave['number']}: {weights.n} responses raked to its margins ({margins}), {weights.left_out} "
              f"left out; design effect {weights.design_effect():.3f}, effective n {weights.effective_n():.1f}; "
              f"largest difference from the export's weight column {difference:.3g}")
    for trend in found["trends"]:
        q = trend["q"]
        print(f"\n{q['key']}. {q['text']}")
        print(f"  {'option':<24} " + " ".join(f"{'wave ' + str(p['wave']['number']):>30}" for p in trend["points"]))
        for j, label in enumerate(q["options"]):
            cells = [f"{p['estimate'][j]:.3f} [{p['ci_low'][j]:.3f}, {p['ci_high'][j]:.3f}] n={p['n']}"
                     for p in trend["points"]]
            print(f"  {label[:24]:<24} " + " ".join(f"{c:>30}" for c in cells))
        change = trend["change"]
        if change is None:
            print(f"  no change: wave {first} or wave {second} has no reports of it, or does not ask it")
            continue
        words = assumption_words(change["correlation"], change["shared"], first, second, found["weighted"],
                                 trend["fixed"])
        print(f"  change {first} -> {second} ({change['correlation']}: {words})")
        for j, label in enumerate(q["options"]):
            print(f"  {label[:24]:<24} {change['estimate'][j]:+.3f} (se {change['std_error'][j]:.4f}) "
                  f"[{change['ci_low'][j]:+.3f}, {change['ci_high'][j]:+.3f}] p = {change['p_value'][j]:.4g}")
    for q in found["not_compared"]:
        print(f"\nnot compared across waves: {q['key']}. {q['text']} (not one answer of k)")


def write_waves_csv(found: Found, path: str) -> None:
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(WAVES_COLUMNS)
        writer.writerows(wave_rows(found))
