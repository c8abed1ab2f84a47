"""The API's one parser (settings: DEFAULT_PARSER_CLASSES). Its own module, because DRF
imports it while rest_framework.views is itself still being imported."""

import io
from typing import Any

from django.conf import settings
from rest_framework import parsers, status
from rest_framework.exceptions import APIException, ParseError


class TooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "request body too large"
    default_code = "too_large"


class JSONParser(parsers.JSONParser):
    """DRF's, with Django's body size limit (DRF reads the stream itself, past Django's
    check) and too deeply nested JSON a 400 rather than a RecursionError (a 500)."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        body = stream.read(limit + 1) if stream is not None else b""
        if len(body) > limit:
            raise TooLarge
        try:
            return super().parse(io.BytesIO(body), media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
