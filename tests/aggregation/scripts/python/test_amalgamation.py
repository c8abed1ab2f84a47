"""analysis.py put together (surveys.aggregation.scripts.amalgamation): every body module in dependency order, its
sibling imports (relative: the concatenator's mark) dropped and no other import left inside; the header defines
every literal the body reads; the generated script of a survey of every kind of question passes ruff and mypy as
one file. analysis.R's parts are every part, in order, joined without a line between them."""

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from surveys.aggregation.scripts import amalgamation
from surveys.aggregation.scripts import render as analysis_scripts
from surveys.aggregation.scripts.python import header
from surveys.collection import plan

ROOT = Path(__file__).resolve().parents[4]
PACKAGE = amalgamation.PACKAGE
TEMPLATES = ROOT / "templates" / "aggregation" / "scripts"


def tree(name: str) -> ast.Module:
    return ast.parse((PACKAGE / f"{name}.py").read_text())


def test_the_body_is_every_module_of_the_package_but_the_header():
    found = {path.stem for path in PACKAGE.glob("*.py")} - {"__init__", "header"}
    assert sorted(amalgamation.BODY) == sorted(found)


def test_each_module_comes_after_every_sibling_it_imports():
    for place, name in enumerate(amalgamation.BODY):
        for node in tree(name).body:
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node.module == "header" or amalgamation.BODY.index(node.module) < place, (name, node.module)


def test_siblings_are_imported_relatively_at_the_top_and_nowhere_else():
    """A relative import at module level is the mark the concatenator drops; one inside a function, or a sibling
    imported by its absolute name, would reach the script."""
    for name in amalgamation.BODY:
        module = tree(name)
        top = set(module.body)
        for node in ast.walk(module):
            if isinstance(node, ast.ImportFrom) and node.level:
                assert node in top, (name, node.lineno)
            names = ([node.module or ""] if isinstance(node, ast.ImportFrom)
                     else [a.name for a in node.names] if isinstance(node, ast.Import) else [])
            assert not any(n.startswith(("surveys", "ldp", "tests")) for n in names), (name, names)


def test_the_concatenated_body_imports_nothing_of_the_package_and_defines_every_function_once():
    imports, body = amalgamation.body()
    module = ast.parse(imports + body)
    assert not [node for node in ast.walk(module) if isinstance(node, ast.ImportFrom) and node.level]
    defined = [node.name for node in module.body if isinstance(node, ast.FunctionDef | ast.ClassDef)]
    assert len(defined) == len(set(defined))
    for name in amalgamation.BODY:
        functions = {node.name for node in tree(name).body if isinstance(node, ast.FunctionDef | ast.ClassDef)}
        assert functions <= set(defined), name


def literal_names(text: str) -> set[str]:
    """The names assigned at module level, by their assignment lines (a template is no Python)."""
    found = set()
    for match in re.finditer(r"^([A-Z][A-Z_0-9]*(?:, [A-Z][A-Z_0-9]*)*)(?::[^=\n]*)?(?: = |$)", text, re.M):
        found |= set(match.group(1).split(", "))
    return found


def test_the_generated_header_defines_every_literal_the_modules_read_from_header():
    template = (TEMPLATES / "python" / "header.py.template").read_text()
    module = {name for name in vars(header) if name.isupper()}
    assert literal_names(template) == module
    read = {alias.name for name in amalgamation.BODY for node in tree(name).body
            if isinstance(node, ast.ImportFrom) and node.module == "header" for alias in node.names}
    assert read <= module


def test_the_r_parts_are_every_part_in_order_joined_without_a_line_between():
    parts = TEMPLATES / "r"
    assert sorted(analysis_scripts.R_PARTS) == sorted(path.name.split(".")[0] for path in parts.glob("*.R.template"))
    for place, name in enumerate(analysis_scripts.R_PARTS):
        text = (parts / f"{name}.R.template").read_text()
        assert text.startswith("{% autoescape off %}"), name
        last = place == len(analysis_scripts.R_PARTS) - 1
        assert text.endswith("{% endautoescape %}\n" if last else "{% endautoescape %}"), name


@pytest.mark.slow
def test_the_generated_script_of_every_kind_of_question_passes_ruff_and_mypy(all_kinds_survey, tmp_path):
    path = tmp_path / "analysis.py"
    path.write_text(analysis_scripts.script(all_kinds_survey, plan.of(all_kinds_survey), "analysis.py"))
    # As the modules are checked (pyproject.toml), B905 left out as for them: the script runs on Python 3.9.
    ruff = subprocess.run([sys.executable, "-m", "ruff", "check", "--config", str(ROOT / "pyproject.toml"),
                           "--extend-ignore", "B905", "--no-cache", str(path)], capture_output=True, text=True,
                          check=False)
    assert ruff.returncode == 0, ruff.stdout + ruff.stderr
    # The project's flags for its own modules (pyproject.toml's [tool.mypy], without the Django plugins).
    mypy = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "", "--python-version", "3.11",
                           "--disallow-untyped-defs", "--disallow-incomplete-defs", "--check-untyped-defs",
                           "--warn-unused-ignores", "--warn-redundant-casts", "--no-implicit-optional",
                           "--strict-equality", "--cache-dir", str(ROOT / ".mypy_cache" / "script"), str(path)],
                          capture_output=True, text=True, check=False, cwd=tmp_path)
    assert mypy.returncode == 0, mypy.stdout + mypy.stderr
