"""The audit of a series' pages (bench/audit_randomizer.py --next-wave, bench/audit_waves.py): browsers new to the
series answer two waves with the same truth; each remembered question's two reports must agree as its two published
layers say. The honest pages pass (and nothing is stored); a page that re-draws the permanent response each wave, and
one that sends it without the instantaneous layer, fail.

Power, from the integers (ldp.wave_agreement), sets the number of browsers: 8, so 16 page loads per audit, and two
audits: the honest pages through the command, and one planted page wrong in both ways, each on its own group of
questions (each question's verdict depends on its own reports alone). Two groups of six 8-option questions make the
two wrong pages visible. Group A (a weak permanent layer, eps 0.5, under a strong instantaneous one, eps 6) agrees
with probability 0.9662 when the permanent response is kept and 0.1297 when it is re-drawn: at the family's level
(alpha 10^-3 over 1,548 cells) a question is flagged at 2 or fewer agreements of 8, which a re-drawing page gives
with probability 0.926 per question, so all six miss it with probability 1.6e-7 (at 6 browsers 3e-5). Group B (a
strong permanent layer, eps 5, under a weak instantaneous one, eps 0.5) agrees with probability 0.1299: 8 agreements
of 8, what a page sending the permanent response alone always gives, is flagged for every question; 6 browsers could
not flag it (the interval for 6 of 6 reaches down to 0.083). The honest pages pass but for a false alarm at rate at
most alpha. Measured: about 22 CPU-s for the command's audit and 28 for the planted one (1.2 to 1.5 CPU-s a load:
twelve questions, each derived through HMAC-DRBG, and every request routed through Playwright).
"""

import pytest

from bench.audit_waves import audit_series
from ldp.wave_agreement import composed_sampler, independent_agreement, remembered_agreement
from surveys.collection import builder, waves
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Response, Series, Survey
from tests.e2e.privacy import serve_modified, served_text
from tests.e2e.test_audit_randomizer_command import audit

pytestmark = pytest.mark.django_db(transaction=True)

BROWSERS = 8
OPTIONS = [f"Option {j}" for j in range(8)]
GROUP_A = [QuestionSpec(f"A {i}?", "krr", epsilon=6.0, options=OPTIONS) for i in range(6)]
GROUP_B = [QuestionSpec(f"B {i}?", "krr", epsilon=0.5, options=OPTIONS) for i in range(6)]
PERMANENT = {"A": 0.5, "B": 5.0}
# The two wrong pages in one (the audit's per-question verdicts are independent, so one run shows both): group A's
# permanent response re-drawn in every wave (a seed that is new each time), group B's sent without the instantaneous
# layer.
HONEST = "  return instantly(question.sampler, permanent, nextWord);"
WRONG = (HONEST, """  if (question.order > 6) return permanent;
  const redrawn = await permanentResponse(secret, `${series.id}|${Math.random()}`, question.remembered.lineage, answer,
    question.remembered.sampler);
  return instantly(question.sampler, redrawn, nextWord);""")


@pytest.fixture
def two_waves(db):
    series = Series.objects.create(title="Quarterly")
    first = builder.create_survey("quarterly", "Quarterly", GROUP_A + GROUP_B, status=Survey.Status.OPEN,
                                  epsilon_budget=100.0, series=series, wave=1)
    for question in first.questions.all():
        question.permanent_epsilon = PERMANENT[question.text[0]]
        question.save()
    second = waves.run_again(first)
    Survey.objects.filter(pk=second.pk).update(status=Survey.Status.OPEN)
    return first, second


def urls(live_server, two_waves):
    return tuple(f"{live_server.url}/s/{survey.slug}/" for survey in two_waves)


def published(survey):
    """Per question, in order: (group, agreement of one permanent response, of a re-drawn one)."""
    found = []
    for question in survey.ordered_questions():
        layers = question.remembered()
        permanent, instant = layers.permanent.sampler(), layers.instant.sampler()
        composed = composed_sampler(permanent, instant)
        found.append((question.text[0], remembered_agreement(permanent, instant, instant),
                      independent_agreement(composed, composed, 0, 0)))
    return found


