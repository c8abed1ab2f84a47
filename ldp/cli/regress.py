"""`python -m ldp regress` and `python -m ldp estimate`: models and weighted estimates from a CSV of reports.

    regress  --csv FILE (--outcome COL [--covariates A,B,...] | --formula "COL ~ TERMS") --mechanism M
             (--q Q | --epsilon E) [--k K --level J] [--se observed|opg] [--confidence C]
             [--rake SPEC [--cap X] | --weights COL] [--details]
    estimate --csv FILE --outcome COL --mechanism M (--q Q | --epsilon E) [--k K]
             [--rake SPEC [--cap X] | --weights COL] [--confidence C]

The outcome column holds the stored report: 0/1 for yes/no (1 = yes), the option index for k options.
A unary encoding (sue, oue) has one bit per option, in the columns COL_0 ... COL_{k-1} of the export
(`--outcome q3` reads q3_0, q3_1, ...); `regress` reads the bit of the modelled option, COL_J.
Covariates are numbers. A formula (`ldp.regression.formula`: R's syntax, `smoker ~ age + I(age^2) + sex + age:sex +
C(region, Treatment('north'))`) names its outcome on the left; a column of numbers enters as a number, any other
as a category (its levels sorted, the first the reference unless Treatment names one). An empty cell or NA
in any column used (outcome, covariates, raking columns, weights) drops the row. SPEC is
`COL:value=share,value=share;COL2:...`, each column's shares summing to 1; the raked weights are capped
at X (default 5) times their median, then raked again (`ldp.weighting.raking`). `regress` prints {"terms",
"estimate", "std_error", "z", "p_value" (each term's two-sided Wald test, 2 Phi(-|z|)), "ci_low", "ci_high",
"n", "dropped", "log_likelihood"} (with --details also odds ratios, the test against the intercept-only model,
both kinds of standard error and the weights' summary); a fit that does not converge or whose data separate
says so on standard error. `estimate` prints {"estimate", "std_error", "ci_low", "ci_high", "n",
"effective_n"}, one entry per option. Bad arguments exit 2 naming the argument.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..mechanisms.registry import MECHANISMS, ONE_OF_K, YES_NO, Mechanism
from ..regression import formula, logistic
from ..weighting.estimates import weighted_fractions
from ..weighting.raking import Raked, RakingError, margin, rake
from . import args as cli_args
from .args import number_in, positive_int

MISSING = frozenset({"", "NA"})


def add_parsers(commands: Any) -> None:
    regress = commands.add_parser("regress", help="logistic regression of a randomized report on covariates")
    estimate = commands.add_parser("estimate", help="per-option estimates, weighted or raked to population margins")
    for sub in (regress, estimate):
        sub.add_argument("--csv", required=True, type=Path, help="one row per respondent, with a header")
        sub.add_argument("--outcome", required=sub is estimate,
                         help="the report column (unary: the prefix of its bit columns)")
        sub.add_argument("--mechanism", required=True, choices=sorted(MECHANISMS))
        sub.add_argument("--q", type=str, help="q of q-randomized response (qrr only)")
        sub.add_argument("--epsilon", type=float, help="epsilon (all but qrr and direct)")
        sub.add_argument("--k", type=positive_int, default=None, help="options (krr, sue, oue, direct)")
        sub.add_argument("--confidence", type=number_in(0.5, 1.0, "low"), default=0.95)
        weights = sub.add_mutually_exclusive_group()
        weights.add_argument("--rake", default=None, help="COL:value=share,...;COL2:... population margins")
        weights.add_argument("--weights", default=None, help="a column of positive weights")
        sub.add_argument("--cap", default=None,
                         help="with --rake: cap the weights at this multiple of their median (default 5; none)")
    regress.add_argument("--level", type=int, default=None, help="k options: the option modelled (0-based)")
    regress.add_argument("--covariates", default=None, help="comma-separated numeric columns (default: none)")
    regress.add_argument("--formula", default=None, help="COL ~ TERMS in R's syntax, instead of --outcome and "
                         "--covariates: I(), C(x, Treatment(level)), arithmetic, powers, interactions")
    regress.add_argument("--se", choices=logistic.SE_KINDS, default=None,
                         help="observed information (default) or outer product of scores; weighted: sandwich")
    regress.add_argument("--details", action="store_true",
                         help="also odds ratios, the test against the intercept-only model, both standard errors")


def run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    mechanism = _mechanism(parser, args)
    if args.command == "regress":
        _regress(parser, args, mechanism)
    else:
        _estimate(parser, args, mechanism)


def _mechanism(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Mechanism:
    if args.mechanism not in ONE_OF_K:
        parser.error(f"argument --mechanism: {args.command} reads yes/no and one-of-k reports "
                     f"({', '.join(sorted(ONE_OF_K))}), not {args.mechanism}")
    return cli_args.mechanism(parser, args.mechanism, args.k, args.q, args.epsilon)


def _regress(parser: argparse.ArgumentParser, args: argparse.Namespace, mechanism: Mechanism) -> None:
    level = _level(parser, args, mechanism)
    parsed = _formula(parser, args)
    name = args.outcome if parsed is None else parsed.outcome
    covariates = _covariates(parser, args) if parsed is None else list(parsed.variables)
    outcome = [f"{name}_{level}"] if mechanism.unary else [name]
    table, dropped = _read(parser, args, outcome, covariates)
    y = _reports(parser, table[outcome[0]], 2 if mechanism.unary else mechanism.k)
    if y.size == 0:
        parser.error("argument --csv: no rows with every used column given")
    y = (y == (1 if mechanism.unary else level)).astype(float)
    if parsed is None:
        x = np.column_stack([np.ones(y.size)] + [_numbers(parser, "--covariates", c, table[c]) for c in covariates])
        terms = ["(Intercept)", *covariates]
    else:
        try:
            x, terms = formula.design(parsed, {c: formula.column_of_texts(table[c]) for c in covariates})
        except formula.FormulaError as error:
            parser.error(f"argument --formula: {error}")
    design = _design(parser, args, table)
    if design is not None and args.se == "opg":
        parser.error("argument --se: a weighted fit's standard errors are the sandwich (observed information "
                     "inside); opg is for unweighted fits")
    try:
        fit = logistic.fit(y, x, mechanism.p, mechanism.q_other, terms=terms,
                           design=design, se=args.se or "observed", confidence=args.confidence)
    except ValueError as error:
        parser.error(f"argument {'--covariates' if parsed is None else '--formula'}: {error}")
    for message in (*fit.messages, *(design.messages if design is not None else ())):
        print(f"warning: {message}", file=sys.stderr)
    out: dict[str, Any] = {"terms": list(fit.terms), "estimate": fit.estimate, "std_error": fit.std_error,
                           "z": fit.z, "p_value": fit.p_values, "ci_low": fit.ci_low, "ci_high": fit.ci_high,
                           "n": fit.n, "dropped": dropped,
                           "log_likelihood": fit.log_likelihood}
    if args.details:
        out["details"] = {**fit.to_dict(), "std_error_observed": _std(fit.covariance_observed),
                          "std_error_opg": None if fit.covariance_opg is None else _std(fit.covariance_opg),
                          "weights": None if design is None else design.summary()}
    print(json.dumps(_finite(out), allow_nan=False))


def _formula(parser: argparse.ArgumentParser, args: argparse.Namespace) -> formula.Parsed | None:
    if args.formula is None:
        if args.outcome is None:
            parser.error("argument --outcome: give the outcome column (or a --formula)")
        return None
    if args.outcome is not None or args.covariates is not None:
        parser.error("argument --formula: give either --formula or --outcome and --covariates, not both")
    try:
        return formula.parse(args.formula)
    except formula.FormulaError as error:
        parser.error(f"argument --formula: {error}")


def _covariates(parser: argparse.ArgumentParser, args: argparse.Namespace) -> list[str]:
    covariates = [] if args.covariates is None else [c.strip() for c in args.covariates.split(",")]
    if any(not c for c in covariates) or len(set(covariates)) != len(covariates):
        parser.error("argument --covariates: give distinct column names separated by commas")
    return covariates


def _estimate(parser: argparse.ArgumentParser, args: argparse.Namespace, mechanism: Mechanism) -> None:
    outcome = [f"{args.outcome}_{j}" for j in range(mechanism.k)] if mechanism.unary else [args.outcome]
    table, _ = _read(parser, args, outcome, [])
    if mechanism.unary:
        reports: npt.NDArray[np.int64] = np.column_stack([_reports(parser, table[c], 2) for c in outcome])
    else:
        reports = _reports(parser, table[outcome[0]], mechanism.k)
    design = _design(parser, args, table)
    if design is None:
        n = int(reports.shape[0])
        counts = reports.sum(axis=0) if mechanism.unary else np.bincount(reports, minlength=mechanism.k)
        if n == 0:
            parser.error("argument --csv: no rows with a report")
        found = mechanism.estimate(counts, n, confidence=args.confidence)
        numbers = {key: list(getattr(found, key)) for key in ("estimate", "std_error", "ci_low", "ci_high")}
        effective = float(n)
    else:
        for message in design.messages:
            print(f"warning: {message}", file=sys.stderr)
        weighted = weighted_fractions(mechanism, reports, design, args.confidence)
        numbers = {key: list(getattr(weighted, key)) for key in ("estimate", "std_error", "ci_low", "ci_high")}
        n, effective = weighted.n, weighted.effective_n
    print(json.dumps(_finite({**numbers, "n": n, "effective_n": effective}), allow_nan=False))


def _level(parser: argparse.ArgumentParser, args: argparse.Namespace, mechanism: Mechanism) -> int:
    if args.level is None:
        if args.mechanism in YES_NO or mechanism.k == 2:
            return 1
        parser.error(f"argument --level: required for {args.mechanism} with k = {mechanism.k} (the option modelled)")
    if not 0 <= args.level < mechanism.k:
        parser.error(f"argument --level: must lie in [0, {mechanism.k - 1}]")
    return int(args.level)


def _read(parser: argparse.ArgumentParser, args: argparse.Namespace, outcome: list[str], covariates: list[str]
          ) -> tuple[dict[str, list[str]], int]:
    """The used columns' cells of the rows with none missing, and how many rows were dropped."""
    rake_columns = [] if args.rake is None else [name for name, _ in _spec(parser, args.rake)]
    weight_columns = [] if args.weights is None else [args.weights]
    written = getattr(args, "formula", None) is not None  # regress --formula: its columns are the formula's
    wanted = {"--formula" if written else "--outcome": outcome, "--formula " if written else "--covariates": covariates,
              "--rake": rake_columns, "--weights": weight_columns}
    try:
        with args.csv.open(newline="", encoding="utf-8-sig") as file:
            reader = csv.reader(file)
            header = [cell.strip() for cell in next(reader, [])]
            index = {name: i for i, name in enumerate(header)}
            for argument, names in wanted.items():
                absent = [name for name in names if name not in index]
                if absent:
                    parser.error(f"argument {argument.strip()}: no column {', '.join(absent)} in {args.csv}")
            used = list(dict.fromkeys(name for names in wanted.values() for name in names))
            positions = [index[name] for name in used]
            columns: list[list[str]] = [[] for _ in used]
            dropped = 0
            for row in reader:
                cells = [row[i].strip() if i < len(row) else "" for i in positions]
                if any(cell in MISSING for cell in cells):
                    dropped += 1
                    continue
                for column, cell in zip(columns, cells, strict=True):
                    column.append(cell)
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        parser.error(f"argument --csv: cannot read {args.csv}: {error}")
    return dict(zip(used, columns, strict=True)), dropped


