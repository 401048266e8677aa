// The workers table refreshes itself every 10 s (htmx), but not while someone is typing a
// revocation reason in it: the swap would throw the text away. An htmx trigger filter
// would say the same, but it needs eval, which the Content-Security-Policy forbids.
document.addEventListener("htmx:beforeRequest", (event) => {
  const table = document.getElementById("workers-table");
  if (table && event.target === table && table.contains(document.activeElement)) {
    event.preventDefault();
  }
});
