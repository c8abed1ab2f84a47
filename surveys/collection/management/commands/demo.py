import os
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management.base import BaseCommand, CommandParser

from surveys.collection import demo, replanning, researchers


class Command(BaseCommand):
    help = "Create the demo survey, simulated responses and demo accounts (idempotent); print the URLs."

    def add_arguments(self, parser: CommandParser) -> None:
        # Enough that every demo question is past its planner number for ±5 points (the 4-option
        # k-RR question at epsilon = 1 needs 4,255), so the dashboard shows estimates, not a banner.
        parser.add_argument("--responses", type=int, default=5000)
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")
        parser.add_argument("--types", action="store_true", help=(
            "Also the question types demo: one question of each new kind (multi-select, numeric mean and bins, "
            "ordinal), with as many simulated responses, for the same researcher."))

    def handle(self, *args: Any, responses: Any, seed: Any, base_url: Any, types: bool = False,
               **options: Any) -> None:
        survey, created = demo.create_demo_survey()
        self._planned(survey)
        if not survey.responses.exists():
            demo.simulate_responses(survey, responses, seed)
        researcher = self._account("researcher", "DEMO_RESEARCHER_PASSWORD", superuser=False)
        survey.researchers.add(researcher[0])
        for name in researchers.group_names():  # so a survey an admin creates is preselected for the researcher
            researcher[0].groups.add(Group.objects.get_or_create(name=name)[0])
        admin = self._account("admin", "DEMO_ADMIN_PASSWORD", superuser=True)
        self.stdout.write(
            f"Demo survey {'created' if created else 'already there'}: {survey.responses.count()} responses.\n"
            f"  Respond:   {base_url}/s/{survey.slug}/\n"
            f"  Results:   {base_url}/results/{survey.slug}/  (researcher / {researcher[1]})\n"
            f"  Admin:     {base_url}/admin/  (admin / {admin[1]})\n"
            f"  API:       {base_url}/api/v1/surveys/{survey.slug}/\n"
        )
        if types:
            self._types(researcher[0], responses, seed, base_url)

    def _types(self, researcher: Any, responses: int, seed: int | None, base_url: str) -> None:
        survey, created = demo.create_types_survey()
        self._planned(survey)
        if not survey.responses.exists():
            demo.simulate_types_responses(survey, responses, seed)
        survey.researchers.add(researcher)
        self.stdout.write(
            f"Question types demo {'created' if created else 'already there'}: {survey.responses.count()} "
            f"responses.\n"
            f"  Respond:   {base_url}/s/{survey.slug}/\n"
            f"  Results:   {base_url}/results/{survey.slug}/\n"
        )

    def _planned(self, survey: Any) -> None:
        """The planned size Open would have set (the demo surveys are made open), before the simulated reports."""
        if survey.planned_size is None and not survey.responses.exists():
            replanning.plan_at_open(survey)
            survey.save(update_fields=["planned_size", "planned_confidence"])

    def _account(self, username: str, variable: str, superuser: bool) -> tuple[Any, str]:
        password = os.environ.get(variable) or secrets.token_urlsafe(12)
        user, _ = get_user_model().objects.get_or_create(username=username)
        user.is_staff = user.is_superuser = superuser
        user.set_password(password)
        user.save()
        return user, password
