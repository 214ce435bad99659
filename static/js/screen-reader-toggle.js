// The first link of every page switches the screen-reader mode on or off: a
// cookie the pages read (no account needed, so guests have it too), then a reload.
// A file, not an onclick attribute: the site's CSP allows no inline script.
// The settings page has a button doing the same.
for (const toggle of document.querySelectorAll("[data-sr-toggle]")) {
  toggle.addEventListener("click", (event) => {
    event.preventDefault();
    const on = toggle.dataset.srToggle !== "on";
    const secure = location.protocol === "https:" ? "; Secure" : "";
    document.cookie = `sr=${on ? "1" : "0"}; Path=/; Max-Age=31536000; SameSite=Lax${secure}`;
    location.reload();
  });
}
