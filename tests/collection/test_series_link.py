"""A series' stable link, /w/<slug>/ (surveys.collection.views.current_wave and waves.current): it opens the
current wave, the newest wave accepting responses; with none accepting it answers as a closed wave's own link
does (410, the closed page, "opens on" for a wave still to open); while no wave is published, 404 like a draft's.
"""

import importlib
from datetime import timedelta

import pytest
from django.apps import apps
from django.utils import timezone

from surveys.collection import waves
from surveys.collection.models import Series, Survey

OPEN, CLOSED, DRAFT = Survey.Status.OPEN, Survey.Status.CLOSED, Survey.Status.DRAFT
NOW = timezone.now()
TOMORROW, NEXT_WEEK, YESTERDAY = NOW + timedelta(days=1), NOW + timedelta(days=7), NOW - timedelta(days=1)
migration = importlib.import_module("surveys.collection.migrations.0017_series_slug")


def series_of(*waves_: dict, slug: str = "monthly") -> Series:
    """A series with one wave per dict (its status and dates), numbered 1, 2, ... and slugged m1, m2, ..."""
    series = Series.objects.create(title="Monthly", slug=slug)
    for number, fields in enumerate(waves_, start=1):
        Survey.objects.create(slug=f"{slug}-w{number}", title=f"Monthly, wave {number}", series=series, wave=number,
                              **fields)
    return series


def answer(client, path="/w/monthly/"):
    """The status and where it leads: the Location of a redirect, else the page's title."""
    response = client.get(path)
    if response.status_code == 302:
        return 302, response["Location"]
    if response.status_code == 410:
        return 410, response.context["survey"].slug, response.context["not_yet"]
    return (response.status_code,)


# Each case: the waves in order, and what the link answers.
CASES = {
    "one wave open": ([{"status": OPEN}], (302, "/s/monthly-w1/")),
    "two open: the newer": ([{"status": OPEN}, {"status": OPEN}], (302, "/s/monthly-w2/")),
    "an older open, a newer closed": ([{"status": OPEN}, {"status": CLOSED}], (302, "/s/monthly-w1/")),
    "a newer draft is never current": ([{"status": OPEN}, {"status": DRAFT}], (302, "/s/monthly-w1/")),
    "a newer wave opens tomorrow: the one open now": ([{"status": OPEN}, {"status": OPEN, "opens_at": TOMORROW}],
                                                      (302, "/s/monthly-w1/")),
    "a newer wave whose closing date passed": (
        [{"status": OPEN}, {"status": OPEN, "opens_at": YESTERDAY - timedelta(days=1), "closes_at": YESTERDAY}],
        (302, "/s/monthly-w1/")),
    "none open: the newest published, closed": ([{"status": CLOSED}, {"status": CLOSED}, {"status": DRAFT}],
                                                (410, "monthly-w2", False)),
    "none open, one opens tomorrow: it, not yet": (
        [{"status": CLOSED}, {"status": OPEN, "opens_at": TOMORROW}, {"status": CLOSED}], (410, "monthly-w2", True)),
    "two still to open: the sooner": (
        [{"status": OPEN, "opens_at": TOMORROW}, {"status": OPEN, "opens_at": NEXT_WEEK}], (410, "monthly-w1", True)),
    "only drafts: not found": ([{"status": DRAFT}, {"status": DRAFT}], (404,)),
    "no wave at all: not found": ([], (404,)),
}


@pytest.mark.parametrize("made,wanted", CASES.values(), ids=CASES.keys())
def test_the_link_opens_the_current_wave_or_says_there_is_none(db, client, made, wanted):
    series_of(*made)
    assert answer(client) == wanted


def test_an_unknown_series_is_not_found(db, client):
    series_of({"status": OPEN})
    assert answer(client, "/w/no-such-series/") == (404,)


def test_the_closed_page_says_the_survey_is_closed_and_names_the_wave(db, client):
    series_of({"status": CLOSED}, {"status": CLOSED})
    page = client.get("/w/monthly/").content.decode()
    assert "Monthly, wave 2" in page and "This survey is closed" in page


