"""gunicorn's settings for this app, read from the directory gunicorn starts in (docs/operations.md runs it
from the app's): the command line's options still apply. At start, in production, more than one worker with
a per-process cache is refused, or warned of when that cache was chosen explicitly (surveys.shared_counts)."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from surveys.shared_counts import start_problem  # noqa: E402


def on_starting(server):
    problem = start_problem(os.environ, server.cfg.workers)
    if problem is None:
        return
    refuse, why = problem
    if refuse:
        raise RuntimeError(f"refusing to start: {why}")  # gunicorn prints "Error: ..." and exits with 1
    server.log.warning("Warning: %s", why)
