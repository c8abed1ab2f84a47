"""The generated scripts' models (analysis.R's and analysis.py's fit_model, and their --model command line), run
for real on the app's exports of one survey built for models (tests/aggregation/model_support.py, with a discrete
Laplace mean added): each script, its own implementation (Newton's method in base R, numpy in Python), prints the
coefficient table of the models API and writes it in the columns of the app's model CSV, which the test compares
whole with the app's /results/<slug>/export/model.csv (the API's numbers): logistic models of a yes/no question,
of one option of a k-option and of a unary question, with observed and OPG standard errors; linear models of a
1-bit and a discrete Laplace mean; weighted ones raked among the rows they use.

The survey: N responses from the planted models; NO_SEX more without a sex (a margin question), so that a model
using sex drops them and a weighted one too (no weight without every margin); and NO_AGE more without an age in
years or a mood, which answer both margin questions: a model using age drops them, and a weighted one rakes the
rows it uses, which differ from the export's weight column (raked among every response that answers the margins).

Tolerances. Both scripts compute what the app computes, so they differ only where Newton's method stops: it stops
once twice the distance to the maximum in log-likelihood is below 1e-16 of it, within about 1e-7 standard errors
of the maximum (measured: 2.5e-8 standard errors between Python and the app on a weighted fit whose kept maximum
came from the other start; 1e-12 where both took the same path). So a coefficient and its interval's ends are
compared to ESTIMATE_TOLERANCE = 1e-6 of its standard error, an odds ratio to that relative, a standard error to
1e-6 relative (it moves with b by as much, relatively), and the log-likelihood, the test's statistic and p-value
to 1e-6 (relative above 1; the log-likelihood moves only to second order). Text (terms, labels, model, outcome,
level, n, dropped, se, weighted, test, df) equal.

CPU: one survey built once for the module (in a transaction rolled back at the end of the fixture, since a module
shares no test database transaction), each script run three times (every model in one process, the command line,
the refusals: R's in one process, Python's in the test's). Measured: 13 CPU s, of which about 4 create the test
database when the module runs alone, 5 build the survey and fit the app's models, 4 run the scripts.
"""

import csv
import json
import runpy
import subprocess
import sys

import numpy as np
import pytest
from django.db import transaction
from django.test import Client, override_settings
from django.urls import reverse

from surveys.aggregation.models import MarginShare, PopulationMargin
from surveys.collection import builder, plan
from tests.aggregation.model_support import MOOD, answer, make_survey
from tests.aggregation.scripts.test_analysis_scripts import fetch, read_csv, rscript, run
from tests.factories import make_user

N, NO_SEX, NO_AGE = 2000, 150, 100
BAND, SEX = [0.3, 0.35, 0.35], [0.49, 0.51]
ESTIMATE_TOLERANCE = 1e-6  # in standard errors
RELATIVE_TOLERANCE = 1e-6
SLUG = "models"
# The test database is set up for a session only when some test asks for it (the module's fixture builds the survey
# in it, then the tests need it no more).
pytestmark = pytest.mark.django_db
# name -> the model: outcome order, its level, covariate orders, reference options {order: index}, squared orders,
# standard errors, confidence, weighted.
MODELS = {
    "yes-no": {"outcome": 1, "covariates": (2, 3, 4), "reference": {2: 2}, "square": (4,)},
    "yes-no-opg": {"outcome": 1, "covariates": (2, 3, 4), "reference": {2: 2}, "square": (4,), "se": "opg"},
    "yes-no-weighted": {"outcome": 1, "covariates": (2, 3, 4), "reference": {2: 2}, "square": (4,),
                        "weighted": True},
    "krr-option": {"outcome": 5, "level": 2, "covariates": (2, 4), "confidence": 0.9},
    "oue-option-weighted": {"outcome": 7, "level": 0, "covariates": (2, 3), "weighted": True},
    "onebit-mean": {"outcome": 6, "covariates": (2, 3, 4)},
    "dlaplace-mean": {"outcome": 9, "covariates": (3, 4), "square": (4,)},
    "dlaplace-mean-weighted": {"outcome": 9, "covariates": (2, 4), "reference": {2: 1}, "weighted": True},
}
# name -> a formula model (the dashboard's Advanced box) and its parameters
FORMULAS = {
    "formula-interaction": {"formula": "q1 ~ C(q2, Treatment(2)) + q3 * I(q4 / 10) + I((q4 / 10)^2)"},
    "formula-weighted-mean": {"formula": "q9 ~ q3 + q4 + q3:q4", "weighted": True},
}
TEXT = ("term", "label", "model", "outcome_id", "outcome_key", "level", "level_label", "n", "dropped", "se",
        "weighted", "test", "df")
