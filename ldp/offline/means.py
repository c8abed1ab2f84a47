"""`ldp.offline.analyze` for the kinds with a mean: a numeric question's mean (1-bit mean, discrete Laplace) and an
ordinal question's mean score, from an exported file's reports and its codebook.

The mechanism is rebuilt from the codebook's parameters (`ldp.mechanisms.fields.build`) and used only if its sampler's
integers are the codebook's, exactly: the reports are always read with the channel they were made with.
Then the app's own estimators give the numbers:

- 1-bit mean: `OneBitMean.estimate_mean` on the counts of reports 0 and 1 (Wilson interval of the share of
  1s, mapped to lo..hi);
- discrete Laplace: `DiscreteLaplace.estimate_mean` on the histogram of reports r, stored as r + bound
  (the mean of r, its standard error from the sample variance floored at the noise's, a normal interval);
- ordinal: `ldp.means.ordinal.scored_mean` over the levels with a score (a level without one, such as "Prefer
  not to say", is left out: the mean among those who chose a scored level).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..means.ordinal import scored_mean
from ..mechanisms.base import Mechanism
from ..mechanisms.fields import FieldRefusal, build
from ..mechanisms.grid import GridMechanism
from ..mechanisms.registry import from_dict
from ..stats.estimates import MeanEstimate
from .codebook import CodebookQuestion, ExportError


def rebuilt(design: CodebookQuestion) -> Mechanism:
    """The mechanism the codebook describes, built from its fields as the command line and the app build one
    (`fields.build`: a field it does not take, lacks or cannot take is named), checked against its sampler's
    integers. A remembered question's two layers are read back by `from_dict`."""
    try:
        parameters = dict(design.described["parameters"])
        mechanism = from_dict(parameters) if "permanent" in parameters else build(parameters.pop("mechanism"),
                                                                                    **parameters)
    except FieldRefusal as refusal:
        raise ExportError(f"{design.key}: cannot rebuild the mechanism from the codebook ({refusal.field}: "
                          f"{refusal})") from None
    except (KeyError, TypeError, ValueError) as error:
        raise ExportError(f"{design.key}: cannot rebuild the mechanism from the codebook ({error})") from None
    if mechanism.sampler() != design.described.get("sampler"):
        raise ExportError(f"{design.key}: the codebook's sampler integers are not those its parameters give")
    return mechanism


def mean_of(design: CodebookQuestion, counts: list[int], values: Mapping[int, int], n: int,
            confidence: float) -> MeanEstimate | None:
    """The question's mean or mean score; None for a kind without one."""
    if design.estimates_mean:
        mechanism = rebuilt(design)
        if not isinstance(mechanism, GridMechanism):
            raise AssertionError(f"{design.key}: {design.mechanism} rebuilt as {mechanism.name}")
        if mechanism.encoding != "integer":  # the 1-bit mean: counts of the reports 0 and 1
            return mechanism.estimate_mean([0, 1], counts, confidence=confidence)
        bound = getattr(mechanism, "bound", 0)  # discrete Laplace stores r + bound; a direct number its index
        stored = sorted(values)
        return mechanism.estimate_mean([r + bound for r in stored], [values[r] for r in stored],
                                       confidence=confidence)
    if design.scores is None:
        return None
    scores = [None if score is None else float(score) for score in design.scores]
    return scored_mean(rebuilt(design), counts, n, scores, confidence)


def mean_label(design: CodebookQuestion) -> str:
    """The row name of a question's mean: "mean" (a numeric mean) or "mean_score" (an ordinal question)."""
    return "mean" if design.estimates_mean else "mean_score"


def interval_name(design: CodebookQuestion) -> str:
    return design.mean_interval
