"""bench/scratch.py beyond what the bench commands' tests show: Ctrl-C that Python would drop still ends the run."""

import signal
import subprocess
import sys

from tests.bench.engines import ROOT

DROPPED = """
import time
from bench.scratch import _keep_ctrl_c
_keep_ctrl_c()

class Dropping:  # as a finalizer or weakref callback that Ctrl-C lands in: Python prints it and goes on
    def __del__(self):
        raise KeyboardInterrupt

Dropping()
time.sleep(10)
print("went on")
"""


def test_ctrl_c_dropped_inside_a_finalizer_is_raised_again():
    # The child's Ctrl-C as a terminal gives it, whatever this process was started with: a shell's background job
    # starts with SIGINT ignored, an ignore that survives exec, and Python then raises no KeyboardInterrupt.
    done = subprocess.run([sys.executable, "-c", DROPPED], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          check=False, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert "went on" not in done.stdout and done.returncode != 0, (done.stdout, done.stderr)
    assert done.stderr.rstrip().endswith("KeyboardInterrupt"), done.stderr
