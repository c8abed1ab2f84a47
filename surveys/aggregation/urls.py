from django.urls import path

from .api import figures as api
from .api import margins as margin_api
from .api import schema
from .api import synthetic as synthetic_api
from .views import dashboard as views
from .views import downloads as download_views
from .views import margins as margin_page
from .views import prepared as prepared_views
from .views import statement as statement_page
from .views import waves as wave_views

app_name = "aggregation"

urlpatterns = [
    path("results/", views.survey_list, name="surveys"),
    path("results/<slug:slug>/", views.dashboard, name="dashboard"),
    path("results/<slug:slug>/margins/", margin_page.margins_page, name="margins"),
    path("results/<slug:slug>/statement/", statement_page.statement_page, name="statement"),
    path("results/<slug:slug>/export/estimates.csv", views.export_estimates, name="export-estimates"),
    path("results/<slug:slug>/export/reports.csv", prepared_views.export_reports, {"fmt": "csv"},
         name="export-reports-csv"),
    path("results/<slug:slug>/export/reports.json", prepared_views.export_reports, {"fmt": "json"},
         name="export-reports-json"),
    path("results/<slug:slug>/export/release.csv", prepared_views.export_release, name="export-release"),
    path("results/<slug:slug>/export/codebook.json", prepared_views.export_codebook, name="export-codebook"),
    path("results/<slug:slug>/export/crosstab.csv", views.export_crosstab, name="export-crosstab"),
    path("results/<slug:slug>/export/reports.dta", prepared_views.export_reports, {"fmt": "dta"},
         name="export-reports-dta"),
    path("results/<slug:slug>/export/reports.sav", prepared_views.export_reports, {"fmt": "sav"},
         name="export-reports-sav"),
    path("results/<slug:slug>/export/synthetic.csv", prepared_views.export_reports, {"fmt": "syn"},
         name="export-synthetic-csv"),
    path("results/<slug:slug>/export/synthetic.dta", prepared_views.export_reports, {"fmt": "sdta"},
         name="export-synthetic-dta"),
    path("results/<slug:slug>/export/synthetic.sav", prepared_views.export_reports, {"fmt": "ssav"},
         name="export-synthetic-sav"),
    path("results/<slug:slug>/export/reports.R", download_views.export_script, {"name": "reports.R"},
         name="export-reports-r"),
    path("results/<slug:slug>/export/analysis.R", download_views.export_script, {"name": "analysis.R"},
         name="export-analysis-r"),
    path("results/<slug:slug>/export/analysis.py", download_views.export_script, {"name": "analysis.py"},
         name="export-analysis-py"),
    path("results/<slug:slug>/export/model.csv", views.export_model, name="export-model"),
    path("results/<slug:slug>/export/waves.csv", views.export_waves, name="export-waves"),
    path("api/v1/surveys/<slug:slug>/models/", api.model, name="api-models"),
    path("api/v1/surveys/<slug:slug>/estimates/", api.estimates, name="api-estimates"),
    path("api/v1/surveys/<slug:slug>/crosstab/", api.crosstab, name="api-crosstab"),
    path("api/v1/surveys/<slug:slug>/margins/", margin_api.survey_margins, name="api-margins"),
    path("api/v1/surveys/<slug:slug>/synthetic/", synthetic_api.synthetic_data, name="api-synthetic"),
    path("api/v1/surveys/<slug:slug>/waves/", wave_views.series, name="api-waves"),
    path("api/v1/schema/", schema.schema_view, name="api-schema"),
]
