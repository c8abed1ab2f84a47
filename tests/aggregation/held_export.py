"""A report export held at a chosen line, so that a test, not the machine's speed, decides what happens
while a preparation writes its file (surveys.aggregation.exports.preparation in a background thread)."""

import threading

from surveys.aggregation.exports import reports as exports


class Gate:
    """reports.csv's lines, stopping before line `at` (the header is line 0) until the test opens it."""

    def __init__(self, monkeypatch, at):
        self.reached, self.open = threading.Event(), threading.Event()
        whole = exports.report_csv_lines

        def held(survey, current):
            # Line by line, however many rows the writer yields as one piece.
            for number, line in enumerate("".join(whole(survey, current)).splitlines(keepends=True)):
                if number == at:
                    self.reached.set()
                    assert self.open.wait(60)
                yield line

        monkeypatch.setattr(exports, "report_csv_lines", held)


def join_preparations(seconds=60):
    """Wait for every preparation's threads (none may outlive its test, and its database)."""
    for thread in threading.enumerate():
        if thread.name.startswith("export-"):
            thread.join(seconds)

