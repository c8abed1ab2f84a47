"""Answering the new kinds in a real browser: one respondent's answers (a list of ticked options, a
number as typed, an option index) put into the page's inputs by kind, and many respondents through
the page a few tabs at a time."""

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
PARALLEL = 4

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
    """`count` respondents through the page, respondent i answering `answers_of(i)`, a few tabs at a
    time, each starting like a new visitor (cookies and storage cleared, a fresh page)."""
    contexts = [browser.new_context() for _ in range(PARALLEL)]
    for context in contexts:
        context.add_init_script("window.localStorage.clear();")
    pages = [context.new_page() for context in contexts]
    for start in range(0, count, PARALLEL):
        active = list(zip(contexts, pages, strict=True))[: count - start]
        for context, page in active:
            context.clear_cookies()
            page.goto(url, wait_until="commit")
        for offset, (_, page) in enumerate(active):
            page.wait_for_selector("#send:enabled")
            answer(page, answers_of(start + offset))
            page.evaluate(SEND)
        for _, page in active:
            page.wait_for_selector("#receipt:not([hidden])", timeout=30_000)
    for context in contexts:
        context.close()
