"""Real servers from Debian's packages, started by the tests on free loopback ports in a
temporary directory, in the foreground (never as daemons), and stopped afterwards.

`make test` installs the packages (redis-server, nginx) with apt-get if they are missing, as
it does chromium; here a missing one is a failure that says how to install it.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return sock.getsockname()[1]


def executable(name: str, package: str) -> str:
    found = shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin")
    if not found:
        raise RuntimeError(f"{name} is missing: `make system-deps` (as root) or `apt-get install {package}`")
    return found


def wait_for_port(port: int, process: subprocess.Popen, log: Path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"exited with status {process.returncode}:\n{log.read_text()}")
        try:
            with socket.create_connection((HOST, port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {HOST}:{port} after {timeout} s:\n{log.read_text()}")


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


@contextmanager
def running(command: list[str], port: int, directory: Path, name: str, **popen) -> Iterator[subprocess.Popen]:
    """`command` started in the foreground, its output in directory/<name>.log, until it listens on `port`."""
    log = directory / f"{name}.log"
    with log.open("wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, **popen)
    try:
        wait_for_port(port, process, log)
        yield process
    finally:
        stop(process)


@contextmanager
def redis_server(directory: Path) -> Iterator[str]:
    """A throwaway Redis (no persistence) on a free port; yields its URL."""
    port = free_port()
    command = [executable("redis-server", "redis-server"), "--port", str(port), "--bind", HOST,
               "--save", "", "--appendonly", "no", "--daemonize", "no", "--dir", str(directory)]
    with running(command, port, directory, "redis"):
        yield f"redis://{HOST}:{port}/0"


NGINX_CONF = """\
{user}worker_processes 1;
daemon off;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections 512; }}
http {{
    client_body_temp_path {dir}/client_body;
    proxy_temp_path {dir}/proxy;
    fastcgi_temp_path {dir}/fastcgi;
    uwsgi_temp_path {dir}/uwsgi;
    scgi_temp_path {dir}/scgi;
    access_log off;
    upstream surveys_app {{ server {host}:{upstream}; }}
    server {{
        listen {host}:{port};
        include {include};
    }}
}}
"""


@contextmanager
def nginx_server(directory: Path, upstream: int, include: Path) -> Iterator[int]:
    """Debian's nginx on a free port, proxying to 127.0.0.1:`upstream` as the server block
    `include` (a file of directives for inside `server { }`) says; yields its port."""
    port = free_port()
    user = "user root root;\n" if os.geteuid() == 0 else ""  # workers must reach the temporary directory
    conf = directory / "nginx.conf"
    conf.write_text(NGINX_CONF.format(user=user, dir=directory, host=HOST, upstream=upstream, port=port,
                                      include=include))
    command = [executable("nginx", "nginx"), "-p", str(directory), "-c", str(conf), "-e", str(directory / "error.log")]
    with running(command, port, directory, "nginx"):
        yield port
