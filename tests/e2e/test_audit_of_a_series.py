"""The audit of a series' pages (bench/audit_randomizer.py --next-wave, bench/audit_waves.py): browsers new to the
series answer two waves, with the same truth or (--changed) a changed one; each remembered question's two reports
must agree as its two published layers say. The honest pages pass (and nothing is stored); a page that re-draws the
permanent response each wave, one that sends it without the instantaneous layer, and one that reuses it after the
answer changed, fail.

Power, from the integers (ldp.waves.agreement), sets the number of browsers: 8, so 16 page loads per audit, and two
audits: the honest pages through the command, and one planted page wrong in all three ways, each on its own group of
questions (each question's verdict depends on its own reports alone). Three groups of six 8-option questions make the
wrong pages visible; the family is 2,322 cells at alpha 10^-3. Group A (a weak permanent layer, eps 0.5, under a
strong instantaneous one, eps 6; the same answer) agrees with probability 0.9662 when the permanent response is kept
and 0.1297 when it is re-drawn: a question is flagged at 2 or fewer agreements of 8, which a re-drawing page gives
with probability 0.926 per question, so all six miss it with probability 1.6e-7 (at 6 browsers 3e-5). Group B (a
strong permanent layer, eps 5, under a weak instantaneous one, eps 0.5; the same answer) agrees with probability
0.1299: 8 of 8, what a page sending the permanent response alone always gives, is flagged for every question; 6
browsers could not flag it (the interval for 6 of 6 reaches down to 0.083). Group C (eps 5 and 5; the answer changes)
agrees with probability 0.0238 when the new answer gets a new permanent response and 0.9122 when the old one is
reused: flagged at 6 or more of 8, probability 0.973 per question, all six missing it 3.9e-10. The honest pages pass
but for a false alarm at rate at most alpha. Measured: about 22 to 24 CPU-s for the command's audit and 28 to 35
for the planted one (1.2 to 2 CPU-s a load: the questions are each derived through HMAC-DRBG, and every request is
routed through Playwright).
"""

import pytest

from bench.audit_waves import audit_series
from ldp.waves.agreement import composed_sampler, independent_agreement, remembered_agreement
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
GROUP_C = [QuestionSpec(f"C {i}?", "krr", epsilon=5.0, options=OPTIONS) for i in range(6)]
PERMANENT = {"A": 0.5, "B": 5.0, "C": 5.0}
# The three wrong pages in one (the audit's per-question verdicts are independent, so one run shows all three): group
# C's first permanent response kept and reused whatever the answer, group B's sent without the instantaneous layer,
# group A's re-drawn in every wave (a seed that is new each time).
HONEST = "      return instantly(question.sampler, permanent, nextWord);"  # waves.js, a wave's page's hooks
WRONG = (HONEST, """      if (question.order > 12) {
        const kept = JSON.parse(storage().getItem(`reused:${question.remembered.lineage}`) || "null") ?? permanent;
        storage().setItem(`reused:${question.remembered.lineage}`, JSON.stringify(kept));
        return instantly(question.sampler, kept, nextWord);
      }
      if (question.order > 6) return permanent;
      const redrawn = await permanentResponse(secret, `${series.id}|${Math.random()}`, question.remembered.lineage,
        answer, question.remembered.sampler);
      return instantly(question.sampler, redrawn, nextWord);""")


