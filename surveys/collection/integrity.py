"""Pinned client code (issue 14, item 2): the respondent page's ES modules are served with subresource
integrity, and their hashes are published (survey definition API, codebook) so that anyone can compare
what a server sends with what was reviewed (`bench/audit_randomizer.py --expect`).

The entry module (`js/respond.js`) carries an `integrity` attribute; the modules it imports (answers.js,
randomizer.js, grid.js, ...) are pinned by an import map's "integrity" section, which Chromium applies to
static imports. A browser refuses to run a module whose bytes do not match, so a server that swaps the
randomizer for one chosen respondents has to change the page too, and the published hashes with it.

The hashes are of the files actually served: in production the hashed names of the manifest storage
(`randomizer.<hash>.js`, whose import lines whitenoise's storage rewrote), during development the source
files. They are computed once per process (the files do not change while it runs). The import graph is
read from the `import ... from "./x.js"` lines of the source modules.

An import map is an inline script: the strict CSP allows it by its SHA-256 (`script-src 'self'
'sha256-...'`) on the respondent page only. A hash rather than a nonce: the map is the same for every
visitor of a process, so the hash pins exactly this text and nothing else, needs no per-request secret,
and a nonce would allow any inline script the page happened to carry.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import posixpath
import re
from dataclasses import dataclass
from pathlib import Path

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage

from surveys.headers import CONTENT_SECURITY_POLICY

ENTRY = "js/respond.js"
IMPORT = re.compile(r"""^\s*import\s[^'"]*?from\s*["'](\./[^"']+)["']""", re.MULTILINE)


@dataclass(frozen=True)
class Module:
    name: str  # its static name, e.g. "js/randomizer.js"
    url: str  # as served: the hashed name in production
    integrity: str  # "sha384-<base64>", for the integrity attribute and the import map
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
    """`entry` and every module it imports, directly or not, in the order first met."""
    seen: list[str] = []
    pending = [entry]
    while pending:
        name = pending.pop(0)
        if name in seen:
            continue
        seen.append(name)
        text = _source(name).decode("utf-8")
        pending.extend(posixpath.normpath(posixpath.join(posixpath.dirname(name), target))
                       for target in IMPORT.findall(text))
    return seen


@functools.cache
def modules() -> tuple[Module, ...]:
    """The respondent page's modules, the entry first, with their hashes (once per process)."""
    found = []
    for name in _graph(ENTRY):
        body = _served(name)
        found.append(Module(name, staticfiles_storage.url(name),
                            "sha384-" + base64.b64encode(hashlib.sha384(body).digest()).decode("ascii"),
                            hashlib.sha256(body).hexdigest()))
    return tuple(found)


def entry() -> Module:
    return modules()[0]


@functools.cache
def import_map() -> str:
    """The import map's text: an integrity for every module the entry imports (the entry has its own)."""
    text = json.dumps({"integrity": {module.url: module.integrity for module in modules()[1:]}},
                      separators=(",", ":"), sort_keys=True)
    return text.replace("<", "\\u003c")  # nothing can close the script element


@functools.cache
def content_security_policy() -> str:
    """The strict CSP with the import map allowed by its hash, for the respondent page."""
    digest = base64.b64encode(hashlib.sha256(import_map().encode("utf-8")).digest()).decode("ascii")
    return CONTENT_SECURITY_POLICY.replace("script-src 'self'", f"script-src 'self' 'sha256-{digest}'", 1)


def published() -> list[dict[str, str]]:
    """What the definition API and the codebook publish: every module's name, URL and hashes."""
    return [module.as_dict() for module in modules()]
