// The organiser's collusion page: asks GET /api/v1/games/GAME/collusion with the organiser token the
// organiser types (kept in this page's memory only) and draws the pairs as a table.
//
// Safety rule, as in app.js: every string from the API goes in through textContent, never innerHTML.
"use strict";

const WHAT = {
  above: (f) => `${f.first} finished above ${f.second} more often than the ratings predict`,
  yields: (f) => `${f.first} lost more than the ratings predict at tables with ${f.second}`,
  leak: (f) => `${f.first}'s think times carry its hidden hand at tables with ${f.second}`,
  sync: (f) => `${f.first}'s and ${f.second}'s think times move together`,
};

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = String(text);
  if (cls) node.className = cls;
  return node;
}

const short = (x) => (Number.isInteger(x) ? String(x) : Number(x).toPrecision(3));

function row(cells, tag, cls) {
  const tr = el("tr", undefined, cls);
  for (const cell of cells) tr.appendChild(el(tag, cell));
  return tr;
}

function draw(report) {
  const out = document.getElementById("report");
  out.replaceChildren();
  out.appendChild(
    el(
      "p",
      `${report.game}: ${report.matches} matches, ${report.groups} accounts or bots, ${report.tests} tests; ` +
        `flagged at a family-wise ${report.alpha} (Holm): ${report.flagged} pair(s)`,
    ),
  );
  const table = el("table", undefined, "board");
  const head = ["rank", "pair", "test", "what", "tables", "observed", "expected", "p", "p (Holm)", ""];
  table.appendChild(row(head, "th"));
  for (const pair of report.pairs) {
    const f = pair.findings[0];
    const cells = [pair.rank, pair.groups.join(" + "), f.test, WHAT[f.test] ? WHAT[f.test](f) : "", f.tables,
      short(f.observed), short(f.expected), f.p.toPrecision(3), f.p_holm.toPrecision(3), pair.flagged ? "FLAG" : ""];
    table.appendChild(row(cells, "td", pair.flagged ? "flagged" : ""));
  }
  out.appendChild(table);
}

async function ask(event) {
  event.preventDefault();
  const game = document.getElementById("game").value;
  const token = document.getElementById("token").value.trim();
  const top = document.getElementById("top").value || "20";
  const out = document.getElementById("report");
  out.replaceChildren(el("p", "Computing…", "muted"));
  const path = `/api/v1/games/${encodeURIComponent(game)}/collusion?top=${encodeURIComponent(top)}`;
  const response = await fetch(path, { headers: { Accept: "application/json", Authorization: `Bearer ${token}` } });
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) out.replaceChildren(el("p", body.error || response.statusText, "error"));
  else draw(body);
}

async function start() {
  const select = document.getElementById("game");
  const response = await fetch("/api/v1/games", { headers: { Accept: "application/json" } });
  const body = await response.json().catch(() => []);
  for (const game of Array.isArray(body) ? body : []) {
    const name = typeof game === "string" ? game : game.name;
    const option = el("option", name);
    option.value = name;
    select.appendChild(option);
  }
  document.getElementById("ask").addEventListener("submit", ask);
}

start();
