"""/results/: the surveys a researcher may see."""

from django.urls import reverse

from surveys.collection import plan
from surveys.collection.models import Survey
from tests.aggregation.support import add_responses


def listing(client, user):
    client.force_login(user)
    return client.get(reverse("aggregation:surveys")).content.decode()


def test_it_lists_only_the_surveys_a_researcher_is_assigned_to(client, owner, survey):
    Survey.objects.create(slug="secret", title="Secret survey")
    html = listing(client, owner)
    assert 'href="/results/health/"' in html
    assert "Secret survey" not in html


def test_it_lists_every_survey_for_a_superuser(client, superuser, survey):
    Survey.objects.create(slug="secret", title="Secret survey")
    html = listing(client, superuser)
    assert "Health" in html and "Secret survey" in html


def test_it_says_so_when_nothing_is_shared(client, other_researcher, survey):
    html = listing(client, other_researcher)
    assert "Health" not in html and "No survey" in html


def test_it_shows_responses_questions_and_epsilon(client, owner, survey):
    add_responses(survey, 12, seed=31)
    html = listing(client, owner)
    assert '<td class="num">12</td>' in html and '<td class="num">4</td>' in html
    assert f"{plan.of(survey).epsilon_total:.3f}" in html
    assert "<caption>" in html and '<th scope="row">' in html


def test_it_still_lists_a_survey_whose_configuration_it_cannot_read(client, owner, survey):
    survey.questions.filter(order=2).update(epsilon=50.0)
    assert "not computable" in listing(client, owner)
