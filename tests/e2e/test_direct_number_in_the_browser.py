"""A number asked directly (age in years, not randomized) end to end in Chromium: the admin types it with its
scale and bins and no epsilon; respondents answer it on the page, which says it is sent as given and draws no
random word for it, and the receipt shows the number itself; the dashboard shows its exact mean with a Student t
interval and breaks another question down by it in its bins; the reports export holds the numbers as sent and the
generated Python script gives the dashboard's mean and interval."""

import csv
import io
import json
import math
import subprocess
import sys
from statistics import mean, stdev

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import expect

import ldp
from ldp.stats.intervals import t_value
from surveys.collection import plan
from surveys.collection.models import Survey
from tests.e2e.answering import COUNT_RANDOM_WORDS
from tests.e2e.conftest import add_question
from tests.e2e.test_staff_pages import csp_violations, log_in
from tests.factories import PASSWORD, saved_total

pytestmark = pytest.mark.django_db(transaction=True)
# (age typed, cheated: 0 no / 1 yes) per respondent; ages in each bin (18-34, 35-64, 65-99), both ends of the scale.
ANSWERS = [("18", 0), ("34", 1), ("35", 0), ("50", 1), ("64", 0), ("65", 1), ("99", 0), ("27", 1)]
BOXES = ("options_text", "lo", "hi", "step", "q", "epsilon")


def visible(row, *fields):
    return [field for field in fields if row.locator(f".field-{field}").is_visible()]


def type_the_survey(page, live_server, survey):
    """The admin adds a yes/no question (q-RR) and the age asked directly, with its bins."""
    violations = csp_violations(page)
    log_in(page, f"{live_server.url}/admin/login/", "admin", f"/admin/collection/survey/{survey.pk}/change/")
    cheated = add_question(page)
    cheated.locator("[name=questions-0-text]").fill("Have you ever cheated on an exam?")
    cheated.locator("[name=questions-0-q]").fill("0.5")
    age = add_question(page)
    age.locator("[name=questions-1-text]").fill("Your age in years?")
    age.locator("[name=questions-1-kind]").select_option("numeric")
    age.locator("[name=questions-1-mechanism_name]").select_option("direct_number")
    assert age.locator("[name=questions-1-mechanism_name] option:checked").inner_text() == "Not randomized (direct)"
    assert visible(age, *BOXES) == ["options_text", "lo", "hi", "step"]  # its bins and scale; no q, no epsilon
    for name, value in (("lo", "18"), ("hi", "99"), ("step", "1"), ("options_text", "18\n35\n65")):
        age.locator(f"[name=questions-1-{name}]").fill(value)
    expect(age.locator(".field-privacy .readonly")).to_contain_text("not randomized")
    expect(page.locator("#privacy-total")).to_have_attribute(  # the q-RR question only
        "data-total", saved_total(ldp.QRandomizedResponse("0.5")))
    page.click("input[name=_continue]")
    page.wait_for_selector(".messagelist")
    assert [q.mechanism() for q in survey.ordered_questions()] == [
        ldp.QRandomizedResponse("0.5"), ldp.DirectNumber("18", "99", "1")]
    assert violations == []


def respond(page, live_server, typed, cheated):
    page.goto(f"{live_server.url}/s/ages/")
    if page.locator("#already-sent").is_visible():
        page.click("#respond-again")
    page.wait_for_selector("#send:enabled")
    questions = page.locator("fieldset.question")
    questions.nth(0).locator("input[type=radio]").nth(cheated).check()
    before = page.evaluate("globalThis.__randomCalls")
    questions.nth(1).locator("input[data-answer=number]").fill(typed)
    page.click("#send")
    page.wait_for_selector("#receipt:not([hidden])")
    return before


