"""Direct questions as respondents meet them: labelled as sent as given before they answer,
outside the page's privacy total, published with the identity sampler, stored as given; the footer
and the notice of unconfirmed answers say which answers are sent as given."""

import json
import math

import pytest
from django.urls import reverse

import ldp
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Report, Survey
from tests.collection.helpers import qid, question
from tests.collection.pages import parse
from tests.factories import valid_payload

URL = "/s/covariates/"
SENT_AS_GIVEN = "This answer is sent as you give it (not randomized)."


def strict_json(content):
    """JSON as a strict parser reads it: Infinity or NaN fail the test."""
    return json.loads(content, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))


@pytest.fixture
def page_html(client, direct_survey):
    response = client.get(URL)
    assert response.status_code == 200
    return response.content.decode()


def test_a_direct_question_says_it_is_sent_as_given_before_its_options(direct_survey, page_html):
    page = parse(page_html)
    for order in (2, 4):
        fieldset = page.find("fieldset", **{"data-question": qid(direct_survey, order)})
        html = page_html[page_html.index(f'data-question="{qid(direct_survey, order)}"'):]
        html = html[:html.index("</fieldset>")]
        assert SENT_AS_GIVEN in html
        assert html.index(SENT_AS_GIVEN) < html.index('type="radio"')  # read before answering
        assert "deniable" not in html
        radio = fieldset.find("input")
        assert page.by_id(radio.attrs["aria-describedby"]).text.strip() == SENT_AS_GIVEN
    for order in (1, 3):
        html = page_html[page_html.index(f'data-question="{qid(direct_survey, order)}"'):]
        html = html[:html.index("</fieldset>")]
        assert SENT_AS_GIVEN not in html and "Your answer stays deniable" in html


def test_the_privacy_summary_names_the_direct_questions_and_totals_the_randomized_ones(direct_survey, page_html):
    page = parse(page_html)
    assert page.by_id("direct-summary").text.strip() == (
        "Questions 2, 4 are not randomized: your answers to them are sent as you give them.")
    total = plan.of(direct_survey).epsilon_total
    assert total == pytest.approx(math.log(3) + ldp.KaryRR(1.0, 3).effective_epsilon)
    assert "All randomized questions of this survey together change those odds by at most" in page_html
    assert f"ε&nbsp;=&nbsp;{math.ceil(total * 1000) / 1000:.3f}" in page_html  # rounded up, on one line
    assert "All questions of this survey together" not in page_html
    assert "except for the questions marked as sent as you give them" in page_html


def test_a_survey_without_direct_questions_reads_as_before(client, survey):
    html = client.get("/s/health/").content.decode()
    assert "All questions of this survey together" in html
    assert "sent as you give" not in html and "direct-summary" not in html


def test_the_receipt_says_sent_as_given_for_a_direct_question(direct_survey, page_html):
    page = parse(page_html)
    receipt = page.by_id("receipt-list")
    for order, said in [(1, "Randomized report:"), (2, "Sent as given (not randomized):"),
                        (3, "Randomized report:"), (4, "Sent as given (not randomized):")]:
        item = receipt.find("li", **{"data-question": qid(direct_survey, order)})
        assert said in item.text
        assert ("may or may not be your real answer" in item.text) == (order in (1, 3))
    assert "your answers to the questions that are sent as you give them" in page.by_id("receipt").text


def test_the_page_hands_the_randomizer_the_identity_sampler(direct_survey, page_html):
    client_data = json.loads(parse(page_html).by_id("survey-data").raw_text)
    samplers = [q["sampler"] for q in client_data["questions"]]
    assert samplers[1] == {"kind": "direct", "k": 3} and samplers[3] == {"kind": "direct", "k": 4}
    assert samplers[0]["kind"] == "grr" and samplers[2]["kind"] == "grr"


