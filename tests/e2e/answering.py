"""Answering multi-select, numeric and ordinal questions in a real browser: one respondent's answers (a list of ticked
options, a number as typed, an option index) put into the page's inputs by kind, and many respondents through the
page; a survey with a question of every kind, in English or Arabic."""

from surveys.collection import builder
from surveys.collection.builder import QuestionSpec
from surveys.collection.models import Survey

# A question of every kind a respondent can meet, in the survey's own language: yes/no, single choice,
# multi-select, a numeric mean, a numeric histogram, ordinal, and a direct question (sent as given).
EVERY_KIND_TEXTS = {
    "en": ["Have you ever cheated on an exam, even once, in any subject at school or at university?",
           "How often do you use recreational drugs?", ["Never", "Sometimes", "Often"],
           "Which have you used this month?", ["Tobacco", "Alcohol", "Cannabis", "Prefer not to say"],
           "Hours online per week?", "Your age?", ["0 to 17", "18 to 34", "35 to 64", "65 to 120"],
           "How often do you gamble?", ["Never", "Rarely", "Often", "Prefer not to say"],
           "Your region?", ["North", "Centre", "South"]],
    "ar": ["هل سبق لك أن غششت في امتحان، ولو مرة واحدة، في أي مادة في المدرسة أو في الجامعة؟",
           "كم مرة تتعاطى المخدرات الترفيهية؟", ["أبدًا", "أحيانًا", "كثيرًا"],
           "أيّ هذه استخدمت هذا الشهر؟", ["التبغ", "الكحول", "القنب", "أفضّل عدم الإجابة"],
           "ساعات الإنترنت في الأسبوع؟", "عمرك؟", ["0 إلى 17", "18 إلى 34", "35 إلى 64", "65 إلى 120"],
           "كم مرة تقامر؟", ["أبدًا", "نادرًا", "كثيرًا", "أفضّل عدم الإجابة"],
           "منطقتك؟", ["الشمال", "الوسط", "الجنوب"]],
}


def every_kind_survey(language: str = "en", slug: str = "every") -> Survey:
    """An open survey, in `language`, of 7 questions: 1 yes/no (q-RR), 2 single choice (k-RR), 3
    multi-select (at most 2), 4 numeric mean (1-bit, 0..100 by 1), 5 numeric histogram (k-RR over 4
    age bins of 0..120), 6 ordinal, 7 direct (3 options, sent as given)."""
    (yes_no, single, single_options, multi, multi_options, hours, age, bins, ordinal, levels, direct,
     regions) = EVERY_KIND_TEXTS[language]
    return builder.create_survey(slug, "Every kind" if language == "en" else "كل الأنواع", [
        QuestionSpec(yes_no, "qrr", q="0.5"),
        QuestionSpec(single, "krr", epsilon=1.0, options=single_options),
        QuestionSpec(multi, "multiselect", epsilon=2.0, kind="multi_select", options=multi_options, at_most=2),
        QuestionSpec(hours, "onebit", epsilon=1.0, kind="numeric", scale=("0", "100", "1")),
        QuestionSpec(age, "krr", epsilon=1.0, kind="numeric", scale=("0", "120", "1"), options=bins,
                     edges=["0", "18", "35", "65"]),
        QuestionSpec(ordinal, "krr", epsilon=1.0, kind="ordinal", options=levels, scores=["1", "2", "3", None]),
        QuestionSpec(direct, "direct", options=regions),
    ], status=Survey.Status.OPEN, epsilon_budget=8.0, language=language)

# Each fieldset answered by its kind: ticks (a list of option indexes), a number (text, typed and
# left, as a person would), or an option; then the send button.
ANSWER = """(answers) => {
  document.querySelectorAll("fieldset.question").forEach((fieldset, i) => {
    const answer = answers[i];
    if (fieldset.dataset.kind === "multi_select") {
      fieldset.querySelectorAll("input[type=checkbox]").forEach((box, j) => { if (answer.includes(j)) box.click(); });
    } else if (fieldset.dataset.kind === "numeric") {
      const input = fieldset.querySelector("input[data-answer=number]");
      input.value = answer;
      input.dispatchEvent(new Event("input", { bubbles: true }));
      input.dispatchEvent(new Event("change", { bubbles: true }));
    } else {
      fieldset.querySelectorAll("input[type=radio]")[answer].click();
    }
  });
}"""
SEND = "() => document.getElementById('send').click()"

# Counts the page's calls of crypto.getRandomValues (the only source of the randomizer's words).
COUNT_RANDOM_WORDS = """(() => {
  const original = globalThis.crypto.getRandomValues.bind(globalThis.crypto);
  globalThis.__randomCalls = 0;
  Object.defineProperty(globalThis.crypto, "getRandomValues", {
    value: (array) => { globalThis.__randomCalls += 1; return original(array); },
  });
})();"""


def answer(page, answers):
    page.evaluate(ANSWER, answers)


def submit_many(browser, url, answers_of, count):
    """`count` respondents through the page, respondent i answering `answers_of(i)`, each starting like a new visitor
    (cookies and storage cleared). One tab: against the local server several tabs at a time take no less time and
    more CPU (4 tabs: 0.35 CPU-s a respondent, 1 tab: 0.22, measured on the every-kind survey)."""
    context = browser.new_context()
    context.add_init_script("window.localStorage.clear();")
    page = context.new_page()
    for i in range(count):
        context.clear_cookies()
        page.goto(url, wait_until="commit")
        page.wait_for_selector("#send:enabled")
        answer(page, answers_of(i))
        page.evaluate(SEND)
        page.wait_for_selector("#receipt:not([hidden])", timeout=30_000)
    context.close()
