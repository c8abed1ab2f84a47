"""Error answers outside the views: JSON for API addresses, so every API refusal has one shape."""

from django.http import JsonResponse
from django.views import defaults


def not_found(request, exception):
    """handler404: an address under /api/ that no route matches gets the API's error shape."""
    if request.path.startswith("/api/"):
        return JsonResponse({"error": {"field": "request", "reason": "not found"}}, status=404)
    return defaults.page_not_found(request, exception)
