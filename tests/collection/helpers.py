"""Small helpers shared by the collection tests."""

from surveys.collection.models import Report, Response


def question(survey, order):
    return survey.questions.get(order=order)


def qid(survey, order) -> str:
    """A question's key in a submission's `reports` object."""
    return str(question(survey, order).pk)


def stored() -> tuple[int, int]:
    """(responses, reports) in the database: what an error path must leave unchanged."""
    return Response.objects.count(), Report.objects.count()
