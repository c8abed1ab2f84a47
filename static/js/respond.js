// DOM glue for the respondent page: read the true answers (kept in memory only; answers.js reads
// each kind), randomize them with randomizer.js, post the reports as JSON, show the receipt.
// True answers never leave this page: the inputs sit in no form (a question's radios share a name
// only to be one group for the keyboard and screen readers) and only the reports are posted. A
// numeric answer off its grid, too many ticks, or an exclusive option ("None of these") ticked with
// others, is refused in words before anything is randomized (the server, which only ever receives
// randomized bits, cannot check it).
// A staff preview (config.preview) never posts: it has no endpoint and the button stays disabled.
// Before anything is randomized, the privacy loss is computed from the samplers' own integers
// (epsilon.js) and checked against the survey's stated total and 10 per question; a randomized
// payload is kept until the server acknowledges it (pending.js) and resent as it is, never redone.
// A survey with a consent text shows it first: the questions stay hidden, and nothing is read,
// randomized or sent, until the respondent agrees. The agreement is never sent: a response exists
// only if they agreed. A kept payload was randomized after agreeing, so its resend does not ask again.
// A page feature's module (surveys.collection.integrity.FEATURES) runs only on a page whose data lists the feature
// (config.features), before this one, and leaves its hooks in features.js: on a wave of a series, waves.js
// (remembered questions, the waves' total), which a survey in no series never loads. A page whose feature's module
// did not run (its integrity failed) refuses, as a page whose own modules fail does not run at all.
import { afterTick, describeReport, fill, inputs, numberProblem, readAnswer, ticksOf, ticksProblem } from "./answers.js";
import { checkSurvey, localMillisText } from "./epsilon.js";
import { provided } from "./features.js";
import { forget, keep, kept, markSurveyAnswered, sentKey } from "./pending.js";
import { cryptoSource, randomizeAnswer } from "./randomizer.js";

const config = JSON.parse(document.getElementById("survey-data").textContent);
const root = document.getElementById("survey");
let sendButton = document.getElementById("send"); // a resend uses the notice's button and line
let statusLine = document.getElementById("status");
let nextWord = null;
let pending = null; // the randomized payload; a retry resends it, never re-randomizes
let checked = null; // the privacy loss computed here from the integers: {millis} or {problem, ...}
let waves = null; // waves.js's hooks on a wave's page
const invitation = config.byInvitation && !config.preview ? takeInvitation() : null;
const sentMark = sentKey(config.slug); // this browser already responded (open links)
const text = { choose: "Please choose an answer.", ...config.text };
const consent = document.getElementById("consent"); // null: the survey asks for no agreement
let agreed = !consent;
let asked = () => true; // skip logic (relevance.js, the feature "conditions"): hidden questions are not read nor sent

function say(text) {
  statusLine.textContent = text;
}

// The token is in the fragment, which the browser never sends to a server; take it out of
// the address bar and history too, and post it in the body only.
function takeInvitation() {
  const token = new URLSearchParams(window.location.hash.slice(1)).get("invitation");
  if (window.location.hash) {
    window.history.replaceState(null, "", window.location.pathname + window.location.search);
  }
  return token;
}

// This browser's storage; a browser that keeps nothing forgets between pages (a fresh secret every time).
let memory = null;
function storage() {
  try {
    window.localStorage.getItem(sentMark);
    return window.localStorage;
  } catch {
    const kept = new Map();
    memory = memory || { getItem: (key) => kept.get(key) ?? null, setItem: (key, value) => kept.set(key, value) };
    return memory;
  }
}

function markSent() {
  try {
    window.localStorage.setItem(sentMark, "1");
  } catch {
    // Storage can be disabled; the guard is a courtesy, not a control.
  }
}

function alreadySent() {
  try {
    return window.localStorage.getItem(sentMark) === "1";
  } catch {
    return false;
  }
}

function fieldsetOf(question) {
  return root.querySelector(`fieldset[data-question="${question.id}"]`);
}

const questionOf = (fieldset) => config.questions.find((q) => String(q.id) === fieldset.dataset.question);

// A question's problem in words (empty: none), tied to its inputs by aria-describedby.
function showProblem(fieldset, words) {
  const problem = fieldset.querySelector(".problem");
  problem.textContent = words;
  problem.hidden = !words;
  const number = fieldset.querySelector("input[data-answer=number]");
  if (number) number.setAttribute("aria-invalid", String(Boolean(words)));
}

// Where the respondent reaches when a number is left: the height of a press on the screen, below
// for Tab and above for Shift+Tab; null for anything else (typing, the arrows stepping the number).
let reach = null;
document.addEventListener("pointerdown", (event) => { reach = event.clientY; }, true);
document.addEventListener("keydown", (event) => {
  reach = event.key !== "Tab" ? null : event.shiftKey ? -Infinity : Infinity;
}, true);

