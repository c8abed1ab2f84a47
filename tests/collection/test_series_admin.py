"""The series' admin page: its help texts are shown as written (the admin renders them as HTML, so the stable link's
"/w/<slug>/" is escaped, not read as a tag), in the admin's language."""

from __future__ import annotations

import re

from surveys.collection.models import Series
from tests.conftest import login


def help_of(html: str, field: str) -> str:
    """The help text under a field, as a person reads it (tags dropped, entities read)."""
    found = re.search(rf'<div class="help" id="id_{field}_helptext">\s*<div>(.*?)</div>', html, re.S)
    assert found, field
    text = found.group(1)
    assert "<" not in text  # no tag: every "<" of the text is escaped
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&#x27;", "'").replace("&quot;", '"')


def test_the_series_link_help_shows_its_slug_placeholder(client, superuser):
    series = Series.objects.create(title="Monthly", slug="monthly")
    login(client, superuser)
    for path in ("/admin/collection/series/add/", f"/admin/collection/series/{series.pk}/change/"):
        html = client.get(path).content.decode()
        assert help_of(html, "slug") == (
            "The series' own link, /w/<slug>/, always opens its current wave: the newest wave accepting responses. "
            "Anyone with it reaches that wave, whatever the wave's own link; if the questions are sensitive, choose "
            "a slug nobody can guess.")
    spanish = client.get("/admin/collection/series/add/", HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert help_of(spanish, "slug").startswith("El enlace propio de la serie, /w/<slug>/, abre siempre su oleada")
