"""A fitted model printed as the models API's table and written in the dashboard's model CSV columns."""

from __future__ import annotations

import csv
import math

from .models import MODEL_COLUMNS
from .shapes import Found


def show_model(found: Found) -> None:
    """The coefficient table as the dashboard shows it, and the model's figures beside it."""
    what = (f"option {found['level']} ({found['level_label']}) of {found['outcome_key']}, through its channel "
            f"p = {found['p']}, q_other = {found['q_other']}" if found["model"] == "logistic" else
            f"the mean of {found['outcome_key']}, from its unbiased per-report values")
    print(f"{found['model'].capitalize()} model of {what}")
    print(f"  n = {found['n']} responses that answer every question used ({found['dropped']} left out); "
          f"standard errors: {found['se']}; intervals at {found['confidence']:g}")
    if found["weights"] is not None:
        print(f"  weighted: the {found['weights']['n']} responses used raked to the population margins (design "
              f"effect {found['weights']['design_effect']:.4g}, effective n {found['weights']['effective_n']:.1f})")
    if found["n"] < found["respondents_needed"]:
        print(f"  WARNING: too few respondents: n = {found['n']} of the {found['respondents_needed']} needed for a "
              f"margin of {found['margin']:g} (worst case); the dashboard fits no model on so few: do not read it")
    width = max(len("term"), *(len(t) for t in found["terms"]))
    heads = ["estimate", "std_error", "z" if found["model"] == "logistic" else "t", "p_value", "ci_low", "ci_high"] + (
        ["odds_ratio", "or_low", "or_high"] if found["model"] == "logistic" else [])
    print(f"  {'term':<{width}}" + "".join(f" {h:>12}" for h in heads))
    columns = ["estimate", "std_error", "z", "p_value", "ci_low", "ci_high", "odds_ratio", "odds_ratio_low",
               "odds_ratio_high"]
    for i, term in enumerate(found["terms"]):
        numbers = [found[c][i] for c in columns[:len(heads)]]
        print(f"  {term:<{width}}" + "".join(f" {x:>12.6g}" for x in numbers))
    if found["test"] is not None:
        test = found["test"]
        print(f"  log-likelihood {found['log_likelihood']:.8g} (intercept only {found['null_log_likelihood']:.8g}); "
              f"{test['name']} test against the intercept-only model: statistic {test['statistic']:.6g} on "
              f"{test['df']} df, p-value {test['p_value']:.4g}")
    for term, label in zip(found["terms"], found["labels"]):
        print(f"  {term:<{width}}  {label}")
    print()


def write_model_csv(found: Found, path: str) -> None:
    """The model's table in the columns of the dashboard's model CSV, every number at full precision."""
    test = found["test"] or {"name": "", "statistic": None, "df": "", "p_value": None}
    fixed = [found["model"], found["outcome_id"], found["outcome_key"], found["level"], found["level_label"],
             found["n"], found["dropped"], found["se"], found["confidence"], found["weighted"],
             found["log_likelihood"], test["name"], test["statistic"], test["df"], test["p_value"]]
    with open(path, "w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(MODEL_COLUMNS)
        for i, term in enumerate(found["terms"]):
            row = [term, found["labels"][i], *(found[c][i] for c in ["estimate", "std_error", "ci_low", "ci_high", "z",
                                                                     "p_value", "odds_ratio", "odds_ratio_low",
                                                                     "odds_ratio_high"]), *fixed]
            writer.writerow(["" if v is None or (isinstance(v, float) and not math.isfinite(v)) else
                             str(v).lower() if isinstance(v, bool) else repr(v) if isinstance(v, float) else v
                             for v in row])
