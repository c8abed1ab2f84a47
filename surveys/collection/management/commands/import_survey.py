"""Create a survey from an XLSForm (docs/xlsform.md): a draft, or open with --open after the Open button's checks.

    python manage.py import_survey FORM.xlsx [--slug SLUG] [--open] [--skip-unsupported]

FORM may also be the JSON `export_survey --format json` writes. A refused form creates nothing: every problem is
listed by sheet, row and column, and the command exits with status 2.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from surveys.collection.xlsform import importing
from surveys.collection.xlsform.reading import Refused


class Command(BaseCommand):
    help = "Create a survey (a draft, or open with --open) from an XLSForm with a privacy column."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("form", help="The XLSForm (.xlsx), or the JSON export_survey writes.")
        parser.add_argument("--slug", help="The survey's slug (default: the settings sheet's form_id).")
        parser.add_argument("--open", action="store_true", help="Open it for responses after the Open checks.")
        parser.add_argument("--skip-unsupported", action="store_true",
                            help="Drop questions of a type the app cannot ask (free text, GPS...) with a warning.")

    def handle(self, *args: Any, form: str, slug: str | None, open: bool, skip_unsupported: bool,
               **options: Any) -> None:
        path = Path(form)
        if not path.is_file():
            raise CommandError(f"no such file: {form}")
        source: Any = json.loads(path.read_text()) if path.suffix == ".json" else path.read_bytes()
        try:
            done = importing.import_form(source, slug=slug, open_it=open, skip_unsupported=skip_unsupported,
                                         who="import_survey")
        except Refused as refused:
            for problem in refused.problems:
                self.stderr.write(str(problem))
            raise CommandError(f"{path.name} refused: nothing was created ({len(refused.problems)} problem(s))",
                               returncode=2) from None
        for warning in done.warnings:
            self.stderr.write(self.style.WARNING(warning))
        survey = done.survey
        self.stdout.write(f"{survey.slug}: {survey.questions.count()} questions, {survey.status}")
