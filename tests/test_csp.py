"""A strict Content-Security-Policy on every page, and no script the policy would have to allow.

Every URL of the project (the same resolver enumeration as the authorization matrix, see
tests/urls_under_test.py), requested as every role, plus the pages no URL pattern names:
error pages as the app renders them with DEBUG off (400, 403, 404, 500), forms re-shown
with errors and the admin actions' intermediate pages. For each response:

- the Content-Security-Policy header (every response, HTML or not: a JSON or CSV answer
  opened in a tab is a page too) has script-src 'self' with no 'unsafe-inline',
  'unsafe-eval' or other source, object-src 'none', base-uri 'none', frame-ancestors 'none';
- an HTML body has no inline <script> (data blocks of type application/json, as json_script
  writes them, are not scripts), no script from another origin, no inline
  event handler attribute (on...=) and no javascript: URL;
- the respondent's page /s/<slug>/ and its staff preview /s/<slug>/preview/, in every state of
  its survey (open, by invitation, closed, not yet open, ended, draft, unknown), and a series'
  stable link /w/<slug>/ send Referrer-Policy: no-referrer.
"""

import re
from html.parser import HTMLParser
from urllib.parse import urlsplit

import pytest
from django.contrib import admin

from surveys.aggregation.results import service as results
from surveys.collection import submission
from surveys.collection.models import Survey
from tests.factories import valid_payload
from tests.urls_under_test import ROLES, World, action_rows, cases, kept_rows, label

CASES = cases()
SURVEY_PAGES = {"collection:respond", "collection:preview", "collection:current-wave"}
MUST_BE_NONE = ("object-src", "base-uri", "frame-ancestors")
DATA_BLOCK_TYPES = {"application/json"}
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data"}


@pytest.fixture(scope="class")
def shared_world(django_db_setup, django_db_blocker):
    """Built once for the class (urls_under_test.kept_rows) rather than for each of its ~150 tests."""
    with kept_rows(django_db_blocker):
        with django_db_blocker.unblock():
            world = World.made()
            link = world.surveys["link"]
            submission.submit(link, valid_payload(link))  # dashboards with charts, admin pages of a frozen survey
        yield world


@pytest.fixture
def world(shared_world, db, settings):
    if hasattr(settings, "SUBMISSION_RATE"):
        settings.SUBMISSION_RATE = None
    return shared_world.fresh()


def policy_problems(header: str | None) -> list[str]:
    if not header:
        return ["no Content-Security-Policy header"]
    directives = {}
    for part in header.split(";"):
        tokens = part.split()
        if tokens:
            directives.setdefault(tokens[0].lower(), tokens[1:])
    problems = []
    script = directives.get("script-src")
    if script is None:
        problems.append("no script-src directive")
    elif script != ["'self'"]:
        problems.append(f"script-src {' '.join(script)} (want 'self' and nothing else)")
    for name, sources in directives.items():
        if name.startswith("script-src") and any(s.lower().startswith("'unsafe-") for s in sources):
            problems.append(f"{name} {' '.join(sources)} allows unsafe scripts")
    for name in MUST_BE_NONE:
        if directives.get(name) != ["'none'"]:
            problems.append(f"{name} is {' '.join(directives.get(name, ['missing']))}, not 'none'")
    return problems


