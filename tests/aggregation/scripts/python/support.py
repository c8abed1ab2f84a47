"""A small codebook and reports CSV in the app's formats, for the script's modules that read files: a yes/no
question by q-randomized response (q1), three options by k-ary randomized response (q2), and a number sent as given
on the grid 0 to 10 by 0.5 (q3), whose cells carry its value."""

import csv
import json
from pathlib import Path

from ldp import KaryRR, QRandomizedResponse

VERSION = "v-test"


def question(key, order, kind, options, mechanism, columns, **extra):
    return {"key": key, "id": order, "order": order, "text": f"Question {order}?", "kind": kind,
            "options": options, "randomized": mechanism.get("randomized", True), "mechanism": mechanism,
            "report": {"encoding": mechanism["encoding"], "csv_columns": columns}, **extra}


def book() -> dict:
    yes_no = {**QRandomizedResponse("0.5").describe(), "randomized": True}
    three = {**KaryRR(1.0, 3).describe(), "randomized": True}
    number = {"name": "direct_number", "encoding": "integer", "randomized": False, "p_exact": None,
              "q_other_exact": None, "steps": 20, "bound": 0, "scale_exact": "1/1"}
    questions = [question("q1", 1, "yes_no", ["No", "Yes"], yes_no, ["q1"]),
                 question("q2", 2, "single_choice", ["A", "B", "C"], three, ["q2"]),
                 question("q3", 3, "numeric", [], number, ["q3"], scale={"lo": "0", "hi": "10", "step": "0.5"})]
    columns = ["response_id", "submitted_on", "mechanism_version", "q1", "q2", "q3"]
    return {"format": "ldp-survey-codebook/2", "survey": {"slug": "t", "title": "T", "mechanism_version": VERSION},
            "questions": questions, "reports_csv_columns": columns}


def write(folder: Path, rows: list[list[str]], codebook: dict | None = None) -> tuple[str, str]:
    """The codebook and a reports CSV of `rows` (q1, q2, q3 cells) in `folder`; their paths."""
    found = codebook or book()
    (folder / "codebook.json").write_text(json.dumps(found), encoding="utf-8")
    with (folder / "reports.csv").open("w", newline="", encoding="utf-8") as file:
        writer = csv.writer(file)
        writer.writerow(found["reports_csv_columns"])
        for i, row in enumerate(rows):
            writer.writerow([f"r{i}", "2026-01-01", VERSION, *row])
    return str(folder / "reports.csv"), str(folder / "codebook.json")
