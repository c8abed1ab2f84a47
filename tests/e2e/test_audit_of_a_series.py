"""The audit of a series' pages (bench/audit_randomizer.py --next-wave, bench/audit_waves.py): browsers new to the
series answer two waves with the same truth; each remembered question's two reports must agree as its two published
layers say. The honest pages pass (and nothing is stored); a page that re-draws the permanent response each wave, and
one that sends it without the instantaneous layer, fail.

Power, from the integers (ldp.wave_agreement), sets the number of browsers: 8, so 16 loads of a page per audit and
three audits. Two groups of six 8-option questions make the two wrong pages visible. Group A (a weak permanent layer,
eps 0.5, under a strong instantaneous one, eps 6) agrees with probability 0.9853 when the permanent response is kept
and 0.1299 when it is re-drawn: at the family's level (alpha 10^-3 over 1,548 cells) a question is flagged at 2 or
fewer agreements of 8, which a re-drawing page gives with probability 0.926 per question, so all six miss it with
probability 1.6e-7 (at 6 browsers 3e-5). Group B (a strong permanent layer, eps 5, under a weak instantaneous one, eps
0.5) agrees with probability 0.1299: 8 agreements of 8, what a page sending the permanent response alone always
gives, is flagged for every question; 6 browsers could not flag it (the interval for 6 of 6 reaches down to 0.09).
The honest pages pass but for a false alarm at rate at most alpha.
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
# The two wrong pages, each one line of the honest code swapped.
REDRAWN = ("const seed = personalization(series, lineage, value, sampler);",
           "const seed = personalization(series, lineage, `${value}|${Math.random()}`, sampler);")
ALONE = ("return instantly(question.sampler, permanent, nextWord);", "return permanent;")


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


def planted(swap, script):
    def plant(tab):
        serve_modified(tab, f"static/js/{script}", swap)
    return plant


def run_planted(live_server, two_waves, page, swap, script):
    plant = planted(swap, script)
    first, second = urls(live_server, two_waves)
    plant(page)
    page.goto(first)
    assert swap[1] in served_text(page, f"/static/js/{script}")  # the swap took
    found = audit_series(page, (first, second), BROWSERS, alpha=1e-3, tabs=2, watch=plant)
    assert Response.objects.count() == 0 and not found.passed
    return found, [group for group, _, _ in published(two_waves[0])]


def test_a_page_re_drawing_the_permanent_response_each_wave_fails(live_server, two_waves, page):
    found, groups = run_planted(live_server, two_waves, page, REDRAWN, "remember.js")
    # Each wave on its own is a browser new to the series, as published: only the agreement shows the re-draw.
    assert all(item.result.passed for wave in found.waves for item in wave) and found.problems == ()
    verdicts = {group: [a.passed for a, g in zip(found.agreements, groups, strict=True) if g == group]
                for group in "AB"}
    assert verdicts["B"] == [True] * 6 and not all(verdicts["A"])


def test_a_page_sending_the_permanent_response_alone_fails(live_server, two_waves, page):
    found, groups = run_planted(live_server, two_waves, page, ALONE, "respond.js")
    failed = [(g, a.failures) for a, g in zip(found.agreements, groups, strict=True) if not a.passed]
    agree = published(two_waves[0])[6][1]
    assert failed == [("B", (f"the two waves' reports agreed in 8 of 8 browsers (1.00000), published "
                             f"{float(agree):.5f}",))] * 6
    assert [a.agreed for a in found.agreements][6:] == [BROWSERS] * 6


def test_it_refuses_a_next_wave_with_module_draws():
    done = audit("http://127.0.0.1:9/s/one/", "--next-wave", "http://127.0.0.1:9/s/two/", "--draws", "10")
    assert done.returncode == 2 and "--next-wave audits end to end: not with --draws" in done.stderr