@pytest.fixture
def two_waves(db):
    series = Series.objects.create(title="Quarterly")
    first = builder.create_survey("quarterly", "Quarterly", GROUP_A + GROUP_B + GROUP_C, status=Survey.Status.OPEN,
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
    """Per question, in order: (group, its published agreement, the wrong page's): for the same answer one permanent
    response against a re-drawn one; for group C's changed answer two independent ones against one reused."""
    found = []
    for question in survey.ordered_questions():
        layers = question.remembered()
        permanent, instant = layers.permanent.sampler(), layers.instant.sampler()
        composed = composed_sampler(permanent, instant)
        kept = remembered_agreement(permanent, instant, instant)
        group = question.text[0]
        found.append((group, independent_agreement(composed, composed, 0, 1), kept) if group == "C" else
                     (group, kept, independent_agreement(composed, composed, 0, 0)))
    return found


def test_the_command_passes_the_honest_waves_and_says_what_it_would_catch(live_server, two_waves):
    first, second = urls(live_server, two_waves)
    changed = [q.id for q in two_waves[0].ordered_questions() if q.text[0] == "C"]
    done = audit(first, "--next-wave", second, "--changed", ",".join(map(str, changed)), "--forms", str(BROWSERS))
    assert done.returncode == 0, done.stdout + done.stderr
    assert Response.objects.count() == 0

    lines = done.stdout.splitlines()
    waves_ids = [[q.id for q in survey.ordered_questions()] for survey in two_waves]
    count = len(waves_ids[0])
    rows = [line.split() for line in lines[1:1 + 4 * count:2]]  # both waves' questions, each with its note
    assert [int(row[0]) for row in rows] == waves_ids[0] + waves_ids[1]
    composed = [float(q.remembered().wave_epsilon) for q in two_waves[0].ordered_questions()]
    assert [float(row[3]) for row in rows] == pytest.approx(composed * 2, abs=5e-5)  # the composed channel's
    assert all(row[5] == "pass" for row in rows)

    header = 1 + 4 * count
    assert lines[header].split() == ["question", "in", "wave", "browsers", "agreed", "published", "result"]
    for n, (group, agree, wrong) in enumerate(published(two_waves[0])):
        row, note = lines[header + 1 + 2 * n].split(), lines[header + 2 + 2 * n].strip()
        assert [int(row[0]), int(row[1]), int(row[2])] == [waves_ids[0][n], waves_ids[1][n], BROWSERS]
        assert (float(row[4]), row[5]) == (round(float(agree), 4), "pass")
        se = float(agree * (1 - agree) / BROWSERS) ** 0.5
        said = f"{row[3]} of {BROWSERS} agreed, published {float(agree):.4f} (binomial SE {se:.4f}); a page "
        if group == "C":
            assert note == f"a changed answer: {said}reusing the old permanent response ({float(wrong):.4f}): caught"
            continue
        caught = {"A": ("caught", "NOT caught"), "B": ("NOT caught", "caught")}[group]
        assert note == (f"{said}re-drawing the permanent response each wave ({float(wrong):.4f}): {caught[0]}; "
                        f"sending it without the instantaneous layer (1): {caught[1]}")
    assert lines[-1].startswith(f"{2 * count} of {2 * count} questions pass, {count} of {count} agree across the "
                                f"waves ({BROWSERS} browsers through both waves in ")


def test_a_page_re_drawing_sending_alone_or_reusing_the_permanent_response_fails(live_server, two_waves, page):
    def plant(tab):
        serve_modified(tab, "static/js/waves.js", WRONG)

    first, second = urls(live_server, two_waves)
    plant(page)
    page.goto(first)
    assert WRONG[1] in served_text(page, "/static/js/waves.js")  # the swap took
    changed = frozenset(q.id for q in two_waves[0].ordered_questions() if q.text[0] == "C")
    found = audit_series(page, (first, second), BROWSERS, alpha=1e-3, tabs=1, watch=plant, changed=changed)
    assert Response.objects.count() == 0 and not found.passed and found.problems == ()
    expected = published(two_waves[0])
    verdicts = {group: [a.passed for a, (g, _, _) in zip(found.agreements, expected, strict=True) if g == group]
                for group in "ABC"}
    # Group A: each wave on its own is a browser new to the series, as published; only the agreement shows the re-draw.
    assert all(item.result.passed for wave in found.waves for item in wave[:6])
    assert not all(verdicts["A"]) and not all(verdicts["C"])
    # Group B: the permanent response, the same in both waves, agreed every time.
    assert [a.failures for a in found.agreements[6:12]] == [(f"the two waves' reports agreed in 8 of 8 browsers "
                                                             f"(1.00000), published {float(expected[6][1]):.5f}",)] * 6


def test_it_refuses_a_next_wave_with_module_draws_and_changed_answers_without_a_next_wave():
    one, two = "http://127.0.0.1:9/s/one/", "http://127.0.0.1:9/s/two/"  # refused before anything is loaded
    done = audit(one, "--next-wave", two, "--draws", "10")
    assert done.returncode == 2 and "--next-wave audits end to end: not with --draws" in done.stderr
    alone = audit(one, "--changed", "3")
    assert alone.returncode == 2 and "--changed needs --next-wave" in alone.stderr
    wrong = audit(one, "--next-wave", two, "--changed", "3,x")
    assert wrong.returncode == 2 and "--changed takes question ids separated by commas" in wrong.stderr

