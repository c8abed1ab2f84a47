// The survey admin page's question rows: live privacy figures, a running total against the
// budget, the parameter box the chosen mechanism uses, the mechanisms that fit the kind of
// question, and move up / down buttons that number the rows by position.
//
// Every figure comes from the server (GET privacy-figures, computed by ldp): this script only
// shows them and adds the rows' epsilons. Without it the form works as before.

const config = JSON.parse(document.getElementById("survey-admin-config")?.textContent || "null");
const group = document.getElementById("questions-group");
const total = document.getElementById("privacy-total");
// A frozen survey (it has reports) has no template row to add: nothing here is editable.
const editable = config && group && document.getElementById("questions-empty");

const rows = () => [...group.querySelectorAll(".inline-related:not(.empty-form)")];
const field = (row, name) => row.querySelector(`[name$="-${name}"]`);
const box = (row, name) => row.querySelector(`.form-row.field-${name}`);
const deleted = (row) => Boolean(field(row, "DELETE")?.checked);

function show(element, visible) {
  if (!element) return;
  element.hidden = !visible;
  // A hidden box is not sent, so the server never sees a parameter the mechanism does not use.
  for (const input of element.querySelectorAll("input, select, textarea")) input.disabled = !visible;
}

const kindOf = (row) => config.kinds?.[field(row, "kind")?.value] || {};

// The options typed, plus the "Prefer not to say" the checkbox adds (unless typed last already).
function optionCount(row) {
  const lines = (field(row, "options_text")?.value || "").split("\n").map((line) => line.trim()).filter(Boolean);
  const adds = kindOf(row).prefer_not && field(row, "prefer_not_to_say")?.checked
    && lines.at(-1)?.toLowerCase() !== config.text.prefer_not.toLowerCase();
  return lines.length + (adds ? 1 : 0);
}

const hasOptions = (row) => {
  const options = kindOf(row).options;
  const mechanism = field(row, "mechanism_name").value;
  return options === true || options === mechanism || (Array.isArray(options) && options.includes(mechanism));
};

// The mechanisms that fit the row's kind; the first of them if the chosen one does not.
function fitMechanisms(row) {
  const kind = field(row, "kind")?.value;
  const select = field(row, "mechanism_name");
  const fitting = config.kinds?.[kind]?.mechanisms || config.mechanisms[kind] || [];
  for (const option of select.options) option.hidden = option.disabled = !fitting.includes(option.value);
  if (!fitting.includes(select.value) && fitting.length) select.value = fitting[0];
  fitBoxes(row);
}

// The boxes the kind (and, for a numeric question, its mode) uses: options, lo/hi/step, at most,
// exclusive options.
function fitBoxes(row) {
  const kind = kindOf(row);
  show(box(row, "options_text"), config.kinds ? hasOptions(row) : field(row, "kind")?.value === "single_choice");
  show(box(row, "prefer_not_to_say"), Boolean(kind.prefer_not));
  for (const name of ["lo", "hi", "step"]) show(box(row, name), Boolean(kind.scale));
  show(box(row, "at_most"), Boolean(kind.at_most));
  show(box(row, "exclusive_options"), Boolean(kind.exclusive));
}

// Whether the mechanism takes the parameter (the server lists each mechanism's, as ldp declares them).
const takes = (mechanism, name) => (config.parameters?.[mechanism] || []).includes(name);

// q for q-RR, epsilon for the other randomized mechanisms, neither for a direct question.
function showParameter(row) {
  const mechanism = field(row, "mechanism_name").value;
  for (const name of ["q", "epsilon"]) show(box(row, name), takes(mechanism, name));
}

function figuresLine(row) {
  let line = row.querySelector(".privacy-live-figures");
  if (!line) {
    const cell = box(row, "privacy")?.querySelector(".readonly");
    if (!cell) return null;
    line = cell;
    line.classList.add("privacy-live-figures");
    line.setAttribute("aria-live", "polite");
  }
  return line;
}

const pending = new WeakMap();

async function refresh(row) {
  const line = figuresLine(row);
  const mechanism = field(row, "mechanism_name").value;
  const query = new URLSearchParams({ mechanism, kind: field(row, "kind")?.value || "" });
  for (const name of config.parameters?.[mechanism] || []) {
    const value = field(row, name)?.value.trim() || "";
    if (name === "k") {
      if (hasOptions(row)) query.set("k", String(optionCount(row)));
    } else if (name !== "at_most" || value) { // at most: optional, left out when empty
      query.set(name, value);
    }
  }
  // A question that remembers its randomization: its reports are read through both layers (the server's figures).
  for (const [name, value] of Object.entries(config.remembered?.[field(row, "id")?.value] || {})) {
    if (value !== null) query.set(name, value);
  }
  pending.get(row)?.abort();
  const controller = new AbortController();
  pending.set(row, controller);
  row.dataset.epsilon = "";
  row.dataset.randomized = "";
  if (line) line.textContent = config.text.waiting;
  try {
    const response = await fetch(`${config.figures_url}?${query}`, {
      signal: controller.signal, headers: { Accept: "application/json" }, credentials: "same-origin",
    });
    const answer = await response.json();
    if (response.ok) {
      // A direct question (not randomized) has no epsilon (null): it counts as 0 toward the budget.
      row.dataset.randomized = String(answer.randomized);
      row.dataset.epsilon = answer.randomized ? String(answer.epsilon) : "0";
      row.dataset.loss = answer.randomized ? `${answer.loss.ratio};${answer.loss.rational}` : "";
      row.dataset.strength = answer.strength || "";
      if (line) line.textContent = answer.summary;
    } else if (line) {
      row.dataset.strength = "";
      line.textContent = `${answer.error.field}: ${answer.error.reason}`;
    }
  } catch (error) {
    if (error.name === "AbortError") return;
    if (line) line.textContent = String(error);
  }
  updateTotal();
}

