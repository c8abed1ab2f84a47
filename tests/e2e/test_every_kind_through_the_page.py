"""Every kind of question end to end in a real browser: respondents answer one survey of them all through
the page, in two groups with different true answers; their browsers randomize and post; the stored reports
follow the published channel for each group's true answer (ldp.offline.audit over ldp's report cells), and the
estimates API holds the planted truth in its 99.9% interval.

The randomizer alone is checked against every channel at 10^5 draws in the browser
(test_randomizer_conformity); this test is for what lies between it and the database (the inputs read,
the payload, the stored value). Those are checked exactly rather than statistically: PAGE respondents per truth
answer through the page's form with crypto.getRandomValues seeded (a seed each), and each one's stored reports
must be, question by question, what the page's randomizer module makes of the true answer from those words
(replayed in the page). A report stored flipped, or an option stored as its neighbour, differs from the replay in
every respondent; an answer read as another one gives the same report from the same words with probability at
most 0.62 (two bits of the 4-option OUE question, each agreeing with probability 0.12 + 0.5; q-RR's 0.5), so
2 * PAGE respondents all miss it with probability 1e-5. The rest of each group's GROUP reports are drawn in one
page, by its randomizer module with its Web Crypto, and posted to the page's endpoint as respond.js posts them (the
in-page module-draw mode): the channel and the estimates are tested on all 2 * GROUP stored responses, with the
power of GROUP per truth (at 60 a yes/no report stored flipped moves its cell from 75% to 25%, 9 standard
errors, and an option stored as its neighbour moves a 3-option k-RR cell at epsilon 2 from 79% to 11%, 13).
Every respondent through the form is a page load (0.2 CPU-s of Chromium); 24 cost what 120 did a fifth of."""

import random

import pytest

from bench.audit_randomizer import loaded_randomizer
from ldp.offline.audit import audit, tabulate
from surveys.collection import builder, plan
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Report, Survey
from tests.e2e.answering import SEND, answer

pytestmark = pytest.mark.django_db(transaction=True)
GROUP = 60  # respondents per true answer; two groups
PAGE = 12  # of each group through the form, seeded and replayed (the others drawn in one page)
SEEDS = random.Random(7).sample(range(1, 2**32), 2 * PAGE)  # distinct: a seed's key is its respondent's

# Before the page's scripts: with ?seed=N in its address, crypto.getRandomValues gives xorshift32's words from N.
XORSHIFT = """let state = seed >>> 0;
  const fill = (array) => {
    for (let i = 0; i < array.length; i++) {
      state ^= state << 13; state >>>= 0; state ^= state >>> 17; state ^= state << 5; array[i] = state >>>= 0;
    }
    return array;
  };"""
SEEDED = f"""(() => {{
  const seed = Number(new URLSearchParams(location.search).get("seed"));
  if (!seed) return;
  {XORSHIFT}
  Object.defineProperty(globalThis.crypto, "getRandomValues", {{ value: fill }});
}})();"""
# A true answer as respond.js hands it to the randomizer: a multi-select's bitmask as its bits, else the index.
AS_ANSWER = "(sampler, truth) => sampler.kind === 'multiselect' ? " \
    "Array.from({ length: sampler.k }, (_, j) => Math.floor(truth / 2 ** j) % 2) : truth"
