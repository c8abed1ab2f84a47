"""The shapes the script's functions pass around, named for the reader and for mypy: what json.load gives of a
codebook and of one of its questions, the reports CSV read as text columns, a table's record, numpy's arrays."""

from __future__ import annotations

from typing import Any

import numpy as np

Book = dict[str, Any]  # a codebook (ldp-survey-codebook/2)
Question = dict[str, Any]  # one of its "questions"
Columns = dict[str, list[str]]  # the reports CSV by column name, each cell as text ("" where not asked)
Record = dict[str, Any]  # one row of a table the script prints and writes, by column name
Counts = list[int]  # reports per option (c_j)
Figures = tuple[float, float, float, float]  # estimate, std_error, ci_low, ci_high
Array = np.ndarray
Found = dict[str, Any]  # a result by name: a cross-tab's, a model's, a wave's or the waves' numbers
