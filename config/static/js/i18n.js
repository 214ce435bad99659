// Translations come from Django's JavaScriptCatalog (loaded as a classic script
// before the modules). Without it (or before a catalogue exists) the English
// source strings are shown, so a page never breaks for lack of a catalogue.

export function gettext(text) {
  return typeof window.gettext === "function" ? window.gettext(text) : text;
}

export function ngettext(singular, plural, count) {
  if (typeof window.ngettext === "function") return window.ngettext(singular, plural, count);
  return count === 1 ? singular : plural;
}

export function pgettext(context, text) {
  return typeof window.pgettext === "function" ? window.pgettext(context, text) : text;
}

// Named placeholders as in Python: format("%(name)s wins", {name: "ann"}).
export function format(template, values) {
  if (typeof window.interpolate === "function") return window.interpolate(template, values, true);
  return template.replace(/%\(\w+\)s/g, (match) => String(values[match.slice(2, -2)]));
}
