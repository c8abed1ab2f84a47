"""The CSV downloads a researcher opens in a spreadsheet: text that a spreadsheet would run as a
formula (question texts and option labels are typed by staff) arrives as text; numbers do not change."""

from django.urls import reverse

from surveys.aggregation.exports import figure_tables
from tests.aggregation.exports.test_reports import download, rows
from tests.aggregation.support import add_responses

FORMULAS = ["=HYPERLINK(\"http://x\")", "+1", "-2+3", "@SUM(A1)", "\tTab", "\rReturn"]


def test_it_prefixes_every_text_cell_that_starts_like_a_formula_and_leaves_numbers_alone():
    table = [["text", *FORMULAS, "plain", "", -0.25, 3]]
    safe = [["text", *(f"'{f}" for f in FORMULAS), "plain", "", -0.25, 3]]
    assert list(figure_tables.spreadsheet_safe(table)) == safe


def test_the_estimates_csv_carries_formula_like_texts_as_text(client, owner, survey):
    question = survey.questions.get(order=3)
    survey.questions.filter(pk=question.pk).update(text="=1+1")  # typed like this by a staff member
    question.options.filter(order=1).update(label="@cmd")
    add_responses(survey, 60, seed=3)
    _, text = download(client, owner, survey, "estimates")
    header, *body = rows(text)
    record = [dict(zip(header, row, strict=True)) for row in body if row[header.index("question_order")] == "3"]
    assert {r["question_text"] for r in record} == {"'=1+1"}
    assert "'@cmd" in {r["option_label"] for r in record}
    api = client.get(reverse("aggregation:api-estimates", args=[survey.slug])).json()
    estimates = [o["estimate"] for q in api["questions"] if q["order"] == 3 for o in q["options"]]
    assert [float(r["estimate"]) for r in record] == estimates  # numbers as the API gives them


def test_the_crosstab_csv_carries_formula_like_labels_as_text(client, owner, survey):
    first, second = survey.questions.get(order=1), survey.questions.get(order=3)
    second.options.filter(order=0).update(label="-minus")
    add_responses(survey, 60, seed=4)
    _, text = download(client, owner, survey, "crosstab", f"?a={first.pk}&b={second.pk}")
    header, *body = rows(text)
    assert "'-minus" in {row[header.index("b_label")] for row in body}
