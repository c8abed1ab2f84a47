"""Two hundred respondents in two groups of the same true answers submit through the real page; what
the database stored follows the published channel.

The randomizer alone is checked against every channel at 10^5 draws in the browser
(test_randomizer_conformity); this test is for what lies between it and the database (the inputs read,
the payload, the stored value), whose faults move whole cells: a yes/no report stored flipped moves
its cell from 75% to 25%, 11 standard errors at 100 forms per truth. Every form is a page load."""

from decimal import Decimal

import pytest

from ldp.audit import audit, tabulate
from surveys.collection.models import Report
from tests.e2e.privacy import survey_with

pytestmark = pytest.mark.django_db(transaction=True)

MECHANISMS = [
    ("yes_no", "qrr", Decimal("0.5"), 2),
    ("single_choice", "krr", 1.0, 3),
    ("single_choice", "oue", 1.0, 4),
    ("single_choice", "direct", None, 3),  # the identity channel: every stored report is the answer given
]
PER_TRUTH = 100  # two groups of true answers: 200 submissions in all
PARALLEL = 4


ANSWER_AND_SEND = """(truth) => {
  document.querySelectorAll("fieldset.question").forEach((fieldset) => {
    fieldset.querySelectorAll("input[type=radio]")[truth].click();
  });
  document.getElementById("send").click();
}"""


def submit_many(browser, url, truth, count):
    """`count` respondents all answering option `truth`, through the page, a few at a time.

    Each tab reloads the page for every respondent, with its cookies and storage cleared first,
    so each submission starts like a new visitor's (new CSRF cookie, no "already answered"
    mark, new page, new randomness);
    new tabs for every respondent would cost a renderer process each.
    """
    contexts = [browser.new_context() for _ in range(PARALLEL)]
    for context in contexts:
        context.add_init_script("window.localStorage.clear();")  # before the page's own scripts
    pages = [context.new_page() for context in contexts]
    for start in range(0, count, PARALLEL):
        active = list(zip(contexts, pages, strict=True))[: count - start]
        for context, page in active:
            context.clear_cookies()
            page.goto(url, wait_until="commit")
        for _, page in active:
            page.wait_for_selector("#send:enabled")
            page.evaluate(ANSWER_AND_SEND, truth)
        for _, page in active:
            page.wait_for_selector("#receipt:not([hidden])", timeout=30_000)
    for context in contexts:
        context.close()


def stored_counts(question, exclude_ids=()):
    """Counts per cell as ldp.audit takes them (for a unary encoding, per joint pattern of its bits)."""
    histogram = {}
    values = Report.objects.filter(question=question).exclude(response_id__in=exclude_ids)
    for value in values.values_list("value", flat=True):
        histogram[value] = histogram.get(value, 0) + 1
    return tabulate(question.mechanism().sampler(), histogram)


def test_stored_reports_from_the_form_follow_the_published_channel(live_server, browser):
    survey = survey_with(MECHANISMS)
    url = f"{live_server.url}/s/{survey.slug}/"
    submit_many(browser, url, truth=0, count=PER_TRUTH)
    first_group = list(survey.responses.values_list("id", flat=True))
    submit_many(browser, url, truth=1, count=PER_TRUTH)

    assert survey.responses.count() == 2 * PER_TRUTH
    questions = list(survey.ordered_questions())
    family = sum(2 * len(stored_counts(q)) for q in questions)
    for question in questions:
        rows = {
            0: [c for c in _counts_within(question, first_group)],
            1: stored_counts(question, exclude_ids=first_group),
        }
        result = audit(question.mechanism().sampler(), rows, PER_TRUTH, alpha=1e-6, cells_in_family=family)
        assert result.failures == ()
        assert result.epsilon_lower_bound <= result.claimed_epsilon


def _counts_within(question, response_ids):
    everything = stored_counts(question)
    others = stored_counts(question, exclude_ids=response_ids)
    return [a - b for a, b in zip(everything, others, strict=True)]
