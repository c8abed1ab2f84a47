"""Write a survey as an XLSForm (docs/xlsform.md) that import_survey reads back into the same survey.

    python manage.py export_survey SLUG --format xlsx|json [-o FILE]
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from surveys.collection.models import Survey
from surveys.collection.xlsform import writing


class Command(BaseCommand):
    help = "Write a survey as an XLSForm workbook (xlsx) or its sheets as JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--format", choices=("xlsx", "json"), default="xlsx")
        parser.add_argument("-o", "--output", help="The file to write (default: SLUG.xlsx, or standard output "
                                                   "for json).")

    def handle(self, *args: Any, slug: str, format: str, output: str | None, **options: Any) -> None:
        survey = Survey.objects.filter(slug=slug).first()
        if survey is None:
            raise CommandError(f"no such survey: {slug}")
        if format == "json":
            text = json.dumps(writing.sheets(survey), ensure_ascii=False, indent=1) + "\n"
            if output is None:
                self.stdout.write(text, ending="")
            else:
                Path(output).write_text(text)
            return
        path = Path(output or f"{slug}.xlsx")
        path.write_bytes(writing.workbook(survey))
        self.stdout.write(str(path))