def test_the_command_passes_the_honest_waves_and_says_what_it_would_catch(live_server, two_waves):
    first, second = urls(live_server, two_waves)
    done = audit(first, "--next-wave", second, "--forms", str(BROWSERS), "--tabs", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    assert Response.objects.count() == 0

    lines = done.stdout.splitlines()
    waves_ids = [[q.id for q in survey.ordered_questions()] for survey in two_waves]
    rows = [line.split() for line in lines[1:1 + 4 * 12:2]]  # both waves' questions, each with its note
    assert [int(row[0]) for row in rows] == waves_ids[0] + waves_ids[1]
    composed = [float(q.remembered().wave_epsilon) for q in two_waves[0].ordered_questions()]
    assert [float(row[3]) for row in rows] == pytest.approx(composed * 2, abs=5e-5)  # the composed channel's
    assert all(row[5] == "pass" for row in rows)

    header = 1 + 4 * 12
    assert lines[header].split() == ["question", "in", "wave", "browsers", "agreed", "published", "result"]
    expected = published(two_waves[0])
    for n, (group, agree, redrawn) in enumerate(expected):
        row, note = lines[header + 1 + 2 * n].split(), lines[header + 2 + 2 * n].strip()
        assert [int(row[0]), int(row[1]), int(row[2])] == [waves_ids[0][n], waves_ids[1][n], BROWSERS]
        assert (float(row[4]), row[5]) == (round(float(agree), 4), "pass")
        se = float(agree * (1 - agree) / BROWSERS) ** 0.5
        caught = {"A": ("caught", "NOT caught"), "B": ("NOT caught", "caught")}[group]
        assert note == (f"{row[3]} of {BROWSERS} agreed, published {float(agree):.4f} (binomial SE {se:.4f}); a page "
                        f"re-drawing the permanent response each wave ({float(redrawn):.4f}): {caught[0]}; sending "
                        f"it without the instantaneous layer (1): {caught[1]}")
    assert lines[-1].startswith(f"24 of 24 questions pass, 12 of 12 agree across the waves ({BROWSERS} browsers "
                                "through both waves in ")


def test_a_page_re_drawing_the_permanent_response_or_sending_it_alone_fails(live_server, two_waves, page):
    def plant(tab):
        serve_modified(tab, "static/js/respond.js", WRONG)

    first, second = urls(live_server, two_waves)
    plant(page)
    page.goto(first)
    assert WRONG[1] in served_text(page, "/static/js/respond.js")  # the swap took
    found = audit_series(page, (first, second), BROWSERS, alpha=1e-3, tabs=2, watch=plant)
    assert Response.objects.count() == 0 and not found.passed
    groups = [group for group, _, _ in published(two_waves[0])]
    verdicts = {group: [a.passed for a, g in zip(found.agreements, groups, strict=True) if g == group]
                for group in "AB"}
    # Group A: each wave on its own is a browser new to the series, as published; only the agreement shows the re-draw.
    assert all(item.result.passed for wave in found.waves for item in wave[:6]) and found.problems == ()
    assert not all(verdicts["A"])
    # Group B: the permanent response, the same in both waves, agreed every time.
    agree = published(two_waves[0])[6][1]
    assert [a.failures for a in found.agreements[6:]] == [(f"the two waves' reports agreed in 8 of 8 browsers "
                                                           f"(1.00000), published {float(agree):.5f}",)] * 6


def test_it_refuses_a_next_wave_with_module_draws():
    done = audit("http://127.0.0.1:9/s/one/", "--next-wave", "http://127.0.0.1:9/s/two/", "--draws", "10")
    assert done.returncode == 2 and "--next-wave audits end to end: not with --draws" in done.stderr

