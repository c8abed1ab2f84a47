"""The shipped catalogs (surveys/locale: es, fr, ar) are complete and their compiled .mo files current.

(a) makemessages, run on a copy of the project, finds every marked string translated: no entry of
es, fr or ar is empty or fuzzy afterwards (a string marked since the catalogs were last completed
would arrive empty). (b) The committed django.mo of each language holds exactly the catalog that
msgfmt compiles from its django.po, so the app (and `make demo`, which needs no gettext) serves what
the .po says.
"""

import gettext
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LANGUAGES = ("es", "fr", "ar")
COPIED = ("manage.py", "surveys", "ldp", "templates", "static")
IGNORED = ["--ignore=.venv", "--ignore=tests", "--ignore=bench", "--ignore=staticfiles", "--ignore=*/node_modules/*"]


def incomplete(po: Path) -> list[str]:
    """The msgid lines of the entries (header aside) msgattrib finds untranslated or fuzzy."""
    found = []
    for option in ("--untranslated", "--only-fuzzy"):
        out = subprocess.run(["msgattrib", option, "--no-wrap", str(po)], check=True, capture_output=True,
                             text=True).stdout
        found += [f"{option}: {line}" for line in out.splitlines() if line.startswith("msgid ") and line != 'msgid ""']
    return found


@pytest.fixture(scope="module")
def remade(tmp_path_factory) -> Path:
    """A copy of the project after makemessages for es, fr and ar (catalogs merged with the sources)."""
    copy = tmp_path_factory.mktemp("project")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, copy / name, ignore=shutil.ignore_patterns("__pycache__", "*.mo"))
        else:
            shutil.copy(source, copy / name)
    for language in LANGUAGES:
        subprocess.run([sys.executable, "manage.py", "makemessages", "-l", language, "--no-location", *IGNORED],
                       cwd=copy, check=True, capture_output=True)
    return copy


@pytest.mark.slow
@pytest.mark.parametrize("language", LANGUAGES)
def test_makemessages_finds_no_untranslated_or_fuzzy_entry(remade, language):
    po = remade / "surveys" / "locale" / language / "LC_MESSAGES" / "django.po"
    assert po.read_text().count("\nmsgid ") > 400  # the whole interface, not an empty catalog
    assert incomplete(po) == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_committed_mo_is_the_compiled_po(tmp_path, language):
    folder = ROOT / "surveys" / "locale" / language / "LC_MESSAGES"
    compiled = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "--check", "-o", str(compiled), str(folder / "django.po")], check=True)
    with open(compiled, "rb") as fresh, open(folder / "django.mo", "rb") as committed:
        assert gettext.GNUTranslations(committed)._catalog == gettext.GNUTranslations(fresh)._catalog