def _reports(parser: argparse.ArgumentParser, cells: list[str], k: int) -> npt.NDArray[np.int64]:
    try:
        values = np.array([int(cell) for cell in cells], dtype=np.int64)
    except ValueError:
        values = np.array([-1])
    if values.size and (values.min() < 0 or values.max() >= k):
        parser.error(f"argument --outcome: reports must be whole numbers from 0 to {k - 1}")
    return values


def _numbers(parser: argparse.ArgumentParser, argument: str, name: str, cells: list[str]) -> npt.NDArray[np.float64]:
    try:
        values = np.array([float(cell) for cell in cells], dtype=float)
    except ValueError:
        parser.error(f"argument {argument}: column {name} must hold numbers (or be empty / NA)")
    if not np.all(np.isfinite(values)):
        parser.error(f"argument {argument}: column {name} must hold finite numbers")
    return values


def _spec(parser: argparse.ArgumentParser, text: str) -> list[tuple[str, dict[str, float]]]:
    """COL:value=share,value=share;COL2:... as [(column, {value: share})]."""
    margins = []
    for part in text.split(";"):
        name, colon, pairs = part.partition(":")
        if not colon or not name.strip() or not pairs.strip():
            parser.error("argument --rake: give COL:value=share,value=share;COL2:...")
        shares: dict[str, float] = {}
        for pair in pairs.split(","):
            value, equals, share = pair.partition("=")
            try:
                number = float(share)
            except ValueError:
                number = math.nan
            if not equals or not value.strip() or not math.isfinite(number) or value.strip() in shares:
                parser.error(f"argument --rake: {name.strip()}: give distinct value=share pairs (a share is a number)")
            shares[value.strip()] = number
        if any(share <= 0 for share in shares.values()) or abs(sum(shares.values()) - 1.0) > 1e-6:
            parser.error(f"argument --rake: {name.strip()}: the shares must be positive and sum to 1")
        margins.append((name.strip(), shares))
    if len({name for name, _ in margins}) != len(margins):
        parser.error("argument --rake: a column is given twice")
    return margins


def _design(parser: argparse.ArgumentParser, args: argparse.Namespace, table: dict[str, list[str]]) -> Raked | None:
    if args.cap is not None and args.rake is None:
        parser.error("argument --cap: only with --rake")
    if args.weights is not None:
        weights = _numbers(parser, "--weights", args.weights, table[args.weights])
        if weights.size == 0 or np.any(weights <= 0):
            parser.error("argument --weights: weights must be positive")
        return Raked.fixed(weights)
    if args.rake is None:
        return None
    cap = _cap(parser, args.cap)
    try:
        margins = [margin(name, table[name], shares) for name, shares in _spec(parser, args.rake)]
        return rake(margins, cap=cap)
    except RakingError as error:
        parser.error(f"argument --rake: {error}")


def _cap(parser: argparse.ArgumentParser, text: str | None) -> float | None:
    if text is None:
        return 5.0
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 1.0):
        parser.error("argument --cap: a multiple of the median weight above 1, or none")
    return value


def _std(covariance: npt.NDArray[np.float64]) -> list[float]:
    return [float(x) for x in np.sqrt(np.diag(covariance))]


def _finite(value: Any) -> Any:
    """JSON has no NaN or infinity: an undefined number is null."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
