"""`manage.py demo`: the demo survey, simulated responses and accounts, idempotently."""

import io
import math
from decimal import Decimal

import pytest
from django.contrib.auth import authenticate, get_user_model
from django.core.management import call_command
from django.db.models import Count

import ldp
import ldp.sequences.fractions
from surveys.collection import demo, plan
from surveys.collection.models import Question, Report, Response, Survey


def run_demo(**options):
    out = io.StringIO()
    call_command("demo", stdout=out, **options)
    return out.getvalue()


@pytest.fixture
def demo_output(db, monkeypatch):
    monkeypatch.delenv("DEMO_RESEARCHER_PASSWORD", raising=False)
    monkeypatch.delenv("DEMO_ADMIN_PASSWORD", raising=False)
    return run_demo(responses=200, seed=1)


def test_it_creates_the_demo_survey_with_its_three_questions(demo_output):
    survey = Survey.objects.get(slug="demo")
    assert survey.status == Survey.Status.OPEN and survey.is_accepting()
    qrr, bitflip, krr = survey.ordered_questions()
    assert (qrr.kind, qrr.mechanism_name, qrr.q) == ("yes_no", "qrr", Decimal("0.5"))
    assert (bitflip.kind, bitflip.mechanism_name) == ("yes_no", "bitflip")
    assert bitflip.epsilon == pytest.approx(math.log(3))
    assert (krr.kind, krr.mechanism_name, krr.k()) == ("single_choice", "krr", 4)
    assert krr.labels() == demo.DRUG_OPTIONS
    assert plan.of(survey).epsilon_total <= survey.epsilon_budget


def test_it_simulates_the_requested_responses_with_one_report_in_domain_per_question(demo_output):
    survey = Survey.objects.get(slug="demo")
    assert survey.responses.count() == 200
    assert set(survey.responses.values_list("mechanism_version", flat=True)) == {plan.of(survey).version}
    per_response = Report.objects.values("response").annotate(n=Count("id")).values_list("n", flat=True)
    assert set(per_response) == {3}
    for question in survey.ordered_questions():
        values = set(question.reports.values_list("value", flat=True))
        assert values <= set(range(question.k()))
        assert question.reports.count() == 200


def test_it_creates_a_researcher_assigned_to_the_survey_and_an_admin(demo_output):
    users = get_user_model().objects
    researcher, admin = users.get(username="researcher"), users.get(username="admin")
    assert not researcher.is_staff and not researcher.is_superuser
    assert list(researcher.visible_surveys.values_list("slug", flat=True)) == ["demo"]
    assert admin.is_staff and admin.is_superuser


def test_it_prints_the_urls_and_working_passwords(demo_output):
    for url in ("http://127.0.0.1:8000/s/demo/", "http://127.0.0.1:8000/results/demo/",
                "http://127.0.0.1:8000/admin/", "http://127.0.0.1:8000/api/v1/surveys/demo/"):
        assert url in demo_output
    assert "200 responses" in demo_output
    password = demo_output.split("(researcher / ")[1].split(")")[0]
    assert authenticate(username="researcher", password=password) is not None
    admin_password = demo_output.split("(admin / ")[1].split(")")[0]
    assert authenticate(username="admin", password=admin_password) is not None


def test_running_it_twice_adds_nothing(demo_output):
    survey = Survey.objects.get(slug="demo")
    version = plan.of(survey).version
    again = run_demo(responses=200, seed=2)
    assert "already there" in again and "200 responses" in again
    assert Survey.objects.filter(slug="demo").count() == 1
    assert Question.objects.filter(survey__slug="demo").count() == 3
    assert (Response.objects.count(), Report.objects.count()) == (200, 600)
    assert get_user_model().objects.filter(username__in=["researcher", "admin"]).count() == 2
    assert plan.of(Survey.objects.get(slug="demo")).version == version


def test_it_uses_the_researcher_password_from_the_environment(db, monkeypatch):
    monkeypatch.setenv("DEMO_RESEARCHER_PASSWORD", "a demo password for tests")
    output = run_demo(responses=10, seed=1)
    assert "(researcher / a demo password for tests)" in output
    assert authenticate(username="researcher", password="a demo password for tests") is not None


def test_the_base_url_option_changes_the_printed_urls(db):
    output = run_demo(responses=10, seed=1, base_url="https://surveys.example.org")
    assert "https://surveys.example.org/s/demo/" in output


@pytest.mark.slow
def test_the_simulated_reports_debias_to_the_stated_truth(db):
    n = 3000
    run_demo(responses=n, seed=7)
    for question in Survey.objects.get(slug="demo").ordered_questions():
        mechanism = question.mechanism()
        by_value = dict(question.reports.values("value").annotate(c=Count("id")).values_list("value", "c"))
        counts = [by_value.get(j, 0) for j in range(mechanism.k)]
        estimate = mechanism.estimate(counts, n)
        truth = demo.TRUTH[question.order]
        for j, (pi_hat, se) in enumerate(zip(estimate.estimate, estimate.std_error, strict=True)):
            assert abs(pi_hat - truth[j]) <= 4 * se, (question.order, j, pi_hat, truth[j], se)
        # and the channel is the one the ldp mechanism describes: report rates near q + pi (p - q)
        expected_rates = [mechanism.q_other + t * (mechanism.p - mechanism.q_other) for t in truth]
        assert [c / n for c in counts] == pytest.approx(expected_rates, abs=0.04)


def test_the_demo_mechanisms_are_the_documented_ones(db):
    run_demo(responses=1, seed=1)
    survey = Survey.objects.get(slug="demo")
    qrr, bitflip, krr = (q.mechanism() for q in survey.ordered_questions())
    assert qrr == ldp.QRandomizedResponse("0.5")
    assert bitflip == ldp.BitFlip(math.log(3))
    assert isinstance(krr, ldp.KaryRR) and krr == ldp.KaryRR(krr.epsilon, 4)


def test_the_demo_survey_is_planned_as_open_would_plan_it(demo_output):
    """Made open, the demo survey gets the planned size Open sets: the planner's figure for ±5 points at 95%."""
    survey = Survey.objects.get(slug=demo.SLUG)
    figure = max(ldp.anytime_respondents_needed(q.mechanism(), 0.05, 0.95) for q in survey.questions.all())
    assert (survey.planned_size, survey.planned_confidence, survey.replanned_at) == (figure, 0.95, None)
