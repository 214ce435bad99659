// Star toggles in the history without reloading the page. Without JavaScript the
// same forms post normally and the server redirects back.
document.addEventListener("submit", async (event) => {
  const form = event.target;
  if (!(form instanceof HTMLFormElement) || !form.classList.contains("star-form")) return;
  event.preventDefault();
  const button = form.querySelector("button.star");
  button.disabled = true;
  try {
    const response = await fetch(form.action, {
      method: "POST",
      body: new FormData(form),
      headers: { Accept: "application/json" },
      credentials: "same-origin",
    });
    if (!response.ok) throw new Error(String(response.status));
    const { starred } = await response.json();
    button.classList.toggle("is-starred", starred);
    button.setAttribute("aria-pressed", starred ? "true" : "false");
    button.querySelector("[aria-hidden]").textContent = starred ? "\u2605" : "\u2606";
    form.querySelector("input[name=starred]").value = starred ? "0" : "1";
  } catch (error) {
    form.submit();  // fall back to the plain form post
  } finally {
    button.disabled = false;
  }
});