def test_the_definition_api_marks_direct_questions_with_no_infinity(client, direct_survey):
    response = client.get(reverse("collection:api-survey", args=["covariates"]))
    assert response.status_code == 200 and b"Infinity" not in response.content
    body = strict_json(response.content)
    assert body["epsilon_total"] == pytest.approx(plan.of(direct_survey).epsilon_total, abs=1e-15)
    age = body["questions"][1]
    assert age["mechanism"]["randomized"] is False and age["mechanism"]["name"] == "direct"
    assert age["mechanism"]["effective_epsilon"] is None
    assert (age["mechanism"]["p"], age["mechanism"]["q_other"]) == (1.0, 0.0)
    assert age["mechanism"]["sampler"] == {"kind": "direct", "k": 3}
    assert age["deniability"]["epsilon"] is None and age["deniability"]["odds"] is None
    assert "not randomized" in age["deniability"]["text"]
    assert body["questions"][0]["mechanism"]["randomized"] is True


def test_the_openapi_schema_knows_the_direct_sampler(client, db):
    schema = strict_json(client.get(reverse("aggregation:api-schema")).content)
    sampler = schema["components"]["schemas"]["Sampler"]
    assert set(schema["components"]["schemas"]["SamplerKindEnum"]["enum"]) == {"grr", "unary", "direct"}
    assert "direct" in schema["components"]["schemas"]["NameEnum"]["enum"]
    assert "modulus" not in sampler.get("required", [])
    mechanism = schema["components"]["schemas"]["Mechanism"]["properties"]
    assert mechanism["effective_epsilon"].get("nullable") is True and "randomized" in mechanism


def test_a_direct_answer_is_stored_as_given_and_an_impossible_one_refused(client, direct_survey):
    url = reverse("collection:api-responses", args=["covariates"])
    payload = valid_payload(direct_survey, values={2: 2, 4: 3})
    assert client.post(url, payload, content_type="application/json").status_code == 201
    assert Report.objects.get(question=question(direct_survey, 2)).value == 2
    assert Report.objects.get(question=question(direct_survey, 4)).value == 3
    bad = valid_payload(direct_survey, values={4: 4})
    response = client.post(url, bad, content_type="application/json")
    assert response.status_code == 400 and Report.objects.count() == 4


def footer_and_resend_notice(page_html):
    page = parse(page_html)
    return page.find("footer").text, page.by_id("unsent").find_all("p")[0].text


def test_the_footer_and_the_resend_notice_say_which_answers_are_sent_as_given(direct_survey, page_html):
    assert footer_and_resend_notice(page_html) == (
        "Answers are randomized in your browser before they are sent, except the answers to questions 2, 4, which "
        "are sent as you give them. The server never sees a true answer to the other questions.",
        "This browser randomized your answers to this survey earlier, but the server did not confirm that it "
        "received them. They are kept in this browser until it does: the randomized reports, and your answers to "
        "questions 2, 4 as you gave them, since they are not randomized. Send them again: the server stores them "
        "once, however often they arrive.")


def test_one_question_sent_as_given_is_named_alone_and_a_survey_of_only_those_says_so(client, owner):
    builder.create_survey("one-direct", "One", [QuestionSpec("Cheated?", "qrr", q="0.5"),
                                                QuestionSpec("Age band?", "direct", options=["Young", "Old"])],
                          status=Survey.Status.OPEN, epsilon_budget=2.0)
    builder.create_survey("all-direct", "All", [QuestionSpec("Age band?", "direct", options=["Young", "Old"])],
                          status=Survey.Status.OPEN, epsilon_budget=2.0)
    one = footer_and_resend_notice(client.get("/s/one-direct/").content.decode())
    assert one == (
        "Answers are randomized in your browser before they are sent, except the answer to question 2, which is "
        "sent as you give it. The server never sees a true answer to the other questions.",
        "This browser randomized your answers to this survey earlier, but the server did not confirm that it "
        "received them. They are kept in this browser until it does: the randomized reports, and your answer to "
        "question 2 as you gave it, since it is not randomized. Send them again: the server stores them once, "
        "however often they arrive.")
    footer, _ = footer_and_resend_notice(client.get("/s/all-direct/").content.decode())
    assert footer == "No answer to this survey is randomized: your answers are sent as you give them."