def test_the_not_yet_page_gives_the_opening_date(db, client):
    series_of({"status": CLOSED}, {"status": OPEN, "opens_at": TOMORROW})
    page = client.get("/w/monthly/").content.decode()
    assert "This survey opens on" in page and "Monthly, wave 2" in page


def test_it_keeps_the_language_asked_for(db, client):
    series_of({"status": OPEN})
    assert answer(client, "/w/monthly/?lang=fr") == (302, "/s/monthly-w1/?lang=fr")


def test_it_follows_the_waves_as_they_open_and_close(db, client):
    series = series_of({"status": OPEN}, {"status": DRAFT})
    assert answer(client) == (302, "/s/monthly-w1/")
    Survey.objects.filter(series=series, wave=2).update(status=OPEN)
    assert answer(client) == (302, "/s/monthly-w2/")
    Survey.objects.filter(series=series).update(status=CLOSED)
    assert answer(client) == (410, "monthly-w2", False)


def test_nobody_keeps_a_copy_and_no_referer_is_sent(db, client):
    series_of({"status": OPEN})
    response = client.get("/w/monthly/")
    assert ("no-cache" in response["Cache-Control"], response["Referrer-Policy"]) == (True, "no-referrer")


def test_the_service_names_the_current_wave_at_a_given_time(db):
    series = series_of({"status": OPEN}, {"status": OPEN, "opens_at": TOMORROW})
    day_after = TOMORROW + timedelta(hours=1)
    found = [(c.survey.wave, c.accepting, c.survey.opens_later(now)) for now, c in (
        (None, waves.current(series)), (day_after, waves.current(series, day_after)))]
    assert found == [(1, True, False), (2, True, False)]


# -- its slug -------------------------------------------------------------------------------------

def test_a_new_series_takes_its_first_waves_slug_not_its_title(db, survey):
    survey.title = "Something guessable"
    survey.save()
    waves.run_again(survey)
    survey.refresh_from_db()
    assert survey.series.slug == survey.slug


def test_a_series_run_again_from_a_wave_slug_drops_the_wave_number_and_is_made_unique(db):
    Series.objects.create(title="Taken", slug="health")
    wave = Survey.objects.create(slug="health-wave-3", title="Health")
    waves.run_again(wave)
    wave.refresh_from_db()
    assert wave.series.slug == "health-2"


def test_a_series_made_without_a_slug_gets_one_from_its_title_made_unique(db):
    made = [Series.objects.create(title="Monthly health").slug for _ in range(3)]
    assert made == ["monthly-health", "monthly-health-2", "monthly-health-3"]


def test_the_migration_gives_each_series_its_first_waves_slug_or_its_title(db):
    first = series_of({"status": OPEN}, slug="x")
    Survey.objects.filter(series=first, wave=1).update(slug="panel-wave-1")
    second = series_of({"status": OPEN}, slug="y")
    Survey.objects.filter(series=second, wave=1).update(slug="panel")  # the same base: made unique
    empty = Series.objects.create(title="No Waves Yet", slug="z")
    migration.slug_each_series(apps, None)
    assert [Series.objects.get(pk=s.pk).slug for s in (first, second, empty)] == ["panel", "panel-2", "no-waves-yet"]


# -- in the admin ---------------------------------------------------------------------------------

def test_a_waves_admin_page_shows_the_series_link(db, client, superuser):
    series = series_of({"status": OPEN}, {"status": DRAFT})
    client.force_login(superuser)
    wave = Survey.objects.get(series=series, wave=2)
    page = client.get(f"/admin/collection/survey/{wave.pk}/change/").content.decode()
    assert 'id="series-url" class="share-url" type="text" readonly value="http://testserver/w/monthly/"' in page


def test_a_survey_in_no_series_shows_no_series_link(db, client, superuser, survey):
    client.force_login(superuser)
    page = client.get(f"/admin/collection/survey/{survey.pk}/change/").content.decode()
    assert 'id="share-url"' in page and 'id="series-url"' not in page


def test_the_series_admin_page_shows_its_link(db, client, superuser):
    series = series_of({"status": OPEN})
    client.force_login(superuser)
    page = client.get(f"/admin/collection/series/{series.pk}/change/").content.decode()
    assert "/w/monthly/" in page and 'name="slug"' in page
