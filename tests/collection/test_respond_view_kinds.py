"""The respondent page /s/<slug>/ for the new kinds: inputs that fit each kind, labelled and tied to
their hint, note and error message; no input in a form (radios named for their group only); the
client's data (sampler, scale, bins, limit, translated words); deniability in odds and a receipt in
words for each kind."""

import json

import pytest

from surveys.collection import plan
from tests.collection.pages import parse

URL = "/s/kinds/"


@pytest.fixture
def page(client, kinds_survey):
    response = client.get(URL)
    assert response.status_code == 200
    return parse(response.content)


def fieldsets(page, kinds_survey):
    found = {f.attrs["data-question"]: f for f in page.find_all("fieldset")}
    return [found[str(q.pk)] for q in kinds_survey.ordered_questions()]


def test_a_multi_select_is_a_checkbox_per_option_with_its_limit_said(page, kinds_survey):
    multi = fieldsets(page, kinds_survey)[0]
    boxes = multi.find_all("input")
    assert [box.attrs["type"] for box in boxes] == ["checkbox"] * 4
    assert [label.text for label in multi.find_all("label")] == ["Tobacco", "Alcohol", "Cannabis", "Prefer not to say"]
    pk = kinds_survey.ordered_questions()[0].pk
    assert page.by_id(f"hint-{pk}").text == "Tick all that apply, at most 2."
    assert all(box.attrs["aria-describedby"] == f"hint-{pk} note-{pk} problem-{pk}" for box in boxes)


def test_a_numeric_question_is_a_labelled_number_input_with_its_grid(page, kinds_survey):
    for fieldset, question, mode in zip(fieldsets(page, kinds_survey)[1:4], kinds_survey.ordered_questions()[1:4],
                                        ["numeric", "decimal", "numeric"], strict=True):
        (number,) = fieldset.find_all("input")
        pk = question.pk
        assert (number.attrs["type"], number.attrs["min"], number.attrs["max"], number.attrs["step"]) == (
            "number", str(question.scale().lo), str(question.scale().hi), str(question.scale().step))
        assert number.attrs["inputmode"] == mode  # a phone shows digits, or digits and a point
        assert fieldset.find("label").attrs["for"] == number.attrs["id"] == f"answer-{pk}"
        assert number.attrs["aria-describedby"] == f"hint-{pk} note-{pk} problem-{pk}"
        problem = page.by_id(f"problem-{pk}")
        assert problem.attrs["role"] == "alert" and "hidden" in problem.attrs


def test_the_hints_say_the_grid_and_a_histogram_its_bins(page, kinds_survey):
    hints = [page.by_id(f"hint-{q.pk}").text for q in kinds_survey.ordered_questions()[1:4]]
    assert hints == [
        "A number from 0 to 100, in steps of 1.",
        "A number from 0 to 10, in steps of 0.5.",
        "A number from 0 to 120, in steps of 1. It is sent as its range: 0 to 17; 18 to 34; 35 to 64; 65 to 120.",
    ]


def test_an_ordinal_question_is_a_radio_per_level(page, kinds_survey):
    gamble = fieldsets(page, kinds_survey)[4]
    assert [i.attrs["type"] for i in gamble.find_all("input")] == ["radio"] * 4
    assert [label.text for label in gamble.find_all("label")][-1] == "Prefer not to say"


def test_no_input_of_any_kind_sits_in_a_form_and_only_radios_are_named_for_their_group(page, kinds_survey):
    inputs = page.find_all("input")
    assert {i.attrs["type"] for i in inputs} == {"checkbox", "number", "radio"}
    assert page.find_all("form") == []
    names = [[i.attrs.get("name") for i in fieldset.find_all("input")] for fieldset in fieldsets(page, kinds_survey)]
    ordinal = kinds_survey.ordered_questions()[4].pk
    assert names == [[None] * 4, [None], [None], [None], [f"question-{ordinal}"] * 4]


def test_each_kind_says_its_deniability_in_plain_odds(page, kinds_survey):
    odds = [page.by_id(f"note-{q.pk}").text.split("at most ")[1] for q in kinds_survey.ordered_questions()]
    assert odds == ["7.39 to 1.", "2.72 to 1.", "2.72 to 1.", "2.72 to 1.", "2.72 to 1."]  # e^2, then e^1, up


RECEIPTS = [
    ("Randomized report, boxes ticked:", "Each box is sent as you left it about 3 in 5 times and the other way "
                                         "round otherwise, so a tick may or may not be yours."),
    ("Randomized report (one bit):", "Your number became a single bit, 1 more often the closer it is to 100 and 0 "
                                     "more often the closer it is to 0; that bit was then kept about 3 in 4 times "
                                     "and flipped otherwise."),
    ("Randomized report:", "This is your number plus random noise in steps of 0.5: it may be far from your answer, "
                           "even outside 0 to 10."),
    ("Randomized report:", "This may or may not be your real answer; about 1 in 2 reports are."),
    ("Randomized report:", "This may or may not be your real answer; about 1 in 2 reports are."),
]


def test_the_receipt_says_what_each_kinds_report_is(page, kinds_survey):
    items = page.by_id("receipt").find_all("li")
    for item, (report, chance) in zip(items, RECEIPTS, strict=True):
        assert item.find("span", **{"class": "receipt-report"}).text == report
        assert item.find("span", **{"class": "receipt-chance"}).text == chance


def test_the_client_data_carries_each_kinds_sampler_scale_bins_limit_and_words(page, kinds_survey):
    data = json.loads(page.by_id("survey-data").raw_text)
    current = plan.of(kinds_survey)
    assert [q["sampler"] for q in data["questions"]] == [q.mechanism.sampler() for q in current]
    assert [q["kind"] for q in data["questions"]] == ["multi_select", "numeric", "numeric", "numeric", "ordinal"]
    assert [q.get("scale") for q in data["questions"]][1:4] == [
        {"lo": "0", "hi": "100", "step": "1"}, {"lo": "0", "hi": "10", "step": "0.5"},
        {"lo": "0", "hi": "120", "step": "1"}]
    assert data["questions"][3]["edges"] == [0, 18, 35, 65] and "edges" not in data["questions"][1]
    assert data["questions"][0]["at_most"] == 2
    assert {"choose", "number", "range", "grid", "too_many", "no_box", "bit"} <= set(data["text"])
    assert "{lo}" in data["text"]["range"] and "{below}" in data["text"]["grid"]


def test_a_numeric_question_below_zero_gets_the_full_keyboard(client, db):
    from surveys.collection import builder
    from surveys.collection.builder import QuestionSpec
    from surveys.collection.models import Survey

    builder.create_survey("temps", "Temps", [QuestionSpec("Lowest temperature?", "onebit", epsilon=1.0,
                                                          kind="numeric", scale=("-40", "40", "0.5"))],
                          status=Survey.Status.OPEN)
    (number,) = parse(client.get("/s/temps/").content).find_all("input")
    assert "inputmode" not in number.attrs and number.attrs["min"] == "-40"
