"""A survey's privacy statement, generated from its configuration (so it cannot disagree with what the pages do):
what is collected and stored, what it costs each respondent, who sees the results, when the responses go, what a
stolen database reveals (`disclosure`), what an open release costs, and what singles a respondent out
(`uniqueness`). The figures are the ones the rest of the app shows, computed by the same functions: each question's
epsilon as the admin's line (`figures.describe`, rounded up to 4 decimals), its odds as the respondent's page (rounded
up
to 2), the total both ways.

Pinned to a version: the plan's (`mechanism_version`, what every response and the codebook carry) and the last
entry of the configuration history (consent, retention and researchers are not in the plan's version).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Q

from ldp.planning.rounding import loss_of, total_loss
from surveys.collection import figures, plan, retention
from surveys.collection.kinds import mechanism_names
from surveys.collection.models import Survey
from surveys.collection.plan import PlannedQuestion
from surveys.history.models import ConfigurationChange

from ..exports import direct_columns
from ..results import service as results
from . import direct_prior, disclosure, uniqueness


@dataclass(frozen=True)
class Row:
    question: PlannedQuestion
    mechanism_words: str  # the admin's name of its mechanism, translated
    summary: str  # the admin's "what it means" line
    epsilon: Decimal | None  # None: sent as given
    odds: Decimal | None
    breach: disclosure.Breach | None
    central_epsilon: float | None
    given: disclosure.Breach | None = None  # the breach with the direct answers as prior (`direct_prior`)

    @property
    def central_text(self) -> Decimal | None:
        return None if self.central_epsilon is None else disclosure.epsilon_text(self.central_epsilon)


@dataclass(frozen=True)
class Statement:
    survey: Survey
    version: str
    changed: ConfigurationChange | None  # the history's last entry for it
    rows: tuple[Row, ...]
    total_epsilon: Decimal
    total_odds: Decimal
    responses: int
    estimated: bool  # the breach's prior: the estimated shares (else every answer equally likely)
    record: disclosure.Breach | None
    record_central: float | None
    release_n: int  # the respondents the central epsilon is stated for
    delta: float
    researchers: tuple[str, ...]
    superusers: tuple[str, ...]
    ended_at: datetime | None
    expires_at: datetime | None
    uniqueness: uniqueness.Uniqueness
    chosen: tuple[PlannedQuestion, ...] = ()  # the shuffled release's questions (default: every randomized one)
    chosen_central: float | None = None  # its central epsilon: the chosen questions' reports together
    given: direct_prior.Given | None = None  # the breach with the direct answers as prior (after any response)
    # Each number sent as given and the band width an export with ?direct=bands gives it by default (None: none)
    bands: tuple[tuple[PlannedQuestion, Decimal | None], ...] = ()

    @property
    def chosen_central_text(self) -> Decimal | None:
        return None if self.chosen_central is None else disclosure.epsilon_text(self.chosen_central)

    @property
    def chosen_keys(self) -> frozenset[str]:
        return frozenset(question.key for question in self.chosen)

    @property
    def record_central_text(self) -> Decimal | None:
        return None if self.record_central is None else disclosure.epsilon_text(self.record_central)

    @property
    def delta_text(self) -> str:
        return f"{self.delta:.3g}"

    @property
    def randomized(self) -> tuple[Row, ...]:
        return tuple(row for row in self.rows if row.question.randomized)

    @property
    def direct(self) -> tuple[Row, ...]:
        return tuple(row for row in self.rows if not row.question.randomized)


def generated(survey: Survey, chosen_delta: float | None = None,
       chosen: tuple[PlannedQuestion, ...] | None = None) -> Statement:
    """The statement; `chosen_delta` the open release's delta (default: min(1/n^1.1, 1e-6)), `chosen` the shuffled
    release's questions (default: every randomized one)."""
    current = plan.of(survey)
    found = results.survey_results(survey)
    shares = {result.question.id: _shares(result) for result in found.questions} if found.responses else {}
    priors = {q.id: disclosure.prior(q, shares.get(q.id)) for q in current if q.randomized}
    n = found.responses or survey.planned_size or 0
    delta = disclosure.delta(n) if chosen_delta is None else chosen_delta
    given = direct_prior.computed(survey, current) if found.responses else None
    singled = uniqueness.measured(survey, current=current)
    widths = direct_columns.defaults(singled)
    rows = tuple(_row(q, priors.get(q.id), n, delta, given) for q in current)
    randomized = [q for q in current if q.randomized]
    whole = total_loss(q.mechanism.sampler() for q in current)
    chosen = tuple(randomized) if chosen is None else chosen
    together = total_loss(q.mechanism.sampler() for q in chosen)
    return Statement(
        survey=survey, version=current.version,
        changed=ConfigurationChange.objects.filter(survey_id=survey.pk).order_by("-at", "-pk").first(),
        rows=rows, total_epsilon=whole.epsilon_up(4), total_odds=whole.odds_up(2), responses=found.responses,
        estimated=bool(found.responses), record=disclosure.record(randomized, [priors[q.id] for q in randomized]),
        record_central=disclosure.central_epsilon(float(whole.epsilon_up(4)), n, delta) if randomized else None,
        release_n=n, delta=delta, researchers=tuple(sorted(u.get_username() for u in survey.researchers.all())),
        superusers=_superusers(), ended_at=retention.ended_at(survey), expires_at=retention.expires_at(survey),
        uniqueness=singled, chosen=chosen,
        chosen_central=disclosure.central_epsilon(float(together.epsilon_up(4)), n, delta) if chosen else None,
        given=given, bands=tuple((q, widths.get(q.id)) for q in current.direct if q.given_number))


def _shares(result: results.QuestionResult) -> list[float] | None:
    """The estimated shares of a question's answers (a multi-select's per option), None for a mean."""
    if result.estimate is None:
        return None
    return list(result.estimate.clipped if result.question.mechanism.keeps_bits else result.estimate.simplex)


def _row(question: PlannedQuestion, pi: Any, n: int, delta: float, given: direct_prior.Given | None) -> Row:
    name = question.mechanism.name
    words = mechanism_names.choice(name) if name in mechanism_names.NAMES else question.mechanism.label
    said = figures.describe(question.mechanism)["summary"]
    if not question.randomized:
        return Row(question, words, said, None, None, None, None)
    loss = loss_of(question.mechanism.sampler())
    return Row(question, words, said, loss.epsilon_up(4), loss.odds_up(2), disclosure.breach(question, pi),
               disclosure.central_epsilon(float(loss.epsilon_up(4)), n, delta),
               given.breaches.get(question.id) if given is not None else None)


def _superusers() -> tuple[str, ...]:
    users = get_user_model().objects.filter(Q(is_superuser=True) & Q(is_active=True))
    return tuple(sorted(user.get_username() for user in users))
