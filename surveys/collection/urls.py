from django.urls import path

from . import api, views

app_name = "collection"

urlpatterns = [
    path("s/<slug:slug>/", views.respond, name="respond"),
    path("s/<slug:slug>/preview/", views.preview, name="preview"),  # staff only; 404 for everybody else
    path("w/<slug:series>/", views.current_wave, name="current-wave"),  # a series' stable link
    path("api/v1/surveys/<slug:slug>/", api.survey_detail, name="api-survey"),
    path("api/v1/surveys/<slug:slug>/responses/", api.submit_response, name="api-responses"),
]
