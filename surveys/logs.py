"""Logging filters. A request with a Host header the site does not serve is refused (400) and
logged by django.security.DisallowedHost with its traceback, 15 lines per request: anybody can
flood the logs with them. OneLine keeps the message and drops the traceback."""

from __future__ import annotations

import logging


class OneLine(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = " ".join(record.getMessage().split())  # a header cannot hold a newline, but be sure
        record.args = ()
        record.exc_info = record.exc_text = record.stack_info = None
        return True
