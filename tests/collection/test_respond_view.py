"""The respondent page /s/<slug>/: questions in no form (radios grouped by question), exact samplers, no
inline script."""

import json
import math
import re
from datetime import timedelta
from decimal import Decimal
from fractions import Fraction

import pytest
from django.middleware.csrf import _unmask_cipher_token
from django.utils import timezone

import ldp
from surveys.collection import builder, plan
from surveys.collection.models import Survey
from tests.collection.pages import parse

URL = "/s/health/"


@pytest.fixture
def page(client, survey):
    response = client.get(URL)
    assert response.status_code == 200
    return parse(response.content)


def _set_window(survey, status=Survey.Status.OPEN, opens=None, closes=None):
    now = timezone.now()
    Survey.objects.filter(pk=survey.pk).update(
        status=status, opens_at=now + opens if opens is not None else None,
        closes_at=now + closes if closes is not None else None)


def test_it_shows_a_fieldset_with_a_legend_and_a_label_per_option_for_each_question(survey, page):
    fieldsets = page.find_all("fieldset")
    questions = list(survey.ordered_questions())
    assert len(fieldsets) == len(questions)
    for fieldset, question in zip(fieldsets, questions, strict=True):
        assert fieldset.attrs["data-question"] == str(question.pk)
        legend = fieldset.find("legend")
        assert legend is not None and question.text in legend.text
        labels = fieldset.find_all("label")
        assert [label.text for label in labels] == question.labels()
        for index, label in enumerate(labels):
            (radio,) = label.find_all("input")
            assert radio.attrs["type"] == "radio" and radio.attrs["data-option"] == str(index)


def test_no_true_answer_can_be_submitted_natively(page):
    """The page has no form, so no answer input is in one; tests/e2e/test_nothing_submitted_without_javascript.py
    answers it without JavaScript and checks that no request carries an answer."""
    assert page.find_all("input"), "the page has answer inputs"
    assert page.find_all("form") == []
    assert page.find_all("select") == [] and page.find_all("textarea") == []


def test_without_a_question_sent_as_given_the_footer_and_the_resend_notice_say_no_true_answer_leaves(page):
    assert page.find("footer").text == ("Answers are randomized in your browser before they are sent. The server "
                                        "never sees a true answer.")
    assert "(the randomized reports only, never your answers)" in page.by_id("unsent").text


def test_each_questions_radios_are_one_group_named_for_it(survey, page):
    names = [{radio.attrs.get("name") for radio in fieldset.find_all("input")}
             for fieldset in page.find_all("fieldset")]
    assert names == [{f"question-{question.pk}"} for question in survey.ordered_questions()]


# The fixture's questions: the odds bound (e^epsilon rounded up to a tenth) and how often a
# report is the real answer (index) or an option is marked (unary: the real one, any other).
ODDS = {"Cheated?": "3", "Drove drunk?": "3", "Drugs?": "2.72", "Party?": "2.72"}  # q .5, ln 3, eps 1, eps 1
RECEIPT = {
    "Cheated?": "This may or may not be your real answer; about 3 in 4 reports are.",  # p = 3/4
    "Drove drunk?": "This may or may not be your real answer; about 3 in 4 reports are.",  # p = 3/4
    "Drugs?": "This may or may not be your real answer; about 3 in 5 reports are.",  # p = e/(e+2) = .576
    "Party?": "Each option is marked by chance, so a mark may or may not be your real answer: the option of "
              "your real answer is marked about 1 in 2 times, every other option about 1 in 4 times.",  # OUE
}


def test_a_short_summary_comes_first_and_the_explanation_is_behind_a_disclosure(survey, page):
    section = page.find("section", **{"class": "protection"})
    assert section is not None and "How your answers are protected" in section.text  # its (hidden) heading
    summary = section.find("p", **{"class": "summary"})
    assert "randomizes each answer before it is sent" in summary.text and len(summary.text) < 160
    (details,) = section.find_all("details")
    assert details.find("summary").text == "How does this work?"
    total = ldp.survey_epsilon(plan.of(survey).mechanisms)
    up = math.ceil(total * 1000) / 1000  # rounded up, never to nearest (4.1974 is said 4.198)
    assert f"ε = {up:.3f}" in details.text and "privacy loss" not in summary.text


