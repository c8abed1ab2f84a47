"""The API's one parser (settings: DEFAULT_PARSER_CLASSES). Its own module, because DRF
imports it while rest_framework.views is itself still being imported."""

from rest_framework import parsers
from rest_framework.exceptions import ParseError


class JSONParser(parsers.JSONParser):
    """DRF's, with too deeply nested JSON a 400 rather than a RecursionError (a 500)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
