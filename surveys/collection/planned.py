"""A survey's plan as its readers meet it: each question with its mechanism (`PlannedQuestion`), and the survey's
questions in order with the version digest (`SurveyPlan`). `plan` builds them from one query."""

from __future__ import annotations

import bisect
from collections.abc import Iterator
from dataclasses import dataclass
from decimal import Decimal
from functools import cached_property

import ldp
import ldp.mechanisms.remembered

from . import kinds, relevance, scales, variable_names
from .scales import Scale


@dataclass(frozen=True)
class Remembering:
    """A question's two layers in a wave of a series that remembers randomization, and its lineage (the same
    question in every wave, from which the browser derives its permanent response)."""

    lineage: str
    layers: ldp.mechanisms.remembered.Remembered


@dataclass(frozen=True)
class PlannedQuestion:
    id: int
    order: int
    text: str
    kind: str
    options: tuple[str, ...]  # labels in report order; yes/no: No, Yes; a numeric mean: none
    mechanism: ldp.Mechanism  # a remembered question's: both layers composed (`ldp.mechanisms.remembered.Composed`)
    scale: Scale | None = None  # numeric questions: the grid of answers
    edges: tuple[Decimal, ...] = ()  # a numeric histogram: each bin's lower edge
    scores: tuple[Decimal | None, ...] = ()  # an ordinal question: each level's score (None: not in the mean)
    # A multi-select's options ticked alone ("None of these"), as indexes: a rule on the true answer, checked in the
    # browser. Not in the plan's rows or version (reports do not depend on it): definition.exclusive_of fills it in.
    exclusive: tuple[int, ...] = ()
    # A wave's question that remembers its randomization (its permanent layer, `Remembering`): filled in by the
    # public definition (definition.remembered_of), like `exclusive`; None for every other question.
    remembered: Remembering | None = None
    name: str = ""  # the admin's name for it (its `key`), not in the version: renaming changes no report's meaning
    relevant: str = ""  # skip logic: asked only when this holds for the direct answers above (`skip_logic`)
    choices: tuple[str, ...] = ()  # its options' XLSForm choice names, which conditions compare answers with
    # A number sent as given in an export that bands it (surveys.aggregation.exports.direct_columns): grid steps per
    # band,
    # its value then the band's lower end; 0 everywhere else (its exact value).
    band: int = 0

    @cached_property
    def condition(self) -> relevance.Node | None:
        return relevance.parse(self.relevant) if self.relevant else None

    @property
    def randomized(self) -> bool:
        """False for a direct question: its answer is sent as given."""
        return self.mechanism.randomized

    @property
    def mean(self) -> bool:
        """A numeric question asked for its mean (1-bit mean, discrete Laplace, a direct number): no fractions."""
        return self.mechanism.estimates_mean

    @property
    def given_number(self) -> bool:  # a number sent as given: exported as its value lo + step i, not its index i
        return self.mechanism.shape is ldp.Shape.NUMBER

    @property
    def histogram(self) -> bool:
        """A question on a grid counted in bins (a numeric question's krr)."""
        return kinds.kind_of(self).scale and not self.mean

    @property
    def relatable(self) -> bool:
        """Whether a cross-tab can take it (`Kind.relatable`); a direct number relates in its bins, if it has any."""
        return kinds.kind_of(self).relatable(self.mechanism) and not (self.mean and not self.edges)

    @cached_property
    def relating(self) -> ldp.Mechanism:
        """The channel a cross-tab reads its cells with: its mechanism, or a direct number's bins as given (`cell`)."""
        return ldp.make("direct", k=len(self.edges)) if self.mean and self.edges else self.mechanism

    def cell(self, value: int) -> int:
        """The option a stored index-coded value counts for: itself, or a direct number's bin."""
        if self.mean and self.edges:
            self.mechanism.encode(value)  # checks it is on the grid
            return bisect.bisect_right(self.edge_indexes, value) - 1
        return value

    @property
    def edge_indexes(self) -> list[int]:
        """A histogram's lower edges as grid indexes (what the browser maps an answer with)."""
        return scales.edge_indexes(self.scale, self.edges) if self.scale and self.edges else []

    @property
    def key(self) -> str:
        """Its column in the exports and its key everywhere: its name, else q<order>."""
        return variable_names.key(self.name, self.order)


@dataclass(frozen=True)
class SurveyPlan:
    version: str  # what Response.mechanism_version stores: a digest of how reports are made and read
    questions: tuple[PlannedQuestion, ...]

    def __iter__(self) -> Iterator[PlannedQuestion]:
        return iter(self.questions)

    def __len__(self) -> int:
        return len(self.questions)

    @property
    def mechanisms(self) -> list[ldp.Mechanism]:
        return [question.mechanism for question in self.questions]

    @cached_property
    def epsilon_total(self) -> float:
        """What one respondent's answers cost: the sum of the effective epsilons of the randomized
        questions (direct questions, sent as given, are outside the budget). A remembered question counts its
        instantaneous layer, never less than one wave's composed loss: the total the browser checks its samplers'
        integers against and the budget is checked with."""
        return ldp.survey_epsilon(ldp.mechanisms.remembered.instantaneous(mechanism) for mechanism in self.mechanisms)

    @property
    def direct(self) -> tuple[PlannedQuestion, ...]:
        """The questions asked directly: not randomized, their answers sent as given."""
        return tuple(question for question in self.questions if not question.mechanism.randomized)

