// Timestamps are rendered in UTC as <time datetime="…">; show them in the viewer's zone,
// on load and in content htmx swaps in later.
(function () {
  const fmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  function localise(root) {
    for (const el of root.querySelectorAll("time[datetime]")) {
      const d = new Date(el.getAttribute("datetime"));
      if (!Number.isNaN(d.getTime()) && !el.dataset.localised) {
        el.title = el.getAttribute("datetime");
        el.textContent = fmt.format(d);
        el.dataset.localised = "1";
      }
    }
  }
  document.addEventListener("DOMContentLoaded", () => localise(document));
  document.addEventListener("htmx:afterSwap", (event) => localise(event.target));
})();
