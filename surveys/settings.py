"""Settings, all from environment variables (see README, "Configuration").

DJANGO_ENV=development (default) runs with DEBUG and a throwaway secret key;
DJANGO_ENV=production requires DJANGO_SECRET_KEY and DJANGO_ALLOWED_HOSTS and turns on
the HTTPS-only settings checked by `manage.py check --deploy`.
"""

import os
from pathlib import Path

import dj_database_url
from django.utils.translation import gettext_lazy as _

from . import cache_url, env

BASE_DIR = Path(__file__).resolve().parent.parent

ENVIRONMENT = env.choice("DJANGO_ENV", "development", ("development", "production"))
PRODUCTION = ENVIRONMENT == "production"
DEBUG = env.boolean("DJANGO_DEBUG", not PRODUCTION)
SECRET_KEY = env.text("DJANGO_SECRET_KEY", None if PRODUCTION else "dev-only-insecure-key-never-use-in-production")
ALLOWED_HOSTS = env.listing("DJANGO_ALLOWED_HOSTS", [] if PRODUCTION else ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env.listing("DJANGO_CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "surveys.accounts.admin_config.AdminConfig",  # django.contrib.admin with the site of surveys.accounts
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "django_otp",
    "django_otp.plugins.otp_totp",
    "surveys.collection",
    "surveys.aggregation",
    "surveys.accounts",  # after otp_totp: its admin replaces django-otp's
    "surveys.history",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "surveys.headers.SecurityHeadersMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # After sessions, before common (Django's documented place): the language from Accept-Language.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django_otp.middleware.OTPMiddleware",  # request.user.is_verified(): signed in with a second factor
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "surveys.urls"
WSGI_APPLICATION = "surveys.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": dj_database_url.parse(
        env.text("DATABASE_URL", f"sqlite:///{BASE_DIR / 'db.sqlite3'}"),
        conn_max_age=env.integer("DATABASE_CONN_MAX_AGE", 60 if PRODUCTION else 0),
        conn_health_checks=True,
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Writers take the lock when the transaction begins, so concurrent submissions queue
    # instead of failing with "database is locked"; tests use a file so that the live
    # server's threads have connections of their own.
    # WAL lets readers work while a submission writes; synchronous=NORMAL syncs at checkpoints
    # rather than on every commit (still safe against corruption; a power cut may lose the
    # last commits, acceptable for an embedded default; use PostgreSQL for more). Checkpoints
    # every 10,000 pages rather than 1,000: the tally pages every submission rewrites are then
    # copied to the database file once per ten times as many submissions (load bench: -8% CPU).
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE", "timeout": 20,
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA wal_autocheckpoint=10000;",
    }
    DATABASES["default"]["TEST"] = {"NAME": str(BASE_DIR / f".test-db-{os.getpid()}.sqlite3")}
elif DATABASES["default"]["ENGINE"] == "django.db.backends.postgresql":
    # psycopg prepares nothing while this is None (Django's default). Django's own cursors bind
    # on the client and never prepare, so only the submission's cursor, which asks for it, does
    # (surveys/collection/prepared_statements.py).
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", 0)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# The interface's languages, chosen from the browser's Accept-Language (LocaleMiddleware); English
# when it names none of them. Catalogs in surveys/locale (make messages; the .mo files are committed).
LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("es", _("Spanish")), ("fr", _("French")), ("ar", _("Arabic"))]
LOCALE_PATHS = [BASE_DIR / "surveys" / "locale"]
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env.text("DJANGO_STATIC_ROOT", str(BASE_DIR / "staticfiles")))  # collectstatic writes here
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "surveys.storage.StaticFilesStorage"  # whitenoise, hashed, ES imports rewritten
        if PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Relating answers: a pair of questions is counted from the reports the first time it is asked for
# (at 10^6 responses about 0.3 s a pair whose questions everybody answered, 2 to 3 s otherwise,
# docs/operations.md). When a request would count more than DJANGO_RELATE_NOW_RESPONSES responses x
# pairs (a pair everybody answered counting a quarter), the pairs are counted in a background thread
# of the web process instead, which the request waits for up to 5 s before answering "being
# counted" (202 for programs), so it never outlasts the worker timeout
# (surveys/aggregation/relating/pair_counting.py).
RELATE_NOW_RESPONSES = env.integer("DJANGO_RELATE_NOW_RESPONSES", 800_000, 0, 10**9)

# Weighted figures read the answers of every response to the questions they need (and the margin questions)
# within the request, once, as columns grouped in numpy (surveys/aggregation/weighting/weights.py): about a second and
# 8 bytes a value at 10^6 responses of 20 questions (docs/operations.md). A request that would read more than
# DJANGO_WEIGHT_NOW_VALUES responses x questions is refused before anything is read (409 naming `weighted`).
WEIGHT_NOW_VALUES = env.integer("DJANGO_WEIGHT_NOW_VALUES", 32_000_000, 0, 10**10)

# The report exports (reports.csv, .json, .dta, .sav) are prepared whole in a background thread of
# the web process, from one consistent read of the database, into DJANGO_EXPORT_DIR (private: 0700,
# files 0600; every app server must see the same directory), then downloaded with their length and
# SHA-256 (surveys/aggregation/exports/prepared.py). A request waits up to DJANGO_EXPORT_WAIT seconds (keep it
# well under gunicorn's --timeout) before answering 202 "being prepared"; a file is removed
# DJANGO_EXPORT_KEEP_HOURS after it is ready, or once new responses make it stale.
# DJANGO_EXPORT_BACKGROUND=false prepares within the request instead (no progress page; a request
# that outlives the worker's timeout ends in an error, never in a cut file).
EXPORT_DIR = Path(env.text("DJANGO_EXPORT_DIR", str(BASE_DIR / "exports")))
EXPORT_WAIT = env.integer("DJANGO_EXPORT_WAIT", 5, 0, 60)
EXPORT_KEEP_HOURS = env.integer("DJANGO_EXPORT_KEEP_HOURS", 24, 1, 24 * 90)
EXPORT_BACKGROUND = env.boolean("DJANGO_EXPORT_BACKGROUND", True)