def test_each_question_says_its_deniability_in_plain_odds(survey, page):
    for question in survey.ordered_questions():
        note = page.by_id(f"note-{question.pk}")
        forced = "" if question.mechanism_name != "qrr" else (  # q = 0.5, exactly
            " Your browser sends your real answer with probability 0.5; otherwise a fair coin answers for you: yes "
            "with probability 0.25, no with probability 0.25.")
        assert note.text == ("Your answer stays deniable: anyone's odds on your true answer change by at most "
                             f"{ODDS[question.text]} to 1.{forced}")
        odds = ldp.odds_factor(question.mechanism().effective_epsilon)
        assert float(ODDS[question.text]) >= odds - 1e-9  # never less (e^ln 3 is 3 in floating point's way)


def test_the_already_sent_notice_is_at_the_top(page):
    order = [element.attrs.get("id") or element.attrs.get("class") for element in page.iter()
             if element.attrs.get("id") == "already-sent" or element.tag in ("fieldset", "section")]
    assert order.index("already-sent") < order.index("protection") < order.index("question")


def test_the_receipt_says_per_question_how_often_a_report_is_the_real_answer(survey, page):
    receipt = page.by_id("receipt")
    items = receipt.find_all("li")
    assert [item.attrs["data-question"] for item in items] == [str(q.pk) for q in survey.ordered_questions()]
    for item, question in zip(items, survey.ordered_questions(), strict=True):
        assert question.text in item.find("span", **{"class": "receipt-question"}).text
        assert item.find("span", **{"class": "receipt-chance"}).text == RECEIPT[question.text]
        assert item.find("strong", **{"class": "report"}) is not None  # respond.js fills in the report
    assert "Sent:" not in receipt.text


def test_it_says_why_nothing_can_be_sent_without_javascript(page):
    (note,) = page.find_all("noscript")
    assert "needs JavaScript" in note.text and "randomize" in note.text


def test_the_survey_data_block_carries_the_samplers_endpoint_and_version(client, survey, page):
    block = page.by_id("survey-data")
    assert block.tag == "script" and block.attrs.get("type") == "application/json"
    data = json.loads(block.raw_text)
    assert data["endpoint"] == f"/api/v1/surveys/{survey.slug}/responses/"
    assert data["version"] == plan.of(survey).version
    assert data["csrfToken"]
    questions = list(survey.ordered_questions())
    assert [q["id"] for q in data["questions"]] == [q.pk for q in questions]
    assert [q["options"] for q in data["questions"]] == [q.labels() for q in questions]
    assert [q["sampler"] for q in data["questions"]] == [q.mechanism().sampler() for q in questions]
    assert [(q["p"], q["q_other"], q["encoding"]) for q in data["questions"]] == [
        (m.p, m.q_other, m.encoding) for m in (q.mechanism() for q in questions)]
    assert data["preview"] is False


def test_the_respondent_page_has_no_preview_banner(page):
    assert page.by_id("preview-banner") is None and "Preview" not in page.text


def test_there_is_no_inline_executable_script(page):
    scripts = page.find_all("script")
    assert scripts
    for script in scripts:
        if "src" in script.attrs:
            assert script.raw_text.strip() == ""
        else:  # data only
            assert script.attrs.get("type") == "application/json"
    for element in page.iter():
        assert not any(name.startswith("on") for name in element.attrs), element
        assert not element.attrs.get("href", "").lower().startswith("javascript:")


def test_scripts_are_modules_served_from_static(page):
    external = [script for script in page.find_all("script") if "src" in script.attrs]
    assert external
    for script in external:
        assert script.attrs["type"] == "module"
        assert script.attrs["src"].startswith("/static/")
        assert "//" not in script.attrs["src"]


def test_the_page_sends_a_strict_csp_and_no_referrer(client, survey):
    response = client.get(URL)
    policy = response["Content-Security-Policy"]
    directives = {part.split()[0]: part.split()[1:] for part in policy.split(";") if part.strip()}
    assert directives["script-src"] == ["'self'"]
    assert "'unsafe-inline'" not in policy and "'unsafe-eval'" not in policy
    assert directives["object-src"] == ["'none'"]
    assert response["Referrer-Policy"] == "no-referrer"
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"


def test_the_api_sends_the_same_security_headers(client, survey):
    response = client.get("/api/v1/surveys/health/")
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert response["Referrer-Policy"] == "same-origin"  # never leaves the site


def test_a_logged_in_researcher_sees_the_same_page(client, survey, owner):
    client.force_login(owner)
    response = client.get(URL)
    assert response.status_code == 200
    assert len(parse(response.content).find_all("fieldset")) == 4