IN_ERRORS = ("estimate", "ci_low", "ci_high")  # compared in standard errors
RELATIVE = ("std_error", "odds_ratio", "odds_ratio_low", "odds_ratio_high")  # relative (an odds ratio: in SEs)
OVERALL = ("confidence", "log_likelihood", "statistic", "p_value", "z", "term_p_value")  # z: to 1e-6 (above 1,
# relative), as a coefficient in its standard errors


def api_query(spec, ids):
    pairs = [("outcome", ids[spec["outcome"]])]
    if "level" in spec:
        pairs.append(("level", spec["level"]))
    pairs += [("covariates", ids[o]) for o in spec["covariates"]]
    pairs += [("reference", f"{ids[o]}:{j}") for o, j in spec.get("reference", {}).items()]
    pairs += [("square", ids[o]) for o in spec.get("square", ())]
    # A planner margin of 0.1: the early-results rule at 0.05 refuses the oue option on N responses.
    pairs += [("se", spec.get("se", "observed")), ("weighted", "on" if spec.get("weighted") else "off"),
              ("confidence", spec.get("confidence", 0.95)), ("margin", "0.1")]
    return "&".join(f"{name}={value}" for name, value in pairs)


def script_arguments(spec):
    """fit_model's arguments: question keys for orders."""
    return {"outcome": f"q{spec['outcome']}", "level": spec.get("level"),
            "covariates": [f"q{o}" for o in spec["covariates"]],
            "references": {f"q{o}": j for o, j in spec.get("reference", {}).items()},
            "squares": [f"q{o}" for o in spec.get("square", ())], "se": spec.get("se", "observed"),
            "confidence": spec.get("confidence", 0.95), "weighted": spec.get("weighted", False)}


def add_partial_responses(survey, n, seed, left_out):
    """n responses answered at random, but to none of the questions `left_out` (orders) nor the multi-select."""
    rng = np.random.default_rng(seed)
    sizes = {1: 2, 2: 3, 3: 2, 4: 73, 5: 3, 6: 11, 7: 3, 9: 21}  # the truths: option or grid indexes
    questions = {q.order: q for q in plan.of(survey)}
    builder.write_responses(survey, {questions[o].id: questions[o].mechanism.encode_many(
        questions[o].mechanism.randomize(rng.integers(0, k, n), rng)) for o, k in sizes.items() if o not in left_out})


@pytest.fixture(scope="module")
def exported(django_db_setup, django_db_blocker, tmp_path_factory):
    """The exports and scripts in a folder, and the app's model CSV of each of MODELS (rows as dicts); the survey
    is built within a transaction rolled back once they are fetched."""
    folder = tmp_path_factory.mktemp("models")
    hashers = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    with django_db_blocker.unblock(), override_settings(EXPORT_BACKGROUND=False, EXPORT_DIR=folder / "store",
                                                       PASSWORD_HASHERS=hashers), transaction.atomic():
        owner = make_user("owner")
        survey = make_survey(owner, slug=SLUG, extra=[MOOD])
        answer(survey, N, seed=7)
        add_partial_responses(survey, NO_SEX, seed=8, left_out={3})
        add_partial_responses(survey, NO_AGE, seed=9, left_out={4, 9})
        for order, shares in ((2, BAND), (3, SEX)):
            question = survey.questions.get(order=order)
            margin = PopulationMargin.objects.create(question=question, source="Census")
            for option, share in zip(question.ordered_options(), shares, strict=True):
                MarginShare.objects.create(margin=margin, option=option, share=share)
        client = Client()
        client.force_login(owner)
        fetch(client, survey, folder)
        ids = {q.order: q.id for q in plan.of(survey)}
        tables = {}
        for name, spec in MODELS.items():
            response = client.get(reverse("aggregation:export-model", args=[SLUG]) + "?" + api_query(spec, ids))
            assert response.status_code == 200, (name, response.content[:300])
            tables[name] = list(csv.DictReader(response.content.decode().splitlines()))
        for name, spec in FORMULAS.items():
            query = {"formula": spec["formula"], "weighted": "on" if spec.get("weighted") else "off", "margin": "0.1"}
            response = client.get(reverse("aggregation:export-model", args=[SLUG]), query)
            assert response.status_code == 200, (name, response.content[:300])
            tables[name] = list(csv.DictReader(response.content.decode().splitlines()))
        transaction.set_rollback(True)
    return folder, tables


