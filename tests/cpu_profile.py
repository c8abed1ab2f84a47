"""Where the suite's CPU goes, per test module: with CPU_PROFILE_DIR set (tests/conftest.py then loads this
plugin) every pytest worker writes one line per test (module, CPU seconds, wall seconds) to a file of its own,
and `python -m tests.cpu_profile DIR` sums them per module, costliest first.

The suite is CPU-bound on two cores, so CPU, not wall time, says what to shorten: wall time on a
loaded machine mostly measures the load. A test's CPU is that of the worker's whole process tree
(the browser and the servers it starts included), read from /proc: a process's own time plus that of
the children it has reaped, summed over the live processes of the tree. The database server's own
processes are not in the tree."""

import os
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

TICKS = os.sysconf("SC_CLK_TCK")


def _stat(pid: str) -> tuple[int, int] | None:
    """(parent pid, CPU ticks of the process and its reaped children)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # after "pid (name) "; a name may hold spaces
    return int(fields[1]), sum(int(tick) for tick in fields[11:15])


def tree_cpu(root: int) -> float:
    stats = {int(pid): stat for pid in os.listdir("/proc") if pid.isdigit() and (stat := _stat(pid))}
    children = defaultdict(list)
    for pid, (parent, _) in stats.items():
        children[parent].append(pid)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += stats.get(pid, (0, 0))[1]
        todo.extend(children[pid])
    return total / TICKS


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = tree_cpu(os.getpid()), time.monotonic()
    yield
    module = item.path.relative_to(item.config.rootpath)
    line = f"{module}\t{tree_cpu(os.getpid()) - cpu:.2f}\t{time.monotonic() - wall:.2f}\n"
    directory = Path(os.environ["CPU_PROFILE_DIR"])
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}-{os.getpid()}.tsv", "a") as out:
        out.write(line)


def summary(directory: Path) -> list[tuple[str, float, float, int]]:
    modules: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    for path in directory.glob("*.tsv"):
        for line in path.read_text().splitlines():
            module, cpu, wall = line.split("\t")
            totals = modules[module]
            totals[0] += float(cpu)
            totals[1] += float(wall)
            totals[2] += 1
    return sorted(((module, cpu, wall, int(n)) for module, (cpu, wall, n) in modules.items()),
                  key=lambda row: -row[1])


if __name__ == "__main__":
    rows = summary(Path(sys.argv[1]))
    total = sum(row[1] for row in rows)
    print(f"{'CPU s':>8} {'share':>6} {'wall s':>8} {'tests':>6}  module (total {total:.0f} CPU s)")
    for module, cpu, wall, n in rows[: int(sys.argv[2]) if len(sys.argv) > 2 else 40]:
        print(f"{cpu:8.1f} {cpu / total:6.1%} {wall:8.1f} {n:6d}  {module}")
