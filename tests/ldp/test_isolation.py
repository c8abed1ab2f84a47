"""ldp is pure Python + numpy: importing it (or running its CLI) pulls in nothing else.

Each check runs in a fresh interpreter from the repository root, records sys.modules
before and after, and also records every import *attempted* for a top-level name outside
the standard library, numpy and ldp (so an `import scipy` inside try/except is caught too).
"""

from __future__ import annotations

import json
import pkgutil
import subprocess
import sys
from pathlib import Path

import pytest

import ldp

ROOT = Path(__file__).resolve().parents[2]

PROBE = r"""
import importlib.abc, json, sys

ALLOWED = set(sys.stdlib_module_names) | {"numpy", "ldp"}
WATCHED = sys.argv[2]
if sys.argv[3]:
    sys.path.insert(0, sys.argv[3])
attempted = []

class Recorder(importlib.abc.MetaPathFinder):
    # Records imports of non-allowed names whose import statement is in the code under test
    # (the standard library's own optional imports, e.g. copy's Jython `org`, are not ours).

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ALLOWED:
            return None
        frame = sys._getframe(1)
        while frame is not None and frame.f_code.co_filename.startswith("<frozen importlib"):
            frame = frame.f_back
        where = frame.f_code.co_filename if frame is not None else "?"
        if where.startswith(WATCHED):
            attempted.append(f"{name} (from {where})")
        return None

import numpy  # numpy's own optional imports are not ldp's doing
before = set(sys.modules)
sys.meta_path.insert(0, Recorder())
target = sys.argv[1]
if target == "--cli-help":
    import runpy
    sys.argv = ["ldp", "--help"]
    try:
        runpy.run_module("ldp", run_name="__main__", alter_sys=True)
    except SystemExit as exit:
        assert exit.code in (0, None), exit.code
else:
    __import__(target)
new = sorted(set(sys.modules) - before)
print(json.dumps({"new": new, "attempted": attempted, "all": sorted(sys.modules)}))
"""


def probe(target: str, watch: str | None = None, path: str = "") -> dict:
    watched = str(ROOT / "ldp") if watch is None else watch
    result = subprocess.run([sys.executable, "-c", PROBE, target, watched, path], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.splitlines()[-1])


def submodules() -> list[str]:
    return ["ldp"] + sorted(info.name for info in pkgutil.walk_packages(ldp.__path__, "ldp.")
                            if info.name != "ldp.__main__")


@pytest.mark.slow
@pytest.mark.parametrize("target", submodules() + ["--cli-help"])
def test_importing_ldp_needs_only_numpy_and_the_standard_library(target):
    report = probe(target)
    assert "django" not in report["all"]
    assert "scipy" not in report["all"]
    assert not report["attempted"], f"{target} tried to import {report['attempted']}"
    outside = [name for name in report["new"]
               if name.split(".")[0] not in set(sys.stdlib_module_names) | {"numpy", "ldp"}]
    assert not outside, f"{target} imported {outside}"


def imported_top_level_names(*args: str) -> set[str]:
    """Top-level names of every import `python -X importtime ARGS` logged."""
    result = subprocess.run([sys.executable, "-X", "importtime", *args], cwd=ROOT, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    names = set()
    for line in result.stderr.splitlines():
        if line.startswith("import time:") and "|" in line and "imported package" not in line:
            names.add(line.rsplit("|", 1)[1].strip().split(".")[0])
    return names


def test_python_m_ldp_help_imports_only_numpy_and_the_standard_library():
    """The literal command, with the interpreter's own start-up imports (site, .pth files) removed."""
    names = imported_top_level_names("-m", "ldp", "--help") - imported_top_level_names("-c", "pass")
    assert {"ldp", "numpy", "argparse"} <= names  # the log is read correctly
    # `org` is copy.py's failed probe for Jython's PyStringMap, logged by -X importtime.
    outside = names - set(sys.stdlib_module_names) - {"ldp", "numpy", "org"}
    assert not outside, outside
    assert "django" not in names and "scipy" not in names


def test_the_probe_notices_third_party_imports(tmp_path):
    """The checks above can fail: a guarded import attempt and a real third-party import are seen."""
    (tmp_path / "sneaky.py").write_text(
        "try:\n    import not_a_real_module_xyz\nexcept ImportError:\n    pass\nimport sortedcontainers\n"
    )
    report = probe("sneaky", watch=str(tmp_path), path=str(tmp_path))
    assert any(name.startswith("not_a_real_module_xyz") for name in report["attempted"])
    assert "sortedcontainers" in report["new"]


def test_the_package_lists_the_submodules_the_design_names():
    names = set(submodules())
    assert {"ldp.mechanisms.sampling", "ldp.stats.intervals", "ldp.stats.estimates", "ldp.mechanisms.registry",
            "ldp.planning.budget",
            "ldp.planning.sizes", "ldp.cli.main"} <= names
