"""Pinned client code (issue 14, item 2): the respondent page's ES modules are served with subresource
integrity, and their hashes are published (survey definition API, codebook) so that anyone can compare
what a server sends with what was reviewed (`bench/audit_randomizer.py --expect`).

The entry module (`js/respond.js`) carries an `integrity` attribute; each module it imports (answers.js,
randomizer.js, grid.js, ...) is preloaded by a `<link rel="modulepreload" integrity=...>`. A preload
fills the browser's module map for its URL, and an import of that URL takes the map's entry, so a module
whose bytes do not match is refused wherever it is imported. The links come before the entry's script,
each after the modules it imports: a module is always pinned before anything could import it. A server
that swaps the randomizer for chosen respondents has to change the page too, and the published hashes.

No inline script is needed (an import map's "integrity" section would be one): the page keeps the plain
strict CSP, script-src 'self'.

The hashes are of the files actually served: in production the hashed names of the manifest storage
(`randomizer.<hash>.js`, whose import lines whitenoise's storage rewrote), during development the source
files. They are computed once per process (the files do not change while it runs). The import graph is
read from the `import ... from "./x.js"` lines of the source modules.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage

ENTRY = "js/respond.js"
IMPORT = re.compile(r"""^\s*import\s[^'"]*?from\s*["'](\./[^"']+)["']""", re.MULTILINE)


@dataclass(frozen=True)
class Module:
    name: str  # its static name, e.g. "js/randomizer.js"
    url: str  # as served: the hashed name in production
    integrity: str  # "sha384-<base64>", for the integrity attributes
    sha256: str  # hex, as the audit prints it

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "url": self.url, "integrity": self.integrity, "sha256": self.sha256}


def _source(name: str) -> bytes:
    found = finders.find(name)
    if not found:
        raise FileNotFoundError(name)
    return Path(found).read_bytes()


def _served(name: str) -> bytes:
    """The bytes the server sends for `name`: the manifest's hashed file once collected, else the source."""
    stored_name = getattr(staticfiles_storage, "stored_name", None)
    if stored_name is not None:
        hashed = stored_name(name)
        if staticfiles_storage.exists(hashed):
            with staticfiles_storage.open(hashed) as file:
                return file.read()
    return _source(name)


def _graph(entry: str) -> list[str]:
    """`entry` and every module it imports, directly or not, each after the modules it imports."""
    done: list[str] = []

    def visit(name: str) -> None:
        if name in done:
            return
        text = _source(name).decode("utf-8")
        for target in IMPORT.findall(text):
            visit(posixpath.normpath(posixpath.join(posixpath.dirname(name), target)))
        done.append(name)

    visit(entry)
    return done


@functools.cache
def modules() -> tuple[Module, ...]:
    """The respondent page's modules, the entry first and each before the modules it imports, with their
    hashes (once per process)."""
    found = []
    for name in reversed(_graph(ENTRY)):
        body = _served(name)
        found.append(Module(name, staticfiles_storage.url(name),
                            "sha384-" + base64.b64encode(hashlib.sha384(body).digest()).decode("ascii"),
                            hashlib.sha256(body).hexdigest()))
    return tuple(found)


def entry() -> Module:
    return modules()[0]


def preloads() -> tuple[Module, ...]:
    """The modules the entry imports, each after the modules it imports: the page's modulepreload links."""
    return tuple(reversed(modules()[1:]))


def published() -> list[dict[str, str]]:
    """What the definition API and the codebook publish: every module's name, URL and hashes."""
    return [module.as_dict() for module in modules()]
