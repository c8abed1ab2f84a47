"""A model's terms: which questions may be outcome and covariates, a formula's columns (by formulaic, only then),
the columns' scaling and a numeric outcome's unbiased values."""

from __future__ import annotations

import re
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from .shapes import Array, Question


def outcome_kind(q: Question) -> str | None:
    """"logistic" (a randomized question answered with one option), "linear" (a randomized numeric mean) or None."""
    if not q.get("randomized", True) or q["kind"] == "multi_select":
        return None
    return "linear" if "steps" in q["mechanism"] else "logistic"


def covariate_kind(q: Question) -> str | None:
    """"number" (a number asked directly), "choice" (a single choice asked directly) or None."""
    if q.get("randomized", True) or q["kind"] == "multi_select":
        return None
    return "number" if "steps" in q["mechanism"] else "choice"


def formula_parts(formula: str, questions: dict[str, Question]) -> tuple[str, list[str]]:
    """A formula's outcome (the key left of ~) and its covariates (the questions' keys on the right)."""
    left, tilde, right = formula.partition("~")
    if not tilde or not right.strip():
        raise ValueError("write the formula as outcome ~ terms")
    names = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", right)
    return left.strip(), [name for name in dict.fromkeys(names) if name in questions]


def r_powers(formula: str) -> str:
    """R's ^ inside I() is a power: Python's ** (between terms, ^ stays formulaic's interaction power)."""
    out, depth, inside = [], 0, []
    for i, ch in enumerate(formula):
        if ch == "(":
            depth += 1
            if re.search(r"(?<![A-Za-z0-9_.])I\s*$", formula[:i]):
                inside.append(depth)
        elif ch == ")":
            if inside and inside[-1] == depth:
                inside.pop()
            depth -= 1
        out.append("**" if ch == "^" and inside else ch)
    return "".join(out)


def formula_matrix(formula: str, questions: dict[str, Question], covariates: list[str], cells: Callable[[str], Array],
                   n: int) -> tuple[Array, list[str], list[str]]:
    """The formula's columns, as the dashboard's formulas give them (formulaic encodes them): a single choice a
    category of its option indexes, a number its value; each column's term and label formulaic's name."""
    try:
        import pandas as pd  # type: ignore[import-untyped]  # no stubs
        from formulaic import model_matrix as formulaic_matrix  # type: ignore[import-untyped]  # no stubs
    except ImportError:
        raise ValueError("a formula needs formulaic (pip install formulaic)") from None
    data = {}
    for key in covariates:
        q = questions[key]
        reports = cells(key)
        if covariate_kind(q) == "number":
            lo, step = Fraction(q["scale"]["lo"]), Fraction(q["scale"]["step"])
            found, where = np.unique(reports, return_inverse=True)
            data[key] = np.array([float(lo + step * int(i)) for i in found])[where]
        elif covariate_kind(q) == "choice":
            options = q["options"]
            chosen = np.bincount(reports, minlength=len(options))
            for j, option in enumerate(options):
                if chosen[j] == 0:
                    raise ValueError(f"nobody among the {n} responses used chose {option!r} of {key}: its effect "
                                     "cannot be estimated; leave the question out")
            data[key] = pd.Categorical(reports, categories=list(range(len(options))))
        else:
            raise ValueError(f"{key}: a covariate is another question asked directly (a single choice or a number)")
    right = r_powers(formula.partition("~")[2])
    frame = pd.DataFrame(data) if data else pd.DataFrame(index=range(n))
    try:
        matrix = formulaic_matrix(right, frame, ensure_full_rank=True)
    except Exception as error:  # formulaic's own errors, in its words
        raise ValueError(f"cannot read the formula: {str(error).splitlines()[0]}") from None
    x = np.ascontiguousarray(np.asarray(matrix, dtype=float))
    terms = ["(Intercept)" if str(c) == "Intercept" else str(c) for c in matrix.columns]
    if terms[:1] != ["(Intercept)"]:
        raise ValueError("the model keeps its intercept: leave out - 1 and + 0")
    z = scaled_columns(x)[0]
    if n <= x.shape[1] or np.linalg.matrix_rank(z.T @ z) < x.shape[1]:
        raise ValueError("the covariates are collinear or constant among the responses used (or there are fewer "
                         "responses than terms): leave one out")
    return x, terms, ["Intercept" if t == "(Intercept)" else t for t in terms]


def scaled_columns(x: Array) -> tuple[Array, Array]:
    """The design matrix with each column but the intercept centred and divided by its standard deviation, and M,
    which takes the coefficients of the scaled columns back to the original ones (b = M g, Cov(b) = M Cov(g) M'):
    the fits work on the scaled columns, so that a number of 20,000 and its square lose no digits."""
    centre, spread = x.mean(axis=0), x.std(axis=0)
    centre[0], spread[0] = 0.0, 1.0
    constant = spread == 0.0
    centre[constant], spread[constant] = 0.0, 1.0
    back = np.diag(1.0 / spread)
    back[0, 1:] = -centre[1:] / spread[1:]
    return (x - centre) / spread, back


def unbiased_values(q: Question, reports: Array, p: float | None, q_other: float | None) -> Array:
    """A numeric mean's unbiased value of each report: the 1-bit mean's lo + (hi - lo) (bit - q_other) / (p -
    q_other), discrete Laplace's lo + step r."""
    scale = q["scale"]
    lo, hi, step = (Fraction(scale[name]) for name in ("lo", "hi", "step"))
    if q["mechanism"]["encoding"] == "integer":
        return float(lo) + float(step) * reports
    assert p is not None and q_other is not None  # the 1-bit mean's bit: its exact channel
    return float(lo) + float(hi - lo) * (reports - q_other) / (p - q_other)