# Who sees a new survey's results: the admin creating it, and the members of the groups named in
# DJANGO_SURVEY_DEFAULT_RESEARCHERS (comma-separated group names, default "researchers"), preselected in the
# admin's form, where the admin may untick them. DJANGO_SURVEY_ACCESS_CONTACT (e.g. an address) is whom a
# researcher who opens a survey they may not see is told to ask; blank: "the site's administrators".
SURVEY_DEFAULT_RESEARCHERS = env.listing("DJANGO_SURVEY_DEFAULT_RESEARCHERS", ["researchers"])
SURVEY_ACCESS_CONTACT = env.text("DJANGO_SURVEY_ACCESS_CONTACT", "")

# Sign-in: DJANGO_LOGIN_LOCKOUT="COUNT/SECONDS" (default 5/900) or "off": after COUNT failed sign-ins
# for one username from one address within SECONDS, that username is refused from that address
# for SECONDS (surveys/accounts/throttle.py), on both login pages. DJANGO_STAFF_2FA: "optional"
# (staff may enrol an authenticator app at /accounts/two-factor/; an enrolled account always
# needs its code) or "required" (no staff member or superuser uses the admin, the preview or the
# results before enrolling).
LOGIN_LOCKOUT = env.rate("DJANGO_LOGIN_LOCKOUT", (5, 900))
STAFF_TWO_FACTOR = env.choice("DJANGO_STAFF_2FA", "optional", ("optional", "required"))
OTP_TOTP_ISSUER = env.text("DJANGO_OTP_ISSUER", "Private surveys")  # the name authenticator apps show
OTP_ADMIN_HIDE_SENSITIVE_DATA = True
LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/results/"
LOGOUT_REDIRECT_URL = "/accounts/login/"

REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["surveys.parsers.JSONParser"],
    "DEFAULT_AUTHENTICATION_CLASSES": ["rest_framework.authentication.SessionAuthentication"],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.AllowAny"],
    "EXCEPTION_HANDLER": "surveys.errors.exception_handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}

# Respondents' requests are never logged with bodies; only errors are reported. A bad Host header
# is one line, not a traceback (anybody can send them by the thousand).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"one_line": {"()": "surveys.logs.OneLine"}},
    "handlers": {
        "console": {"class": "logging.StreamHandler"},
        "one_line": {"class": "logging.StreamHandler", "filters": ["one_line"]},
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "django.security.DisallowedHost": {"handlers": ["one_line"], "level": "WARNING", "propagate": False},
    },
}

SESSION_ENGINE = "surveys.sessions"  # the database backend, refusing malformed keys
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_SAMESITE = "Strict"
SESSION_COOKIE_SAMESITE = "Lax"
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
# same-origin, not no-referrer, everywhere: with no-referrer browsers send "Origin: null" on
# form posts and Django's CSRF check refuses them (admin login). Survey pages send no-referrer.
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"

if PRODUCTION:
    SECURE_SSL_REDIRECT = env.boolean("DJANGO_SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_HSTS_SECONDS = env.integer("DJANGO_HSTS_SECONDS", 31536000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True

# The rate limits count in the cache: DJANGO_CACHE_URL (redis://..., db://, default locmem://,
# per process) shares the counts between every worker and server (surveys/cache_url.py).
CACHES = {"default": cache_url.parse(env.text("DJANGO_CACHE_URL", "locmem://"))}

# Flood protection for the anonymous submission endpoint: at most COUNT submissions per
# SECONDS from one client network (IPv4 /24, IPv6 /56 by default: a household's or a small
# site's whole allocation), counted in the cache. It limits load; it does not identify anybody.
# DJANGO_SUBMISSION_RATE="COUNT/SECONDS" (default 120/60) or "off". DJANGO_PROXY_COUNT: how
# many reverse proxies append to X-Forwarded-For in front of the app (0: use the socket's peer).
SUBMISSION_RATE = env.rate("DJANGO_SUBMISSION_RATE", (120, 60))
NETWORK_PREFIX = {4: env.integer("DJANGO_RATE_IPV4_PREFIX", 24, 8, 32),
                  6: env.integer("DJANGO_RATE_IPV6_PREFIX", 56, 16, 128)}
PROXY_COUNT = env.integer("DJANGO_PROXY_COUNT", 0)

# Several choice sets share the field name "kind" (a question's, each sampler's): name their enums.
SPECTACULAR_SETTINGS = {
    "ENUM_NAME_OVERRIDES": {
        "QuestionKindEnum": "surveys.collection.kinds.NAMES",
        "SamplerKindEnum": "surveys.collection.serializers.ONE_OF_K_SAMPLER_KINDS",
        "MultiSelectSamplerKindEnum": "surveys.collection.serializers.MULTI_SELECT_SAMPLER_KINDS",
        "OneBitSamplerKindEnum": "surveys.collection.serializers.ONE_BIT_SAMPLER_KINDS",
        "DiscreteLaplaceSamplerKindEnum": "surveys.collection.serializers.DISCRETE_LAPLACE_SAMPLER_KINDS",
        "ErrorCodeEnum": "surveys.errors.CODES",
    },
}
