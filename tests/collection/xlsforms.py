"""XLSForms for the tests, written with openpyxl, and a survey described whole for comparing two surveys."""

from __future__ import annotations

from io import BytesIO
from typing import Any

from openpyxl import Workbook

from surveys.collection import definition, languages
from surveys.collection.models import Survey
from surveys.collection.serializers import SurveyDefinitionSerializer


def workbook(survey: list[list[Any]], choices: list[list[Any]] | None = None,
             settings: list[list[Any]] | None = None) -> bytes:
    """An .xlsx with these sheets (each a list of rows, the header first)."""
    book = Workbook()
    book.remove(book.active)
    for name, rows in (("survey", survey), ("choices", choices), ("settings", settings)):
        if rows is not None:
            sheet = book.create_sheet(name)
            for row in rows:
                sheet.append(row)
    found = BytesIO()
    book.save(found)
    return found.getvalue()


EN, ES = "label::English (en)", "label::Spanish (es)"
SURVEY_HEADER = ["type", "name", EN, ES, "hint::English (en)", "hint::Spanish (es)", "required", "constraint",
                 "privacy"]
# One question of each supported kind and mechanism, in English and Spanish.
QUESTIONS = [
    ["select_one yn", "drugs", "Used drugs this year?", "¿Consumió drogas este año?", "Be honest", "Sea honesto",
     "yes", "", "qrr q=0.5"],
    ["select_one yn", "stole", "Stole anything?", "¿Robó algo?", "", "", "yes", "", "bitflip epsilon=1"],
    ["select_one region", "region", "Your region?", "¿Su región?", "", "", "yes", "", "direct"],
    ["select_one party", "party", "Which party?", "¿Qué partido?", "", "", "yes", "", "krr epsilon=1.6"],
    ["select_one party", "party_sue", "Which party then?", "¿Qué partido entonces?", "", "", "yes", "",
     "sue epsilon=0.7"],
    ["select_one agree", "trust", "I trust the police", "Confío en la policía", "", "", "yes", "", "oue epsilon=1"],
    ["select_multiple harm", "harms", "Which happened to you?", "¿Qué le pasó?", "", "", "yes", "",
     "multiselect epsilon=2 at_most=3"],
    ["integer", "income", "Income (thousands)?", "¿Ingreso (miles)?", "", "", "yes", "",
     "onebit epsilon=1 lo=0 hi=100 step=1"],
    ["decimal", "drinks", "Drinks per day?", "¿Bebidas por día?", "", "", "yes", "",
     "dlaplace epsilon=1 lo=0 hi=10 step=0.5"],
    ["integer", "age", "Your age?", "¿Su edad?", "", "", "yes", ". >= 18 and . <= 100", "direct bins=18,35,65"],
    ["integer", "hours", "Hours online?", "¿Horas en línea?", "", "", "yes", "",
     "krr epsilon=1 lo=0 hi=60 step=1 bins=0,10,30"],
]
CHOICES = [
    ["list_name", "name", EN, ES, "score", "exclusive"],
    ["yn", "no", "No", "No", "", ""], ["yn", "yes", "Yes", "Sí", "", ""],
    ["region", "n", "North", "Norte", "", ""], ["region", "s", "South", "Sur", "", ""],
    ["party", "a", "Left", "Izquierda", "", ""], ["party", "b", "Centre", "Centro", "", ""],
    ["party", "c", "Right", "Derecha", "", ""],
    ["agree", "d", "Disagree", "En desacuerdo", "1", ""], ["agree", "m", "Neither", "Ni uno ni otro", "2", ""],
    ["agree", "a", "Agree", "De acuerdo", "3", ""], ["agree", "x", "Prefer not to say", "Prefiero no decir", "", ""],
    ["harm", "hit", "Hit", "Golpeado", "", ""], ["harm", "threat", "Threatened", "Amenazado", "", ""],
    ["harm", "robbed", "Robbed", "Robado", "", ""], ["harm", "none", "None of these", "Ninguno", "", "yes"],
]
SETTINGS = [
    ["form_title", "form_title::Spanish (es)", "form_id", "default_language", "consent", "consent::Spanish (es)",
     "description", "description::Spanish (es)", "epsilon_budget"],
    ["Health and safety", "Salud y seguridad", "health_safety", "English (en)", "I agree to take part.",
     "Acepto participar.", "Ten minutes.", "Diez minutos.", "12"],
]
KEPT = [[*SETTINGS[0], "retention_days"], [*SETTINGS[1], "90"]]  # the settings with a retention period: it may open


def hand_form(**changes: Any) -> bytes:
    """The hand-written form: every supported type, the privacy column, two languages and consent."""
    return workbook(changes.get("survey", [SURVEY_HEADER, *QUESTIONS]), changes.get("choices", CHOICES),
                    changes.get("settings", SETTINGS))


def described(survey: Survey) -> dict[str, Any]:
    """Everything an admin sets, as the respondents' browsers get it in every offered language (the definition,
    without the ids, slug and version that differ between two surveys), with what the definition leaves out."""
    found: dict[str, Any] = {}
    for language in languages.offered(survey):
        data = dict(SurveyDefinitionSerializer(definition.read(survey, language)).data)
        data.pop("slug")
        data.pop("version")  # a digest of the question ids too
        data["questions"] = [{key: value for key, value in q.items() if key != "id"} for q in data["questions"]]
        found[language] = data
    questions = survey.ordered_questions().prefetch_related("translations")
    found["rest"] = {"status": survey.status, "budget": survey.epsilon_budget,
                     "hints": [(q.name, q.hint, sorted((t.language, t.hint) for t in q.translations.all()))
                               for q in questions]}
    return found
