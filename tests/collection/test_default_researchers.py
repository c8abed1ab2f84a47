"""A new survey's researchers: its creator and the members of the researchers groups are preselected in the
admin's add form (settings.SURVEY_DEFAULT_RESEARCHERS), and saved as ticked."""

import pytest
from django.contrib.auth.models import Group
from django.core.management import call_command

from surveys.collection.models import Survey
from tests.collection.test_admin import SURVEYS, add_inline_forms, new_survey_form, yes_no
from tests.factories import make_user


@pytest.fixture
def admin_client(client, superuser):
    client.force_login(superuser)
    return client


@pytest.fixture
def team(db):
    """Two researchers in the default group, one in another group, one inactive member."""
    researchers, others = Group.objects.create(name="researchers"), Group.objects.create(name="others")
    found = {name: make_user(name) for name in ("zoe", "ann", "bob")}
    found["gone"] = make_user("gone", is_active=False)
    for name in ("zoe", "ann", "gone"):
        found[name].groups.add(researchers)
    found["bob"].groups.add(others)
    return found


def test_the_researchers_group_is_preselected_with_the_creator(admin_client, superuser, team):
    form = new_survey_form(admin_client)
    assert sorted(form["researchers"]) == sorted(str(user.pk) for user in (superuser, team["ann"], team["zoe"]))
    response = admin_client.post(f"{SURVEYS}add/", add_inline_forms(form, "questions", yes_no(1, "qrr", q="0.5")))
    assert response.status_code == 302, response.content
    assert set(Survey.objects.get(slug="habits").researchers.all()) == {superuser, team["ann"], team["zoe"]}


def test_the_admin_may_untick_a_preselected_researcher(admin_client, superuser, team):
    form = new_survey_form(admin_client, researchers=team["zoe"].pk)
    response = admin_client.post(f"{SURVEYS}add/", add_inline_forms(form, "questions", yes_no(1, "qrr", q="0.5")))
    assert response.status_code == 302, response.content
    assert list(Survey.objects.get(slug="habits").researchers.all()) == [team["zoe"]]


def test_the_setting_names_the_groups(admin_client, superuser, team, settings):
    settings.SURVEY_DEFAULT_RESEARCHERS = ["others"]
    assert sorted(new_survey_form(admin_client)["researchers"]) == sorted([str(superuser.pk), str(team["bob"].pk)])


def test_the_form_says_who_is_preselected(admin_client, team):
    response = admin_client.get(f"{SURVEYS}add/")
    assert ("Who may see this survey's results. A new survey preselects the admin creating it and the members of "
            "the groups “researchers”.") in response.content.decode()


def test_the_demo_researcher_is_in_the_researchers_group(db, capsys):
    call_command("demo", responses=10, seed=1)
    assert list(Group.objects.get(name="researchers").user_set.values_list("username", flat=True)) == ["researcher"]

