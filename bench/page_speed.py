"""The respondent's page on a slow phone: bytes transferred and time to interactive of /s/<slug>/ in the
production stack, in headless Debian Chromium throttled through the DevTools protocol.

    python bench/page_speed.py [--slug demo-types] [--runs 5] [--via nginx|gunicorn] [--deploy DIR]
                               [--cpu 6] [--latency 150] [--down 1.6] [--up 0.75]

Prepares a production instance in a temporary directory as tests/e2e/production.py does (production
settings, SQLite, `demo --types`, collectstatic's hashed and compressed files served by whitenoise under
gunicorn), then with `--via nginx` (the default) puts Debian's nginx in front running the shipped site
file, docs/deploy/nginx-site.conf, and the nginx-app.conf it includes (`--deploy DIR` takes both from
another directory, e.g. an earlier release's, for a before/after), adapted by tests/servers.local_site:
loopback ports, a throwaway self-signed certificate. So the browser speaks HTTPS, and HTTP/2 if the site
file enables it. `--via gunicorn` loads the page from gunicorn directly, over plain HTTP/1.1.

Each run opens a new browser context (empty cache, new connections), throttles its page with
Emulation.setCPUThrottlingRate and Network.emulateNetworkConditions (default: 6x CPU, 150 ms latency,
1.6 Mb/s down, 0.75 Mb/s up: Lighthouse's slow 4G with a slower phone), loads the page and records:
- bodies: the sum of the resources' bodies as sent (Resource Timing's encodedBodySize: compressed, without
  headers), split into the HTML, the module scripts, the style sheet and the rest;
- on the wire: the same with headers, Network.loadingFinished's encodedDataLength (DevTools' "transferred");
- interactive: the moment (from navigation start) the page's module enables its first button, #agree on a
  survey asking consent first, else #send, which it does once every module has loaded and run: a
  MutationObserver installed before the page's scripts notes performance.now() then;
- main thread busy: the renderer's main thread's task time to the end of the load (Performance.getMetrics'
  TaskDuration; the page's parsing, style, layout and scripts, and Playwright's own set-up of each page),
  which 6x throttling multiplies and which other processes on the machine stretch further;
- the HTTP version of the page's response.

DevTools' throttling applies the latency to each request, once, and shares the throughput between the
requests in flight; it does not model TCP's or TLS's round trips (connection set-up is free under it),
so it understates what HTTPS costs on a real network and what HTTP/2's single connection saves there;
HTTP/1.1's six connections per host still queue the seventh request and the ones after it.
Prints each run and the medians; the machine's load average alongside, since 6x CPU throttling
multiplies whatever else the cores are doing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from audit_randomizer import launch_chromium  # noqa: E402
from server import HOST, free_port, production_env, start_gunicorn, stop, wait_healthy  # noqa: E402

from tests.servers import nginx_site  # noqa: E402

# Before the page's scripts: the time the first of its buttons is enabled (the module has run).
MARK_INTERACTIVE = """(() => {
  const enabled = () => ["agree", "send"].some((id) => {
    const button = document.getElementById(id);
    return button && !button.disabled && !button.closest("[hidden]");
  });
  new MutationObserver((changes, observer) => {
    if (enabled()) { window.__interactive = performance.now(); observer.disconnect(); }
  }).observe(document, { subtree: true, attributes: true, attributeFilter: ["disabled"] });
})();"""


# Each resource of the load, the page's own first: its URL, whether it is the document, and its body's
# size as sent (compressed); same-origin, so the browser exposes the size.
BODIES = """() => [performance.getEntriesByType("navigation")[0], ...performance.getEntriesByType("resource")]
  .map((entry) => [entry.name, entry.entryType === "navigation" ? "Document" : "", entry.encodedBodySize])"""


@dataclass
class Load:
    interactive_ms: float
    load_ms: float
    protocol: str
    busy_ms: float  # the renderer's main thread at work (tasks, throttled), to the end of the load
    wire: dict[str, int] = field(default_factory=dict)  # by kind: bodies and headers as DevTools counts them
    bodies: dict[str, int] = field(default_factory=dict)  # by kind: the bodies alone, compressed


def add(sizes: dict[str, int], url: str, resource_type: str, size: int) -> None:
    kind = kind_of(url, resource_type)
    sizes[kind] = sizes.get(kind, 0) + size


def kind_of(url: str, resource_type: str) -> str:
    if resource_type == "Document":
        return "html"
    if url.endswith(".js"):
        return "modules"
    if url.endswith(".css"):
        return "css"
    return "other"


def measure(browser: Any, url: str, options: argparse.Namespace) -> Load:
    context = browser.new_context(ignore_https_errors=True)  # the throwaway certificate
    try:
        page = context.new_page()
        page.add_init_script(MARK_INTERACTIVE)
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send("Performance.enable")
        cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
        cdp.send("Network.emulateNetworkConditions", {
            "offline": False, "latency": options.latency,
            "downloadThroughput": options.down * 1e6 / 8, "uploadThroughput": options.up * 1e6 / 8})
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": options.cpu})
        requests: dict[str, tuple[str, str]] = {}
        finished: dict[str, int] = {}
        protocols: dict[str, str] = {}
        cdp.on("Network.requestWillBeSent",
               lambda event: requests.__setitem__(event["requestId"], (event["request"]["url"], event.get("type", ""))))
        cdp.on("Network.responseReceived",
               lambda event: protocols.__setitem__(event["requestId"], event["response"].get("protocol", "?")))
        cdp.on("Network.loadingFinished",
               lambda event: finished.__setitem__(event["requestId"], int(event["encodedDataLength"])))
        page.goto(url, wait_until="load", timeout=120_000)
        page.wait_for_function("window.__interactive !== undefined", timeout=120_000)
        interactive = page.evaluate("window.__interactive")
        load = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
        metrics = {metric["name"]: metric["value"] for metric in cdp.send("Performance.getMetrics")["metrics"]}
        page.wait_for_timeout(200)  # the last loadingFinished events
        wire: dict[str, int] = {}
        for request_id, size in finished.items():
            add(wire, *requests.get(request_id, ("", "")), size)
        bodies: dict[str, int] = {}
        for url, resource_type, size in page.evaluate(BODIES):
            add(bodies, url, resource_type, size)
        document = next((rid for rid, (_, kind) in requests.items() if kind == "Document"), "")
        return Load(interactive, load, protocols.get(document, "?"), metrics["TaskDuration"] * 1000, wire, bodies)
    finally:
        context.close()


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, timeout=600)


def prepare(directory: Path) -> dict[str, str]:
    env = production_env(directory, f"sqlite:///{directory / 'db.sqlite3'}")
    manage(env, "migrate", "--verbosity", "0")
    manage(env, "demo", "--types", "--responses", "0")
    manage(env, "collectstatic", "--noinput", "--verbosity", "0")
    return env


def sizes(by_kind: list[dict[str, int]]) -> str:
    """The median total in kB and, in brackets, each kind's median."""
    median = statistics.median
    kinds = sorted({kind for sizes in by_kind for kind in sizes})
    parts = " ".join(f"{kind} {median(sizes.get(kind, 0) for sizes in by_kind) / 1000:.1f}" for kind in kinds)
    return f"{median(sum(sizes.values()) for sizes in by_kind) / 1000:.1f} kB ({parts})"