// A problem said as a number is left must not move what the respondent reaches for next: a tap
// whose press and release land on different places is lost. What lies below the question keeps its
// place on the screen (the page scrolls by what the question grew); what lies above does not move.
function showProblemInPlace(fieldset, words) {
  const bottom = fieldset.getBoundingClientRect().bottom;
  const below = reach !== null && reach >= bottom;
  showProblem(fieldset, words);
  const grown = fieldset.getBoundingClientRect().bottom - bottom;
  if (below && grown) window.scrollBy({ top: grown, behavior: "instant" });
}

// An exclusive option ("None of these") ticked unticks the others, and another ticked unticks it;
// ticks over a multi-select's limit, and a number off its grid, are said at once (the number when
// it is left); choosing an option clears its question's problem.
root.addEventListener("change", (event) => {
  const input = event.target;
  const fieldset = input.closest("fieldset");
  if (input.type === "checkbox") {
    const question = questionOf(fieldset);
    const ticks = afterTick(ticksOf(fieldset), Number(input.dataset.option), question.exclusive);
    inputs(fieldset, "checkbox").forEach((box, i) => { box.checked = ticks[i]; });
    showProblem(fieldset, ticksProblem(question, ticks, text));
    return;
  }
  if (input.dataset.answer === "number") {
    showProblemInPlace(fieldset, numberProblem(questionOf(fieldset), input, text, false));
    return;
  }
  if (input.type === "radio" && input.checked) showProblem(fieldset, "");
});

root.addEventListener("input", (event) => {
  if (event.target.dataset.answer === "number") showProblem(event.target.closest("fieldset"), "");
});

function trueAnswers() {
  const answers = [];
  let first = null;
  for (const question of config.questions) {
    const fieldset = fieldsetOf(question);
    if (!asked(question)) { // skip logic: not asked, not read
      answers.push(null);
      continue;
    }
    const found = readAnswer(question, fieldset, text);
    showProblem(fieldset, found.problem || "");
    if (found.problem) first = first || found.focus;
    answers.push(found.answer);
  }
  if (first) {
    first.focus();
    return null;
  }
  return answers;
}

