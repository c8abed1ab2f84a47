"""Survey texts as literals of the generated R and Python scripts: the only way a question's text,
an option or a title enters a script, so no text can end a string early and run as code.

Both kinds of literal are plain ASCII (non-ASCII characters as escapes), so a script reads the
same in any locale; a NUL, which neither language allows in a string, becomes U+FFFD.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any, assert_never

from ldp import Shape
from surveys.collection.plan import SurveyPlan

from ..exports.column_labels import BIT_LABELS, Column, columns
from ..results import too_few


def r_string(text: str) -> str:
    """A double-quoted R string literal whose value is `text`: backslash and quote escaped, a newline as
    \\n, other control and non-ASCII characters as \\U{hex}."""
    out = ['"']
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif char == "\n":
            out.append("\\n")
        elif 32 <= code < 127:
            out.append(char)
        else:
            if code == 0 or 0xD800 <= code <= 0xDFFF:
                code = 0xFFFD
            out.append(f"\\U{{{code:x}}}")
    out.append('"')
    return "".join(out)


def r_strings(texts: Iterable[str]) -> str:
    return "c(" + ", ".join(r_string(text) for text in texts) + ")"


def python_string(text: str) -> str:
    """A Python string literal whose value is `text`, in ASCII."""
    return ascii(text.replace("\0", "\ufffd"))


def r_design(current: SurveyPlan, slug: str, title: str, weights: dict[str, Any] | None = None) -> str:
    """The codebook's content as an R list: what reading and debiasing the reports needs; with `weights` (the
    codebook's "weights") the population margins and the cap, and the reports' weight column."""
    every = columns(current, weights is not None)
    questions = [_r_question(column) for column in every if column.question and column.option in (None, 0)]
    return "\n".join([
        "design <- list(",
        f"  slug = {r_string(slug)},",
        f"  title = {r_string(title)},",
        f"  mechanism_version = {r_string(current.version)},",
        f"  columns = {r_strings(c.name for c in every)},",
        f"  column_labels = {r_strings(c.label(10**6, len) for c in every)},",
        f"  margins = {_r_margins(weights)},",
        f"  cap = {'NULL' if weights is None else r_number(weights['cap'])},",
        "  questions = list(",
        ",\n".join(questions),
        "  )",
        ")",
    ])


def _r_margins(weights: dict[str, Any] | None) -> str:
    """Each population margin: its question's key (the report column), options, shares (in option order), source."""
    if weights is None:
        return "list()"
    found = []
    for m in weights["margins"]:
        shares = sorted(m["shares"], key=lambda s: s["option_index"])
        numbers = ", ".join(r_number(s["share"]) for s in shares)
        found.append(f"list(key = {r_string(m['question'])}, options = {r_strings(s['option'] for s in shares)}, "
                     f"shares = c({numbers}), source = {r_string(m['source'])})")
    return "list(" + ", ".join(found) + ")"


def r_number(x: object) -> str:
    """A finite number as an R double literal (Python's shortest round-trip repr, which R reads back)."""
    return repr(float(x))  # type: ignore[arg-type]


def _r_question(column: Column) -> str:
    question = column.question
    assert question is not None
    mechanism = question.mechanism
    described = mechanism.describe()
    names = [f"{question.key}_{j}" for j in range(mechanism.k)] if mechanism.unary else [question.key]
    fields: dict[str, Any] = {
        "key": r_string(question.key),
        "id": f"{question.id}L",  # the app's question id and order: a model's outcome_id and its terms' labels
        "order": f"{question.order}L",
        "text": r_string(question.text),
        "kind": r_string(question.kind),
        "options": r_strings(question.options),
        "randomized": "TRUE" if question.randomized else "FALSE",
        "status": r_string(column.status),
        "mechanism": r_string(described["name"]),
        "channel": r_string(column.channel),
        "meaning": r_string(column.meaning),
        "encoding": r_string(mechanism.encoding),
        "columns": r_strings(names),
        # The reports a column may hold: bits 0..1, option indexes 0..k-1, discrete Laplace's -bound..steps + bound.
        "report_range": _report_range(question.mechanism, described, question.given_number),
        "value_labels": (r_strings(BIT_LABELS.values()) if mechanism.unary
                         else r_strings(column.value_labels.values()) if column.labels_a_bit
                         else "character(0)" if question.mean else "NULL"),  # a direct number: plain numbers
        "mean_interval": r_string(mechanism.mean_interval) if mechanism.mean_interval else "NULL",
        # Exact fractions of the browser's sampler integers (doubles hold them exactly); NULL for discrete Laplace.
        "p": _r_fraction(described["p_exact"]),
        "q_other": _r_fraction(described["q_other_exact"]),
        "scale": ("NULL" if "lo" not in described else
                  f"c(lo = {r_number(described['lo'])}, hi = {r_number(described['hi'])}, "
                  f"step = {r_number(described['step'])})"),
        "scale_note": r_string(column.scale_note),
        # Discrete Laplace: the clamp bound (reports are r, stored as r + bound) and Var(Z) in grid steps squared.
        "bound": str(described["bound"]) if "bound" in described else "NULL",
        "noise_variance": r_number(described["noise_variance"]) if "noise_variance" in described else "NULL",
        # Discrete Laplace's exact noise scale t / s (in grid steps), for its sequence valid at any time.
        "noise_scale": _r_fraction(described.get("scale_exact")),
        # An ordinal question's scores, NA for a level left out of the mean score.
        # A numeric mean's worst-case variance per report, for the too-few rule (surveys.aggregation.results.too_few).
        "mean_variance": _r_mean_variance(question),
        # A number asked directly: its bins' lower edges as grid indexes, the cells a cross-tab counts it in.
        "bins": ("NULL" if not (question.mean and question.edges) else
                 "c(" + ", ".join(f"{index}L" for index in question.edge_indexes) + ")"),
        "scores": ("NULL" if not question.scores else
                   "c(" + ", ".join("NA" if v is None else r_number(v) for v in question.scores) + ")"),
    }
    return "    list(" + ", ".join(f"{name} = {value}" for name, value in fields.items()) + ")"


def _r_mean_variance(question: Any) -> str:
    found = too_few.mean_variance(question)
    return "NULL" if found is None else r_number(found)


def _report_range(mechanism: Any, described: dict[str, Any], given: bool) -> str:
    if given:  # a number sent as given: its value, lo to hi (on its grid: the reader checks)
        return f"c({r_number(described['lo'])}, {r_number(described['hi'])})"
    match mechanism.shape:
        case Shape.BITS | Shape.TICKS:
            return "c(0L, 1L)"
        case Shape.LAPLACE:  # r, the grid index plus noise, within the clamp
            return f"c({-described['bound']}L, {described['steps'] + described['bound']}L)"
        case Shape.INDEX | Shape.DIRECT | Shape.MEAN_BIT | Shape.NUMBER:
            return f"c(0L, {mechanism.k - 1}L)"
        case _:
            assert_never(mechanism.shape)


def _r_fraction(exact: str | None) -> str:
    """c(numerator, denominator), whose quotient in R is the fraction's nearest double."""
    if exact is None:
        return "NULL"
    numerator, denominator = (int(part) for part in exact.split("/"))
    if max(numerator, denominator) <= 2**53:  # both exact doubles: R's quotient is correctly rounded
        return f"c({numerator}, {denominator})"
    # A remembered question's composed channel (over two samplers' moduli): a double would round the integers.
    return f"c({r_number(Fraction(numerator, denominator))}, 1)"
