import os
from importlib import import_module

from django.conf import settings
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "surveys.settings")
application = get_wsgi_application()
# The URL configuration and every view are imported as the worker starts, not during its first request,
# which gunicorn's --timeout counts: on a busy machine those imports alone took longer than a short timeout.
import_module(settings.ROOT_URLCONF)
# So are the Stata and SPSS files' writers: imported inside the first .dta's preparation they outlasted its wait.
from surveys.aggregation.exports import preparation  # noqa: E402

preparation.load_writers()
