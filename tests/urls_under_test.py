"""Every URL the project serves, enumerated from the resolver, and a world to request them in.

Shared by tests/test_authorization.py (who gets which status) and tests/test_csp.py (which
headers every HTML page sends). The URL list is not written by hand: it is the resolver's
own list (the admin site's patterns included), so a URL added later appears here by itself
and fails the authorization matrix until somebody gives it a row there.

A request under test is a `Case`: a URL pattern, an HTTP method and a subject, the object the
URL's arguments are filled from (which survey a slug names, which app an admin app index
shows); `cases()` lists them all. `World` holds the fixed cast, the surveys and the admin
objects; `World.request(role, case)` makes the request as that role, the way a browser
would: one cookie jar per role, logged in through a session, CSRF enforced, the CSRF token
taken from the cookie the respondent's page sets.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from datetime import timedelta

from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import transaction
from django.test import Client, override_settings
from django.urls import URLResolver, get_resolver
from django.utils import timezone
from django_otp.plugins.otp_totp.models import TOTPDevice

from surveys.aggregation.models import MarginShare, PopulationMargin
from surveys.collection import builder, invitations, plan
from surveys.collection.models import Question, Series, Survey
from surveys.history.models import ConfigurationChange
from tests.factories import HEALTH_QUESTIONS, PASSWORD, make_user, valid_payload

# The roles, in the column order of the matrix.
ROLES = ("anonymous", "respondent", "owner", "other_researcher", "staff", "staff_viewer", "superuser")
ROLE_HELP = {
    "anonymous": "not logged in",
    "respondent": "not logged in, holds a valid invitation token (sends it where a respondent does)",
    "owner": "a researcher assigned to the surveys (Survey.researchers)",
    "other_researcher": "a researcher assigned to none of them",
    "staff": "is_staff, no model permissions",
    "staff_viewer": "is_staff with view permission on surveys and questions only",
    "superuser": "is_superuser",
}

# Which survey a <slug> names. The respondent's URLs are requested for every state a survey
# can be in; the researchers' URLs for the open survey their owner is assigned to.
SURVEY_SUBJECTS = {
    "link": "open, anyone with the link may answer",
    "invitation": "open, invitation links only",
    "closed": "closed",
    "not-yet": "open, but its opening date is tomorrow",
    "ended": "open, but its closing date has passed",
    "draft": "a draft: not published",
    "unknown": "no survey has this slug",
}
# (url, method) requested for every survey subject; other URLs with a slug name the "link" survey.
EVERY_SURVEY = {("collection:respond", "GET"), ("collection:preview", "GET"), ("collection:api-survey", "GET"),
                ("collection:api-responses", "POST")}
UNKNOWN_SLUG = "no-such-survey"

# The methods each URL is requested with: GET, and POST where the view acts on a POST.
METHODS = {
    "logout": ("GET", "POST"),
    "admin:logout": ("GET", "POST"),
    "collection:api-responses": ("GET", "POST"),
    "admin:collection_survey_open": ("GET", "POST"),
    "admin:collection_survey_close": ("GET", "POST"),
    "admin:collection_survey_new_wave": ("GET", "POST"),
    "admin:collection_survey_translate": ("GET", "POST"),
    "two-factor": ("GET", "POST"),
    "aggregation:margins": ("GET", "POST"),
    "aggregation:api-margins": ("GET", "PUT"),
}

# Query strings a view needs to do its work (rather than refuse a malformed request); a function
# makes it from the survey the case names (question ids are the survey's own).
def _two_questions(survey: Survey) -> str:
    """The first two questions a cross-tab takes (a numeric question asked for its mean has no table)."""
    first, second, *rest = [q for q in plan.of(survey) if q.relatable]
    return f"?a={first.id}&b={second.id}"


def _relating(survey: Survey) -> str:
    """The dashboard with its cross-tab and break-down shown, so the walks see them."""
    return _two_questions(survey) + f"&by={survey.ordered_questions().first().pk}"


def _model(survey: Survey) -> str:
    """A model of the first randomized yes/no question or numeric mean (refused while the survey has too few
    responses)."""
    outcome = next(q for q in plan.of(survey) if q.mechanism.randomized and (q.mechanism.yes_no
                                                                              or q.mechanism.estimates_mean))
    return f"?outcome={outcome.id}"


QUERIES = {
    "admin:autocomplete": "?app_label=collection&model_name=question&field_name=survey&term=",
    "admin:collection_survey_privacy_figures": "?mechanism=krr&epsilon=1&k=4",
    "admin:collection_survey_privacy_total": "?loss=3;0&loss=1;1",
    "aggregation:dashboard": _relating,
    "aggregation:export-crosstab": _two_questions,
    "aggregation:api-crosstab": _two_questions,
    "aggregation:api-models": _model,
    "aggregation:export-model": _model,
}

# The admin's catch-all pattern is filled with an address it has no page for.
CATCH_ALL_PATH = "no-such-page/"


@dataclass(frozen=True)
class Url:
    key: str  # "namespace:name", or "/<route>" for an unnamed pattern
    route: str  # the full route, e.g. "admin/collection/survey/<path:object_id>/change/"
    params: tuple[str, ...]


@dataclass(frozen=True)
class Case:
    url: Url
    method: str
    subject: str | None

    @property
    def key(self) -> tuple[str, str, str | None]:
        return (self.url.key, self.method, self.subject)

    @property
    def id(self) -> str:
        return f"{self.method} {self.url.key}" + (f" [{self.subject}]" if self.subject else "")


_CONVERTER = re.compile(r"<(?:[^>:]+:)?([^>]+)>")
_GROUP = re.compile(r"\(\?P<(\w+)>[^)]*\)")


def _walk(patterns, prefix="", namespace=""):
    for entry in patterns:
        text = str(entry.pattern)
        if isinstance(entry, URLResolver):
            inner = ":".join(part for part in (namespace, entry.namespace) if part)
            yield from _walk(entry.url_patterns, prefix + text, inner)
            continue
        route = prefix + text
        params = tuple(_GROUP.findall(route) + _CONVERTER.findall(_GROUP.sub("", route)))
        key = f"{namespace}:{entry.name}" if namespace and entry.name else entry.name or f"/{route}"
        yield Url(key, route, params)


def urls() -> list[Url]:
    """Every URL pattern of the project, the admin site's included."""
    found = list(_walk(get_resolver().url_patterns))
    keys = [url.key for url in found]
    duplicates = sorted({key for key in keys if keys.count(key) > 1})
    assert not duplicates, f"two URL patterns share a name: {duplicates}"
    return found


