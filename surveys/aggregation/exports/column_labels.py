"""What each column of the labelled exports (Stata, SPSS, R) says about itself.

The columns are those of reports.csv (surveys.aggregation.exports.reports.columns): response_id,
submitted_on, mechanism_version, then one column per index question (the reported option) or one
per option of a unary question (the reported bit). Each report column carries

- a variable label: the question's text (and for a bit, its option), then what the column is:
  "randomized report: do not tabulate as answers", or "direct answer: not randomized";
- value labels: the options for an index column (a histogram's bins, an ordinal question's levels),
  "not reported"/"reported" for a bit (a unary encoding's, or a multi-select's box), the ends of the
  range for a 1-bit mean's bit ("leans toward lo = 0", "leans toward hi = 100"); none for discrete
  Laplace, whose report is an integer r as sent, labelled with its scale ("value = lo + r * step");
- the channel the reports were made with: the mechanism, its parameter and the exact p and q_other
  (fractions of the browser's sampler integers, from `ldp.Mechanism.describe()`), or for discrete
  Laplace its exact noise scale and clamp bound;
- what the values mean on the question's scale (`meaning`): a numeric question's grid and bins, an
  ordinal question's scores (and which levels the mean score leaves out), a multi-select's bits.

Each file format limits lengths (Stata: 80 characters per variable label; SPSS: 256 bytes per
variable label, 120 per value label, 80 per line of its documents): `fit` shortens the question
text first, with an ellipsis, so the warning and the channel always survive.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, assert_never

from ldp import Shape
from surveys.collection.plan import PlannedQuestion, SurveyPlan

from . import direct_columns

RANDOMIZED = "randomized report: do not tabulate as answers"
DIRECT = "direct answer: not randomized"
BIT_LABELS = {0: "not reported", 1: "reported"}
WEIGHT_NAME = "weight"  # surveys.aggregation.exports.weights.NAME
ELLIPSIS = "…"
QUESTION_AT_LEAST = 8  # characters of a question's text a bit column's label keeps, however long its option

Measure = Callable[[str], int]


def characters(text: str) -> int:
    return len(text)


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # "id", "day", "version", "report" or "weight"
    text: str  # what the column holds: a question's text (with the option, for a bit), or a description
    question: PlannedQuestion | None = None
    option: int | None = None  # a unary question's bit column: its option

    @property
    def status(self) -> str:
        """What the values are: randomized reports, or direct answers (report columns only)."""
        if self.question is None:
            return ""
        return RANDOMIZED if self.question.randomized else DIRECT

    @property
    def labels_a_bit(self) -> bool:
        """A mean's report that is one bit (the 1-bit mean's): its values are labelled by the end they lean to."""
        mechanism = None if self.question is None else self.question.mechanism
        return mechanism is not None and mechanism.shape is Shape.MEAN_BIT

    @property
    def value_labels(self) -> dict[int, str]:
        if self.question is None:
            return {}
        if self.option is not None:
            return dict(BIT_LABELS)
        if self.question.given_number:  # a direct number: plain numbers
            return {}
        if self.labels_a_bit:
            scale = self.question.mechanism.describe()
            return {0: f"leans toward lo = {scale['lo']}", 1: f"leans toward hi = {scale['hi']}"}
        return dict(enumerate(self.question.options))

    @property
    def scale_note(self) -> str:
        """How a discrete Laplace report maps to the question's units, e.g. "value = -5 + 0.5 r"."""
        if self.question is None or self.question.mechanism.shape not in (Shape.LAPLACE, Shape.NUMBER):
            return ""
        d = self.question.mechanism.describe()
        if self.question.given_number and self.question.band:  # the file holds its band's lower end
            return f"its band's lower end, width {_width(self.question)} from {d['lo']}"
        if self.question.given_number:  # the file holds the number itself
            return f"the number, {d['lo']} to {d['hi']} by {d['step']}"
        return f"value = {d['lo']} + {d['step']} r"

    @property
    def meaning(self) -> str:
        """What the question's values mean on its scale, in words (empty for yes/no and single choice)."""
        question = self.question
        if question is None:
            return ""
        d = question.mechanism.describe()
        match question.mechanism.shape:
            case Shape.TICKS:  # one box per option, any number ticked
                return (f"Multi-select: bit j is 1 if the report ticks option j (at most {d['parameters']['at_most']} "
                        "ticked in a true answer)" if d["parameters"].get("at_most") else
                        "Multi-select: bit j is 1 if the report ticks option j")
            case Shape.MEAN_BIT:
                return (f"1-bit mean on {d['lo']} to {d['hi']} by {d['step']}: 1 leans toward hi = {d['hi']}, "
                        f"0 toward lo = {d['lo']}")
            case Shape.NUMBER:
                bins = "; ".join(f"{edge} ({label})"
                                 for edge, label in zip(question.edges, question.options, strict=True))
                return (f"Direct number on {d['lo']} to {d['hi']} by {d['step']}: the report i is the grid index as "
                        f"given, the value {d['lo']} + {d['step']} i; i from 0 to {d['steps']}"
                        + (f". In this file in bands of {_width(question)}: the lower end of its band"
                           if question.band else "") + (f". Break-down bins by lower edge: {bins}" if bins else ""))
            case Shape.LAPLACE:
                return (f"Discrete Laplace on {d['lo']} to {d['hi']} by {d['step']}: the report r is the grid index "
                        f"plus noise, the value {d['lo']} + {d['step']} r; r from {-d['bound']} to "
                        f"{d['steps'] + d['bound']} (it may fall outside the range)")
            case Shape.INDEX | Shape.DIRECT | Shape.BITS:
                pass
            case _:
                assert_never(question.mechanism.shape)
        if question.edges:
            return "Bins by lower edge: " + "; ".join(f"{edge} ({label})"
                                                       for edge, label in zip(question.edges, question.options,
                                                                              strict=True))
        if question.scores:
            scores = "; ".join(f"{label} = {'no score' if score is None else score}"
                               for label, score in zip(question.options, question.scores, strict=True))
            left_out = any(score is None for score in question.scores)
            return f"Scores: {scores}" + (" (a level without a score is left out of the mean score)"
                                          if left_out else "")
        return ""

    @property
    def channel(self) -> str:
        """The mechanism, its parameter and the exact channel, e.g. "qrr (q = 0.5), p = 3/4, q_other = 1/4"."""
        if self.question is None:
            return ""
        described = self.question.mechanism.describe()
        parameters = _parameters(described["parameters"])
        if described["p_exact"] is None:  # discrete Laplace: an integer report, no p and q_other
            return (f"{described['name']} ({parameters}), noise scale = {described['scale_exact']} grid steps, "
                    f"bound = {described['bound']}")
        permanent = described["parameters"].get("permanent")  # a remembered question: p and q_other of both layers
        layers = f" over a permanent {permanent['mechanism']} ({_parameters(permanent)})" if permanent else ""
        return (f"{described['name']} ({parameters}){layers}, p = {described['p_exact']}, "
                f"q_other = {described['q_other_exact']}")

    def label(self, limit: int, measure: Measure, with_channel: bool = False) -> str:
        """The variable label within `limit`, on one line: the text (shortened if need be), then
        [status(; channel)]."""
        if self.question is None:
            return fit(self.text, limit, measure)
        note = f"{self.status}; {self.channel}" if with_channel else self.status
        suffix = f" [{note}]"
        if self.option is None:
            scale = f" ({self.scale_note})" if self.scale_note else ""
            return fit(one_line(self.text), limit - measure(scale + suffix), measure) + scale + suffix
        # The option tells a question's bit columns apart: it keeps its words before the question's text does.
        option = f" = {one_line(self.question.options[self.option])}"
        budget = limit - measure(suffix)
        room = max(budget - measure(option), QUESTION_AT_LEAST)
        return fit(fit(one_line(self.question.text), room, measure) + option, budget, measure) + suffix

    def label_is_whole(self, limit: int, measure: Measure, with_channel: bool = False) -> bool:
        """Whether the label holds the whole question text (and option) within `limit`."""
        return self.label(limit, measure, with_channel) == self.label(10**9, measure, with_channel)


