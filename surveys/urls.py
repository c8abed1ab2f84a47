from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import errors, health, landing
from .accounts import views as accounts

handler404 = errors.not_found
handler500 = errors.server_error

urlpatterns = [
    path("", landing.landing, name="home"),
    path("healthz", health.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # Researchers are not staff, so they sign in here rather than through the admin.
    path("accounts/login/", accounts.SignInView.as_view(), name="login"),  # throttled, with the second factor
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/two-factor/", accounts.two_factor_page, name="two-factor"),  # staff enrol an authenticator app
    path("", include("surveys.collection.urls")),
    path("", include("surveys.aggregation.urls")),
]
