"""Remove a survey's responses, reports and invitations, after confirmation.

    python manage.py purge <slug>           # shows what will go, asks you to type the slug
    python manage.py purge <slug> --yes     # scripts: no question (also --no-input)

The survey, its questions and options stay; an open survey is closed first. Everything goes
in one transaction (surveys.collection.purge), and the command prints what it removed.
Without a terminal to ask on, it refuses unless --yes is given: nothing is removed by a
script that merely forgot to say so.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from surveys.collection import purge
from surveys.collection.models import Survey
from surveys.history import recorder


class Command(BaseCommand):
    help = "Remove a survey's responses, reports and invitations (keeps its questions); asks first."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--yes", "--no-input", "--noinput", action="store_false", dest="interactive",
                            help="Do not ask for confirmation.")

    def handle(self, *args: Any, slug: Any, interactive: Any, **options: Any) -> None:
        survey = Survey.objects.filter(slug=slug).first()
        if survey is None:
            raise CommandError(f"no such survey: {slug}")
        if interactive:
            if not sys.stdin.isatty():
                raise CommandError("no terminal to confirm on; pass --yes to purge without asking")
            self.stdout.write(purge.preview(survey).plan())
            self.stdout.write("This cannot be undone; download the exports first if you need them.")
            try:
                answer = input(f"Type the survey's slug ({slug}) to confirm: ")
            except (EOFError, KeyboardInterrupt):
                answer = ""
            if answer.strip() != slug:
                self.stdout.write("Purge cancelled: nothing was removed.")
                return
        with recorder.recording(None, survey.pk, who="manage.py purge"):  # closing it is a status change
            removed = purge.purge(survey)
        self.stdout.write(str(removed))
