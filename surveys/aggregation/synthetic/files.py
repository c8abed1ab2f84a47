"""The synthetic respondents (surveys.aggregation.synthetic.respondents) as labelled Stata (.dta) and SPSS (.sav) files:
synthetic.dta and synthetic.sav, the same rows as synthetic.csv (same seed) with the question as each variable's
label. A one-of-k question is its option's index (0 first, as the codebook orders them) with the options as value
labels; a multi-select one 0/1 variable per option, `<key>_<j>`, labelled with the option; a numeric question its
number (lo + step i). No row is a respondent: the file's label says so.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from typing import Any

import numpy as np

from ldp import Shape
from surveys.collection.models import Survey
from surveys.collection.plan import PlannedQuestion, SurveyPlan

from ..exports.column_labels import characters, fit, utf8_bytes
from . import respondents as synthetic

LIMITS = {"dta": (80, 32000, characters), "sav": (256, 120, utf8_bytes)}  # label, value label, measured in
FILE_LABEL = "Synthetic respondents, not respondents: {title}"


def _variables(question: PlannedQuestion, drawn: Any) -> list[tuple[str, str, Any, dict[int, str] | None]]:
    """The question's variables: (name, label, values, value labels), from `ldp.synthetic`'s answers."""
    if question.mechanism.shape is Shape.TICKS:
        bits = np.asarray(drawn, dtype=np.int32).reshape(len(drawn), question.mechanism.k)
        return [(f"{question.key}_{j}", f"{question.text}: {label}", bits[:, j], {0: "not ticked", 1: "ticked"})
                for j, label in enumerate(question.options)]
    index = np.asarray(drawn, dtype=np.int64)
    if question.mean:
        assert question.scale is not None
        lo, step = float(question.scale.lo), float(question.scale.step)
        return [(question.key, question.text, np.round(lo + step * index, 10), None)]
    return [(question.key, question.text, index.astype(np.int32), dict(enumerate(question.options)))]


def _write(fmt: str) -> Callable[[Survey, SurveyPlan, Any, Callable[[int], None], str], tuple[int, dict[str, Any]]]:
    def write(survey: Survey, current: SurveyPlan, out: Any, tick: Callable[[int], None],
              variant: str = "") -> tuple[int, dict[str, Any]]:
        import pandas as pd  # type: ignore[import-untyped]
        import pyreadstat

        data = synthetic.synthetic_data(survey, current)
        found = [v for q, drawn in zip(current, data.drawn, strict=True) for v in _variables(q, drawn)]
        label, value_label, measure = LIMITS[fmt]
        frame = pd.DataFrame({name: values for name, _, values, _ in found})
        title = fit(FILE_LABEL.format(title=survey.title), 80 if fmt == "dta" else 64, measure)
        options: dict[str, Any] = {"file_label": title,
                                   "column_labels": [fit(text, label, measure) for _, text, _, _ in found],
                                   "variable_value_labels": {
                                       name: {k: fit(v, value_label, measure) for k, v in labels.items()}
                                       for name, _, _, labels in found if labels}}
        handle, path = tempfile.mkstemp(suffix=f".{fmt}")
        os.close(handle)
        try:
            if fmt == "dta":
                pyreadstat.write_dta(frame, path, version=14, **options)
            else:
                pyreadstat.write_sav(frame, path, **options)
            with open(path, "rb") as written:
                shutil.copyfileobj(written, out)
        finally:
            os.unlink(path)
        tick(data.rows)
        return data.rows, synthetic.described(survey, data)
    return write


write_dta, write_sav = _write("dta"), _write("sav")
