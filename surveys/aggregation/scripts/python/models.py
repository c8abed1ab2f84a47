"""A model as the dashboard's Models section fits it (--model, --formula or fit_model): the rows used, raked if
weighted, the design matrix, the fit."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction

import numpy as np

from .fitting import linear_model, logistic_model
from .formulas import covariate_kind, formula_matrix, formula_parts, outcome_kind, scaled_columns, unbiased_values
from .header import CODEBOOK, REPORTS
from .intervals import respondents_needed
from .raking import rake
from .reading import read_codebook, read_columns
from .shapes import Array, Found, Question

MODEL_COLUMNS = ["term", "label", "estimate", "std_error", "ci_low", "ci_high", "z", "term_p_value", "odds_ratio",
                 "odds_ratio_low", "odds_ratio_high", "model", "outcome_id", "outcome_key", "level", "level_label", "n",
                 "dropped", "se", "confidence", "weighted", "log_likelihood", "test", "statistic", "df", "p_value"]


def fit_model(reports: str = REPORTS, codebook: str = CODEBOOK, outcome: str | None = None,  # noqa: C901
              level: int | None = None, covariates: Sequence[str] = (), references: dict[str, int] | None = None,
              squares: Sequence[str] = (), se: str = "observed", confidence: float = 0.95, weighted: bool = False,
              margin: float = 0.05, formula: str | None = None) -> Found:
    """The model of question `outcome` (a key such as "q1") on `covariates` (keys of questions asked directly), as
    the dashboard's Models section fits it; a dict of the numbers (one entry per term in the lists). `level`: the
    option modelled (0-based; a yes/no question's "yes" by default), `references`: {key: option index} of the
    single choices (the first option by default), `squares`: the numbers that also enter squared; `margin` the
    planner's, for the warning of too few respondents. A ValueError says why a model cannot be fitted. `formula`
    instead of outcome, covariates, references and squares: the model in R's syntax over the keys, as the
    dashboard's Advanced box takes it ("q1 ~ q3 * I(q4 / 10) + C(q2, Treatment(1))"; formulaic reads it: pip
    install formulaic)."""
    book = read_codebook(codebook)
    questions = {q["key"]: q for q in book["questions"]}
    references, covariates, squares = dict(references or {}), list(covariates), list(squares)
    if formula is not None:
        if covariates or references or squares:
            raise ValueError("a formula names the outcome and the terms: give it without covariates, references "
                             "or squares")
        outcome, covariates = formula_parts(formula, questions)
    q = questions.get(outcome)
    if q is None or outcome_kind(q) is None:
        raise ValueError(f"the outcome must be a randomized question of one option or a numeric mean, not {outcome!r}")
    assert outcome is not None  # q is its question
    kind = outcome_kind(q)
    for key in covariates:
        if key == outcome or key not in questions or covariate_kind(questions[key]) is None:
            raise ValueError(f"{key}: a covariate is another question asked directly (a single choice or a number)")
    for key in [*references, *squares]:
        if key not in covariates:
            raise ValueError(f"{key} is not among the covariates")
        if (key in squares) != (covariate_kind(questions[key]) == "number"):
            raise ValueError(f"{key}: only numbers enter squared, only single choices have a reference option")
    if se not in ("observed", "opg") or (se == "opg" and (kind == "linear" or weighted)):
        raise ValueError("--se opg is for unweighted logistic models (weighted ones take the sandwich, linear "
                         "ones robust standard errors)")
    if kind == "logistic":
        options = q["options"]
        if level is None and len(options) != 2:
            raise ValueError(f"choose the option of {outcome} to model (--level, 0 to {len(options) - 1})")
        level = 1 if level is None else level
        if not 0 <= level < len(options):
            raise ValueError(f"{outcome} has options 0 to {len(options) - 1}")
    elif level is not None:
        raise ValueError("a numeric mean has no options to choose from")
    if not 0.5 <= confidence < 1.0:
        raise ValueError("confidence must be in [0.5, 1)")
    columns = read_columns(reports, book)
    total = len(columns["response_id"])
    # The rows: the responses with a report for every question used (and, weighted, an answer to every margin).
    used = [outcome, *covariates]
    margins = [] if not weighted else (book.get("weights") or {}).get("margins")
    if margins is None:
        raise ValueError("this survey has no population margins to weight to (the codebook has no \"weights\")")
    names = [c for key in used for c in questions[key]["report"]["csv_columns"]] + [m["question"] for m in margins]
    rows = np.ones(total, dtype=bool)
    for name in names:
        rows &= np.array(columns[name]) != ""

    def cells(name: str) -> Array:
        return np.array([int(c) for c, on in zip(columns[name], rows) if on], dtype=np.int64)

    n = int(rows.sum())
    if formula is None:
        x, terms, labels = model_matrix(questions, covariates, references, squares, cells, n)
    else:
        x, terms, labels = formula_matrix(formula, questions, covariates, cells, n)
    w = np.ones(n)
    residuals: Callable[[Array], Array] | None = None
    found_weights = None
    if weighted:
        codes, shares = [], []
        for m in margins:
            codes.append(cells(m["question"]))
            shares.append(np.array([s["share"] for s in sorted(m["shares"], key=lambda s: s["option_index"])]))
            empty = [s["option"] for s in m["shares"] if not (codes[-1] == s["option_index"]).any()]
            if empty:
                raise ValueError(f"{m['question']}: no respondents in the categories {empty}, which have a "
                                 "population share")
        shares = [s / s.sum() for s in shares]
        w = rake(codes, shares, book["weights"]["cap"])
        z = np.hstack([np.eye(t.size)[c] for c, t in zip(codes, shares)])

        def raked_residuals(u: Array) -> Array:  # of the w-weighted regression of u's columns on the margins
            return u - z @ (np.linalg.pinv(z.T @ (w[:, None] * z), rcond=1e-12) @ (z.T @ (w[:, None] * u)))

        residuals = raked_residuals

        found_weights = {"n": n, "design_effect": n * float(w @ w) / float(w.sum()) ** 2,
                         "effective_n": float(w.sum()) ** 2 / float(w @ w)}
    mechanism = q["mechanism"]
    p = float(Fraction(mechanism["p_exact"])) if mechanism["p_exact"] is not None else None
    q_other = float(Fraction(mechanism["q_other_exact"])) if mechanism["q_other_exact"] is not None else None
    if kind == "logistic":
        assert p is not None and q_other is not None  # a question with options: its exact channel
        bits = q["report"]["encoding"] == "bits"
        y = (cells(f"{outcome}_{level}") if bits else cells(outcome) == level).astype(float)
        fitted = logistic_model(y, x, p, q_other, w, residuals, se, confidence)
    else:
        fitted = linear_model(unbiased_values(q, cells(outcome), p, q_other), x, w, residuals, confidence)
    return {"model": kind, "outcome_id": q["id"], "outcome_key": outcome, "level": level,
            "level_label": None if level is None else q["options"][level], "terms": terms, "labels": labels,
            "n": n, "dropped": total - n, "respondents_needed": respondents_needed(q, margin, confidence),
            "margin": margin, "confidence": confidence, "weighted": weighted, "weights": found_weights,
            "p": mechanism["p_exact"], "q_other": mechanism["q_other_exact"], **fitted}


def model_matrix(questions: dict[str, Question], covariates: Sequence[str], references: dict[str, int],
                 squares: Sequence[str], cells: Callable[[str], Array], n: int) -> tuple[Array, list[str], list[str]]:
    """The intercept, then per covariate: a number (and its square), or a single choice's indicators of each
    option but the reference one; each column's term and label, as the dashboard names them."""
    x: list[Array] | Array
    x, terms, labels = [np.ones(n)], ["(Intercept)"], ["Intercept"]
    for key in covariates:
        q = questions[key]
        name = f"{q['order']}. {q['text']}"
        reports = cells(key)
        if covariate_kind(q) == "number":  # the grid index i sent as given: the value lo + step i
            lo, step = Fraction(q["scale"]["lo"]), Fraction(q["scale"]["step"])
            found, where = np.unique(reports, return_inverse=True)
            values = np.array([float(lo + step * int(i)) for i in found])[where]
            x.append(values)
            terms.append(key)
            labels.append(name)
            if key in squares:
                x.append(values ** 2)
                terms.append(f"{key}^2")
                labels.append(f"{name}, squared")
            continue
        options, reference = q["options"], references.get(key, 0)
        if not 0 <= reference < len(options):
            raise ValueError(f"{key} has options 0 to {len(options) - 1}")
        chosen = np.bincount(reports, minlength=len(options))
        for j, option in enumerate(options):
            if chosen[j] == 0:
                raise ValueError(f"nobody among the {n} responses used chose {option!r} of {key}: its effect cannot "
                                 "be estimated; leave the question out")
            if j != reference:
                x.append((reports == j).astype(float))
                terms.append(f"{key}={j}")
                labels.append(f"{name}: {option} (against {options[reference]})")
    x = np.column_stack(x)
    z = scaled_columns(x)[0]
    if n <= x.shape[1] or np.linalg.matrix_rank(z.T @ z) < x.shape[1]:
        raise ValueError("the covariates are collinear or constant among the responses used (or there are fewer "
                         "responses than terms): leave one out")
    return x, terms, labels
