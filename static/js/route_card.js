// The route card's Print button (a script file: the Content-Security-Policy allows no
// inline handlers).
document.addEventListener("click", (event) => {
  if (event.target.closest("[data-print]")) window.print();
});
