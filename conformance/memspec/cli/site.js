"use strict";
(function () {
  const INDEX = window.MEMSPEC_SEARCH || [];
  const KINDS = {r: "requirement", c: "case", p: "suite test", o: "operation", d: "divergence"};
  const params = new URLSearchParams(location.search);

  // Opening a case or requirement named by the address: its folded ancestors unfold.
  function reveal() {
    const id = decodeURIComponent(location.hash.slice(1));
    if (!id) return;
    const target = document.getElementById(id);
    if (!target) return;
    for (let node = target; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    target.scrollIntoView({block: "start"});
  }

  for (const extra of document.querySelectorAll(".req-extra[data-fails]")) {
    const item = extra.closest("li.req");
    if (item) item.classList.add("fails");
  }
  const only = document.getElementById("only-failing");
  if (only) {
    const apply = () => {
      document.body.classList.toggle("only-failing", only.checked);
      const shown = [...document.querySelectorAll("li.req")].filter(item => item.offsetParent !== null);
      document.body.setAttribute("data-requirements-shown", String(shown.length));
      const prose = [...document.querySelectorAll("#content > ul > li:not(.req)")];
      document.body.setAttribute("data-prose-shown", String(prose.filter(item => item.offsetParent !== null).length));
    };
    only.checked = params.get("failing") === "1";
    only.addEventListener("change", apply);
    apply();
  }

  for (const button of document.querySelectorAll("button.copy")) {
    button.addEventListener("click", () => {
      const data = button.parentElement.querySelector("script.case-json");
      const text = JSON.stringify(JSON.parse(data.textContent), null, 2) + "\n";
      const done = () => { button.textContent = "Copied"; button.classList.add("done"); };
      if (navigator.clipboard && window.isSecureContext) {
        navigator.clipboard.writeText(text).then(done, () => fallback(text, done));
      } else {
        fallback(text, done);
      }
    });
  }
  function fallback(text, done) {
    const area = document.createElement("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    try { document.execCommand("copy"); done(); } finally { area.remove(); }
  }

  // Search: every term must occur in an entry's id or text; ids that match score first.
  const input = document.getElementById("search");
  const list = document.getElementById("search-results");
  const base = document.querySelector("link[rel=stylesheet]").getAttribute("href").replace(/site\.css$/, "");
  const LOWER = INDEX.map(([kind, id, text]) => [id.toLowerCase(), text.toLowerCase()]);
  function search(query) {
    const terms = query.toLowerCase().split(/\s+/).filter(Boolean);
    if (!terms.length) return [];
    const scored = [];
    for (let i = 0; i < INDEX.length; i++) {
      const [id, text] = LOWER[i];
      let score = 0;
      let all = true;
      for (const term of terms) {
        if (id === term) score += 100;
        else if (id.startsWith(term)) score += 40;
        else if (id.includes(term)) score += 20;
        else if (text.includes(term)) score += 5;
        else { all = false; break; }
      }
      if (all) scored.push([score, i]);
    }
    scored.sort((a, b) => b[0] - a[0] || INDEX[a[1]][1].localeCompare(INDEX[b[1]][1]));
    return scored.slice(0, 40).map(([, i]) => INDEX[i]);
  }
  function show(query) {
    const found = search(query);
    list.replaceChildren();
    for (const [kind, id, text, href] of found) {
      const link = document.createElement("a");
      link.href = base + href;
      const label = document.createElement("span");
      label.className = "k";
      label.textContent = KINDS[kind] || kind;
      const name = document.createElement("code");
      name.textContent = id;
      const said = document.createElement("span");
      said.className = "t";
      said.textContent = text;
      link.append(label, name, said);
      const item = document.createElement("li");
      item.setAttribute("data-id", id);
      item.append(link);
      list.append(item);
    }
    if (!found.length && query.trim()) {
      const item = document.createElement("li");
      item.className = "dim";
      item.textContent = "nothing found";
      list.append(item);
    }
    list.hidden = !query.trim();
    list.setAttribute("data-count", String(found.length));
  }
  input.addEventListener("input", () => show(input.value));
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      const first = list.querySelector("a");
      if (first) location.href = first.href;
    } else if (event.key === "Escape") {
      list.hidden = true;
    }
  });
  document.addEventListener("click", (event) => {
    if (!event.target.closest(".search")) list.hidden = true;
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "/" && document.activeElement !== input) { event.preventDefault(); input.focus(); }
  });
  if (params.get("q")) { input.value = params.get("q"); show(input.value); }

  // ?focus=ID shows that requirement or case alone, unfolded, with a link to its place.
  const focus = params.get("focus") && document.getElementById(params.get("focus"));
  if (focus) {
    const main = document.querySelector("main");
    for (let node = focus; node && node !== main; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
      if (node.parentElement.matches("li.req")) continue; // the requirement's text stays
      for (const sibling of node.parentElement.children) {
        if (sibling !== node && sibling.tagName !== "SUMMARY") sibling.hidden = true;
      }
    }
    for (const folded of focus.querySelectorAll("details.cases")) folded.open = true;
    const failing = focus.querySelector("details.case:has(.chip.f)") || focus.querySelector("details.case");
    if (failing) failing.open = true;
    const back = document.createElement("p");
    const link = document.createElement("a");
    link.href = location.pathname.split("/").pop() + "#" + focus.id;
    link.textContent = "See it in its page";
    back.append(link);
    main.prepend(back);
    document.body.setAttribute("data-focus", focus.id);
  } else {
    window.addEventListener("hashchange", reveal);
    reveal();
  }
  document.body.setAttribute("data-ready", "1");
})();
