"""The generated analysis.py, put together as SQLite's amalgamation is: the header of the survey's literals (its
docstring, imports and the names the body reads), then the body, the modules of surveys.aggregation.scripts.python
as they are imported, checked and tested there, concatenated in the order of their imports of one another.

A body module's docstring and top-level imports stay behind: its imports of its siblings (every relative import,
`from .debiasing import debias`: the mark this module recognises) name what is the script's own in one file, and
its other imports are gathered into the header's one import block (isort's order, so the script passes ruff).
Imports inside functions (formulaic, only for a formula) travel with their function."""

from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent / "python"
# In dependency order: a module comes after every sibling it imports
# (tests/aggregation/scripts/python/test_amalgamation.py).
BODY = ("shapes", "tails", "intervals", "debiasing", "anytime", "raking", "reading", "estimates", "crosstab_cells",
        "relation", "crosstab", "formulas", "fitting", "models", "model_output", "waves", "waves_output", "cli")


def script(header: str) -> str:
    """The whole analysis.py: the rendered header (its `{{ imports }}` filled from the body's) and the body."""
    imports, text = body()
    return header.replace("# {imports}\n", imports, 1) + "\n\n" + text


@functools.cache
def body() -> tuple[str, str]:
    """The body's gathered import block and its concatenated text."""
    straight: set[str] = set()
    froms: dict[str, set[str]] = {}
    parts = []
    for name in BODY:
        source = (PACKAGE / f"{name}.py").read_text(encoding="utf-8")
        dropped: set[int] = set()
        tree = ast.parse(source)
        for node in tree.body:
            if node is tree.body[0] and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
                pass  # the module's docstring
            elif isinstance(node, ast.Import):
                straight |= {f"import {a.name}" + (f" as {a.asname}" if a.asname else "") for a in node.names}
            elif isinstance(node, ast.ImportFrom):
                if not node.level:  # a relative import is a sibling's: nothing to gather
                    froms.setdefault(node.module or "", set()).update(a.name for a in node.names)
            else:
                continue
            dropped.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
        kept = [line for number, line in enumerate(source.splitlines(), start=1) if number not in dropped]
        parts.append("\n".join(kept).strip("\n") + "\n")
    return import_block(straight, froms), "\n\n".join(parts)


def import_block(straight: set[str], froms: dict[str, set[str]]) -> str:
    """isort's order: __future__, then the standard library (straight imports first), then the others."""
    future = froms.pop("__future__", set())
    lines = [f"from __future__ import {', '.join(sorted(future))}", ""] if future else []

    def section(third_party: bool) -> list[str]:
        def outside(module: str) -> bool:
            return (module.split(" ")[1].split(".")[0] if module.startswith("import ")
                    else module.split(".")[0]) not in sys.stdlib_module_names

        found = sorted(line for line in straight if outside(line) == third_party)
        found += [f"from {module} import {', '.join(sorted(names))}" for module, names in sorted(froms.items())
                  if outside(module) == third_party]
        return found

    standard, others = section(False), section(True)
    return "\n".join(lines + standard + ([""] if standard and others else []) + others) + "\n"