def test_a_direct_number_goes_from_the_admin_through_the_page_to_the_dashboard_and_scripts(live_server, page,
                                                                                            tmp_path):
    get_user_model().objects.create_superuser(username="admin", password=PASSWORD)
    survey = Survey.objects.create(slug="ages", title="Ages", epsilon_budget=1.2)
    type_the_survey(page, live_server, survey)
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.OPEN)
    cheated, age = plan.of(survey).questions

    page.context.add_init_script(COUNT_RANDOM_WORDS)
    posts = []
    page.on("request", lambda request: posts.append(request) if request.method == "POST" and "/responses/" in
            request.url else None)
    for typed, said in ANSWERS:
        respond(page, live_server, typed, said)
        sent = json.loads(posts[-1].post_data)["reports"]
        assert sent[str(age.id)] == int(typed) - 18  # the grid index, exactly as typed: not randomized
        item = page.locator("#receipt-list li").nth(1)
        expect(item.locator(".report")).to_have_text(typed)
        expect(item).to_contain_text("Sent as given (not randomized):")
    # One random word batch at most for the q-RR question: the direct number draws none of its own.
    assert page.evaluate("globalThis.__randomCalls") <= 1

    page.goto(f"{live_server.url}/s/ages/")
    if page.locator("#already-sent").is_visible():
        page.click("#respond-again")
    expect(page.locator(f"#note-{age.id}")).to_have_text("This answer is sent as you give it (not randomized).")

    ages = [int(typed) for typed, _ in ANSWERS]
    se = stdev(ages) / math.sqrt(len(ages))
    half = t_value(0.95, len(ages) - 1) * se
    page.goto(f"{live_server.url}/results/ages/?margin=0.5&by={age.id}&pilot=on")  # 8 answers: a pilot break-down
    section = page.locator(f"section[aria-labelledby='q{age.id}-heading']")
    expect(section).to_contain_text("Exact mean of the answers (not randomized: sent as given) with its 95% "
                                    "Student t interval, from 8 answers")
    # Shown to the standard error's precision (9.2: whole years); the API below has every digit.
    expect(section.locator("table.mean-estimate tbody")).to_have_text(
        f"Mean{mean(ages):.0f}{mean(ages) - half:.0f} – {mean(ages) + half:.0f}{se:.0f}")
    expect(section).to_contain_text("Student's t with 7 degrees of freedom")
    breakdown = page.locator("#relating")
    expect(breakdown).to_contain_text("Every question by question 2")
    for label in ("18 to 34", "35 to 64", "65 to 99"):
        expect(breakdown).to_contain_text(label)

    api = page.request.get(f"{live_server.url}/api/v1/surveys/ages/estimates/?interval=wilson").json()
    got = api["questions"][1]["mean"]
    assert [got[k] for k in ("mean", "std_error", "ci_low", "ci_high")] == pytest.approx(
        [mean(ages), se, mean(ages) - half, mean(ages) + half], rel=1e-12)
    crosstab = page.request.get(f"{live_server.url}/api/v1/surveys/ages/crosstab/?a={age.id}&b={cheated.id}").json()
    assert crosstab["counts"]["a"] == [3, 3, 2]  # 18, 34, 27 | 35, 50, 64 | 65, 99

    for name in ("reports.csv", "codebook.json", "analysis.py"):
        body = page.request.get(f"{live_server.url}/results/ages/export/{name}")
        assert body.status == 200, name
        (tmp_path / f"ages-{name}").write_bytes(body.body())
    rows = list(csv.DictReader(io.StringIO((tmp_path / "ages-reports.csv").read_text())))
    assert sorted(int(row["q2"]) for row in rows) == sorted(ages)  # the number itself, not its grid index
    done = subprocess.run([sys.executable, "ages-analysis.py", "--csv", "py.csv"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=120, check=True)
    assert "direct answer: not randomized" in done.stdout
    row = list(csv.DictReader((tmp_path / "py.csv").open()))[-1]
    assert (row["mechanism"], row["option_index"], row["interval"]) == ("direct_number", "mean", "t")
    assert [float(row[k]) for k in ("estimate", "std_error", "ci_low", "ci_high")] == pytest.approx(
        [got[k] for k in ("mean", "std_error", "ci_low", "ci_high")], rel=1e-12)
