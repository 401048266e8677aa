// Draws the server-built Plotly figures: each <script type="application/json"
// data-plotly="ID"> holds one figure for the element #ID. Runs on load and again after
// htmx swaps in new content; a figure is drawn once.
(function () {
  function draw(root) {
    if (typeof Plotly === "undefined") return;
    for (const block of root.querySelectorAll('script[type="application/json"][data-plotly]')) {
      const target = document.getElementById(block.dataset.plotly);
      if (!target || target.dataset.drawn) continue;
      const figure = JSON.parse(block.textContent);
      target.dataset.drawn = "1";
      Plotly.newPlot(target, figure.data, figure.layout, { responsive: true, displaylogo: false });
    }
  }
  document.addEventListener("DOMContentLoaded", () => draw(document));
  document.addEventListener("htmx:afterSwap", (event) => draw(event.target));
})();
