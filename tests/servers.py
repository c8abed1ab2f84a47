"""Real servers from Debian's packages, started by the tests on free loopback ports in a
temporary directory, in the foreground (never as daemons), and stopped afterwards.

`make test` installs the packages (redis-server, nginx) with apt-get if they are missing, as
it does chromium; here a missing one is a failure that says how to install it.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

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
def running(command: list[str], port: int, directory: Path, name: str, **popen: Any) -> Iterator[subprocess.Popen]:
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


SITE_MAIN_CONF = """\
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
    include {site};
}}
"""


def _swap(text: str, pattern: str, replacement: str) -> str:
    """`pattern` replaced everywhere; a site file that no longer has it fails here rather than
    running with the shipped host, certificate or path."""
    swapped, count = re.subn(pattern, lambda _: replacement, text, flags=re.M)
    if not count:
        raise RuntimeError(f"the site configuration has no {pattern!r}")
    return swapped


def local_site(site: Path, directory: Path, upstream: int, port: int, redirect_port: int, include: Path) -> Path:
    """The shipped site file (docs/deploy/nginx-site.conf) as a copy in `directory` that runs here: its
    listening ports on loopback (IPv6 lines dropped), its upstream the app on `upstream`, a throwaway
    self-signed certificate, its logs and the included nginx-app.conf in place. Everything else,
    the TLS and HTTP/2 listen parameters included, is the shipped text."""
    certificate, key = directory / "cert.pem", directory / "key.pem"
    subprocess.run([executable("openssl", "openssl"), "req", "-x509", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1", "-subj", "/CN=survey.example.org",
                    "-keyout", str(key), "-out", str(certificate)], check=True, capture_output=True, timeout=60)
    text = site.read_text()
    text = _swap(text, r"^\s*listen \[::\]:.*\n", "")
    text = _swap(text, r"\blisten 443\b", f"listen {HOST}:{port}")
    text = _swap(text, r"\blisten 80\b", f"listen {HOST}:{redirect_port}")
    text = _swap(text, r"^\s*server 127\.0\.0\.1:8000;", f"    server {HOST}:{upstream};")
    text = _swap(text, r"ssl_certificate \S+;", f"ssl_certificate {certificate};")
    text = _swap(text, r"ssl_certificate_key \S+;", f"ssl_certificate_key {key};")
    text = _swap(text, r"access_log /var/log/nginx/", f"access_log {directory}/")
    text = _swap(text, r"include \S*docs/deploy/nginx-app\.conf;", f"include {include.resolve()};")
    local = directory / "site.conf"
    local.write_text(text)
    return local


def _site_main(directory: Path, upstream: int, site: Path, include: Path) -> tuple[Path, int]:
    port, redirect_port = free_port(), free_port()
    user = "user root root;\n" if os.geteuid() == 0 else ""
    conf = directory / "nginx.conf"
    conf.write_text(SITE_MAIN_CONF.format(user=user, dir=directory, site=local_site(
        site, directory, upstream, port, redirect_port, include)))
    return conf, port


def nginx_check(directory: Path, upstream: int, site: Path, include: Path) -> subprocess.CompletedProcess[str]:
    """`nginx -t` on the site file as local_site makes it runnable here."""
    conf, _ = _site_main(directory, upstream, site, include)
    return subprocess.run([executable("nginx", "nginx"), "-t", "-p", str(directory), "-c", str(conf),
                           "-e", str(directory / "error.log")], capture_output=True, text=True, timeout=60)


@contextmanager
def nginx_site(directory: Path, upstream: int, site: Path, include: Path) -> Iterator[int]:
    """Debian's nginx running the shipped site file `site` (HTTPS, as local_site adapts it) in front of
    127.0.0.1:`upstream`; yields its HTTPS port."""
    conf, port = _site_main(directory, upstream, site, include)
    command = [executable("nginx", "nginx"), "-p", str(directory), "-c", str(conf), "-e", str(directory / "error.log")]
    with running(command, port, directory, "nginx"):
        yield port
