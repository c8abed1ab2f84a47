"""The code's shape: no import circle among the project's modules (imports in functions and under
TYPE_CHECKING included); folders that name their subjects (ldp's subpackages stacked on a few floors, the results
app's top holding only its web edge, no run of modules whose shared prefix stands in for a folder); no module over
500 lines."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("ldp", "surveys")
MAX_LINES = 500  # a subject's module may be long; past this it holds two subjects
FOLDER_MODULES = 20  # past this a folder holds more than one subject
UNGROUPED = {"surveys/collection"}  # the answering side, not yet grouped by subject (42 modules)
FLOORS = 8  # ldp's subpackages, each on a floor above those it imports
EDGE = {"__init__", "access", "admin", "apps", "models", "params", "refusing", "urls"}  # Django's, and the web edge


def modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """Project modules `name` imports anywhere: at module level, inside functions and under TYPE_CHECKING
    (a deferred import hides a circle; it does not remove it).

    `from package import module` imports that module (the package's __init__ runs first, but that is no
    edge of this module's own); `from module import name` imports the module."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: up from the package, then into `base`
                parents = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(parents + ([base] if base else []))
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        found |= {target for target in targets if target in known and target != name}
    return found


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_module_imports_itself_through_others():
    known = modules()
    graph = {name: imports_of(name, path, set(known)) for name, path in known.items()}
    # A package's __init__ re-exporting its modules is not a circle through them.
    graph = {name: {t for t in targets if not (t.startswith(name + ".") and known[name].name == "__init__.py")}
             for name, targets in graph.items()}
    assert cycle(graph) is None, cycle(graph)


def test_the_probe_finds_a_circle():
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set()}) is None


def test_the_probe_sees_imports_in_functions_and_under_type_checking(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    module = tmp_path / "pkg" / "a.py"
    module.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n"
                      "def f():\n    from . import c\n    import pkg.d\n")
    known = {"pkg", "pkg.a", "pkg.b", "pkg.c", "pkg.d"}
    assert imports_of("pkg.a", module, known) == {"pkg.b", "pkg.c", "pkg.d"}  # `from . import c` is pkg.c, not pkg


def test_no_module_is_over_five_hundred_lines():
    long = {name: n for name, path in modules().items() if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert not long, long


def folders() -> dict[str, list[str]]:
    """Each source folder and the modules directly in it (packages' __init__ aside)."""
    found: dict[str, list[str]] = {}
    for path in modules().values():
        if path.name != "__init__.py" and "management" not in path.parts:
            found.setdefault(str(path.parent.relative_to(ROOT)), []).append(path.stem)
    return found


def prefixed_runs(names: list[str]) -> dict[str, list[str]]:
    """Three or more modules sharing the word before their first underscore: a folder spelled out in names."""
    runs: dict[str, list[str]] = {}
    for name in names:
        if "_" in name:
            runs.setdefault(name.split("_")[0], []).append(name)
    return {prefix: sorted(run) for prefix, run in runs.items() if len(run) >= 3}


def test_no_folder_spells_out_a_subfolder_in_its_module_names():
    found = {folder: runs for folder, names in folders().items() if (runs := prefixed_runs(names))}
    assert not found, found


def test_no_folder_holds_more_modules_than_one_subject_needs():
    crowded = {folder: len(names) for folder, names in folders().items()
               if len(names) > FOLDER_MODULES and folder not in UNGROUPED}
    assert not crowded, crowded


def test_the_probes_of_folders_see_a_prefix_run_and_a_crowd():
    assert prefixed_runs(["model_page", "model_rows", "model_params", "models", "wave_views"]) == {
        "model": ["model_page", "model_params", "model_rows"]}
    assert prefixed_runs(["model_page", "model_rows", "modelling"]) == {}


def package_floors(graph: dict[str, set[str]], root: str) -> dict[str, int]:
    """Each subpackage of `root` (root's own modules as `root`) and its floor: 1 for one importing no other,
    else one above the highest it imports. A circle between subpackages has no floor: ValueError."""
    def home(name: str) -> str:
        return ".".join(name.split(".")[:2])
    arrows: dict[str, set[str]] = {}
    for name, targets in graph.items():
        if name.startswith(root):
            inside = {home(t) for t in targets if t.startswith(root)} - {home(name)}
            arrows.setdefault(home(name), set()).update(inside)
    floors: dict[str, int] = {}

    def floor(package: str, path: tuple[str, ...]) -> int:
        if package in path:
            raise ValueError(" -> ".join(path[path.index(package):] + (package,)))
        if package not in floors:
            floors[package] = 1 + max((floor(t, path + (package,)) for t in sorted(arrows.get(package, ()))), default=0)
        return floors[package]

    for package in sorted(arrows):
        floor(package, ())
    return floors


def import_graph() -> dict[str, set[str]]:
    known = modules()
    graph = {name: imports_of(name, path, set(known)) for name, path in known.items()}
    return {name: {t for t in targets if not (t.startswith(name + ".") and known[name].name == "__init__.py")}
            for name, targets in graph.items()}


def test_ldp_stands_on_few_floors_without_a_circle_between_its_subpackages():
    floors = package_floors(import_graph(), "ldp")
    assert {"ldp.mechanisms", "ldp.stats", "ldp.cli"} <= set(floors)  # the graph is read
    assert max(floors.values()) <= FLOORS, floors


def test_the_floor_probe_stacks_packages_and_refuses_a_circle():
    graph = {"p.a.x": {"p.b.y"}, "p.b.y": {"p.c.z"}, "p.c.z": set(), "p.a.w": {"p.c.z"}}
    assert package_floors(graph, "p") == {"p.a": 3, "p.b": 2, "p.c": 1}
    graph["p.c.z"] = {"p.a.w"}
    with pytest.raises(ValueError, match="p.a -> p.b -> p.c -> p.a"):
        package_floors(graph, "p")


def test_the_results_app_keeps_only_its_web_edge_at_its_top():
    top = set(folders()["surveys/aggregation"]) | {"__init__"}
    assert top == EDGE
