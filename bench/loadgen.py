"""The load side of bench/load_bench.py: the submission bodies, the warm-up, wrk (found or
installed, run with bench/load_bench.lua, its output parsed), py-spy, and the CPU use of each
phase sampled from /proc with the verdict on what limited the figure."""

from __future__ import annotations

import http.client
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from server import HOST, SLUG

LUA = Path(__file__).resolve().parent / "load_bench.lua"
PLACEHOLDER = "00000000-0000-4000-8000-000000000000"  # replaced by a fresh key in Lua
DRAIN_SECONDS = 1.0  # GET /healthz after the POST window, so that no POST is cut off
CLK_TCK = os.sysconf("SC_CLK_TCK")
CORES = os.cpu_count() or 1


def ensure_wrk() -> str:
    """wrk's path; installs Debian's package with apt-get if it is missing (needs root, as CI is)."""
    path = shutil.which("wrk")
    if path:
        return path
    if os.geteuid() != 0:
        raise SystemExit("wrk is not installed and this is not root: run 'sudo apt-get install -y wrk'")
    print("installing wrk with apt-get", flush=True)
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env)
    subprocess.run(["apt-get", "install", "-y", "-qq", "wrk"], check=True, env=env)
    path = shutil.which("wrk")
    if not path:
        raise SystemExit("apt-get installed wrk but it is not on PATH")
    return path


# --- the requests ----------------------------------------------------------------------

def randomized_reports(definition: dict[str, Any], n: int, seed: int | None = None) -> list[dict[str, Any]]:
    """n report sets randomized with ldp from the mechanisms the API publishes, as browsers would."""
    import numpy as np

    import ldp
    from surveys.collection.demo import TRUTH

    rng = np.random.default_rng(seed)
    columns: dict[str, list[Any]] = {}
    for question in definition["questions"]:
        mechanism = ldp.from_dict(question["mechanism"]["parameters"])
        k = len(question["options"])
        truth = rng.choice(k, size=n, p=TRUTH.get(question["order"], [1 / k] * k))
        columns[str(question["id"])] = [mechanism.decode(int(value)) for value in
                                        mechanism.encode_many(mechanism.randomize(truth, rng))]
    return [{name: column[i] for name, column in columns.items()} for i in range(n)]


def write_bodies(path: Path, version: str, reports: list[dict[str, Any]]) -> None:
    """One submission body per line, its key the placeholder the Lua script replaces."""
    with path.open("w") as out:
        for report_set in reports:
            out.write(json.dumps({"version": version, "key": PLACEHOLDER, "reports": report_set}) + "\n")


def warm_up(port: int, headers: dict[str, str], bodies: list[str], rounds: int) -> dict[int, int]:
    """A few sequential requests of each kind, so that every worker has loaded the code paths."""
    statuses: dict[int, int] = {}
    connection = http.client.HTTPConnection(HOST, port, timeout=30)
    for index in range(rounds):
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        response.read()
        body = bodies[index % len(bodies)].replace(PLACEHOLDER, str(uuid.uuid4()))
        connection.request("POST", f"/api/v1/surveys/{SLUG}/responses/", body=body, headers=headers)
        response = connection.getresponse()
        response.read()
        statuses[response.status] = statuses.get(response.status, 0) + 1
    connection.close()
    return statuses


# --- CPU use from /proc ---------------------------------------------------------------

@dataclass(frozen=True)
class CpuSnapshot:
    """Ticks used so far by each group of processes (pid -> ticks: a process that ends between two
    snapshots must not take its past ticks out of the difference), and by the whole machine."""
    gunicorn: dict[int, int]
    database: dict[int, int]
    wrk: int
    others: dict[tuple[int, str], int]  # (pid, command) -> ticks
    steal: int  # a virtual machine's cores taken by its host: neither busy nor idle here
    busy: int
    total: int
    interrupts: int  # irq + softirq: mostly loopback TCP
    time: float


@dataclass(frozen=True)
class CpuUse:
    """Cores used by each group between two snapshots, and the machine's idle fraction."""
    gunicorn: float
    database: float
    wrk: float
    busy: float
    interrupts: float
    steal: float
    top_other: list[tuple[str, float]]  # the two busiest other commands
    idle: float


