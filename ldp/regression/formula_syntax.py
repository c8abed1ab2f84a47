"""The syntax a model formula may use (`ldp.regression.formula`), checked on its text and on each factor's syntax tree
before
anything is computed: only

    a column's name, a number, + - * / and powers (** or ^, as in R's I()), I(x), C(x) and C(x, Treatment(level))

and a bounded amount of terms between them (the work formulaic would do expanding (a + b + ...)^k grows as 2^k).
Nothing here evaluates the formula: it reads its syntax tree.
"""

from __future__ import annotations

import ast
import re
from typing import Any

import numpy as np

SAFE = "a column's name, numbers, + - * / and powers, I(), C() and C(x, Treatment(level)), and : * ^ between terms"
# The work a formula may ask for, bounded before formulaic expands it: (a + b + ...)^k and a * b * ... make 2^k
# terms (a^7 of seven columns took 38 s to parse), and a category of many levels as many columns.
MOST_POWER = 3  # (a + b + c)^3 at most between terms
MOST_PRODUCTS = 5  # a * b * ... of six factors at most (63 terms)


class FormulaError(ValueError):
    """What is wrong with a formula, in words."""


def bounded(text: str) -> None:
    """FormulaError when the terms between I()s would multiply past the bounds above (checked on the text, before
    formulaic expands them)."""
    between = re.sub(r"(?<![A-Za-z0-9_.])I\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\)", "I()", text)
    for power in re.findall(r"(?:\^|\*\*)\s*([^\s()+*:~^-]+)", between):
        if not (power.isdigit() and int(power) <= MOST_POWER):
            raise FormulaError(f"^{power} between terms: at most ^{MOST_POWER}")
    if len(re.findall(r"(?<!\*)\*(?!\*)", between)) > MOST_PRODUCTS:
        raise FormulaError(f"more than {MOST_PRODUCTS} * between terms")


def r_powers(text: str) -> str:
    """R's ^ inside I() is a power: Python's ** (so formulaic names the term I((age / 10) ** 2)); between terms,
    ^ stays the interactions' power, as in R.

    >>> r_powers("y ~ (a + b)^2 + I((age/10)^2)")
    'y ~ (a + b)^2 + I((age/10)**2)'
    """
    out: list[str] = []
    depth, inside = 0, []
    for i, ch in enumerate(text):
        if ch == "(":
            depth += 1
            if re.search(r"(?<![A-Za-z0-9_.])I\s*$", text[:i]):
                inside.append(depth)
        elif ch == ")":
            if inside and inside[-1] == depth:
                inside.pop()
            depth -= 1
        out.append("**" if ch == "^" and inside else ch)
    return "".join(out)


def tree(expr: str) -> ast.Expression:
    try:
        return ast.parse(expr, mode="eval")
    except SyntaxError:
        raise FormulaError(f"cannot read the term {expr}") from None


def names(tree: ast.Expression) -> list[str]:
    """The columns a factor reads (checking it holds nothing but the safe set)."""
    found: list[str] = []

    def walk(node: ast.AST, in_treatment: bool = False) -> None:
        if isinstance(node, ast.Name):
            found.append(node.id)
        elif isinstance(node, ast.Constant):
            if not (isinstance(node.value, (int, float)) and not isinstance(node.value, bool)) and not in_treatment:
                raise FormulaError(f"{ast.unparse(node)} is not allowed here: only {SAFE}")
            finite(node)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow,
                                                                  ast.BitXor)):
            walk(node.left)
            walk(node.right)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            walk(node.operand)
        elif isinstance(node, ast.Call) and call(node) in ("I", "C"):
            for arg in node.args[:1]:
                walk(arg)
            if call(node) == "C" and len(node.args) == 2:
                treatment(node.args[1])
        else:
            raise FormulaError(f"{ast.unparse(node)} is not allowed in a formula: only {SAFE}")

    walk(tree.body)
    return found


def call(node: ast.Call) -> str | None:
    """I or C with the arguments they take, else None."""
    if not isinstance(node.func, ast.Name) or node.keywords:
        return None
    if node.func.id == "I" and len(node.args) == 1:
        return "I"
    if node.func.id == "C" and len(node.args) in (1, 2):
        return "C"
    return None


def treatment(node: ast.AST) -> Any:
    """The reference level of Treatment(level) (or Treatment(reference=level))."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Treatment":
        given = [*node.args, *(k.value for k in node.keywords if k.arg == "reference")]
        if (len(given) == 1 and len(node.args) + len(node.keywords) == 1 and isinstance(given[0], ast.Constant)
                and isinstance(given[0].value, (str, int, float)) and not isinstance(given[0].value, bool)):
            if not isinstance(given[0].value, str):
                finite(given[0])
            return given[0].value
    raise FormulaError(f"{ast.unparse(node)}: C()'s second argument is Treatment(level), the reference level")


def finite(node: ast.Constant) -> float:
    """A number of the formula as a finite float, else FormulaError (an integer of 400 digits overflows)."""
    try:
        value = float(node.value)  # type: ignore[arg-type]  # an int or a float (checked by the callers)
    except OverflowError:
        value = float("inf")
    if not np.isfinite(value):
        raise FormulaError(f"{ast.unparse(node)} is not a finite number")
    return value