def report(loads: list[Load]) -> None:
    for number, load in enumerate(loads, 1):
        print(f"run {number}: {load.protocol:8} bodies {sizes([load.bodies])}, on the wire {sizes([load.wire])}; "
              f"interactive {load.interactive_ms:5.0f} ms, load {load.load_ms:5.0f} ms, "
              f"main thread busy {load.busy_ms:4.0f} ms", flush=True)
    interactive = sorted(load.interactive_ms for load in loads)
    print(f"median of {len(loads)}: bodies {sizes([load.bodies for load in loads])}, "
          f"on the wire {sizes([load.wire for load in loads])}; "
          f"interactive {statistics.median(interactive):.0f} ms (range {interactive[0]:.0f}-{interactive[-1]:.0f}), "
          f"load {statistics.median(load.load_ms for load in loads):.0f} ms, "
          f"main thread busy {statistics.median(load.busy_ms for load in loads):.0f} ms; "
          f"load average {os.getloadavg()[0]:.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slug", default="demo-types")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--via", choices=("nginx", "gunicorn"), default="nginx")
    parser.add_argument("--deploy", type=Path, default=ROOT / "docs" / "deploy",
                        help="the directory holding nginx-site.conf and nginx-app.conf")
    parser.add_argument("--cpu", type=float, default=6.0, help="CPU slowdown factor")
    parser.add_argument("--latency", type=float, default=150.0, help="ms added to each request")
    parser.add_argument("--down", type=float, default=1.6, help="download throughput, Mb/s")
    parser.add_argument("--up", type=float, default=0.75, help="upload throughput, Mb/s")
    options = parser.parse_args()

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="page-speed-") as tmp, ExitStack() as stack:
        directory = Path(tmp)
        env = prepare(directory)
        upstream = free_port()
        gunicorn = start_gunicorn(env, upstream, 2, directory / "gunicorn.log")
        stack.callback(stop, gunicorn)
        wait_healthy(upstream, gunicorn)
        if options.via == "nginx":
            (directory / "nginx").mkdir()
            port = stack.enter_context(nginx_site(directory / "nginx", upstream, options.deploy / "nginx-site.conf",
                                                  options.deploy / "nginx-app.conf"))
            url = f"https://{HOST}:{port}/s/{options.slug}/"
        else:
            url = f"http://{HOST}:{upstream}/s/{options.slug}/"
        print(f"{url} via {options.via} ({options.deploy}); {options.cpu:g}x CPU, {options.latency:g} ms, "
              f"{options.down:g}/{options.up:g} Mb/s", flush=True)
        playwright = stack.enter_context(sync_playwright())
        browser = launch_chromium(playwright)
        stack.callback(browser.close)
        measure(browser, url, options)  # a first load warms the workers and Chromium up; not counted
        report([measure(browser, url, options) for _ in range(options.runs)])


if __name__ == "__main__":
    main()