def _stat(pid: int) -> tuple[str, int, int] | None:
    """(command, parent pid, utime + stime ticks) of a process, None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    command = text[text.index("(") + 1:text.rindex(")")]
    fields = text[text.rindex(")") + 2:].split()
    return command, int(fields[1]), int(fields[11]) + int(fields[12])


def cpu_snapshot(gunicorn_pid: int, wrk_pid: int | None) -> CpuSnapshot:
    """Ticks used so far by the gunicorn workers, the database server's processes, wrk, and the
    whole machine (busy and total)."""
    gunicorn: dict[int, int] = {}
    database: dict[int, int] = {}
    wrk = 0
    others: dict[tuple[int, str], int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        stat = _stat(int(entry))
        if stat is None:
            continue
        command, parent, ticks = stat
        if int(entry) == gunicorn_pid or parent == gunicorn_pid:
            gunicorn[int(entry)] = ticks
        elif command == "postgres" or command.startswith("postgres:"):
            database[int(entry)] = ticks
        elif int(entry) == wrk_pid:
            wrk += ticks
        else:
            others[(int(entry), command)] = ticks
    line = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    values = [int(v) for v in line[:8]]
    idle = values[3] + values[4]  # idle + iowait
    return CpuSnapshot(gunicorn=gunicorn, database=database, wrk=wrk, others=others, steal=values[7],
                       busy=sum(values) - idle - values[7], total=sum(values),
                       interrupts=values[5] + values[6], time=time.monotonic())


def cpu_use(before: CpuSnapshot, after: CpuSnapshot) -> CpuUse:
    """Cores used by each group between two snapshots, and the machine's idle fraction."""
    seconds = after.time - before.time

    def cores(ticks: int) -> float:
        return ticks / CLK_TCK / seconds

    def grown(before: dict[int, int], after: dict[int, int]) -> int:
        return sum(ticks - before.get(pid, 0) for pid, ticks in after.items())

    others = sorted(((ticks - before.others.get(key, 0), key[1]) for key, ticks in after.others.items()),
                    reverse=True)
    total = after.total - before.total
    return CpuUse(
        gunicorn=cores(grown(before.gunicorn, after.gunicorn)),
        database=cores(grown(before.database, after.database)),
        wrk=cores(after.wrk - before.wrk),
        busy=cores(after.busy - before.busy),
        interrupts=cores(after.interrupts - before.interrupts),
        steal=cores(after.steal - before.steal),
        top_other=[(command, cores(ticks)) for ticks, command in others[:2] if ticks > 0],
        idle=1 - (after.busy - before.busy + after.steal - before.steal) / total if total else 0.0,
    )


def limit_verdict(use: CpuUse) -> str:
    server = use.gunicorn + use.database
    other = max(0.0, use.busy - server - use.wrk - use.interrupts)
    disturbed = (f"; DISTURBED: other processes took {other:.2f} cores, the figure is low"
                 if other > 0.15 else "")
    shares = (f"gunicorn workers {use.gunicorn:.2f} + database {use.database:.2f} cores, "
              f"wrk {use.wrk:.2f} cores, kernel irq/softirq {use.interrupts:.2f}, "
              f"other {other:.2f} "
              f"({', '.join(f'{c} {u:.2f}' for c, u in use.top_other) or 'none'}), "
              f"stolen by the host {use.steal:.2f}, idle {use.idle:.0%} of {CORES} cores")
    if use.idle < 0.10:
        who = "the server (gunicorn + database)" if server >= use.wrk else "the client (wrk)"
        return f"CPU-bound, the cores saturated mostly by {who}: {shares}{disturbed}"
    return f"not CPU-bound ({shares}): waits (workers, locks, I/O) limited it{disturbed}"


# --- wrk ------------------------------------------------------------------------------

