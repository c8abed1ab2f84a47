"""A survey with skip logic on direct answers, in English and Spanish, for the tests of skip logic (submission,
results, the browser): two direct choices, a direct number, and two randomized follow-ups asked only of some."""

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec, TranslationSpec
from surveys.collection.models import Survey

KIDS = "${kids} = 'yes'"  # question 3 is asked of those who have children
YOUNG_OR_NORTH = "${age} < 30 or selected(${region}, 'n')"  # question 5

QUESTIONS = [
    QuestionSpec("Your region?", "direct", options=["North", "South"], name="region", choice_names=["n", "s"]),
    QuestionSpec("Do you have children?", "direct", options=["No", "Yes"], name="kids", choice_names=["no", "yes"]),
    QuestionSpec("Have you ever hit one of your children?", "qrr", q="0.5", name="hit", relevant=KIDS),
    QuestionSpec("Your age?", "direct_number", kind="numeric", scale=("18", "100", "1"), name="age"),
    QuestionSpec("Did you use drugs this year?", "bitflip", epsilon=1.0, name="drugs", relevant=YOUNG_OR_NORTH),
]
SPANISH = TranslationSpec(
    "es", "Familia", ["¿Su región?", "¿Tiene hijos?", "¿Alguna vez golpeó a uno de sus hijos?", "¿Su edad?",
                      "¿Consumió drogas este año?"],
    {1: ["Norte", "Sur"], 2: ["No", "Sí"]})


def make(slug: str = "family", **fields) -> Survey:
    """The survey, open, offered in English and Spanish."""
    fields.setdefault("retention_days", 365)  # required to open
    survey = builder.create_survey(slug, "Family", QUESTIONS, status=Survey.Status.OPEN, epsilon_budget=6.0,
                                   **fields)
    builder.translate(survey, SPANISH)
    return survey
