"""Model terms written in R's formula syntax, `outcome ~ a + b + I(age/10) + I((age/10)^2) + a:b +
C(region, Treatment('North'))`, as a design matrix.

formulaic (PyPI) parses the formula and its operators (+, -, :, *, /, ^ of terms, parentheses) and encodes the
terms (treatment contrasts of categories, interactions, full rank); nothing written in the formula is evaluated as
Python. Each factor formulaic finds (`a`, `I(age / 10)`, `C(region, Treatment('North'))`) is read here from its
syntax tree, which may hold only

    a column's name, a number, + - * / and powers (** or ^, as in R's I()), I(x), C(x) and C(x, Treatment(level))

(anything else, an attribute, another call, a string outside Treatment, is refused: `FormulaError`); its values
are computed here, and formulaic encodes them under stand-in names, so that the columns come back named as
formulaic names them: "(Intercept)", "a", "b[T.2]" (level 2 against the first), "I(age / 10)",
"C(region, Treatment('North'))[T.South]", "a:b".

A column is numeric (`np.float64` values) or categorical (`Categorical`: codes into its levels, the first the
reference unless Treatment names another). A categorical column may enter only as itself or inside C().
The model keeps its intercept (the fits and their tests assume it).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from .formula_syntax import FormulaError, bounded, call, finite, names, r_powers, treatment, tree

FloatArray = npt.NDArray[np.float64]
INTERCEPT = "(Intercept)"
# The work the terms may ask for once read (the text's own bounds: formula_syntax.bounded).
MOST_TERMS = 64
MOST_LEVELS = 50  # of one category (C() of a number makes one per distinct value)
MOST_COLUMNS = 200


@dataclass(frozen=True)
class Categorical:
    codes: npt.NDArray[np.int64]  # per row, an index into levels
    levels: tuple[Any, ...]


Column = FloatArray | Categorical


@dataclass(frozen=True)
class Parsed:
    text: str
    outcome: str
    factors: tuple[str, ...]  # formulaic's factor expressions, in a first-seen order
    terms: tuple[tuple[int, ...], ...]  # each term but the intercept: its factors' indexes
    variables: tuple[str, ...]  # the column names the formula reads (the outcome's not among them)


def parse(text: str) -> Parsed:
    """The formula's outcome, terms and variables; FormulaError if it is not `outcome ~ terms` of safe factors.

    >>> found = parse("y ~ a + I((age/10)^2) + a:b")
    >>> found.outcome, found.factors, found.terms, found.variables
    ('y', ('a', 'I((age / 10) ** 2)', 'b'), ((0,), (1,), (0, 2)), ('a', 'age', 'b'))
    """
    from formulaic import Formula  # type: ignore[import-untyped]  # no stubs; imported only for a formula
    from formulaic.errors import FormulaicError  # type: ignore[import-untyped]
    from formulaic.parser.types import Factor  # type: ignore[import-untyped]

    bounded(text)
    try:
        formula = Formula(r_powers(text))
    except (FormulaicError, ValueError, TypeError, SyntaxError, RecursionError) as error:
        raise FormulaError(f"cannot read the formula: {_first_line(error)}") from None
    lhs, rhs = getattr(formula, "lhs", None), getattr(formula, "rhs", None)
    if not text.partition("~")[2].strip():
        raise FormulaError("write the terms after ~ (1 for the intercept alone)")
    if lhs is None or rhs is None or len(lhs) != 1 or len(lhs[0].factors) != 1:
        raise FormulaError("write it as outcome ~ terms, with one outcome column on the left")
    outcome = lhs[0].factors[0]
    if outcome.eval_method != Factor.EvalMethod.LOOKUP:
        raise FormulaError("the left of ~ is the outcome column's name alone")
    try:
        factors, terms = _terms(rhs, Factor.EvalMethod.LITERAL)
    except AttributeError:  # a right side of several parts (y ~ a | b): no terms of their own
        raise FormulaError("write one right side of terms (no |)") from None
    if len(terms) > MOST_TERMS:
        raise FormulaError(f"{len(terms)} terms: at most {MOST_TERMS}")
    variables: dict[str, None] = {}
    for expr in factors:
        for name in names(tree(expr)):
            variables.setdefault(name)
    if outcome.expr in variables:
        raise FormulaError(f"the outcome {outcome.expr} cannot also be a covariate")
    return Parsed(text, outcome.expr, tuple(factors), tuple(terms), tuple(variables))


def _terms(rhs: Any, literal: Any) -> tuple[dict[str, int], list[tuple[int, ...]]]:
    """The right side's factors (numbered as first seen) and each term but the intercept as its factors."""
    factors: dict[str, int] = {}
    terms, intercept = [], False
    for term in rhs:
        if [f.expr for f in term.factors] == ["1"]:
            intercept = True
            continue
        indexes = []
        for factor in term.factors:
            if factor.eval_method == literal:
                raise FormulaError(f"a number alone ({factor.expr}) is not a term")
            indexes.append(factors.setdefault(factor.expr, len(factors)))
        terms.append(tuple(indexes))
    if not intercept:
        raise FormulaError("the model keeps its intercept: leave out - 1 and + 0")
    return factors, terms


