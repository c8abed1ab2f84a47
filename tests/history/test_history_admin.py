"""The configuration history in the admin: every staff member reads it (the list, each change's
before/after table, and a survey's own History page); nobody adds, changes or deletes a row."""

import pytest

from surveys.history.models import ConfigurationChange
from tests.factories import make_user

CHANGES = "/admin/history/configurationchange/"


@pytest.fixture
def change(survey, superuser):
    return ConfigurationChange.objects.create(
        user=superuser, who="super", survey_id=survey.pk, survey="Health (health)", action="changed",
        changes=[{"field": "epsilon budget", "before": "6.0", "after": "9.0"},
                 {"field": "Question 7 “Drugs?”: epsilon", "before": "1.0", "after": "<b>2</b>"}])


@pytest.fixture
def staff_client(client, db):
    client.force_login(make_user("clerk", is_staff=True))  # no model permissions at all
    return client


def test_any_staff_member_reads_the_list_and_each_change(staff_client, change):
    listing = staff_client.get(CHANGES).content.decode()
    assert "Health (health)" in listing and "epsilon budget: 6.0 → 9.0" in listing
    page = staff_client.get(f"{CHANGES}{change.pk}/change/").content.decode()
    assert "<th scope=\"row\">epsilon budget</th><td>6.0</td><td>9.0</td>" in page
    assert "&lt;b&gt;2&lt;/b&gt;" in page  # values are escaped


def test_nobody_adds_changes_or_deletes_a_row_in_the_admin(admin_client, change):
    assert admin_client.get(f"{CHANGES}add/").status_code == 403
    assert admin_client.get(f"{CHANGES}{change.pk}/delete/").status_code == 403
    assert admin_client.post(f"{CHANGES}{change.pk}/delete/", {"post": "yes"}).status_code == 403
    admin_client.post(f"{CHANGES}{change.pk}/change/", {"who": "someone else"})
    admin_client.post(CHANGES, {"action": "delete_selected", "_selected_action": [change.pk], "index": "0",
                                "post": "yes"})
    assert ConfigurationChange.objects.get().who == "super"
    assert 'name="_save"' not in admin_client.get(f"{CHANGES}{change.pk}/change/").content.decode()


def test_a_row_cannot_be_changed_or_deleted_through_the_model_either(change):
    change.who = "someone else"
    with pytest.raises(ValueError, match="append-only"):
        change.save()
    with pytest.raises(ValueError, match="append-only"):
        change.delete()


def test_the_surveys_history_page_shows_its_changes_field_by_field(admin_client, survey, change):
    page = admin_client.get(f"/admin/collection/survey/{survey.pk}/history/").content.decode()
    assert "Configuration changes, field by field" in page
    assert "<th scope=\"row\">epsilon budget</th><td>6.0</td><td>9.0</td>" in page
    assert f"{CHANGES}?survey_id={survey.pk}" in page


def test_the_list_filters_by_survey(admin_client, survey, change):
    ConfigurationChange.objects.create(who="super", survey_id=survey.pk + 1, survey="Other (other)",
                                       action="created", changes=[])
    listing = admin_client.get(f"{CHANGES}?survey_id={survey.pk}").content.decode()
    assert "Health (health)" in listing and "Other (other)" not in listing


def test_a_deleted_accounts_changes_keep_its_name(change, superuser):
    superuser.delete()
    change.refresh_from_db()
    assert (change.user, change.who) == (None, "super")
