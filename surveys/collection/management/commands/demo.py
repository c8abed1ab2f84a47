import os
import secrets
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from surveys.collection import demo


class Command(BaseCommand):
    help = "Create the demo survey, simulated responses and demo accounts (idempotent); print the URLs."

    def add_arguments(self, parser: CommandParser) -> None:
        # Enough that every demo question is past its planner number for ±5 points (the 4-option
        # k-RR question at epsilon = 1 needs 4,255), so the dashboard shows estimates, not a banner.
        parser.add_argument("--responses", type=int, default=5000)
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument("--base-url", default="http://127.0.0.1:8000")

    def handle(self, *args: Any, responses: Any, seed: Any, base_url: Any, **options: Any) -> None:
        survey, created = demo.create_demo_survey()
        if not survey.responses.exists():
            demo.simulate_responses(survey, responses, seed)
        researcher = self._account("researcher", "DEMO_RESEARCHER_PASSWORD", superuser=False)
        survey.researchers.add(researcher[0])
        admin = self._account("admin", "DEMO_ADMIN_PASSWORD", superuser=True)
        self.stdout.write(
            f"Demo survey {'created' if created else 'already there'}: {survey.responses.count()} responses.\n"
            f"  Respond:   {base_url}/s/{survey.slug}/\n"
            f"  Results:   {base_url}/results/{survey.slug}/  (researcher / {researcher[1]})\n"
            f"  Admin:     {base_url}/admin/  (admin / {admin[1]})\n"
            f"  API:       {base_url}/api/v1/surveys/{survey.slug}/\n"
        )

    def _account(self, username: str, variable: str, superuser: bool) -> tuple[Any, str]:
        password = os.environ.get(variable) or secrets.token_urlsafe(12)
        user, _ = get_user_model().objects.get_or_create(username=username)
        user.is_staff = user.is_superuser = superuser
        user.set_password(password)
        user.save()
        return user, password
