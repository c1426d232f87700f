// the TV mode's layout (/watch?tv=1) from the first paint, not switched after the page's modules run
// (a classic script in the head: our Content-Security-Policy allows no inline script).
if (new URLSearchParams(location.search).get("tv") === "1") document.documentElement.classList.add("tv");
