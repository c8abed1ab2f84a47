"""Refusals in the domain's words: what kind of refusal (a stable code), the part of the request
at fault, and why. Services raise them; they know nothing of HTTP. The API writes each as its
status and error shape (surveys.errors), the researcher pages as theirs (surveys.aggregation.refusing).
"""

from __future__ import annotations

# The codes services refuse with (the API's own, from DRF, are in surveys.errors.CODES).
INVALID = "invalid"  # a request body or query that cannot be accepted as it is
BAD_PARAMETER = "bad_parameter"  # a results query parameter the results cannot be computed with
NOT_FOUND = "not_found"
GONE = "gone"  # a survey that no longer accepts responses, or has no questions left
VERSION_CHANGED = "version_changed"  # the survey changed since the form was loaded: reload it
KEY_REUSED = "key_reused"  # a submission key already used for other reports
INVITATION_REFUSED = "invitation_refused"  # a missing, unknown or spent invitation
UNAVAILABLE = "unavailable"  # a survey's stored configuration or counts cannot be read soundly


class Refusal(Exception):
    """A request refused: its code, the field at fault (a body field, a query parameter, body,
    request or survey) and why."""

    code = INVALID

    def __init__(self, field: str, reason: str, code: str | None = None):
        # A field may echo a key from the payload: lone surrogates cannot be sent back as UTF-8.
        field = field.encode("utf-8", "backslashreplace").decode("utf-8")
        super().__init__(f"{field}: {reason}")
        self.field, self.reason = field, reason
        if code is not None:
            self.code = code
