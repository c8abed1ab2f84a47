"""Make single-use invitation links for an invitation-only survey, as CSV.

    python manage.py invite <slug> --count 500 --base-url https://survey.example.org > links.csv
    python manage.py invite <slug> --count 500 --base-url https://survey.example.org --output links.csv

Each link carries its token in the fragment (never sent to a server). Only digests are
stored, so this output is the only copy of the links: hand it to whoever sends them.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from surveys.collection import invitations
from surveys.collection.models import Survey


class Command(BaseCommand):
    help = "Create single-use invitation links for an invitation-only survey (CSV)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--count", type=int, required=True, help="How many links to make.")
        parser.add_argument("--base-url", required=True, help="Where respondents reach the app, e.g. https://survey.example.org")
        parser.add_argument("--output", help="CSV file to write (default: standard output).")

    def handle(self, *args: Any, slug: Any, count: Any, base_url: Any, output: Any, **options: Any) -> None:
        survey = Survey.objects.filter(slug=slug).first()
        if survey is None:
            raise CommandError(f"no such survey: {slug}")
        if survey.access != Survey.Access.INVITATION:
            raise CommandError(f"{slug} is open to anyone with its link; set its access to "
                               "invitation-only in the admin first")
        if not base_url.startswith(("https://", "http://")):
            raise CommandError("--base-url must start with https:// or http://")
        try:
            tokens = invitations.create(survey, count)
        except ValueError as error:
            raise CommandError(str(error)) from None
        text = invitations.links_csv(base_url, survey, tokens)
        if output:
            with open(output, "w", newline="") as out:
                out.write(text)
        else:
            self.stdout.write(text, ending="")
        self.stderr.write(f"{slug}: {count} invitation links written to {output or 'standard output'}. "
                          "This is their only copy.")

