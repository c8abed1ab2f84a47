"""Who may use what: every URL of the project against every role, with the exact status.

The URLs are not listed by hand: tests/urls_under_test.py enumerates the resolver's patterns
(the admin site's included) and fills their arguments with real objects. A URL added later
without a row in MATRIX fails `test_each_role_gets_the_expected_answer` and
`test_every_url_has_a_row`, so "every URL" stays true.

Roles (columns, in this order; see urls_under_test.ROLE_HELP):
    anonymous, respondent (anonymous with a valid invitation token), owner (assigned
    researcher), other (a researcher not assigned), staff (no permissions), viewer (staff with
    view permission on surveys and questions), superuser.

An expected answer is a status, or "302 <Location>" for a redirect, where {url} stands for
the requested path (with its query string).

Every URL is also requested in two sessions the admin refuses for want of the second factor,
which must get what an anonymous visitor gets (NOT_AS_ANONYMOUS lists where they may not). The
module is the one place that proves "every URL", so it is not cut down; the world is built once
per class (urls_under_test.kept_rows) rather than for each of its ~300 tests, and each test's own
writes are still rolled back after it.
"""

import functools
import re
from urllib.parse import unquote

import pytest
from django.contrib import admin
from django.utils.encoding import force_str
from django_otp.plugins.otp_totp.models import TOTPDevice

from surveys.collection.models import Survey
from tests.conftest import KINDS_QUESTIONS
from tests.factories import make_user, valid_payload
from tests.urls_under_test import ROLES, World, action_rows, cases, kept_rows, label, survey_with_a_question, urls

LOGIN = "302 /accounts/login/?next={url}"  # researchers' login, back here afterwards
ADMIN = "302 /admin/login/?next={url}"  # the admin's login (also for logged-in non-staff)
TO_ADMIN = "302 /admin/"
TO_RESULTS = "302 /results/"  # already logged in: the login page sends you on
LOGGED_OUT = "302 /accounts/login/"  # LOGOUT_REDIRECT_URL
TO_CHANGE = "302 {url}change/"  # the admin's old object URL
BACK_TO_CHANGE = "302 {parent}change/"  # from .../<id>/open/ back to .../<id>/change/
TO_WAVE = "302 /s/health/"  # a series' stable link, to its open wave
SAVED = "302 {url}?saved=1"  # the margins page after a save

CASES = cases()