@pytest.fixture(scope="module")
def python_tables(exported):
    """Every model of MODELS fitted by analysis.py's fit_model in one process, each written by write_model_csv."""
    folder, _ = exported
    code = ("import json, runpy, sys\n"
            f"script = runpy.run_path('{SLUG}-analysis.py')\n"
            "for name, arguments in json.loads(sys.argv[1]).items():\n"
            "    script['write_model_csv'](script['fit_model'](**arguments), f'py-{name}.csv')\n")
    arguments = {name: script_arguments(spec) for name, spec in MODELS.items()}
    run([sys.executable, "-c", code, json.dumps(arguments)], folder)
    return {name: read_csv(folder / f"py-{name}.csv") for name in MODELS}


def r_call(arguments):
    """fit_model(...) in R, from fit_model's arguments in Python (as script_arguments gives them)."""
    a = {"level": None, "covariates": [], "references": {}, "squares": [], "se": "observed", "confidence": 0.95,
         "weighted": False, **arguments}

    def vector(keys):
        return "c(" + ", ".join(f'"{key}"' for key in keys) + ")" if keys else "character(0)"

    reference = ("c(" + ", ".join(f"{key} = {j}L" for key, j in a["references"].items()) + ")"
                 if a["references"] else "integer(0)")
    level = "NULL" if a["level"] is None else f"{a['level']}L"
    return (f'fit_model(reports, "{a["outcome"]}", {vector(a["covariates"])}, {reference}, {vector(a["squares"])}, '
            f'{level}, "{a["se"]}", {a["confidence"]!r}, {"TRUE" if a["weighted"] else "FALSE"})')


@pytest.fixture(scope="module")
def r_tables(exported):
    """Every model of MODELS fitted by analysis.R's fit_model in one Rscript, each written by write_model."""
    folder, _ = exported
    lines = [f'source("{SLUG}-analysis.R")', f'reports <- read_reports("{SLUG}-reports.csv")']
    lines += [f'write_model({r_call(script_arguments(spec))}, "r-{name}.csv")' for name, spec in MODELS.items()]
    run([rscript(), "--vanilla", "-e", "; ".join(lines)], folder)
    return {name: read_csv(folder / f"r-{name}.csv") for name in MODELS}


def assert_same_table(got, want, who):
    """The script's table equals the app's: every column, text exactly, numbers within the tolerances above."""
    assert [list(row) for row in got] == [list(row) for row in want], who  # the model CSV's columns, in order
    assert len(got) == len(want), who
    worst = 0.0
    for row, expected in zip(got, want, strict=True):
        where = (who, expected["term"])
        assert {c: row[c] for c in TEXT} == {c: expected[c] for c in TEXT}, where
        se = float(expected["std_error"])
        for column in (*IN_ERRORS, *RELATIVE, *OVERALL):
            if expected[column] == "":  # a linear model's odds ratios and test
                assert row[column] == "", (where, column)
                continue
            value, found = float(expected[column]), float(row[column])
            scale = (se if column in IN_ERRORS else abs(value) * (se if column.startswith("odds") else 1.0)
                     if column in RELATIVE else max(1.0, abs(value)))
            tolerance = (ESTIMATE_TOLERANCE if column in IN_ERRORS or column.startswith("odds")
                         else RELATIVE_TOLERANCE)
            worst = max(worst, abs(found - value) / scale)
            assert abs(found - value) <= tolerance * scale, (where, column, found, value)
    return worst