@pytest.mark.parametrize("slug", ["health", "nope"])
def test_a_draft_or_unknown_survey_is_not_found(client, survey, slug):
    _set_window(survey, status=Survey.Status.DRAFT)
    assert client.get(f"/s/{slug}/").status_code == 404


CLOSED = "This survey is closed and no longer accepts responses."
NOT_YET = "This survey opens on"


@pytest.mark.parametrize("window, message", [
    ({"status": Survey.Status.CLOSED}, CLOSED),
    ({"closes": -timedelta(minutes=1)}, CLOSED),
    ({"opens": timedelta(days=1)}, NOT_YET),
], ids=["closed", "past-its-close", "not-yet-open"])
def test_a_survey_not_accepting_answers_410_with_a_clear_page(client, survey, window, message):
    _set_window(survey, **window)
    response = client.get(URL)
    assert response.status_code == 410
    page = parse(response.content)
    notice = page.find("p", **{"class": "notice"}).text
    assert message in notice
    assert (CLOSED if message == NOT_YET else NOT_YET) not in notice
    assert "Health" in page.find("h1").text
    assert not page.find_all("fieldset") and page.by_id("survey-data") is None
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_the_not_yet_open_page_says_when_it_opens(client, survey):
    opens = timezone.now() + timedelta(days=3)
    Survey.objects.filter(pk=survey.pk).update(opens_at=opens)
    notice = parse(client.get(URL).content).find("p", **{"class": "notice"}).text
    assert f"{opens.day} {opens:%B %Y}" in notice


def test_a_closed_survey_with_a_future_opening_date_says_it_is_closed(client, survey):
    _set_window(survey, status=Survey.Status.CLOSED, opens=timedelta(days=1))
    response = client.get(URL)
    assert response.status_code == 410
    assert CLOSED in parse(response.content).find("p", **{"class": "notice"}).text


@pytest.mark.parametrize("state", ["open", "closed"])
def test_the_page_is_never_cached_it_carries_a_per_visitor_csrf_token(client, survey, state):
    if state == "closed":
        _set_window(survey, status=Survey.Status.CLOSED)
    cache_control = {part.strip() for part in client.get(URL)["Cache-Control"].split(",")}
    assert {"private", "no-store", "no-cache", "max-age=0"} <= cache_control


def test_each_page_carries_the_csrf_token_masked_afresh_over_the_same_secret(client, survey):
    """BREACH: nginx gzips the page (docs/deploy/nginx-app.conf), so a secret repeated in the same words in
    every response could be guessed from the sizes; the token's text must change from response to response
    while it stands for the one secret the cookie holds."""
    tokens = [json.loads(parse(client.get(URL).content).by_id("survey-data").raw_text)["csrfToken"] for _ in range(3)]
    secret = client.cookies["csrftoken"].value
    assert len(set(tokens)) == 3 and secret not in tokens
    assert [_unmask_cipher_token(token) for token in tokens] == [secret] * 3  # Django's own unmasking


# The page for multi-select, numeric and ordinal questions: inputs that fit each kind, labelled and tied to
# their hint, note and error message; no input in a form (radios named for their group only); the client's
# data (sampler, scale, bins, limit, translated words); deniability in odds and a receipt in words for each kind.
KINDS_URL = "/s/kinds/"


@pytest.fixture
def kinds_page(client, kinds_survey):
    response = client.get(KINDS_URL)
    assert response.status_code == 200
    return parse(response.content)


def fieldsets(kinds_page, kinds_survey):
    found = {f.attrs["data-question"]: f for f in kinds_page.find_all("fieldset")}
    return [found[str(q.pk)] for q in kinds_survey.ordered_questions()]


def test_a_multi_select_is_a_checkbox_per_option_with_its_limit_said(kinds_page, kinds_survey):
    multi = fieldsets(kinds_page, kinds_survey)[0]
    boxes = multi.find_all("input")
    assert [box.attrs["type"] for box in boxes] == ["checkbox"] * 4
    assert [label.text for label in multi.find_all("label")] == ["Tobacco", "Alcohol", "Cannabis", "Prefer not to say"]
    pk = kinds_survey.ordered_questions()[0].pk
    assert kinds_page.by_id(f"hint-{pk}").text == "Tick all that apply, at most 2."
    assert all(box.attrs["aria-describedby"] == f"hint-{pk} note-{pk} problem-{pk}" for box in boxes)