MATRIX = {
    # (url, method, subject)                                         anonymous   respondent  owner       other       staff       viewer      superuser
    ("home", "GET", None):                                          (200,        200,        200,        200,        200,        200,        200),
    ("healthz", "GET", None):                                       (200,        200,        200,        200,        200,        200,        200),
    ("login", "GET", None):                                         (200,        200,        TO_RESULTS, TO_RESULTS, TO_RESULTS, TO_RESULTS, TO_RESULTS),
    ("logout", "GET", None):                                        (405,        405,        405,        405,        405,        405,        405),
    ("logout", "POST", None):                                       (LOGGED_OUT, LOGGED_OUT, LOGGED_OUT, LOGGED_OUT, LOGGED_OUT, LOGGED_OUT, LOGGED_OUT),
    # Staff enrol an authenticator app (any staff member, for their own account); others learn nothing.
    ("two-factor", "GET", None):                                    (ADMIN,      ADMIN,      404,        404,        200,        200,        200),
    ("two-factor", "POST", None):                                   (ADMIN,      ADMIN,      404,        404,        200,        200,        200),

    # The respondent's page and API, for a survey in each state (subject). Same for everybody:
    # the token travels in the link's fragment, so only the submission differs.
    ("collection:respond", "GET", "link"):                          (200,        200,        200,        200,        200,        200,        200),
    ("collection:respond", "GET", "invitation"):                    (200,        200,        200,        200,        200,        200,        200),
    ("collection:respond", "GET", "closed"):                        (410,        410,        410,        410,        410,        410,        410),
    ("collection:respond", "GET", "not-yet"):                       (410,        410,        410,        410,        410,        410,        410),
    ("collection:respond", "GET", "ended"):                         (410,        410,        410,        410,        410,        410,        410),
    ("collection:respond", "GET", "draft"):                         (404,        404,        404,        404,        404,        404,        404),
    ("collection:respond", "GET", "unknown"):                       (404,        404,        404,        404,        404,        404,        404),
    # The staff-only preview of the respondent's page, in every state (drafts too); nobody else
    # learns anything from it, not even that the survey exists.
    ("collection:preview", "GET", "link"):                          (404,        404,        404,        404,        200,        200,        200),
    ("collection:preview", "GET", "invitation"):                    (404,        404,        404,        404,        200,        200,        200),
    ("collection:preview", "GET", "closed"):                        (404,        404,        404,        404,        200,        200,        200),
    ("collection:preview", "GET", "not-yet"):                       (404,        404,        404,        404,        200,        200,        200),
    ("collection:preview", "GET", "ended"):                         (404,        404,        404,        404,        200,        200,        200),
    ("collection:preview", "GET", "draft"):                         (404,        404,        404,        404,        200,        200,        200),
    ("collection:preview", "GET", "unknown"):                       (404,        404,        404,        404,        404,        404,        404),
    ("collection:api-survey", "GET", "link"):                       (200,        200,        200,        200,        200,        200,        200),
    ("collection:api-survey", "GET", "invitation"):                 (200,        200,        200,        200,        200,        200,        200),
    ("collection:api-survey", "GET", "closed"):                     (200,        200,        200,        200,        200,        200,        200),
    ("collection:api-survey", "GET", "not-yet"):                    (200,        200,        200,        200,        200,        200,        200),
    ("collection:api-survey", "GET", "ended"):                      (200,        200,        200,        200,        200,        200,        200),
    ("collection:api-survey", "GET", "draft"):                      (404,        404,        404,        404,        404,        404,        404),
    ("collection:api-survey", "GET", "unknown"):                    (404,        404,        404,        404,        404,        404,        404),
    ("collection:api-responses", "GET", "link"):                    (405,        405,        405,        405,        405,        405,        405),
    ("collection:api-responses", "POST", "link"):                   (201,        201,        201,        201,        201,        201,        201),
    ("collection:api-responses", "POST", "invitation"):             (403,        201,        403,        403,        403,        403,        403),
    ("collection:api-responses", "POST", "closed"):                 (410,        410,        410,        410,        410,        410,        410),
    ("collection:api-responses", "POST", "not-yet"):                (410,        410,        410,        410,        410,        410,        410),
    ("collection:api-responses", "POST", "ended"):                  (410,        410,        410,        410,        410,        410,        410),
    ("collection:api-responses", "POST", "draft"):                  (404,        404,        404,        404,        404,        404,        404),
    ("collection:api-responses", "POST", "unknown"):                (404,        404,        404,        404,        404,        404,        404),
    # A series' stable link: to its current wave's page, for everybody (tests/collection/test_series_link.py has
    # each state of its waves).
    ("collection:current-wave", "GET", None):                       (TO_WAVE,    TO_WAVE,    TO_WAVE,    TO_WAVE,    TO_WAVE,    TO_WAVE,    TO_WAVE),

    # Results: assigned researchers and superusers; anybody else logged in gets 404 (the slug
    # reveals nothing), anonymous visitors are sent to log in (the API answers 403).
    ("aggregation:surveys", "GET", None):                           (LOGIN,      LOGIN,      200,        200,        200,        200,        200),
    ("aggregation:dashboard", "GET", "link"):                       (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-estimates", "GET", "link"):                (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-crosstab", "GET", "link"):                 (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-reports-csv", "GET", "link"):              (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-reports-json", "GET", "link"):             (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-codebook", "GET", "link"):                 (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-reports-dta", "GET", "link"):              (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-reports-sav", "GET", "link"):              (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-release", "GET", "link"):                  (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-synthetic-csv", "GET", "link"):            (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-synthetic-dta", "GET", "link"):            (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-synthetic-sav", "GET", "link"):            (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-reports-r", "GET", "link"):                (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-analysis-r", "GET", "link"):               (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:export-analysis-py", "GET", "link"):              (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:api-estimates", "GET", "link"):                   (403,        403,        200,        404,        404,        404,        200),
    ("aggregation:api-synthetic", "GET", "link"):                   (403,        403,        200,        404,        404,        404,        200),
    ("aggregation:api-crosstab", "GET", "link"):                    (403,        403,        200,        404,        404,        404,        200),
    # A model of the world's survey, which has too few responses: 409, reached only past the access check.
    ("aggregation:api-models", "GET", "link"):                      (403,        403,        409,        404,        404,        404,        409),
    ("aggregation:export-model", "GET", "link"):                    (LOGIN,      LOGIN,      409,        404,        404,        404,        409),
    ("aggregation:api-waves", "GET", "link"):                       (403,        403,        200,        404,        404,        404,        200),
    ("aggregation:export-waves", "GET", "link"):                    (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    # Population margins: set by the survey's researchers (the results' access rule), on the page and in the API.
    ("aggregation:margins", "GET", "link"):                         (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:margins", "POST", "link"):                        (LOGIN,      LOGIN,      SAVED,      404,        404,        404,        SAVED),
    ("aggregation:api-margins", "GET", "link"):                     (403,        403,        200,        404,        404,        404,        200),
    ("aggregation:api-margins", "PUT", "link"):                     (403,        403,        200,        404,        404,        404,        200),
    # The privacy statement: the results' access rule.
    ("aggregation:statement", "GET", "link"):                       (LOGIN,      LOGIN,      200,        404,        404,        404,        200),
    ("aggregation:api-schema", "GET", None):                        (200,        200,        200,        200,        200,        200,        200),

    # The admin: staff only; model pages by model permission.
    ("admin:index", "GET", None):                                   (ADMIN,      ADMIN,      ADMIN,      ADMIN,      200,        200,        200),
    ("admin:login", "GET", None):                                   (200,        200,        200,        200,        TO_ADMIN,   TO_ADMIN,   TO_ADMIN),
    ("admin:logout", "GET", None):                                  (TO_ADMIN,   TO_ADMIN,   TO_ADMIN,   TO_ADMIN,   405,        405,        405),
    ("admin:logout", "POST", None):                                 (TO_ADMIN,   TO_ADMIN,   TO_ADMIN,   TO_ADMIN,   LOGGED_OUT, LOGGED_OUT, LOGGED_OUT),
    ("admin:password_change", "GET", None):                         (ADMIN,      ADMIN,      ADMIN,      ADMIN,      200,        200,        200),
    ("admin:password_change_done", "GET", None):                    (ADMIN,      ADMIN,      ADMIN,      ADMIN,      200,        200,        200),
    ("admin:autocomplete", "GET", None):                            (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        200,        200),
    ("admin:jsi18n", "GET", None):                                  (ADMIN,      ADMIN,      ADMIN,      ADMIN,      200,        200,        200),
    # "View on site": the survey's public page (a draft's staff-only preview), for all staff (Django's shortcut).
    ("admin:view_on_site", "GET", None):                            (ADMIN,      ADMIN,      ADMIN,      ADMIN,      "302 http://testserver/s/health/", "302 http://testserver/s/health/", "302 http://testserver/s/health/"),
    ("admin:app_list", "GET", "auth"):                              (ADMIN,      ADMIN,      ADMIN,      ADMIN,      404,        404,        200),
    ("admin:app_list", "GET", "collection"):                        (ADMIN,      ADMIN,      ADMIN,      ADMIN,      404,        200,        200),
    ("/admin/(?P<url>.*)$", "GET", None):                           (ADMIN,      ADMIN,      ADMIN,      ADMIN,      404,        404,        404),

    ("admin:collection_survey_changelist", "GET", None):            (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        200,        200),
    ("admin:collection_survey_add", "GET", None):                   (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:collection_survey_change", "GET", None):                (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        200,        200),
    ("admin:collection_survey_delete", "GET", None):                (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:collection_survey_history", "GET", None):               (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        200,        200),
    ("/admin/collection/survey/<path:object_id>/", "GET", None):    (ADMIN,      ADMIN,      ADMIN,      ADMIN,      TO_CHANGE,  TO_CHANGE,  TO_CHANGE),
    # The survey page's own views: live privacy figures (JSON, refused in the API's shape: a 403, never the
    # admin's login redirect) for staff who may see or add surveys; the
    # Open / Close buttons POST, with change permission (the "link" survey is open: opening re-checks it).
    # A language's translation page, with change permission (an empty POST lacks the title: 400, nothing stored).
    ("admin:collection_survey_translate", "GET", None):             (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:collection_survey_translate", "POST", None):            (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        400),
    ("admin:collection_survey_privacy_figures", "GET", None):       (403,        403,        403,        403,        403,        200,        200),
    ("admin:collection_survey_privacy_total", "GET", None):         (403,        403,        403,        403,        403,        200,        200),
    ("admin:collection_survey_open", "GET", None):                  (ADMIN,      ADMIN,      ADMIN,      ADMIN,      405,        405,        405),
    ("admin:collection_survey_open", "POST", None):                 (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        BACK_TO_CHANGE),
    ("admin:collection_survey_close", "GET", None):                 (ADMIN,      ADMIN,      ADMIN,      ADMIN,      405,        405,        405),
    ("admin:collection_survey_close", "POST", None):                (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        BACK_TO_CHANGE),
    # "Run again as a new wave", with change and add permission: GET shows the costs both ways (and for a survey in
    # no series the choice); POST makes the wave (this survey's series has its setting) and goes back to the page.
    ("admin:collection_survey_new_wave", "GET", None):              (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:collection_survey_new_wave", "POST", None):             (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        BACK_TO_CHANGE),
    # XLSForms: the import page with add permission; a survey's download with view permission.
    ("admin:collection_survey_import_xlsform", "GET", None):        (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:collection_survey_xlsform", "GET", None):               (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        200,        200),
    # Series: their title and whether they remember randomization, by model permission.
    ("admin:collection_series_changelist", "GET", None):            (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:collection_series_add", "GET", None):                   (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:collection_series_change", "GET", None):                (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:collection_series_delete", "GET", None):                (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:collection_series_history", "GET", None):               (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("/admin/collection/series/<path:object_id>/", "GET", None):    (ADMIN,      ADMIN,      ADMIN,      ADMIN,      TO_CHANGE,  TO_CHANGE,  TO_CHANGE),
    ("admin:collection_question_changelist", "GET", None):          (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        200,        200),
    ("admin:collection_question_add", "GET", None):                 (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:collection_question_change", "GET", None):              (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        200,        200),
    ("admin:collection_question_delete", "GET", None):              (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:collection_question_history", "GET", None):             (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        200,        200),
    ("/admin/collection/question/<path:object_id>/", "GET", None):  (ADMIN,      ADMIN,      ADMIN,      ADMIN,      TO_CHANGE,  TO_CHANGE,  TO_CHANGE),
    ("admin:auth_user_changelist", "GET", None):                    (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:auth_user_add", "GET", None):                           (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:auth_user_change", "GET", None):                        (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:auth_user_delete", "GET", None):                        (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:auth_user_history", "GET", None):                       (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:auth_user_password_change", "GET", None):               (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("/admin/auth/user/<path:object_id>/", "GET", None):            (ADMIN,      ADMIN,      ADMIN,      ADMIN,      TO_CHANGE,  TO_CHANGE,  TO_CHANGE),
    ("admin:auth_group_changelist", "GET", None):                   (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:auth_group_add", "GET", None):                          (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:auth_group_change", "GET", None):                       (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:auth_group_delete", "GET", None):                       (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:auth_group_history", "GET", None):                      (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("/admin/auth/group/<path:object_id>/", "GET", None):           (ADMIN,      ADMIN,      ADMIN,      ADMIN,      TO_CHANGE,  TO_CHANGE,  TO_CHANGE),
    # Two-factor devices: listed and removed (a lost phone) by model permission; never added or edited here.
    ("admin:app_list", "GET", "otp_totp"):                          (ADMIN,      ADMIN,      ADMIN,      ADMIN,      404,        404,        200),
    ("admin:otp_totp_totpdevice_changelist", "GET", None):          (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:otp_totp_totpdevice_add", "GET", None):                 (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        403),
    ("admin:otp_totp_totpdevice_change", "GET", None):              (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:otp_totp_totpdevice_delete", "GET", None):              (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:otp_totp_totpdevice_history", "GET", None):             (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("/admin/otp_totp/totpdevice/<path:object_id>/", "GET", None):  (ADMIN,      ADMIN,      ADMIN,      ADMIN,      TO_CHANGE,  TO_CHANGE,  TO_CHANGE),
    # Population margins (what weighted figures are raked to): superusers only, like the devices.
    ("admin:app_list", "GET", "aggregation"):                       (ADMIN,      ADMIN,      ADMIN,      ADMIN,      404,        404,        200),
    ("admin:aggregation_populationmargin_changelist", "GET", None): (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:aggregation_populationmargin_add", "GET", None):        (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:aggregation_populationmargin_change", "GET", None):     (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:aggregation_populationmargin_delete", "GET", None):     (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("admin:aggregation_populationmargin_history", "GET", None):    (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        200),
    ("/admin/aggregation/populationmargin/<path:object_id>/", "GET", None): (ADMIN, ADMIN, ADMIN, ADMIN, TO_CHANGE, TO_CHANGE, TO_CHANGE),
    # The configuration history: every staff member reads it; nobody adds, changes or deletes a row.
    ("admin:app_list", "GET", "history"):                           (ADMIN,      ADMIN,      ADMIN,      ADMIN,      200,        200,        200),
    ("admin:history_configurationchange_changelist", "GET", None):  (ADMIN,      ADMIN,      ADMIN,      ADMIN,      200,        200,        200),
    ("admin:history_configurationchange_add", "GET", None):         (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        403),
    ("admin:history_configurationchange_change", "GET", None):      (ADMIN,      ADMIN,      ADMIN,      ADMIN,      200,        200,        200),
    ("admin:history_configurationchange_delete", "GET", None):      (ADMIN,      ADMIN,      ADMIN,      ADMIN,      403,        403,        403),
    ("admin:history_configurationchange_history", "GET", None):     (ADMIN,      ADMIN,      ADMIN,      ADMIN,      200,        200,        200),
    ("/admin/history/configurationchange/<path:object_id>/", "GET", None): (ADMIN, ADMIN,    ADMIN,      ADMIN,      TO_CHANGE,  TO_CHANGE,  TO_CHANGE),
}

# Admin actions (POSTed to a changelist), by model: the answer, and whether the action ran.
OUT = (ADMIN, False)  # not staff: to the admin's login, nothing done
NO_PERMISSION = (403, False)  # staff without view permission on the model
NOT_OFFERED = (200, False)  # no action the user may run: the changelist again, nothing done
RAN_BACK = ("302 {url}", True)  # ran, back to the changelist with a message
RAN_PAGE = (200, True)  # ran, and answered with its own page (a confirmation, a form)

ACTIONS = {
    # (model, action, selected)                         anonymous respondent owner other staff  viewer  superuser
    # Opening, closing and making invitations change a survey: they need change permission.
    ("collection.survey", "open_surveys", "invitation"):       (OUT, OUT, OUT, OUT, NO_PERMISSION, NOT_OFFERED, RAN_BACK),
    ("collection.survey", "close_surveys", "invitation"):      (OUT, OUT, OUT, OUT, NO_PERMISSION, NOT_OFFERED, RAN_BACK),
    ("collection.survey", "create_invitations", "invitation"): (OUT, OUT, OUT, OUT, NO_PERMISSION, NOT_OFFERED, RAN_PAGE),
    ("collection.survey", "delete_selected", "invitation"):    (OUT, OUT, OUT, OUT, NO_PERMISSION, NOT_OFFERED, RAN_PAGE),
    ("collection.survey", "purge_responses", "invitation"):    (OUT, OUT, OUT, OUT, NO_PERMISSION, NOT_OFFERED, RAN_PAGE),
    ("collection.series", "delete_selected", None):            (OUT, OUT, OUT, OUT, NO_PERMISSION, NO_PERMISSION, RAN_PAGE),
    ("collection.question", "delete_selected", None):          (OUT, OUT, OUT, OUT, NO_PERMISSION, NOT_OFFERED, RAN_PAGE),
    ("auth.user", "delete_selected", None):                    (OUT, OUT, OUT, OUT, NO_PERMISSION, NO_PERMISSION, RAN_PAGE),
    ("auth.group", "delete_selected", None):                   (OUT, OUT, OUT, OUT, NO_PERMISSION, NO_PERMISSION, RAN_PAGE),
    ("otp_totp.totpdevice", "delete_selected", None):          (OUT, OUT, OUT, OUT, NO_PERMISSION, NO_PERMISSION, RAN_PAGE),
    ("history.configurationchange", "delete_selected", None):  (OUT, OUT, OUT, OUT, NOT_OFFERED, NOT_OFFERED, NOT_OFFERED),
    ("aggregation.populationmargin", "delete_selected", None): (OUT, OUT, OUT, OUT, NO_PERMISSION, NO_PERMISSION, RAN_PAGE),
}


@pytest.fixture(scope="class")
def shared_world(django_db_setup, django_db_blocker):
    with kept_rows(django_db_blocker):
        with django_db_blocker.unblock():
            world = World.made()
        yield world


@pytest.fixture
def world(shared_world, db, settings):
    if hasattr(settings, "SUBMISSION_RATE"):
        settings.SUBMISSION_RATE = None  # the matrix posts many submissions from one address
    return shared_world.fresh()


def answer(response, path: str) -> int | str:
    """The status, or "302 <Location>" with the requested path as {url}, as in MATRIX."""
    if response.status_code not in (301, 302, 303, 307, 308):
        return response.status_code
    return f"{response.status_code} {unquote(response['Location'])}"


def expected(value, path: str) -> int | str:
    return value.format(url=path, parent=path.rstrip("/").rpartition("/")[0] + "/") if isinstance(value, str) else value


def test_every_url_has_a_row():
    """A new URL needs a row; a row for a URL that is gone must go too."""
    enumerated = {case.key for case in CASES}
    assert sorted(enumerated - set(MATRIX), key=str) == [], "URLs without a row"
    assert sorted(set(MATRIX) - enumerated, key=str) == [], "rows without a URL"


def test_the_enumeration_finds_the_admins_pages_and_the_apps_urls():
    """The walk itself: it must reach into the admin site and the apps' included URL lists."""
    keys = {url.key for url in urls()}
    for model in admin.site._registry:
        info = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        assert {f"{info}_{view}" for view in ("changelist", "add", "change", "delete", "history")} <= keys
    assert {"healthz", "login", "collection:respond", "aggregation:dashboard", "admin:index"} <= keys


# -- a session the admin would refuse gets what an anonymous visitor gets (issue 24, item 2) ----

# Two signed-in sessions that the rule of the second factor (surveys.accounts.two_factor.admitted)
# refuses: a superuser with an authenticator app signed in without its code, and, with
# DJANGO_STAFF_2FA=required, a superuser who has not enrolled yet.
# Where they are not answered as an anonymous visitor: the enrolment page is theirs, and a login
# page sends an account that must enrol to it.
NOT_AS_ANONYMOUS = {
    # (url, method, subject)          without its code  must enrol first
    ("two-factor", "GET", None):      (200,              200),
    ("two-factor", "POST", None):     (200,              200),
    ("login", "GET", None):           (200,              "302 /accounts/two-factor/?next=/results/"),
    ("admin:login", "GET", None):     (200,              "302 /accounts/two-factor/?next=/admin/"),
}


# -- who sees which survey in the list ---------------------------------------------------------

LISTED = {
    "owner": {"health", "invited", "closed", "later", "ended", "draft"},
    "other_researcher": {"theirs"},
    "staff": set(),
    "staff_viewer": set(),
    # and the draft that holds the admin's population margin (urls_under_test.sound_margin)
    "superuser": {"health", "invited", "closed", "later", "ended", "draft", "theirs", "margins-world"},
}


# -- admin actions ------------------------------------------------------------------------------

ACTION_ROWS = action_rows()


def spy_on(monkeypatch, model, name, calls):
    """Wrap the action so that the test sees whether it ran (it still does its work)."""
    model_admin = admin.site._registry[model]
    site_wide = not hasattr(type(model_admin), name)
    original = admin.site.get_action(name) if site_wide else getattr(type(model_admin), name)

    @functools.wraps(original)  # keeps the description and allowed_permissions
    def spy(*args, **kwargs):
        calls.append(name)
        return original(*args, **kwargs)

    if site_wide:
        monkeypatch.setitem(admin.site._actions, name, spy)
    else:
        monkeypatch.setattr(type(model_admin), name, spy)


def test_every_admin_action_has_a_row():
    present = {(label(model), name) for model, name in ACTION_ROWS}
    assert {key[:2] for key in ACTIONS} == present


# -- a survey of multi-select, numeric and ordinal questions (multi-select, numeric, ordinal) answers as the matrix says ---------

LINK_CASES = [case for case in CASES if case.subject == "link"]


@pytest.fixture(scope="class")
def shared_kinds_world(django_db_setup, django_db_blocker):
    """The world with the survey of every new kind (tests/conftest.py's kinds_survey) as the "link" survey (open,
    anyone with the link), slug "health" as the matrix's Location rows name it."""
    with kept_rows(django_db_blocker):
        with django_db_blocker.unblock():
            world = World.made(KINDS_QUESTIONS, title="Kinds", epsilon_budget=7.0)
        yield world


@pytest.fixture
def kinds_world(shared_kinds_world, db, settings):
    if hasattr(settings, "SUBMISSION_RATE"):
        settings.SUBMISSION_RATE = None
    return shared_kinds_world.fresh()


class TestEveryUrlAndRole:
    """In one world, built once for the class (shared_world); each test's own writes are rolled back."""

    @pytest.mark.slow
    @pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
    def test_each_role_gets_the_expected_answer(self, world, case):
        assert case.key in MATRIX, f"{case.id} has no row in MATRIX: decide who may use it and add one"
        path = world.path(case)
        observed = {role: answer(world.request(role, case), path) for role in ROLES}
        assert observed == {role: expected(value, path) for role, value in zip(ROLES, MATRIX[case.key], strict=True)}, path

    @pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
    def test_a_session_the_admin_refuses_is_answered_everywhere_as_an_anonymous_visitor(self, world, settings, case):
        """Every staff and researcher page applies the admin's rule: the preview, every results page,
        export and results API endpoint as much as the admin itself."""
        world.users["unverified"] = make_user("unverified", is_staff=True, is_superuser=True)
        TOTPDevice.objects.create(user=world.users["unverified"], name="phone", confirmed=True)
        path = world.path(case)
        observed = [answer(world.request("unverified", case), path)]
        settings.STAFF_TWO_FACTOR = "required"
        observed.append(answer(world.request("superuser", case), path))
        wanted = NOT_AS_ANONYMOUS.get(case.key, (MATRIX[case.key][0],) * 2)
        assert observed == [expected(value, path) for value in wanted], path

    @pytest.mark.parametrize("role", LISTED)
    def test_the_survey_list_shows_exactly_the_surveys_a_role_may_see(self, world, role):
        world.surveys.all()  # every state, all assigned to the owner
        survey_with_a_question("theirs", [world.users["other_researcher"]], status=Survey.Status.OPEN)
        response = world.get(role, "/results/")
        assert response.status_code == 200
        assert set(re.findall(r'href="/results/([^/"]+)/"', force_str(response.body))) == LISTED[role]

    @pytest.mark.parametrize("path", ["/api/v1/surveys/health/responses/", "/accounts/logout/", "/admin/logout/"])
    def test_a_post_without_the_csrf_token_is_refused_for_every_role(self, world, path):
        data = valid_payload(world.surveys["link"]) if "responses" in path else None
        observed = {role: world.post(role, path, data, csrf=False).status_code for role in ROLES}
        assert observed == dict.fromkeys(ROLES, 403)
        assert not world.surveys["link"].responses.exists()

    @pytest.mark.parametrize("model,name", ACTION_ROWS, ids=[f"{label(m)}:{n}" for m, n in ACTION_ROWS])
    def test_each_admin_action_runs_only_for_those_allowed(self, world, monkeypatch, model, name):
        row = next((key for key in ACTIONS if key[:2] == (label(model), name)), None)
        assert row is not None, f"admin action {label(model)}:{name} has no row in ACTIONS: decide who may run it"
        subject = row[2]
        selected = world.surveys[subject] if subject else world.admin_object(model._meta.app_label,
                                                                             model._meta.model_name)
        path = f"/admin/{model._meta.app_label}/{model._meta.model_name}/"
        observed, wanted = {}, {}
        for role, (status, ran) in zip(ROLES, ACTIONS[row], strict=True):
            calls = []
            with monkeypatch.context() as patch:
                spy_on(patch, model, name, calls)
                response = world.post(role, path, {"action": name, "_selected_action": [selected.pk], "index": "0"},
                                      form=True)
            observed[role] = (answer(response, path), bool(calls))
            wanted[role] = (expected(status, path), ran)
        assert observed == wanted

    def test_a_staff_member_who_may_only_view_surveys_cannot_close_one(self, world):
        """View permission is for looking: closing a survey needs change permission."""
        link = world.surveys["link"]
        world.post("staff_viewer", "/admin/collection/survey/",
                   {"action": "close_surveys", "_selected_action": [link.pk], "index": "0"}, form=True)
        link.refresh_from_db()
        assert link.status == Survey.Status.OPEN

    def test_a_staff_member_who_may_only_view_surveys_cannot_make_invitation_links(self, world):
        """Nor may they mint invitations: each one admits a response to the survey."""
        invited = world.surveys["invitation"]
        made = invited.invitations.count()
        response = world.post("staff_viewer", "/admin/collection/survey/",
                              {"action": "create_invitations", "_selected_action": [invited.pk], "index": "0",
                               "count": "5"}, form=True)
        assert (invited.invitations.count(), response["Content-Type"]) == (made, "text/html; charset=utf-8")


class TestASurveyOfTheNewKinds:
    """In one world whose "link" survey has a question of each new kind, built once for the class."""

    @pytest.mark.slow
    @pytest.mark.parametrize("case", LINK_CASES, ids=[case.id for case in LINK_CASES])
    def test_a_survey_of_the_new_kinds_answers_each_role_as_the_matrix_says(self, kinds_world, case):
        path = kinds_world.path(case)
        observed = {role: answer(kinds_world.request(role, case), path) for role in ROLES}
        assert observed == {role: expected(value, path) for role, value in zip(ROLES, MATRIX[case.key], strict=True)}, path
