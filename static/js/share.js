// Copy buttons: <button data-copy="ID"> copies the value of the input with that id. The words come
// from the page (the status element's data-copied and data-select, translated by the template).
for (const button of document.querySelectorAll("button[data-copy]")) {
  button.addEventListener("click", async () => {
    const input = document.getElementById(button.dataset.copy);
    const status = button.parentElement.querySelector(".share-copied");
    try {
      await navigator.clipboard.writeText(input.value);
      if (status) status.textContent = status.dataset.copied;
    } catch {
      input.select(); // no clipboard permission: leave it selected for Ctrl+C
      if (status) status.textContent = status.dataset.select;
    }
  });
}
