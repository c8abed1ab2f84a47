"""What a person sees in Chromium, where the server's markup alone cannot tell: the survey list's upper-cased header
keeps its ε (a capital epsilon reads as the letter E), in English and Spanish, and a forest plot's tick labels lie
whole inside the chart (its end "100" was drawn half outside the viewBox and read "10").

The Spanish header needs no new catalog entry (its msgid is unchanged)."""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.template.loader import render_to_string

from surveys.aggregation.charts.coefficients import forest_chart
from surveys.aggregation.regression.questions import LOGISTIC
from surveys.collection import demo
from tests.aggregation.charts.test_coefficients import fitted
from tests.e2e.test_accessibility import log_in
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db(transaction=True)

CSS = Path(__file__).resolve().parents[2] / "static" / "css" / "app.css"


@pytest.mark.parametrize("locale, headers", [
    ("en", ["TITLE", "SLUG", "STATUS", "PRIVACY COST (ε PER RESPONDENT)", "RESPONSES"]),
    ("es", [None, "SLUG", None, "COSTE DE PRIVACIDAD (ε POR ENCUESTADO)", "RESPUESTAS"]),
])
def test_the_survey_lists_header_keeps_its_epsilon(live_server, page_in_locale, locale, headers):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    demo.create_demo_survey()
    page = page_in_locale(locale)
    log_in(page, f"{live_server.url}/admin/login/", "admin", "/admin/collection/survey/")
    shown = [text.strip() for text in page.locator("#result_list thead th").all_inner_texts()]
    # The first is the select-all box; None: a header Django's model leaves untranslated ("Title", "Status").
    assert [want and text for text, want in zip(shown[1:6], headers, strict=True)] == headers


def test_a_forest_plots_tick_labels_lie_whole_inside_the_chart(page):
    chart = forest_chart(fitted(LOGISTIC, (0.3, 2.0, 0.5, 50.0), (0.1, 0.01, 0.2, 10.0), (0.9, 3.5, 0.9, 400.0)))
    svg = render_to_string("aggregation/_forest_chart.html", {"chart": chart})
    page.set_content(f"<!doctype html><html><head><style>{CSS.read_text()}</style></head>"
                     f"<body><main>{svg}</main></body></html>")
    inside = page.evaluate("""() => {
        const svg = document.querySelector("svg.chart.forest");
        const box = svg.getBoundingClientRect();
        return [...svg.querySelectorAll("text.tick")].map(t => {
            const r = t.getBoundingClientRect();
            return [t.textContent, r.left >= box.left - 0.5 && r.right <= box.right + 0.5];
        });
    }""")
    assert inside == [[text, True] for text in ("0.01", "0.02", "0.05", "0.1", "0.2", "0.5", "1", "2", "5", "10",
                                                "20", "50", "100")]