def admin_app_labels() -> list[str]:
    return sorted({model._meta.app_label for model in admin.site._registry})


def subjects(url: Url, method: str) -> tuple[str | None, ...]:
    if "slug" in url.params:
        return tuple(SURVEY_SUBJECTS) if (url.key, method) in EVERY_SURVEY else ("link",)
    if "app_label" in url.params:
        return tuple(admin_app_labels())
    return (None,)


def cases() -> list[Case]:
    return [Case(url, method, subject)
            for url in urls() for method in METHODS.get(url.key, ("GET",)) for subject in subjects(url, method)]


def action_rows() -> list[tuple]:
    """(model, action name) for every action of every registered ModelAdmin, the site's included."""
    rows = []
    for model, model_admin in admin.site._registry.items():
        names = [name for name, _ in admin.site.actions]
        names += [action if isinstance(action, str) else action.__name__ for action in model_admin.actions or ()]
        rows += [(model, name) for name in dict.fromkeys(names)]
    return rows


def label(model) -> str:
    return f"{model._meta.app_label}.{model._meta.model_name}"


def survey_with_a_question(slug, researchers=(), **fields) -> Survey:
    survey = Survey.objects.create(slug=slug, title=slug.title(), **fields)
    survey.researchers.add(*researchers)
    Question.objects.create(survey=survey, order=1, text="Cheated?", kind="yes_no", mechanism_name="qrr", q="0.5")
    return survey


# The conftest's `survey` ("health"): one question per mechanism.
# As tests/conftest.py's autouse fast_password_hashing, which does not reach a class-scoped fixture.
FAST_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@contextmanager
def kept_rows(django_db_blocker) -> Iterator[None]:
    """A transaction open for as long as the block lasts, rolled back at its end. The rows made in it (within
    `django_db_blocker.unblock()`) are there for every test run inside the block, and each test still runs
    in a savepoint of its own (pytest-django's `db` nests its atomic block in this one), so what a test writes
    vanishes after it. For a world that costs more to build than the tests that read it (a class-scoped
    fixture: the transaction must not outlive the tests that expect its rows)."""
    with django_db_blocker.unblock():
        block = transaction.atomic()
        block.__enter__()
    try:
        yield
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            block.__exit__(None, None, None)


# How each subject's survey is made (the "link" survey is the shared `survey` fixture).
def _survey_for(subject: str, owner) -> Survey:
    now, open_ = timezone.now(), {"status": Survey.Status.OPEN}
    if subject == "invitation":
        return survey_with_a_question("invited", [owner], access=Survey.Access.INVITATION, **open_)
    if subject == "closed":
        return survey_with_a_question("closed", [owner], status=Survey.Status.CLOSED)
    if subject == "not-yet":
        return survey_with_a_question("later", [owner], opens_at=now + timedelta(days=1), **open_)
    if subject == "ended":
        return survey_with_a_question("ended", [owner], opens_at=now - timedelta(days=2),
                                      closes_at=now - timedelta(days=1), **open_)
    if subject == "draft":
        return survey_with_a_question("draft", [owner])
    raise LookupError(f"no survey for subject {subject!r}")