WEIGHT_TEXT = "Raking weight to the population margins (missing: not weighted)"


def columns(current: SurveyPlan, weighted: bool = False) -> list[Column]:
    """Every column of the reports export, in order; the weight last for a survey with population margins."""
    found = [
        Column("response_id", "id", "Response id (random; links nothing to a person)"),
        Column("submitted_on", "day", "Day the response was submitted"),
        Column("mechanism_version", "version", "Version of the survey's mechanisms the reports were made with"),
    ]
    for question in current:
        if question.mechanism.unary:
            found += [Column(f"{question.key}_{j}", "report", f"{question.text} = {option}", question, j)
                      for j, option in enumerate(question.options)]
        else:
            found.append(Column(question.key, "report", question.text, question))
    if weighted:
        found.append(Column(WEIGHT_NAME, "weight", WEIGHT_TEXT))
    return found


def one_line(text: str) -> str:
    """Whitespace (newlines included) as single spaces: a label is one line."""
    return " ".join(text.split())


def fit(text: str, limit: int, measure: Measure = characters) -> str:
    """`text`, or as much of it as fits in `limit` with an ellipsis; never cut inside a character.

    >>> fit("Have you ever cheated?", 12)
    'Have you ev…'
    >>> fit("été", 4, utf8_bytes)
    'é…'
    """
    if measure(text) <= limit:
        return text
    room = limit - measure(ELLIPSIS)
    while text and measure(text) > room:
        text = text[:-1]
    return text.rstrip() + ELLIPSIS if room > 0 else ""


def wrap(text: str, limit: int, measure: Measure = utf8_bytes) -> Iterator[str]:
    """Lines of at most `limit` (words kept whole unless one alone is too long)."""
    line = ""
    for word in text.split():
        candidate = f"{line} {word}" if line else word
        if measure(candidate) <= limit:
            line = candidate
            continue
        if line:
            yield line
        while measure(word) > limit:
            cut = len(word)
            while measure(word[:cut]) > limit:
                cut -= 1
            yield word[:cut]
            word = word[cut:]
        line = word
    if line:
        yield line


def _parameters(parameters: dict[str, Any]) -> str:
    return ", ".join(f"{key} = {value}" for key, value in parameters.items() if key not in ("mechanism", "permanent"))


def _width(question: PlannedQuestion) -> str:
    """A banded number's band width in its units (surveys.aggregation.exports.direct_columns)."""
    return str(direct_columns.band_entry(question)["width"])