// The running total: the server adds the randomized rows' exact losses and rounds up, as the saved
// survey's figure does; direct rows are named apart, outside the budget.
let totalRequest = null;

async function updateTotal() {
  const live = rows().filter((row) => !deleted(row));
  const budget = Number(document.getElementById("id_epsilon_budget")?.value);
  total.hidden = false;
  totalRequest?.abort();
  if (live.some((row) => row.dataset.epsilon === "" || row.dataset.epsilon === undefined)) {
    total.textContent = config.text.incomplete;
    total.classList.remove("over");
    return;
  }
  const randomized = live.filter((row) => row.dataset.randomized !== "false");
  const direct = live.length - randomized.length;
  // Over the budget by the rule the server saves with: the sum of the effective epsilons.
  const over = Number.isFinite(budget) && randomized.reduce((acc, row) => acc + Number(row.dataset.epsilon), 0) > budget;
  const query = new URLSearchParams(randomized.map((row) => ["loss", row.dataset.loss]));
  const controller = new AbortController();
  totalRequest = controller;
  let sum;
  try {
    const response = await fetch(`${config.total_url}?${query}`, {
      signal: controller.signal, headers: { Accept: "application/json" }, credentials: "same-origin",
    });
    if (!response.ok) throw new Error(String(response.status));
    sum = (await response.json()).epsilon;
  } catch (error) {
    if (error.name !== "AbortError") total.textContent = String(error);
    return;
  }
  // The figure keeps its four decimals (rounded up by the server); only the separator is the language's.
  const shown = sum.replace(".", new Intl.NumberFormat(document.documentElement.lang || "en").format(1.5).charAt(1));
  total.textContent = config.text.total.replace("{total}", shown).replace("{budget}", String(budget))
    + (direct ? ` ${config.text.unrandomized.replace("{count}", String(direct))}` : "")
    + (over ? ` ${config.text.over}` : "");
  total.classList.toggle("over", over);
  total.dataset.total = sum;
}

// Rows are numbered by their place on the page; the server saves order = position.
function renumber() {
  rows().forEach((row, index) => {
    const position = field(row, "position");
    if (position) position.value = String(index + 1);
  });
}

function move(row, step) {
  const all = rows();
  const index = all.indexOf(row);
  const other = all[index + step];
  if (!other) return;
  if (step < 0) other.before(row); else other.after(row);
  renumber();
  row.querySelector(step < 0 ? ".move-up" : ".move-down")?.focus();
}

function moveButtons(row) {
  const heading = row.querySelector("h3");
  if (!heading || heading.querySelector(".move-buttons")) return;
  const span = document.createElement("span");
  span.className = "move-buttons";
  for (const [step, name, symbol] of [[-1, "up", "↑"], [1, "down", "↓"]]) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = `move-${name}`;
    button.textContent = symbol;
    button.title = button.ariaLabel = config.text[name];
    button.addEventListener("click", () => move(row, step));
    span.append(button);
  }
  heading.append(span);
}

const timers = new WeakMap();

function prepare(row) {
  if (row.dataset.prepared) return;
  row.dataset.prepared = "1";
  const position = field(row, "position");
  if (position) position.readOnly = true;
  moveButtons(row);
  fitMechanisms(row);
  showParameter(row);
  const later = () => {
    clearTimeout(timers.get(row));
    timers.set(row, setTimeout(() => refresh(row), 200));
  };
  field(row, "kind")?.addEventListener("change", () => { fitMechanisms(row); showParameter(row); refresh(row); });
  field(row, "mechanism_name")?.addEventListener("change", () => { fitBoxes(row); showParameter(row); refresh(row); });
  for (const name of ["q", "epsilon", "options_text", "lo", "hi", "step", "at_most"]) {
    field(row, name)?.addEventListener("input", later);
  }
  field(row, "prefer_not_to_say")?.addEventListener("change", () => refresh(row));
  field(row, "DELETE")?.addEventListener("change", updateTotal);
  refresh(row);
}

if (editable) {
  for (const row of rows()) prepare(row);
  renumber();
  updateTotal();
  document.addEventListener("formset:added", (event) => {
    if (event.detail?.formsetName !== "questions") return;
    prepare(event.target);
    renumber();
  });
  document.addEventListener("formset:removed", (event) => {
    if (event.detail?.formsetName !== "questions") return;
    renumber();
    updateTotal();
  });
  document.getElementById("id_epsilon_budget")?.addEventListener("input", updateTotal);
}