class Surveys(dict):
    """The survey of each subject, made when first asked for (most cases need one or two)."""

    def __init__(self, link: Survey, owner):
        super().__init__(link=link)
        self.owner = owner

    def __missing__(self, subject: str) -> Survey:
        self[subject] = _survey_for(subject, self.owner)
        return self[subject]

    def get(self, subject, default=None):
        return self[subject] if subject in SURVEY_SUBJECTS and subject != "unknown" else default

    def all(self) -> list[Survey]:
        return [self[subject] for subject in SURVEY_SUBJECTS if subject != "unknown"]


def sound_margin() -> PopulationMargin:
    """A margin the rules allow (a direct question, a share per option adding up to 1), of a draft nobody else
    sees: a margin on one of the world's randomized questions would make its weighted figures and exports 409."""
    draft = builder.create_survey("margins-world", "Margins", [
        builder.QuestionSpec("Age band?", "direct", options=["Young", "Old"])], status=Survey.Status.DRAFT)
    question = draft.questions.get()
    margin = PopulationMargin.objects.create(question=question, source="Census 2021")
    for option in question.ordered_options():
        MarginShare.objects.create(margin=margin, option=option, share="0.5")
    return margin


@dataclass
class World:
    """The cast, the surveys (by subject) and one object per admin model; see `build`."""

    users: dict
    surveys: Surveys
    admin_objects: dict
    clients: dict = field(default_factory=dict)
    _token: str | None = None

    @classmethod
    def build(cls, survey, owner, other_researcher, superuser) -> World:
        """From the shared fixtures: `survey` (open, link access, owner assigned) and the cast; the survey is
        made wave 1 of a series, so its results across waves are answered too."""
        Survey.objects.filter(pk=survey.pk).update(series=Series.objects.create(title="Health"), wave=1)
        survey.refresh_from_db()
        staff = make_user("staff", is_staff=True)
        viewer = make_user("viewer", is_staff=True)
        viewer.user_permissions.add(*Permission.objects.filter(
            content_type__app_label="collection", codename__in=["view_survey", "view_question"]))
        users = {"owner": owner, "other_researcher": other_researcher, "staff": staff,
                 "staff_viewer": viewer, "superuser": superuser}
        admin_objects = {
            Survey: survey,
            Question: survey.ordered_questions().first(),
            Series: Series.objects.create(title="Monthly health"),
            get_user_model(): owner,
            Group: Group.objects.create(name="analysts"),
            TOTPDevice: TOTPDevice.objects.create(user=make_user("enrolled", is_staff=True), name="phone",
                                                  confirmed=True),
            ConfigurationChange: ConfigurationChange.objects.create(
                who="super", survey_id=survey.pk, survey="Health (health)", action="changed",
                changes=[{"field": "epsilon budget", "before": "6.0", "after": "9.0"}]),
            PopulationMargin: sound_margin(),
        }
        return cls(users, Surveys(survey, owner), admin_objects)

    @classmethod
    def made(cls, questions=None, title="Health", epsilon_budget=6.0) -> World:
        """The whole world made from nothing, for `kept_rows`: the cast and the "link" survey as tests/conftest.py
        makes them (`owner`, `other_researcher`, `superuser`, `survey`, or with `questions` a survey of those, still
        slug "health", which the matrix's Location rows name),
        every subject's survey and the respondent's invitation made up front, since rows a test makes vanish
        after it while the world lives on."""
        with override_settings(PASSWORD_HASHERS=FAST_HASHERS):
            owner, other = make_user("owner"), make_user("other")
            superuser = get_user_model().objects.create_superuser(username="super", password=PASSWORD)
            survey = builder.create_survey("health", title, questions or HEALTH_QUESTIONS, status=Survey.Status.OPEN,
                                           epsilon_budget=epsilon_budget)
            survey.researchers.add(owner)
            world = cls.build(survey, owner, other, superuser)
        world.surveys.all()
        world.token  # noqa: B018 (made now, so that it outlives each test)
        return world

    def fresh(self) -> World:
        """This world for one test: its own browsers (cookie jars) and list of users, and the surveys read
        again, so that nothing a test did to them in memory reaches the next."""
        surveys = Surveys(Survey.objects.get(pk=self.surveys["link"].pk), self.surveys.owner)
        kept = Survey.objects.in_bulk([survey.pk for survey in self.surveys.values()])
        surveys.update({subject: kept[survey.pk] for subject, survey in self.surveys.items() if subject != "link"})
        return replace(self, users=dict(self.users), surveys=surveys, clients={})

    @property
    def token(self) -> str:
        """The respondent's invitation to the "invitation" survey (unused until they post it)."""
        if self._token is None:
            (self._token,) = invitations.create(self.surveys["invitation"], 1)
        return self._token

    # -- addresses ---------------------------------------------------------------------------

    def slug(self, subject: str) -> str:
        return UNKNOWN_SLUG if subject == "unknown" else self.surveys[subject].slug

    def admin_object(self, app_label: str, model_name: str):
        for model, obj in self.admin_objects.items():
            if model._meta.app_label == app_label and model._meta.model_name == model_name:
                return obj
        raise LookupError(f"no object for the admin's {app_label}.{model_name} pages: add one to World.build")

    def path(self, case: Case) -> str:
        """The URL's path with every argument filled from real objects, plus its query string."""
        route = case.url.route
        admin_model = re.match(r"admin/(\w+)/(\w+)/", route)

        def value(name: str) -> str:
            if name == "slug":
                return self.slug(case.subject)
            if name == "series":  # collection:current-wave, the stable link of the "link" survey's series
                return self.surveys["link"].series.slug
            if name == "app_label":
                return case.subject
            if name == "url":
                return CATCH_ALL_PATH
            if name == "language":  # admin:collection_survey_translate (a language the survey can take)
                return "es"
            if name == "content_type_id":  # admin:view_on_site
                return str(ContentType.objects.get_for_model(Survey).pk)
            if name == "object_id" and route.startswith("admin/r/"):
                return str(self.surveys["link"].pk)
            if name in ("object_id", "id") and admin_model:
                return str(self.admin_object(*admin_model.groups()).pk)
            raise LookupError(f"cannot fill <{name}> of {route}: teach World.path")

        path = _GROUP.sub(lambda m: value(m.group(1)), route)  # regex groups first: (?P<name>...)
        path = _CONVERTER.sub(lambda m: value(m.group(1)), path)
        query = QUERIES.get(case.url.key, "")
        if callable(query):
            query = query(self.surveys[case.subject or "link"])
        return "/" + path.replace("^", "").replace("$", "") + query

    # -- requests ----------------------------------------------------------------------------

    def client(self, role: str) -> Client:
        """A browser for `role`: its own cookie jar, CSRF enforced, logged in through a session.

        A view that raises answers 500 here, as in production, so that it shows in the matrix."""
        if role not in self.clients:
            browser = Client(enforce_csrf_checks=True, raise_request_exception=False)
            if role in self.users:
                browser.force_login(self.users[role])
            self.clients[role] = browser
        return self.clients[role]

    def csrf_token(self, browser: Client) -> str:
        """The csrftoken cookie, as a browser gets it: from the respondent's page."""
        if "csrftoken" not in browser.cookies:
            page = browser.get(f"/s/{self.surveys['link'].slug}/")
            assert page.status_code == 200 and "csrftoken" in browser.cookies, "the survey page sets no CSRF cookie"
        return browser.cookies["csrftoken"].value

    def body(self, role: str, case: Case) -> dict | None:
        """What a POST carries: a well-formed submission for the submission API, else nothing."""
        if case.url.key == "aggregation:api-margins":
            return {"margins": []}  # a replacement that is always sound: none
        if case.url.key != "collection:api-responses":
            return None
        survey = self.surveys.get(case.subject)
        payload = valid_payload(survey) if survey else {"version": "x", "key": "y", "reports": {}}
        if role == "respondent" and survey is not None and survey.access == Survey.Access.INVITATION:
            payload["invitation"] = self.token
        return payload

    def request(self, role: str, case: Case):
        """`case` requested by `role`: a POST carries `body` and the CSRF token a page gave."""
        if case.method == "GET":
            return self.get(role, self.path(case))
        if case.method == "POST":
            return self.post(role, self.path(case), self.body(role, case))
        if case.method == "PUT":
            browser = self.client(role)
            headers = {"X-CSRFToken": self.csrf_token(browser)}
            return _read(browser.put(self.path(case), json.dumps(self.body(role, case)),
                                     content_type="application/json", headers=headers))
        raise ValueError(case.method)

    def get(self, role: str, path: str, **extra):
        return _read(self.client(role).get(path, **extra))

    def post(self, role: str, path: str, data=None, form: bool = False, csrf: bool = True):
        """POST JSON (`data` a dict), a form (`form=True`) or nothing, with the CSRF header unless told not."""
        browser = self.client(role)
        headers = {"X-CSRFToken": self.csrf_token(browser)} if csrf else {}
        if data is None:
            return _read(browser.post(path, headers=headers))
        if form:
            return _read(browser.post(path, data, headers=headers))
        return _read(browser.post(path, data, content_type="application/json", headers=headers))


def _read(response):
    """Give every response a `body`: a streamed download is read to its end (errors surface here)."""
    response.body = (b"".join(response.streaming_content) if getattr(response, "streaming", False)
                     else response.content)
    return response