# Each question's report from the page's randomizer module, with the words a seeded page drew (respond.js draws the
# reports in the questions' order, then the key).
REPLAY = f"""async ([seed, truths, randomizerUrl]) => {{
  const randomizer = await import(randomizerUrl);
  const asAnswer = {AS_ANSWER};
  {XORSHIFT}
  const nextWord = randomizer.wordSource(fill);
  const config = JSON.parse(document.getElementById("survey-data").textContent);
  const reports = [];
  for (const [i, question] of config.questions.entries()) {{
    reports.push(await randomizer.randomizeAnswer(question.sampler, asAnswer(question.sampler, truths[i]), nextWord));
  }}
  return reports;
}}"""
# `count` respondents' payloads drawn by the page's randomizer module with its Web Crypto, posted as respond.js posts
# its payload; their statuses.
POST_DRAWS = f"""async ([truths, count, randomizerUrl]) => {{
  const randomizer = await import(randomizerUrl);
  const asAnswer = {AS_ANSWER};
  const nextWord = randomizer.cryptoSource();
  const config = JSON.parse(document.getElementById("survey-data").textContent);
  const statuses = [];
  for (let r = 0; r < count; r++) {{
    const reports = {{}};
    for (const [i, question] of config.questions.entries()) {{
      reports[String(question.id)] = await randomizer.randomizeAnswer(question.sampler,
        asAnswer(question.sampler, truths[i]), nextWord);
    }}
    const response = await fetch(config.endpoint, {{
      method: "POST", credentials: "same-origin",
      headers: {{ "Content-Type": "application/json", "X-CSRFToken": config.csrfToken }},
      body: JSON.stringify({{ version: config.version, key: crypto.randomUUID(), reports }}),
    }});
    statuses.push(response.status);
  }}
  return statuses;
}}"""


def make(slug, *questions, owner):
    survey = builder.create_survey(slug, slug.title(), questions, status=Survey.Status.OPEN, epsilon_budget=20)
    survey.researchers.add(owner)
    return survey


def stored_reports(survey, response):
    values = dict(Report.objects.filter(response=response).values_list("question_id", "value"))
    return [question.mechanism.decode(values[question.id]) for question in plan.of(survey)]


def through_the_form(page, url, survey, answers, truths, seed):
    """One respondent answering `answers` in the form of a page seeded with `seed`: their stored reports are those the
    page's randomizer module makes of `truths` from the seed's words."""
    before = set(survey.responses.values_list("id", flat=True))
    page.context.clear_cookies()
    page.goto(f"{url}?seed={seed}", wait_until="commit")
    page.wait_for_selector("#send:enabled")
    answer(page, answers)
    page.evaluate(SEND)
    page.wait_for_selector("#receipt:not([hidden])", timeout=30_000)
    (response,) = survey.responses.exclude(id__in=before)
    assert stored_reports(survey, response) == page.evaluate(REPLAY, [seed, truths, loaded_randomizer(page)]), seed


def run(browser, live_server, survey, first, second):
    """GROUP respondents of each group, (answers in the form, true answers), PAGE of them through the form, the others
    drawn in one page; the first group's response ids."""
    url = f"{live_server.url}/s/{survey.slug}/"
    context = browser.new_context()
    context.add_init_script("window.localStorage.clear();")
    context.add_init_script(SEEDED)
    page = context.new_page()
    seeds = iter(SEEDS)
    groups = []
    for answers, truths in (first, second):
        for _ in range(PAGE):
            through_the_form(page, url, survey, answers, truths, next(seeds))
        context.clear_cookies()
        page.goto(url)
        page.wait_for_selector("#send:enabled")
        assert page.evaluate(POST_DRAWS, [truths, GROUP - PAGE, loaded_randomizer(page)]) == [201] * (GROUP - PAGE)
        groups.append(set(survey.responses.values_list("id", flat=True)))
    context.close()
    assert survey.responses.count() == 2 * GROUP
    return groups[0]


def assert_channel(survey, first_group, truths):
    """The stored reports of each group follow the sampler for that group's truth (as ldp.offline.audit counts it)."""
    for question, (truth_a, truth_b) in zip(plan.of(survey), truths, strict=True):
        rows = {}
        for truth, inside in ((truth_a, True), (truth_b, False)):
            histogram = {}
            for response, value in Report.objects.filter(question_id=question.id).values_list("response_id", "value"):
                if (response in first_group) == inside:
                    reported = question.mechanism.decode(value)
                    key = sum(bit << j for j, bit in enumerate(reported)) if isinstance(reported, list) else reported
                    histogram[key] = histogram.get(key, 0) + 1
            rows[truth] = tabulate(question.mechanism.sampler(), histogram)
        result = audit(question.mechanism.sampler(), rows, GROUP, alpha=1e-6)
        assert result.failures == () and result.passed, (question.order, result)
        assert result.epsilon_lower_bound <= result.claimed_epsilon, (question.order, result)


