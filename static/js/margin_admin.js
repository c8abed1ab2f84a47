// The population margin's admin page: its shares' option choices are the chosen question's only (the server
// filters them), so choosing another question reloads the page with it (?question=), keeping the source typed.
// Without this script, choose the question, save and continue: the form says which options need a share.

const question = document.querySelector("select[data-options-of]");
const source = document.querySelector("input[name=source]");

question?.addEventListener("change", () => {
  const params = new URLSearchParams(window.location.search);
  params.set("question", question.value);
  if (source?.value) params.set("source", source.value);
  window.location.search = params.toString();
});
