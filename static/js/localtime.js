// Timestamps are rendered in UTC as <time datetime="…">; show them in the viewer's zone.
document.addEventListener("DOMContentLoaded", () => {
  const fmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
  for (const el of document.querySelectorAll("time[datetime]")) {
    const d = new Date(el.getAttribute("datetime"));
    if (!Number.isNaN(d.getTime())) {
      el.title = el.getAttribute("datetime");
      el.textContent = fmt.format(d);
    }
  }
});