def test_the_survey_drops_what_each_model_must(exported):
    """The partial responses are dropped by the models that use what they lack (or weight, without a sex) and kept
    by the others, so the tests below cover both; each table has every kind of figure."""
    folder, tables = exported
    tables = {name: tables[name] for name in MODELS}
    dropped = {name: int(table[0]["dropped"]) for name, table in tables.items()}
    both = NO_SEX + NO_AGE
    assert dropped == {"yes-no": both, "yes-no-opg": both, "yes-no-weighted": both, "krr-option": NO_AGE,
                       "oue-option-weighted": NO_SEX, "onebit-mean": both, "dlaplace-mean": both,
                       "dlaplace-mean-weighted": both}
    # The export weighs the responses without an age too: its weights are not a weighted model's.
    weights = [row["weight"] for row in read_csv(folder / f"{SLUG}-reports.csv")]
    assert len(weights) == N + both and sum(w != "" for w in weights) == N + NO_AGE
    assert {name: (table[0]["se"], table[0]["test"]) for name, table in tables.items()} == {
        "yes-no": ("observed", "likelihood ratio"), "yes-no-opg": ("opg", "likelihood ratio"),
        "yes-no-weighted": ("sandwich", "wald"), "krr-option": ("observed", "likelihood ratio"),
        "oue-option-weighted": ("sandwich", "wald"), "onebit-mean": ("HC1", ""), "dlaplace-mean": ("HC1", ""),
        "dlaplace-mean-weighted": ("sandwich", "")}
    assert {table[0]["confidence"] for table in tables.values()} == {"0.95", "0.9"}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MODELS))
def test_the_python_script_fits_the_apis_model(exported, python_tables, name):
    _, tables = exported
    worst = assert_same_table(python_tables[name], tables[name], f"Python {name}")
    print(f"Python {name}: largest difference {worst:.3g} of its tolerance's scale")


@pytest.mark.slow
@pytest.mark.parametrize("name", list(MODELS))
def test_the_r_script_fits_the_apis_model(exported, r_tables, name):
    _, tables = exported
    worst = assert_same_table(r_tables[name], tables[name], f"R {name}")
    print(f"R {name}: largest difference {worst:.3g} of its tolerance's scale")


def printed_rows(text, terms):
    """The printed coefficient table: term -> its numbers."""
    found = {}
    for line in text.splitlines():
        parts = line.split()
        if len(parts) > 1 and parts[0] in terms and parts[0] not in found:
            try:
                found[parts[0]] = [float(x) for x in parts[1:]]
            except ValueError:  # the terms' labels, after the table
                continue
    return found


@pytest.mark.slow
@pytest.mark.parametrize("language", ["R", "Python"])
def test_the_command_line_prints_and_writes_the_apis_table(exported, language):
    """--model prints the table (6 significant digits), the model's figures in words, and --csv writes it whole."""
    folder, tables = exported
    flags = ["--model", "q1", "--covariates", "q2,q3,q4", "--reference", "q2=2", "--square", "q4", "--weighted",
             "--csv", f"cli-{language}.csv"]
    command = ([rscript(), "--vanilla", f"{SLUG}-analysis.R", f"{SLUG}-reports.csv"] if language == "R"
               else [sys.executable, f"{SLUG}-analysis.py"])
    printed = run([*command, *flags], folder).stdout
    want = tables["yes-no-weighted"]
    assert_same_table(read_csv(folder / f"cli-{language}.csv"), want, language)
    rows = printed_rows(printed, [row["term"] for row in want])
    columns = ("estimate", "std_error", "z", "term_p_value", "ci_low", "ci_high", "odds_ratio", "odds_ratio_low",
               "odds_ratio_high")
    assert list(rows) == [row["term"] for row in want]
    for row in want:
        assert rows[row["term"]] == pytest.approx([float(row[c]) for c in columns], rel=1e-5), (language, row["term"])
        assert f"  {row['term']}" in printed and row["label"] in printed
    first = want[0]
    assert f"n = {first['n']} responses that answer every question used ({first['dropped']} left out)" in printed
    assert "standard errors: sandwich" in printed and f"weighted: the {N} responses used raked" in printed
    statistic, p_value = float(first["statistic"]), float(first["p_value"])
    assert f"wald test against the intercept-only model: statistic {statistic:.6g} on {first['df']} df" in printed
    assert f"p-value {p_value:.4g}" in printed