def estimates(client, owner, survey):
    client.force_login(owner)
    return client.get(f"/api/v1/surveys/{survey.slug}/estimates/?confidence=0.999").json()["questions"]


def test_reports_sent_through_the_page_follow_the_channel_and_the_estimates_hold_the_truth(
        live_server, browser, client, owner):
    survey = make(
        "kinds",
        QuestionSpec("Cheated?", "qrr", q="0.5"),
        QuestionSpec("How often?", "krr", epsilon=2.0, options=["Never", "Sometimes", "Often"]),
        QuestionSpec("Which party?", "oue", epsilon=2.0, options=["A", "B", "C", "D"]),
        QuestionSpec("Region?", "direct", options=["North", "Centre", "South"]),  # the identity channel
        QuestionSpec("Which?", "multiselect", epsilon=3.0, kind="multi_select", options=["A", "B", "C", "D"],
                     at_most=2),
        QuestionSpec("Hours?", "onebit", epsilon=2.0, kind="numeric", scale=("0", "40", "1")),
        QuestionSpec("Drinks?", "dlaplace", epsilon=3.0, kind="numeric", scale=("0", "10", "0.5")),
        QuestionSpec("Age?", "krr", epsilon=3.0, kind="numeric", scale=("0", "99", "1"),
                     options=["0 to 17", "18 to 64", "65 to 99"], edges=["0", "18", "65"]),
        QuestionSpec("Often?", "oue", epsilon=3.0, kind="ordinal",
                     options=["Never", "Sometimes", "Often", "Prefer not to say"], scores=["1", "2", "3", None]),
        owner=owner)
    # The ages either side of an edge; the numbers' truths as grid indexes, the age's as its bin; the second level
    # ("Sometimes") and the unscored one.
    truths = [(0, 1), (0, 1), (0, 1), (0, 1), (0b0101, 0b0010), (10, 30), (5, 14), (0, 1), (1, 3)]
    first_group = run(browser, live_server, survey,
                      ([0, 0, 0, 0, [0, 2], "10", "2.5", "17", 1], [a for a, _ in truths]),
                      ([1, 1, 1, 1, [1], "30", "7", "18", 3], [b for _, b in truths]))
    assert_channel(survey, first_group, truths)

    yes_no, often, party, region, ticks, hours, drinks, ages, levels = estimates(client, owner, survey)
    for question, truths in ((yes_no, [0.5, 0.5]), (often, [0.5, 0.5, 0.0]), (party, [0.5, 0.5, 0.0, 0.0]),
                             (region, [0.5, 0.5, 0.0]), (ticks, [0.5, 0.5, 0.5, 0.0]), (ages, [0.5, 0.5, 0.0]),
                             (levels, [0.0, 0.5, 0.0, 0.5])):
        for option, truth in zip(question["options"], truths, strict=True):
            assert option["ci_low"] <= truth <= option["ci_high"], (question["order"], option, truth)
    assert hours["mean"]["ci_low"] <= 20 <= hours["mean"]["ci_high"] and hours["mean"]["n"] == 2 * GROUP
    assert drinks["mean"]["ci_low"] <= 4.75 <= drinks["mean"]["ci_high"]
    # The scored half all answered 2, inside the scores' range: at its ends the mean score's interval is tested
    # by simulation (tests/ldp/means/test_ordinal.py).
    assert levels["mean"]["ci_low"] <= 2.0 <= levels["mean"]["ci_high"]