class ScriptAudit(HTMLParser):
    """Everything in a page that a script-src 'self' policy would block (or should never see)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems = []
        self._inline_script = None

    def handle_starttag(self, tag, attrs):
        named = dict(attrs)
        for name, value in attrs:
            if re.fullmatch(r"on[a-z]+", name):
                self.problems.append(f"<{tag} {name}=...>: inline event handler")
            if name in URL_ATTRIBUTES and (value or "").strip().lower().startswith("javascript:"):
                self.problems.append(f"<{tag} {name}={value!r}>: javascript: URL")
        if tag != "script":
            return
        src = named.get("src")
        if src is None:
            kind = (named.get("type") or "").strip().lower()
            self._inline_script = None if kind in DATA_BLOCK_TYPES else f"<script type={kind!r}>"
        elif urlsplit(src).netloc or urlsplit(src).scheme:
            self.problems.append(f"<script src={src!r}>: not from this site")

    def handle_data(self, data):
        if self._inline_script and data.strip():
            self.problems.append(f"{self._inline_script}: inline script {data.strip()[:60]!r}")
            self._inline_script = None

    def handle_endtag(self, tag):
        if tag == "script":
            self._inline_script = None


def page_problems(response, survey_page: bool = False) -> list[str]:
    problems = policy_problems(response.get("Content-Security-Policy"))
    if survey_page and response.get("Referrer-Policy") != "no-referrer":
        problems.append(f"Referrer-Policy {response.get('Referrer-Policy')!r} on a survey page, not 'no-referrer'")
    if response.get("Content-Type", "").startswith("text/html"):
        audit = ScriptAudit()
        audit.feed(response.body.decode(response.charset or "utf-8"))
        audit.close()
        problems += audit.problems
    return problems


def assert_clean(responses: dict, survey_page: bool = False):
    """responses: role (or label) -> response; every problem, by role, in one assertion."""
    problems = {who: page_problems(response, survey_page) for who, response in responses.items()}
    assert {who: found for who, found in problems.items() if found} == {}


# -- pages no URL pattern names ------------------------------------------------------------------


ACTION_ROWS = action_rows()


def test_the_admin_registry_is_what_the_action_pages_cover():
    assert {label(model) for model, _ in ACTION_ROWS} == {label(model) for model in admin.site._registry}


# -- the pages of a survey of multi-select, numeric and ordinal questions (checkboxes, number inputs, mean and histogram
# charts) --

@pytest.mark.slow
def test_the_pages_of_the_new_kinds_have_a_strict_policy_and_no_inline_script(db, settings, kinds_survey, owner,
                                                                             other_researcher, superuser):
    from surveys.collection import builder

    settings.SUBMISSION_RATE = None
    builder.simulate_responses(kinds_survey, 300, {}, seed=81)
    world = World.build(kinds_survey, owner, other_researcher, superuser)
    ids = [q.pk for q in kinds_survey.ordered_questions()]
    pages = {
        "survey page": ("anonymous", "/s/kinds/"),
        "preview": ("superuser", "/s/kinds/preview/"),
        "dashboard with charts": ("owner", f"/results/kinds/?margin=0.5&a={ids[0]}&b={ids[4]}&by={ids[3]}"),
        "dashboard refusing a mean": ("owner", f"/results/kinds/?a={ids[1]}&b={ids[0]}"),
        "admin survey, frozen": ("superuser", f"/admin/collection/survey/{kinds_survey.pk}/change/"),
        "admin question": ("superuser", f"/admin/collection/question/{ids[3]}/change/"),
        "figures": ("superuser", "/admin/collection/survey/privacy-figures/?mechanism=onebit&epsilon=1&lo=0&hi=9"
                                 "&step=1"),
    }
    responses = {name: world.get(role, path) for name, (role, path) in pages.items()}
    assert {name: r.status_code for name, r in responses.items()} == {**dict.fromkeys(pages, 200),
                                                                       "dashboard refusing a mean": 400}
    assert_clean(responses)
    body = responses["survey page"].body.decode()
    assert 'type="number"' in body and 'type="checkbox"' in body
    assert "chart mean" in responses["dashboard with charts"].body.decode()


class TestEveryPage:
    """In one world, built once for the class (shared_world); each test's own writes are rolled back."""

    @pytest.mark.slow
    @pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
    def test_every_url_answers_every_role_with_a_strict_policy_and_no_inline_script(self, world, case):
        assert_clean({role: world.request(role, case) for role in ROLES}, survey_page=case.url.key in SURVEY_PAGES)

    def test_the_pages_checked_include_the_html_pages_of_every_kind(self, world):
        """The checks above only bite on HTML: make sure the main pages really are HTML pages."""
        world.surveys.all()
        pages = {
            "survey page": ("anonymous", "/s/health/"),
            "survey closed": ("anonymous", "/s/closed/"),
            "researchers' login": ("anonymous", "/accounts/login/"),
            "survey list": ("owner", "/results/"),
            "dashboard": ("owner", "/results/health/"),
            "admin index": ("superuser", "/admin/"),
            "admin survey": ("superuser", f"/admin/collection/survey/{world.surveys['link'].pk}/change/"),
            "admin login": ("anonymous", "/admin/login/"),
            "not found": ("anonymous", "/s/no-such-survey/"),
        }
        kinds = {name: world.get(role, path)["Content-Type"] for name, (role, path) in pages.items()}
        assert kinds == dict.fromkeys(pages, "text/html; charset=utf-8")
        assert "<script" in world.get("anonymous", "/s/health/").body.decode()  # the audit has scripts to look at

    def test_the_404_page_for_an_unknown_address(self, world):
        assert_clean({role: world.get(role, "/no-such-page/") for role in ROLES})

    def test_the_404_page_for_a_survey_nobody_may_see(self, world):
        response = world.get("owner", "/results/no-such-survey/")
        assert response.status_code == 404
        assert_clean({"owner": response})

    def test_the_403_page_for_a_form_posted_without_its_csrf_token(self, world):
        response = world.post("anonymous", "/accounts/login/", {"username": "x", "password": "y"}, form=True,
                              csrf=False)
        assert response.status_code == 403
        assert_clean({"anonymous": response})

    def test_the_400_page_for_a_request_to_a_host_not_served(self, world):
        response = world.get("anonymous", "/s/health/", HTTP_HOST="elsewhere.example")
        assert response.status_code == 400
        assert_clean({"anonymous": response})

    def test_the_500_page(self, world, monkeypatch):
        def broken(surveys):
            raise RuntimeError("a bug")

        monkeypatch.setattr(results, "overview", broken)
        response = world.get("owner", "/results/")
        assert response.status_code == 500
        assert_clean({"owner": response})

    def test_the_dashboard_with_a_bad_parameter(self, world):
        response = world.get("owner", "/results/health/?confidence=2")
        assert response.status_code == 400
        assert_clean({"owner": response})

    @pytest.mark.parametrize("path", ["/accounts/login/", "/admin/login/"])
    def test_a_login_form_shown_again_with_its_error(self, world, path):
        response = world.post("anonymous", path, {"username": "owner", "password": "wrong"}, form=True)
        assert response.status_code == 200
        assert_clean({"anonymous": response})

    def test_an_admin_form_shown_again_with_its_errors(self, world):
        response = world.post("superuser", "/admin/collection/survey/add/", {"title": ""}, form=True)
        assert response.status_code == 200
        assert_clean({"superuser": response})

    @pytest.mark.parametrize("model,name", ACTION_ROWS, ids=[f"{label(m)}:{n}" for m, n in ACTION_ROWS])
    def test_each_admin_actions_own_page(self, world, model, name):
        """What an action answers a superuser with (a confirmation, a form, or back to the list)."""
        subject = world.surveys["invitation"] if model is Survey else world.admin_object(model._meta.app_label,
                                                                                         model._meta.model_name)
        path = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        response = world.post("superuser", path, {"action": name, "_selected_action": [subject.pk], "index": "0"},
                              form=True)
        assert response.status_code in (200, 302)
        assert_clean({"superuser": response})

    def test_a_series_link_whose_waves_are_all_closed(self, world):
        """The stable link's closed page (the walk above sees it redirect to the open wave)."""
        Survey.objects.filter(pk=world.surveys["link"].pk).update(status=Survey.Status.CLOSED)
        response = world.get("anonymous", f"/w/{world.surveys['link'].series.slug}/")
        assert response.status_code == 410
        assert_clean({"anonymous": response}, survey_page=True)
