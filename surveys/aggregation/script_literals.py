"""Survey texts as literals of the generated R and Python scripts: the only way a question's text,
an option or a title enters a script, so no text can end a string early and run as code.

Both kinds of literal are plain ASCII (non-ASCII characters as escapes), so a script reads the
same in any locale; a NUL, which neither language allows in a string, becomes U+FFFD.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from surveys.collection.plan import SurveyPlan

from .export_labels import BIT_LABELS, Column, columns


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


def r_design(current: SurveyPlan, slug: str, title: str) -> str:
    """The codebook's content as an R list: what reading and debiasing the reports needs."""
    questions = [_r_question(column) for column in columns(current) if column.question and column.option in (None, 0)]
    return "\n".join([
        "design <- list(",
        f"  slug = {r_string(slug)},",
        f"  title = {r_string(title)},",
        f"  mechanism_version = {r_string(current.version)},",
        f"  columns = {r_strings(c.name for c in columns(current))},",
        f"  column_labels = {r_strings(c.label(10**6, len) for c in columns(current))},",
        "  questions = list(",
        ",\n".join(questions),
        "  )",
        ")",
    ])


def _r_question(column: Column) -> str:
    question = column.question
    assert question is not None
    described = question.mechanism.describe()
    p, p_of = described["p_exact"].split("/")
    q, q_of = described["q_other_exact"].split("/")
    names = ([f"{question.key}_{j}" for j in range(question.mechanism.k)] if question.mechanism.unary
             else [question.key])
    fields: dict[str, Any] = {
        "key": r_string(question.key),
        "text": r_string(question.text),
        "options": r_strings(question.options),
        "randomized": "TRUE" if question.randomized else "FALSE",
        "status": r_string(column.status),
        "mechanism": r_string(described["name"]),
        "channel": r_string(column.channel),
        "encoding": r_string(question.mechanism.encoding),
        "columns": r_strings(names),
        "value_labels": r_strings(BIT_LABELS.values()) if question.mechanism.unary else "NULL",
        # Exact fractions of the browser's sampler integers (doubles hold them exactly).
        "p": f"c({int(p)}, {int(p_of)})",
        "q_other": f"c({int(q)}, {int(q_of)})",
    }
    return "    list(" + ", ".join(f"{name} = {value}" for name, value in fields.items()) + ")"
