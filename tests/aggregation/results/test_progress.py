"""Progress: responses per day (one grouped query) and the survey-wide planner target, on the dashboard
with the respondent link and its QR code."""

import datetime

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

import ldp
from surveys.aggregation.charts import bars as charts
from surveys.aggregation.params import ResultOptions
from surveys.aggregation.results import progress
from surveys.aggregation.results import service as results
from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Response, Survey
from tests.aggregation.support import add_responses

TODAY = timezone.now().date()


def spread_over_days(survey, per_day):
    """Give the survey's responses the days in {days ago: how many}; returns {date: how many}."""
    keys = list(Response.objects.filter(survey=survey).order_by("pk").values_list("pk", flat=True))
    assert len(keys) == sum(per_day.values())
    start = 0
    for ago, n in per_day.items():
        Response.objects.filter(pk__in=keys[start:start + n]).update(submitted_on=TODAY - datetime.timedelta(ago))
        start += n
    return {TODAY - datetime.timedelta(ago): n for ago, n in per_day.items()}


@pytest.fixture
def other_survey(db):
    """Another survey, whose responses fall on the same days and must never be counted."""
    other = builder.create_survey("other", "Other", [QuestionSpec("Other?", "qrr", q="0.5")],
                                  status=Survey.Status.OPEN, epsilon_budget=3.0)
    add_responses(other, 9, seed=30)
    spread_over_days(other, {0: 4, 2: 5})
    return other


def test_responses_per_day_equal_a_direct_count_from_one_grouped_query(survey, other_survey):
    add_responses(survey, 17, seed=31)
    spread_over_days(survey, {0: 6, 2: 1, 5: 10})
    with CaptureQueriesContext(connection) as queries:
        counted = progress.per_day(survey)
    assert len(queries) == 1 and "GROUP BY" in queries[0]["sql"].upper()
    direct = {day: Response.objects.filter(survey=survey, submitted_on=day).count()
              for day in Response.objects.filter(survey=survey).values_list("submitted_on", flat=True).distinct()}
    assert counted == direct == {TODAY: 6, TODAY - datetime.timedelta(2): 1, TODAY - datetime.timedelta(5): 10}
    assert list(counted) == sorted(counted)


def test_the_chart_window_ends_today_with_zeros_on_quiet_days(survey):
    add_responses(survey, 5, seed=32)
    spread_over_days(survey, {1: 2, 40: 3})
    found = progress.of(results.survey_results(survey))
    assert len(found.window) == progress.WINDOW and found.window[-1].day == TODAY
    assert [d.responses for d in found.window][-2:] == [2, 0]
    assert sum(d.responses for d in found.window) == 2  # the day 40 days ago is before the window
    assert [d.responses for d in found.days] == [3, 2]  # the table keeps every day


def test_a_closed_surveys_window_ends_at_its_last_response(survey):
    add_responses(survey, 3, seed=33)
    spread_over_days(survey, {50: 3})
    Survey.objects.filter(pk=survey.pk).update(status=Survey.Status.CLOSED)
    survey.refresh_from_db()
    assert progress.of(results.survey_results(survey)).window[-1] == progress.Day(TODAY - datetime.timedelta(50), 3)


def test_the_survey_wide_target_is_the_most_any_question_needs(survey):
    add_responses(survey, 120, seed=34)
    options = ResultOptions(margin=0.1, interval="wilson")
    found = results.survey_results(survey, options)
    needed = max(ldp.respondents_needed(q.mechanism(), 0.1) for q in survey.questions.all())
    assert found.needed == needed and found.still_needed == needed - 120
    coming = progress.of(found)
    assert (coming.responses, coming.needed, coming.still_needed) == (120, needed, needed - 120)
    assert coming.percent_done == 120 * 100 // needed


def test_the_daily_chart_draws_one_bar_per_day_the_busiest_full_height(survey):
    add_responses(survey, 12, seed=35)
    spread_over_days(survey, {0: 8, 3: 4})
    chart = charts.daily_chart(progress.of(results.survey_results(survey)).window)
    assert len(chart.bars) == progress.WINDOW
    heights = {bar.title: bar.height for bar in chart.bars}
    assert heights[f"{TODAY.isoformat()}: 8"] == charts.DAILY_HEIGHT
    assert heights[f"{(TODAY - datetime.timedelta(3)).isoformat()}: 4"] == charts.DAILY_HEIGHT / 2
    assert "12 responses in these 28 days" in chart.description and chart.ticks[-1].text == TODAY.isoformat()
    assert charts.daily_chart([]) is None


def dashboard_html(client, owner, survey, query=""):
    client.force_login(owner)
    response = client.get(reverse("aggregation:dashboard", args=[survey.slug]) + query)
    assert response.status_code == 200
    return response.content.decode()


def test_the_dashboard_shows_the_target_and_how_many_more(client, owner, survey, other_survey):
    add_responses(survey, 30, seed=36)
    spread_over_days(survey, {0: 10, 1: 20})
    found = results.survey_results(survey)
    html = dashboard_html(client, owner, survey)
    assert f"{found.needed} respondents give ±5.0 points on every question" in html
    assert f"You have 30: {found.needed - 30} more needed." in html
    assert f'<progress id="progress-bar" value="30" max="{found.needed}">' in html
    assert html.count('class="chart daily"') == 1
    # The per-day table: this survey's days only, not the other survey's.
    assert f'<th scope="row">{TODAY.isoformat()}</th><td class="num">10</td>' in html
    assert f'<th scope="row">{(TODAY - datetime.timedelta(1)).isoformat()}</th><td class="num">20</td>' in html
    assert f'<th scope="row">{(TODAY - datetime.timedelta(2)).isoformat()}</th>' not in html


def test_the_dashboard_says_when_the_target_is_reached(client, owner, survey):
    add_responses(survey, 80, seed=37)
    html = dashboard_html(client, owner, survey, "?margin=0.5&interval=wilson")
    assert "on every question" in html and "You have 80: enough." in html


def test_before_any_response_it_says_so_and_draws_no_daily_chart(client, owner, survey):
    html = dashboard_html(client, owner, survey)
    assert "No responses yet: share the respondent link to start." in html
    assert 'class="chart daily"' not in html and "You have 0:" in html


def test_the_dashboard_offers_the_respondent_link_its_qr_code_and_the_copy_script(client, owner, survey):
    html = dashboard_html(client, owner, survey)
    url = "http://testserver" + reverse("collection:respond", args=[survey.slug])
    assert f'value="{url}"' in html and 'data-copy="share-url"' in html
    assert 'class="segno"' in html and f"QR code for {url}" in html
    assert '<script src="/static/js/share.js" defer></script>' in html