def test_a_numeric_question_is_a_labelled_number_input_with_its_grid(kinds_page, kinds_survey):
    for fieldset, question, mode in zip(fieldsets(kinds_page, kinds_survey)[1:4], kinds_survey.ordered_questions()[1:4],
                                        ["numeric", "decimal", "numeric"], strict=True):
        (number,) = fieldset.find_all("input")
        pk = question.pk
        assert (number.attrs["type"], number.attrs["min"], number.attrs["max"], number.attrs["step"]) == (
            "number", str(question.scale().lo), str(question.scale().hi), str(question.scale().step))
        assert number.attrs["inputmode"] == mode  # a phone shows digits, or digits and a point
        assert fieldset.find("label").attrs["for"] == number.attrs["id"] == f"answer-{pk}"
        assert number.attrs["aria-describedby"] == f"hint-{pk} note-{pk} problem-{pk}"
        problem = kinds_page.by_id(f"problem-{pk}")
        assert problem.attrs["role"] == "alert" and "hidden" in problem.attrs


def test_the_hints_say_the_grid_and_a_histogram_its_bins(kinds_page, kinds_survey):
    hints = [kinds_page.by_id(f"hint-{q.pk}").text for q in kinds_survey.ordered_questions()[1:4]]
    assert hints == [
        "A number from 0 to 100, in steps of 1.",
        "A number from 0 to 10, in steps of 0.5.",
        "A number from 0 to 120, in steps of 1. It is sent as its range: 0 to 17; 18 to 34; 35 to 64; 65 to 120.",
    ]


def test_an_ordinal_question_is_a_radio_per_level(kinds_page, kinds_survey):
    gamble = fieldsets(kinds_page, kinds_survey)[4]
    assert [i.attrs["type"] for i in gamble.find_all("input")] == ["radio"] * 4
    assert [label.text for label in gamble.find_all("label")][-1] == "Prefer not to say"


def test_no_input_of_any_kind_sits_in_a_form_and_only_radios_are_named_for_their_group(kinds_page, kinds_survey):
    inputs = kinds_page.find_all("input")
    assert {i.attrs["type"] for i in inputs} == {"checkbox", "number", "radio"}
    assert kinds_page.find_all("form") == []
    names = [[i.attrs.get("name") for i in fieldset.find_all("input")]
             for fieldset in fieldsets(kinds_page, kinds_survey)]
    ordinal = kinds_survey.ordered_questions()[4].pk
    assert names == [[None] * 4, [None], [None], [None], [f"question-{ordinal}"] * 4]


def test_each_kind_says_its_deniability_in_plain_odds(kinds_page, kinds_survey):
    odds = [kinds_page.by_id(f"note-{q.pk}").text.split("at most ")[1] for q in kinds_survey.ordered_questions()]
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


def test_the_receipt_says_what_each_kinds_report_is(kinds_page, kinds_survey):
    items = kinds_page.by_id("receipt").find_all("li")
    for item, (report, chance) in zip(items, RECEIPTS, strict=True):
        assert item.find("span", **{"class": "receipt-report"}).text == report
        assert item.find("span", **{"class": "receipt-chance"}).text == chance


def test_the_client_data_carries_each_kinds_sampler_scale_bins_limit_and_words(kinds_page, kinds_survey):
    data = json.loads(kinds_page.by_id("survey-data").raw_text)
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


def test_a_survey_whose_odds_pass_28_digits_still_shows_them_rounded_up(client, owner):
    """Seven questions at epsilon 10: odds near e^70 (31 digits), past decimal's default precision."""
    questions = [builder.QuestionSpec(f"Question {i}?", "bitflip", epsilon=10.0) for i in range(7)]
    survey = builder.create_survey("strong", "Strong", questions, status=Survey.Status.OPEN, epsilon_budget=80)
    response = client.get("/s/strong/")
    assert response.status_code == 200
    shown = re.search(r"All questions of this survey together change those odds by at most ([\d,.]+)",
                      response.content.decode()).group(1)
    loss = ldp.planning.rounding.total_loss(q.mechanism().sampler() for q in survey.ordered_questions())
    odds = Fraction(loss.odds_upper())  # e^loss, or an upper bound within 1e-44 of it
    assert loss.epsilon_up(3) > 69 and odds <= Fraction(Decimal(shown.replace(",", ""))) < odds + Fraction(1, 100)