def design(parsed: Parsed, data: Mapping[str, Column]) -> tuple[FloatArray, list[str]]:
    """The design matrix (the intercept first) and its columns' names, from the formula's variables in `data`."""
    import pandas as pd  # type: ignore[import-untyped]  # no stubs; formulaic takes a data frame
    from formulaic import model_matrix
    from formulaic.errors import FormulaicError

    absent = [name for name in parsed.variables if name not in data]
    if absent:
        raise FormulaError(f"no column {', '.join(absent)} to read")
    if not parsed.factors:  # the intercept alone
        return np.ones((_rows(data), 1)), [INTERCEPT]
    stand_in = {f"_f{i}_": expr for i, expr in enumerate(parsed.factors)}
    frame = {}
    for name, expr in stand_in.items():
        value = _value(tree(expr).body, data, top=True)  # numbers (an array or one) or a Categorical
        if isinstance(value, Categorical):  # its reference first: formulaic's treatment contrast drops it
            frame[name] = pd.Categorical.from_codes(value.codes, categories=list(value.levels))
        else:
            frame[name] = np.broadcast_to(np.asarray(value, dtype=float), (_rows(data),)).copy()
    widths = {name: len(v.categories) - 1 if isinstance(v, pd.Categorical) else 1 for name, v in frame.items()}
    columns = 1 + sum(int(np.prod([widths[f"_f{i}_"] for i in term])) for term in parsed.terms)
    if columns > MOST_COLUMNS:
        raise FormulaError(f"about {columns} columns: at most {MOST_COLUMNS}")
    spec = " + ".join(["1", *(":".join(f"_f{i}_" for i in term) for term in parsed.terms)])
    try:
        matrix = model_matrix(spec, pd.DataFrame(frame), ensure_full_rank=True)
    except (FormulaicError, ValueError) as error:
        raise FormulaError(f"cannot build its columns: {_first_line(error)}") from None
    names = [re.sub(r"_f\d+_", lambda m: stand_in[m.group(0)], str(c)) for c in matrix.columns]
    names = [INTERCEPT if n == "Intercept" else n for n in names]
    return np.ascontiguousarray(np.asarray(matrix, dtype=float)), names  # C order: the same sums as a stacked x


def column_of_texts(cells: list[str]) -> Column:
    """A CSV's column: numbers if every cell is a finite number, else a category of the cells' texts (its levels
    sorted, as R's factor())."""
    try:
        values = np.array([float(cell) for cell in cells], dtype=float)
        if np.all(np.isfinite(values)):
            return values
    except ValueError:
        pass
    levels, codes = np.unique(np.array(cells, dtype=str), return_inverse=True)
    return Categorical(codes.astype(np.int64), tuple(str(level) for level in levels))