function uuidFromWords() {
  const hex = [0, 1, 2, 3].map(() => nextWord().toString(16).padStart(8, "0")).join("");
  const variant = ((parseInt(hex[16], 16) % 4) + 8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

// A question's report; on a wave's page, a remembered question's comes from waves.js.
async function reportOf(question, answer) {
  if (waves) return waves.report(question, answer, nextWord);
  return randomizeAnswer(question.sampler, answer, nextWord);
}

async function randomizedPayload(answers) {
  const reports = {};
  for (const [i, question] of config.questions.entries()) {
    if (asked(question)) reports[String(question.id)] = await reportOf(question, answers[i]); // skip logic
  }
  const payload = { version: config.version, key: uuidFromWords(), reports };
  if (invitation) payload.invitation = invitation;
  if (waves) payload.earlier_wave = waves.earlierWave();
  keep(config.slug, config.version, payload); // before it leaves: a lost answer is resent, not redone
  return payload;
}

// A loss in thousandths as the page's language writes numbers (the server's figures too: "1,099" in French).
const inPageLanguage = (millis) => localMillisText(millis, config.decimalSeparator);

// The samplers' loss against the stated total and the per-question maximum, in words; on a wave's page, the
// remembered questions' figures too (waves.js).
function checkLoss() {
  checked = checkSurvey(config.questions.map((q) => q.sampler), config.epsilonTotal);
  const epsilon = inPageLanguage(checked.millis);
  if (checked.problem) {
    refuse(checked.problem === "question"
      ? fill(text.refuse_question, { n: config.questions[checked.index].order, epsilon })
      : fill(text.refuse_total, { epsilon, stated: inPageLanguage(checked.stated) }));
    return false;
  }
  const line = document.getElementById("client-epsilon");
  line.textContent = fill(text.computed, { epsilon });
  line.hidden = false;
  const refusal = waves ? waves.check() : null;
  if (refusal) refuse(refusal);
  return !refusal;
}

function refuse(words) {
  const refusal = document.getElementById("refusal");
  refusal.textContent = words;
  refusal.hidden = false;
  sendButton.disabled = true;
}

function lock() {
  for (const input of root.querySelectorAll("input")) input.disabled = true;
}

function showReceipt(payload) {
  for (const input of root.querySelectorAll("input")) { // forget the truth
    input.checked = false;
    if (input.dataset.answer === "number") input.value = "";
  }
  root.hidden = true;
  const list = document.getElementById("receipt-list");
  for (const question of config.questions) {
    const report = payload.reports[String(question.id)];
    const item = list.querySelector(`li[data-question="${question.id}"]`);
    item.hidden = report === undefined; // skip logic: a question not asked has no report
    if (item.hidden) continue;
    item.querySelector(".report").textContent = describeReport(question, report, text, list.dataset.none);
  }
  document.getElementById("receipt-body").textContent = JSON.stringify(payload, null, 2);
  const figure = document.getElementById("receipt-epsilon");
  figure.textContent = fill(text.receipt_epsilon, { epsilon: inPageLanguage(checked.millis) });
  figure.hidden = false;
  document.getElementById("unsent").hidden = true;
  const receipt = document.getElementById("receipt");
  receipt.hidden = false;
  // Its top in view: focus alone scrolls a section taller than the screen only as far as its end.
  receipt.focus({ preventScroll: true });
  receipt.scrollIntoView({ block: "start", behavior: "instant" });
}

async function send() {
  if (config.preview || !checked || checked.problem) return; // nothing is randomized or sent
  if (!pending) {
    if (!agreed) return; // only a kept payload (randomized after agreeing) goes without a new agreement
    const answers = trueAnswers();
    if (!answers) return;
    sendButton.disabled = true;
    try {
      pending = await randomizedPayload(answers);
    } catch (error) {
      say(fill(text.no_browser, { error: error.message }));
      return;
    }
    lock();
  }
  sendButton.disabled = true;
  say(text.sending);
  let response;
  try {
    response = await fetch(config.endpoint, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": config.csrfToken },
      body: JSON.stringify(pending),
    });
  } catch {
    sendButton.disabled = false;
    say(text.unreachable);
    return;
  }
  if (response.ok) {
    say("");
    forget(config.slug, config.version);
    if (!pending.invitation) markSent();
    markSurveyAnswered(storage(), config.slug); // read if this survey becomes a wave of a series (remember.js)
    if (waves) waves.answered();
    showReceipt(pending);
    return;
  }
  const body = await response.json().catch(() => ({}));
  const reason = body.error ? body.error.reason : fill(text.status, { status: response.status });
  say(`${fill(text.not_sent, { reason })}${response.status === 409 ? ` ${text.reload}` : ""}`);
  sendButton.disabled = response.status < 500;
}

function hooksOf(feature) {
  const hooks = provided(feature);
  if (!hooks) throw new Error(text[`${feature}_missing`] || `This page's ${feature} module did not load`);
  return hooks;
}

function start() {
  sendButton.disabled = false;
  sendButton.addEventListener("click", send);
}

// The consent text first, then the questions; `then` runs once the respondent has agreed.
function askConsent(then) {
  if (!consent) {
    then();
    return;
  }
  const agree = document.getElementById("agree");
  agree.disabled = false;
  agree.addEventListener("click", () => {
    agreed = true;
    agree.hidden = true;
    document.getElementById("agreed").hidden = false;
    root.hidden = false;
    then();
    const first = root.querySelector("input");
    if (first) first.focus();
  }, { once: true });
}

// Words said in the questions' area (a refusal, a missing invitation) need it shown, not the consent.
function skipConsent() {
  if (consent) consent.hidden = true;
  root.hidden = false;
}

// The language picker reloads the page: an invitation's token (taken out of the address) goes along
// in the fragment again, never to the server.
function keepInvitationInPicker() {
  for (const link of document.querySelectorAll("nav.languages a")) {
    link.hash = new URLSearchParams({ invitation }).toString();
  }
}

// A payload randomized earlier and never acknowledged: offer to send it again as it is (same
// key: the server stores it once), or to discard it. Answering again is offered only after that.
function offerResend(payload) {
  const notice = document.getElementById("unsent");
  notice.hidden = false;
  root.hidden = true;
  if (consent) consent.hidden = true;
  pending = payload;
  lock();
  sendButton = document.getElementById("resend");
  statusLine = document.getElementById("unsent-status");
  sendButton.addEventListener("click", send);
  document.getElementById("discard").addEventListener("click", () => {
    forget(config.slug, config.version);
    window.location.reload();
  });
}

// Guards against sending twice by accident; the server's rate limit is the real defence.
function offerAgain() {
  const notice = document.getElementById("already-sent");
  notice.hidden = false;
  root.hidden = true;
  if (consent) consent.hidden = true;
  document.getElementById("respond-again").addEventListener("click", () => {
    notice.hidden = true;
    if (consent) consent.hidden = false; // another person agrees for themselves
    else root.hidden = false;
  });
}

try {
  if (config.features.includes("waves")) waves = hooksOf("waves")(config, storage);
  if (config.features.includes("conditions")) asked = hooksOf("conditions")(root, config.questions);
  nextWord = cryptoSource();
  if (waves && config.questions.some(waves.remembers) && !(window.crypto && window.crypto.subtle)) {
    throw new Error("Web Crypto (crypto.subtle) is not available; remembered answers cannot be derived");
  }
  if (invitation) keepInvitationInPicker();
  const unsent = config.preview ? null : kept(config.slug, config.version);
  if (config.preview) {
    sendButton.disabled = true; // answers can be chosen, as a respondent would; nothing is sent
    if (checkLoss()) askConsent(() => {}); // the figure a respondent would see, or the refusal
    else skipConsent();
  } else if (!checkLoss()) {
    skipConsent(); // refused in words: nothing is randomized, nothing is sent
  } else if (unsent) {
    offerResend(unsent);
  } else if (config.byInvitation && !invitation) {
    skipConsent();
    say(text.invitation_only);
  } else {
    askConsent(start);
    if (!config.byInvitation && alreadySent()) offerAgain();
  }
} catch (error) {
  skipConsent();
  say(fill(text.no_browser, { error: error.message }));
}