# What the app refuses, each script refuses with its reason (fit_model's arguments -> a part of the message).
REFUSED = [
    ({"outcome": "q8"}, "the outcome must be a randomized question of one option or a numeric mean"),
    ({"outcome": "q2"}, "the outcome must be a randomized question"),
    ({"outcome": "q1", "covariates": ["q5"]}, "q5: a covariate is another question asked directly"),
    ({"outcome": "q5"}, "choose the option of q5 to model"),
    ({"outcome": "q1", "covariates": ["q2"], "squares": ["q2"]}, "only numbers enter squared"),
    ({"outcome": "q1", "covariates": ["q2"], "references": {"q2": 3}}, "q2 has options 0 to 2"),
    ({"outcome": "q1", "covariates": ["q2"], "se": "opg", "weighted": True}, "is for unweighted logistic models"),
    ({"outcome": "q6", "level": 1}, "a numeric mean has no options"),
]


def test_the_python_script_refuses_what_the_app_refuses(exported):
    folder, _ = exported
    script = runpy.run_path(str(folder / f"{SLUG}-analysis.py"))
    for arguments, message in REFUSED:
        with pytest.raises(ValueError, match=message):
            script["fit_model"](folder / f"{SLUG}-reports.csv", folder / f"{SLUG}-codebook.json", **arguments)


@pytest.mark.slow
def test_the_r_script_refuses_what_the_app_refuses(exported):
    folder, _ = exported
    calls = [r_call(arguments) for arguments, _ in REFUSED]
    lines = [f'source("{SLUG}-analysis.R")', f'reports <- read_reports("{SLUG}-reports.csv")']
    lines += [f'cat(tryCatch({{{call}; "fitted"}}, error = conditionMessage), "\\n", sep = "")' for call in calls]
    printed = run([rscript(), "--vanilla", "-e", "; ".join(lines)], folder).stdout.splitlines()
    assert len(printed) == len(REFUSED)
    for line, (_, message) in zip(printed, REFUSED, strict=True):
        assert message in line, line


def test_a_refusal_on_the_command_line_exits_with_the_reason(exported):
    folder, _ = exported
    done = subprocess.run([sys.executable, f"{SLUG}-analysis.py", "--model", "q8"], cwd=folder, capture_output=True,
                          text=True, timeout=120, check=False)
    assert done.returncode == 1 and "no model: the outcome must be a randomized question" in done.stderr


@pytest.mark.slow
def test_the_scripts_fit_the_apis_formula_models(exported):
    """A formula (R's syntax over the keys) in both scripts gives the app's model.csv: Python's whole (formulaic
    names the terms as the app does), R's numbers column by column in the same order (R names its own terms)."""
    folder, tables = exported
    code = ("import json, runpy, sys\n"
            f"script = runpy.run_path('{SLUG}-analysis.py')\n"
            "for name, spec in json.loads(sys.argv[1]).items():\n"
            "    script['write_model_csv'](script['fit_model'](formula=spec['formula'],"
            " weighted=spec.get('weighted', False)), f'py-{name}.csv')\n")
    run([sys.executable, "-c", code, json.dumps(FORMULAS)], folder)
    lines = [f'source("{SLUG}-analysis.R")', f'reports <- read_reports("{SLUG}-reports.csv")']
    lines += [f'write_model(fit_model(reports, formula = "{spec["formula"]}", weighted = '
              f'{"TRUE" if spec.get("weighted") else "FALSE"}), "r-{name}.csv")' for name, spec in FORMULAS.items()]
    run([rscript(), "--vanilla", "-e", "; ".join(lines)], folder)
    for name in FORMULAS:
        want = tables[name]
        assert_same_table(read_csv(folder / f"py-{name}.csv"), want, f"Python {name}")
        r = read_csv(folder / f"r-{name}.csv")
        assert [row["term"] for row in r][0] == "(Intercept)" and len(r) == len(want), name
        renamed = [{**row, "term": expected["term"], "label": expected["label"]}
                   for row, expected in zip(r, want, strict=True)]
        assert_same_table(renamed, want, f"R {name}")