def _value(node: ast.AST, data: Mapping[str, Column], top: bool = False) -> Any:
    """A factor's values: numbers, or a categorical column (only as the whole factor: itself or C())."""
    if isinstance(node, ast.Name):
        column = data[node.id]
        if isinstance(column, Categorical) and not top:
            raise FormulaError(f"{node.id} is a category: it enters as itself or in C(), not in arithmetic")
        return column
    if isinstance(node, ast.Constant):
        return finite(node)  # a number: _names let no other constant through
    if isinstance(node, ast.UnaryOp):
        operand = _number(node.operand, data)
        return -operand if isinstance(node.op, ast.USub) else operand
    if isinstance(node, ast.BinOp):
        left, right = _number(node.left, data), _number(node.right, data)
        with np.errstate(all="ignore"):
            if isinstance(node.op, ast.Add):
                value = left + right
            elif isinstance(node.op, ast.Sub):
                value = left - right
            elif isinstance(node.op, ast.Mult):
                value = left * right
            elif isinstance(node.op, ast.Div):
                value = left / right
            else:  # ** or R's ^
                value = left**right
        if not np.all(np.isfinite(value)):
            raise FormulaError(f"{ast.unparse(node)} is not a finite number for every row")
        return value
    assert isinstance(node, ast.Call)
    if call(node) == "I":
        return _number(node.args[0], data)
    return _categorical(node, data)


def _number(node: ast.AST, data: Mapping[str, Column]) -> Any:
    value = _value(node, data)
    if isinstance(value, Categorical):
        raise FormulaError(f"{ast.unparse(node)} is a category, not a number")
    return value


def _categorical(node: ast.Call, data: Mapping[str, Column]) -> Categorical:
    inner = node.args[0]
    value = _value(inner, data, top=True) if isinstance(inner, ast.Name) else _number(inner, data)
    if isinstance(value, Categorical):
        found = value
    else:
        levels, codes = np.unique(np.broadcast_to(np.asarray(value, dtype=float), (_rows(data),)),
                                  return_inverse=True)
        found = Categorical(codes.astype(np.int64), tuple(_plain(v) for v in levels))
    if len(found.levels) > MOST_LEVELS:
        raise FormulaError(f"{ast.unparse(node)} has {len(found.levels)} levels: at most {MOST_LEVELS}")
    if len(node.args) < 2:
        return found
    reference = treatment(node.args[1])
    matches = [i for i, level in enumerate(found.levels) if _same(level, reference)]
    if not matches:
        shown = ", ".join(repr(level) for level in found.levels)
        raise FormulaError(f"{ast.unparse(node)}: {reference!r} is not one of its levels ({shown})")
    first = matches[0]
    order = [first, *(i for i in range(len(found.levels)) if i != first)]
    remap = np.empty(len(order), dtype=np.int64)
    remap[order] = np.arange(len(order))
    return Categorical(remap[found.codes], tuple(found.levels[i] for i in order))


def _same(level: Any, reference: Any) -> bool:
    if isinstance(level, str) or isinstance(reference, str):
        return str(level) == str(reference)
    return bool(float(level) == float(reference))


def _plain(value: float) -> Any:
    return int(value) if float(value).is_integer() else float(value)


def _rows(data: Mapping[str, Column]) -> int:
    first = next(iter(data.values()))
    return len(first.codes) if isinstance(first, Categorical) else len(first)


def _first_line(error: Exception) -> str:
    return re.sub(r"\x1b\[[0-9;]*m|[⧛⧚]", "", str(error)).strip().splitlines()[0]


__all__ = ["INTERCEPT", "Categorical", "Column", "FormulaError", "Parsed", "column_of_texts", "design", "parse",
           "r_powers"]
