"""Pinned client code, so that a respondent can check what randomizes their answers: the respondent page's ES modules
are served with subresource
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

A page feature's module (FEATURES: the waves of a series' `js/waves.js`) is not in the entry's graph: it is an entry
of its own, which only a page whose data lists the feature (`features`) loads, by a script tag with its integrity
before respond.js's, the modules it imports that the entry does not preloaded with theirs; it leaves its hooks in
features.js, which respond.js reads (module scripts run in the page's order). So a survey in no series never loads
the waves' code, and every module any page loads is pinned and published (`published()` lists every feature's modules
too). Not a dynamic `import()`: Chromium fetches a module again, without the pin, when a dynamic import meets a
preload that failed its integrity (a static graph keeps the failure); no module may import at run time
(tests/collection/test_pinned_client_code.py). The recipe for another feature is in docs/architecture.md.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from django.contrib.staticfiles import finders
from django.contrib.staticfiles.storage import staticfiles_storage

ENTRY = "js/respond.js"
# A page feature's name (what the page's data lists in `features`) and the module respond.js imports for it.
FEATURES = {"waves": "js/waves.js", "conditions": "js/relevance.js"}
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


@functools.cache
def _graph(entry: str) -> tuple[str, ...]:
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
    return tuple(done)


def _order(features: Iterable[str]) -> list[str]:
    """What a page with `features` preloads: the entry's imports, then the modules each feature's module imports that
    are not preloaded already, each after the modules it imports (the features' modules have script tags)."""
    found = list(_graph(ENTRY)[:-1])
    for feature in features:
        found += [name for name in _graph(FEATURES[feature])[:-1] if name not in found]
    return found


def _pinned(name: str) -> Module:
    body = _served(name)
    return Module(name, staticfiles_storage.url(name),
                  "sha384-" + base64.b64encode(hashlib.sha384(body).digest()).decode("ascii"),
                  hashlib.sha256(body).hexdigest())


@functools.cache
def modules() -> tuple[Module, ...]:
    """Every module a respondent's page may load, with its hashes (once per process): the entry first and each module
    it imports before the modules that one imports, then the features' modules that the entry does not import."""
    entry_graph = _graph(ENTRY)
    extra = [name for name in [*_order(FEATURES), *FEATURES.values()] if name not in entry_graph]
    return tuple(_pinned(name) for name in [*reversed(entry_graph), *extra])


def entry() -> Module:
    return modules()[0]


def preloads(features: Iterable[str] = ()) -> tuple[Module, ...]:
    """The page's modulepreload links for `features` (names in FEATURES): the modules the entry and the features'
    modules import, each after the modules it imports."""
    pinned = {module.name: module for module in modules()}
    return tuple(pinned[name] for name in _order(features))


def scripts(features: Iterable[str]) -> tuple[Module, ...]:
    """The features' own modules, each the entry of a script tag with its integrity before the entry's."""
    pinned = {module.name: module for module in modules()}
    return tuple(pinned[FEATURES[feature]] for feature in features)


def published() -> list[dict[str, str]]:
    """What the definition API and the codebook publish: every module's name, URL and hashes."""
    return [module.as_dict() for module in modules()]
