from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from . import errors, health

handler404 = errors.not_found

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("admin/", admin.site.urls),
    # Researchers are not staff, so they sign in here rather than through the admin.
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("", include("surveys.collection.urls")),
    path("", include("surveys.aggregation.urls")),
]
