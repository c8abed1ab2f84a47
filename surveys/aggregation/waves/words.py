"""The assumption a change between two waves makes about respondents in both, in words (the dashboard's, the
API's and the CSV's): a question's fractions (`waves.Trend`) or a numeric mean (`wave_means.MeanTrend`)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from ldp.waves import pairs as wave_pairs

from .means import MeanTrend
from .series import Trend


def correlation_words(trend: Trend) -> str:
    """The change's assumption about respondents in both waves, in words."""
    change = trend.change
    assert change is not None
    later, earlier = max(trend.first, trend.second), min(trend.first, trend.second)
    if trend.fixed:
        return _("Fixed by the weighting: in both waves the responses are raked to this question's population "
                 "margins, so each wave's weighted figures are its margins' shares and the change is theirs, with no "
                 "sampling error to give an interval or a test.")
    if change.correlation == wave_pairs.INDEPENDENT:
        return _("No respondent of wave %(later)s said they had answered an earlier wave: the two waves are taken "
                 "as independent.") % {"later": later}
    if change.correlation == wave_pairs.UNKNOWN and trend.weighted:
        return ngettext(
            "%(shared)s respondent of wave %(later)s said they had answered an earlier wave; how their weighted "
            "reports go together across waves is not worked out (their reports are never linked), so the interval "
            "allows for the largest variance any correlation gives (its standard error is the sum of the two waves' "
            "weighted standard errors).",
            "%(shared)s respondents of wave %(later)s said they had answered an earlier wave; how their "
            "weighted reports go together across waves is not worked out (their reports are never linked), so "
            "the interval allows for the largest variance any correlation gives (its standard error is the sum "
            "of the two waves' weighted standard errors).", change.shared) % {"shared": change.shared, "later": later}
    if change.correlation == wave_pairs.UNKNOWN:
        return _("The two waves remember different permanent layers, so how the reports of respondents who "
                 "answered both go together is not known: the interval allows for the largest variance any "
                 "correlation gives.")
    return ngettext(
        "%(shared)s respondent of wave %(later)s said they had answered an earlier wave; the interval takes them as "
        "having answered wave %(earlier)s too, and as having changed their answer no more than these estimates "
        "require (their reports are never linked, so neither is observed).",
        "%(shared)s respondents of wave %(later)s said they had answered an earlier wave; the interval takes "
        "them as having answered wave %(earlier)s too, and as few of them as these estimates allow as having "
        "changed their answer (their reports are never linked, so neither is observed).", change.shared) % {
            "shared": change.shared, "later": later, "earlier": earlier}


def mean_words(trend: MeanTrend) -> str:
    """A numeric mean's change: independent waves, or respondents in both whose answers' correlation is unknown."""
    change = trend.change
    assert change is not None
    later = max(trend.first, trend.second)
    if change.correlation == wave_pairs.INDEPENDENT:
        return _("No respondent of wave %(later)s said they had answered an earlier wave: the two waves are taken "
                 "as independent.") % {"later": later}
    return ngettext(
        "%(shared)s respondent of wave %(later)s said they had answered an earlier wave; how their answers go "
        "together across waves is not known (their reports are never linked), so the interval allows for the "
        "largest variance any correlation gives (its standard error is the sum of the two waves' standard errors).",
        "%(shared)s respondents of wave %(later)s said they had answered an earlier wave; how their answers go "
        "together across waves is not known (their reports are never linked), so the interval allows for the "
        "largest variance any correlation gives (its standard error is the sum of the two waves' standard errors).",
        change.shared) % {"shared": change.shared, "later": later}
