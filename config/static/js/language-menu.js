// The language menu switches as soon as a language is chosen (the <noscript>
// button does it without JavaScript). A file, not an onchange attribute: the
// site's Content-Security-Policy runs no inline script.
document.getElementById("lang-select")?.addEventListener("change", (event) => event.target.form.submit());
