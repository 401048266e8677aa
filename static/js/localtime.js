// Timestamps are rendered in UTC as <time datetime="…">; show them in the viewer's zone,
// in full (date, time to the second, the zone's name) with how long ago, on load and in
// content htmx swaps in later. The UTC original stays in the title. A page whose times
// must read in one zone with its inputs (the audit log's filters take UTC) marks them
// data-zone="utc": they stay in UTC and only gain how long ago.
(function () {
  const fmt = new Intl.DateTimeFormat(undefined, {
    year: "numeric", month: "short", day: "numeric",
    hour: "2-digit", minute: "2-digit", second: "2-digit", timeZoneName: "short",
  });
  const rel = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  const steps = [["year", 31536000], ["month", 2592000], ["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
  function ago(d) {
    const s = (d.getTime() - Date.now()) / 1000;
    for (const [unit, size] of steps) {
      if (Math.abs(s) >= size || unit === "second") return rel.format(Math.round(s / size), unit);
    }
    return "";
  }
  function localise(root) {
    for (const el of root.querySelectorAll("time[datetime]")) {
      const d = new Date(el.getAttribute("datetime"));
      if (!Number.isNaN(d.getTime()) && !el.dataset.localised) {
        el.title = el.getAttribute("datetime");
        el.textContent = el.dataset.zone === "utc" ? `${el.textContent.trim()} (${ago(d)})` : `${fmt.format(d)} (${ago(d)})`;
        el.dataset.localised = "1";
      }
    }
  }
  document.addEventListener("DOMContentLoaded", () => localise(document));
  document.addEventListener("htmx:afterSwap", (event) => localise(event.target));
})();
