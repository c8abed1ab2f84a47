"""Debiased estimates of every question of a survey, from its randomized reports: the dashboard's
numbers, redone with numpy and the standard library; here, its command line.

The first line is that of the generated script's docstring, which argparse gives as the description."""

from __future__ import annotations

import argparse
import sys

from .crosstab import crosstab, show_crosstab, write_crosstab_csv
from .estimates import analyze, show, write_csv
from .header import (
    CODEBOOK,
    DEFAULT_CONFIDENCE,
    DEFAULT_INTERVAL,
    DEFAULT_MARGIN,
    DEFAULT_SIMULTANEOUS,
    DEFAULT_WEIGHTED,
    REPORTS,
)
from .model_output import show_model, write_model_csv
from .models import fit_model
from .raking import Unweightable
from .waves import across_waves
from .waves_output import show_waves, write_waves_csv


def main(argv: list[str] | None = None) -> None:  # noqa: C901
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("reports", nargs="?", default=REPORTS)
    parser.add_argument("--codebook", default=CODEBOOK)
    # The defaults are the options of the dashboard page this script was downloaded from.
    parser.add_argument("--confidence", type=float, default=DEFAULT_CONFIDENCE)
    parser.add_argument("--interval", choices=["wilson", "exact", "anytime"], default=DEFAULT_INTERVAL)
    parser.add_argument("--planned", type=int, help="the planning size of intervals valid at any time (default: "
                        "this survey's planned size, fixed when it opened)")
    parser.add_argument("--simultaneous", action=argparse.BooleanOptionalAction, default=DEFAULT_SIMULTANEOUS)
    parser.add_argument("--margin", type=float, default=DEFAULT_MARGIN,
                        help="the planner's margin for the too-few warning")
    parser.add_argument("--csv", help="also write every number, at full precision, to this CSV file")
    parser.add_argument("--weighted", action=argparse.BooleanOptionalAction, default=DEFAULT_WEIGHTED,
                        help="weight to the survey's population margins (the codebook's \"weights\")")
    model = parser.add_argument_group("a model instead of the estimates (the dashboard's Models section)")
    model.add_argument("--model", metavar="KEY", help="the outcome: a randomized question's key, such as q1")
    model.add_argument("--level", type=int, help="the option modelled, 0-based (a yes/no question: yes, 1)")
    model.add_argument("--covariates", default="", help="keys of questions asked directly, comma-separated")
    model.add_argument("--reference", action="append", default=[], metavar="KEY=J",
                       help="a single choice's reference option, 0-based (default its first); repeatable")
    model.add_argument("--square", default="", help="numbers that also enter squared, comma-separated")
    model.add_argument("--formula", help="instead of --model, --covariates, --reference and --square: the model in "
                       "R's syntax over the keys, such as \"q1 ~ q3 * I(q4 / 10)\" (needs formulaic)")
    model.add_argument("--se", choices=["observed", "opg"], default="observed",
                       help="standard errors of an unweighted logistic model")
    pair = parser.add_argument_group("a cross-tab instead of the estimates (the dashboard's cross-tab)")
    pair.add_argument("--crosstab", metavar="A,B", help="two questions' keys, such as q1,q4: the joint fractions "
                      "and the conditional fractions both ways (--weighted: under the weights; --csv: crosstab.csv's "
                      "columns)")
    series = parser.add_argument_group("the waves of a series instead (the dashboard's results across waves)")
    series.add_argument("--waves", metavar="FOLDER1,FOLDER2", help="folders, each with one wave's downloaded reports "
                        "CSV and codebook: each wave's estimates and the change between two (--csv: waves.csv's "
                        "columns)")
    series.add_argument("--change", metavar="W1,W2", help="the waves compared, by their number in the series "
                        "(default: the first and the last given); with --weighted, each wave weighted to the margins "
                        "of its own codebook")
    args = parser.parse_args(argv)
    if args.waves:
        waves_main(parser, args)
        return
    if args.crosstab:
        keys = split(args.crosstab)
        if len(keys) != 2:
            parser.error("--crosstab takes two keys, such as q1,q4")
        try:
            found = crosstab(args.reports, args.codebook, keys[0], keys[1], args.confidence, args.weighted, args.margin)
        except ValueError as error:
            parser.error(str(error))
        show_crosstab(found)
        if args.csv:
            write_crosstab_csv(found, args.csv)
        return
    if args.model or args.formula:
        references = {}
        for given in args.reference:
            key, equals, option = given.partition("=")
            if not (equals and option.strip().isdigit()):
                parser.error("--reference takes KEY=J, such as q2=0")
            references[key.strip()] = int(option)
        try:
            found = fit_model(args.reports, args.codebook, args.model, args.level, split(args.covariates),
                              references, split(args.square), args.se, args.confidence, args.weighted, args.margin,
                              args.formula)
        except ValueError as error:
            sys.exit(f"no model: {error}")
        show_model(found)
        if args.csv:
            write_model_csv(found, args.csv)
        return
    if args.weighted and args.interval != "wilson":
        parser.error("weighted figures have Wilson intervals at each option's effective sample size")
    if args.planned is not None and args.planned < 1:
        parser.error("--planned must be at least 1")
    try:
        records = analyze(args.reports, args.codebook, args.confidence, args.interval, args.simultaneous,
                          args.margin, args.weighted, args.planned)
    except ValueError as error:
        parser.error(str(error))
    show(records, args.codebook, args.margin)
    if args.csv:
        write_csv(records, args.csv)


def waves_main(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    folders = split(args.waves)
    if len(folders) < 2:
        parser.error("--waves takes two folders or more, such as wave1,wave2")
    change = split(args.change) if args.change else None
    if change is not None and (len(change) != 2 or not all(number.isdigit() for number in change)):
        parser.error("--change takes two wave numbers, such as 1,3")
    try:
        numbers = None if change is None else [int(number) for number in change]
        found = across_waves(folders, args.confidence, numbers, args.weighted)
    except ValueError as error:
        parser.error(str(error))
    except Unweightable as refusal:  # as the app refuses weighted waves (400 without margins, else 409)
        parser.exit(2, f"{parser.prog}: error: no weighted figures across waves: {refusal}\n")
    show_waves(found)
    if args.csv:
        write_waves_csv(found, args.csv)


def split(keys: str) -> list[str]:
    return [key.strip() for key in keys.split(",") if key.strip()]


if __name__ == "__main__":
    main()
