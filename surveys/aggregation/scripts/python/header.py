"""The literals the generated script's header defines (surveys.aggregation.scripts.render fills them in per survey),
here with the values of a survey with none of them set, for the modules imported on their own (by mypy and by the
tests, which set what they need): the script's body reads them by these names, which the concatenated script's
header defines in their place."""

from __future__ import annotations

REPORTS = "reports.csv"
CODEBOOK = "codebook.json"
MECHANISM_VERSION = ""
MEAN_VARIANCE: dict[str, float] = {}  # a numeric mean's worst-case variance per report, in its units squared
ANYTIME_CONFIDENCE, ANYTIME_MARGIN = 0.95, 0.05  # the dashboard's defaults
PLANNED = 1000  # the sequences' planned size, fixed when the survey opened
SEQUENCE_CONFIDENCE: float | None = None  # their level; None for a survey opened before plans were stored
ANYTIME_NEEDED: dict[str, int] = {}  # respondents needed at those, for a margin that holds at every look
# The command line's defaults: the options of the dashboard page the script was downloaded from.
DEFAULT_INTERVAL = "wilson"
DEFAULT_CONFIDENCE = 0.95
DEFAULT_MARGIN = 0.05
DEFAULT_SIMULTANEOUS = False
DEFAULT_WEIGHTED = False