@dataclass(frozen=True)
class WrkResult:
    """One wrk phase: the Lua script's counts, the rate, errors and the CPU use of the window."""
    statuses: dict[int, int]  # responses by HTTP status
    sent: int
    answered: int
    elapsed: float  # seconds from the first response to the last
    rate: float  # answered / elapsed
    latency_p50_ms: float
    latency_p99_ms: float
    cpu: CpuUse
    error_count: int
    error_text: str
    output: str  # wrk's own output
    lua: dict[str, Any]  # the Lua script's JSON as printed

    def cpu_ms_per_request(self) -> float:
        use = self.cpu
        cores = use.gunicorn + use.database + use.wrk + use.interrupts
        return 1000 * cores / self.rate if self.rate else 0.0


def run_wrk(wrk: str, port: int, *, threads: int, connections: int, duration: float,
            mode: Literal["get", "post"], extra: list[str], gunicorn_pid: int) -> WrkResult:
    """One wrk phase; returns the Lua script's JSON, the wrk output and the CPU use during the
    load window (from 0.5 s after the start to the drain)."""
    path = "/healthz" if mode == "get" else f"/api/v1/surveys/{SLUG}/responses/"
    start = time.monotonic()
    drain_at = start + duration
    wall = duration + (DRAIN_SECONDS if mode == "post" else 0)
    command = [wrk, "-t", str(threads), "-c", str(connections), "-d", f"{wall:g}s",
               "--timeout", "10s", "-s", str(LUA), f"http://{HOST}:{port}{path}",
               "--", mode, path, f"{drain_at:.6f}", *extra]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    snapshots: dict[str, CpuSnapshot] = {}

    def sample() -> None:
        time.sleep(0.5)
        snapshots["before"] = cpu_snapshot(gunicorn_pid, process.pid)
        time.sleep(max(0.1, drain_at - time.monotonic() - 0.1))
        snapshots["after"] = cpu_snapshot(gunicorn_pid, process.pid)

    sampler = threading.Thread(target=sample)
    sampler.start()
    output, _ = process.communicate(timeout=wall + 60)
    sampler.join()
    lines = [line for line in output.splitlines() if line.startswith("LOAD_BENCH_JSON ")]
    if process.returncode != 0 or not lines:
        raise RuntimeError(f"wrk failed (exit {process.returncode}):\n{output}")
    lua: dict[str, Any] = json.loads(lines[-1].split(" ", 1)[1])
    statuses = {int(k): int(v) for k, v in lua["statuses"].items()}
    answered = sum(statuses.values())
    elapsed = float(lua["last"] - lua["first"]) if lua["first"] and lua["last"] else 0.0
    socket_errors: int = sum(lua["errors"][name] for name in ("connect", "read", "write", "timeout"))
    non_2xx = sum(n for status, n in statuses.items() if not 200 <= status < 300)
    sent: int = lua["sent"]
    unanswered = sent - answered if mode == "post" else 0
    error_count = socket_errors + non_2xx + unanswered
    return WrkResult(
        statuses=statuses, sent=sent, answered=answered, elapsed=elapsed,
        rate=answered / elapsed if elapsed > 0 else 0.0,
        latency_p50_ms=lua["latency_p50_ms"], latency_p99_ms=lua["latency_p99_ms"],
        cpu=cpu_use(snapshots["before"], snapshots["after"]),
        error_count=error_count,
        error_text=(f"errors {error_count} (non-2xx {non_2xx}, socket {socket_errors}"
                    + (f", unanswered POSTs {unanswered}" if mode == "post" else "") + ")"),
        output=output, lua=lua)


def py_spy(gunicorn_pid: int, output: Path, duration: float) -> subprocess.Popen[bytes]:
    """py-spy recording gunicorn's workers (its master's subprocesses) from 1 s into the POST
    phase until 1 s before its drain. It costs the workers some throughput."""
    command = [str(Path(sys.executable).parent / "py-spy"), "record", "--pid", str(gunicorn_pid),
               "--subprocesses", "--rate", "200", "--format", "raw", "--output", str(output),
               "--duration", str(max(1, int(duration) - 2)), "--nonblocking"]
    return subprocess.Popen(["sh", "-c", 'sleep 1; exec "$@"', "py-spy", *command],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
