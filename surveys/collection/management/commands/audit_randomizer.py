from django.core.management.base import BaseCommand, CommandError

from surveys.collection.randomizer_audit import audit_url


class Command(BaseCommand):
    help = ("Audit a running survey page's randomizer in headless Chromium: draw from it for every "
            "question and true answer, test the reports against the published probabilities, and "
            "bound the empirical epsilon from below. Exits non-zero if any question fails.")

    def add_arguments(self, parser):
        parser.add_argument("url", help="a respondent page, e.g. https://survey.example.org/s/demo/")
        parser.add_argument("--draws", type=int, default=100_000, help="draws per true answer")
        parser.add_argument("--alpha", type=float, default=1e-6, help="family-wise false-alarm rate")

    def handle(self, *args, url, draws, alpha, **options):
        try:
            audits = audit_url(url, draws, alpha)
        except RuntimeError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"{'question':>8}  {'kind':6} {'k':>3}  {'claimed eps':>11}  "
                          f"{'eps lower bound':>15}  result")
        for item in audits:
            r = item.result
            self.stdout.write(f"{item.question_id:>8}  {item.sampler['kind']:6} {item.sampler['k']:>3}  "
                              f"{r.claimed_epsilon:>11.4f}  {r.epsilon_lower_bound:>15.4f}  "
                              f"{'pass' if r.passed else 'FAIL'}")
            for failure in r.failures:
                self.stdout.write(f"{'':>10}{failure}")
        failed = [a for a in audits if not a.result.passed]
        self.stdout.write(f"{len(audits) - len(failed)} of {len(audits)} questions pass "
                          f"({draws:,} draws per true answer, family-wise alpha {alpha:g}).")
        if failed:
            raise CommandError(f"{len(failed)} question(s) failed the audit")
