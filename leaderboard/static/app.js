// The arena leaderboard pages: a tiny client-side router over the JSON API.
//
// Safety rule of this file: every string that comes from the API (bot names, match ids, errors) goes
// into the page through textContent or an attribute set with setAttribute, never through innerHTML,
// so a bot called "<script>" is shown as text. `h` and `s` below are the only element builders.
"use strict";

const POLL_MS = 1000; // how often a page asks /api/stamp whether a new result was recorded

// -- DOM helpers ----------------------------------------------------------------------------------

function append(node, children) {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function setAttrs(node, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  return node;
}

// h("a", {href: "/x"}, "text", child...) -> an HTML element; strings become text nodes.
function h(tag, attrs, ...children) {
  return append(setAttrs(document.createElement(tag), attrs), children);
}

// s("rect", {...}) -> an SVG element.
function s(tag, attrs, ...children) {
  return append(setAttrs(document.createElementNS("http://www.w3.org/2000/svg", tag), attrs), children);
}

async function api(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

const enc = encodeURIComponent;
const gameLink = (game) => `/games/${enc(game)}`;
const botLink = (game, bot) => `/games/${enc(game)}/bots/${enc(bot)}`;
const matchLink = (id) => `/matches/${enc(id)}`;
const pct = (x) => `${(100 * x).toFixed(1)}%`;

// -- live updates -----------------------------------------------------------------------------------

// Polls /api/stamp (each game's count of recorded results) and calls `refresh` whenever it changes.
const live = {
  stamp: null,
  refresh: null,
  timer: null,
  start(refresh) {
    this.refresh = refresh;
    if (this.timer === null) this.tick();
  },
  async tick() {
    const badge = document.getElementById("live");
    try {
      const stamp = JSON.stringify(await api("/api/stamp"));
      if (this.stamp !== null && stamp !== this.stamp && this.refresh) await this.refresh();
      this.stamp = stamp;
      badge.textContent = `live · checked ${new Date().toLocaleTimeString()}`;
      badge.className = "live ok";
    } catch (err) {
      badge.textContent = `offline: ${err.message}`;
      badge.className = "live down";
    }
    this.timer = setTimeout(() => this.tick(), POLL_MS);
  },
};

// -- shared widgets -------------------------------------------------------------------------------

const PALETTE = ["#2b6cb0", "#c05621", "#2f855a", "#9b2c2c", "#6b46c1", "#b7791f", "#2c7a7b", "#97266d"];

function colourOf(names, name) {
  return PALETTE[Math.max(0, names.indexOf(name)) % PALETTE.length];
}

// A rating history chart: one line per bot, x = the game's match number, y = Elo.
function historyChart(series, names, opts = {}) {
  const width = opts.width || 1000;
  const height = opts.height || 300;
  const pad = { left: 52, right: 16, top: 14, bottom: 34 };
  const points = Object.values(series).flat();
  if (!points.length) return h("p", { class: "muted" }, "No rated matches yet.");
  const maxX = Math.max(1, ...points.map((p) => p[0]));
  let minY = Math.min(...points.map((p) => p[1]));
  let maxY = Math.max(...points.map((p) => p[1]));
  if (maxY - minY < 20) { minY -= 10; maxY += 10; }
  const x = (v) => pad.left + ((width - pad.left - pad.right) * v) / maxX;
  const y = (v) => pad.top + ((height - pad.top - pad.bottom) * (maxY - v)) / (maxY - minY);
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart", role: "img",
    "aria-label": "rating history" });
  for (let i = 0; i <= 4; i++) {
    const value = minY + ((maxY - minY) * i) / 4;
    svg.appendChild(s("line", { x1: pad.left, x2: width - pad.right, y1: y(value), y2: y(value), class: "grid" }));
    svg.appendChild(s("text", { x: pad.left - 6, y: y(value) + 4, class: "tick", "text-anchor": "end" },
      value.toFixed(0)));
  }
  const ticks = Math.min(maxX, 8);
  for (let i = 0; i <= ticks; i++) {
    const value = Math.round((maxX * i) / ticks);
    svg.appendChild(s("text", { x: x(value), y: height - pad.bottom + 16, class: "tick", "text-anchor": "middle" },
      String(value)));
  }
  svg.appendChild(s("text", { x: (pad.left + width - pad.right) / 2, y: height - 4, class: "axis",
    "text-anchor": "middle" }, "match number"));
  if (minY < 1500 && maxY > 1500) {
    svg.appendChild(s("line", { x1: pad.left, x2: width - pad.right, y1: y(1500), y2: y(1500), class: "base" }));
  }
  for (const [bot, line] of Object.entries(series)) {
    const colour = colourOf(names, bot);
    const d = line.map((p, i) => `${i ? "L" : "M"}${x(p[0]).toFixed(1)},${y(p[1]).toFixed(1)}`).join(" ");
    svg.appendChild(s("path", { d, class: "series", stroke: colour }, s("title", {}, bot)));
    const last = line[line.length - 1];
    svg.appendChild(s("circle", { cx: x(last[0]), cy: y(last[1]), r: 3.5, fill: colour },
      s("title", {}, `${bot}: ${last[1]}`)));
  }
  const legend = h("div", { class: "legend" },
    Object.keys(series).map((bot) => h("span", { class: "key" },
      h("span", { class: "swatch", style: null, "data-colour": colourOf(names, bot) }), bot)));
  for (const swatch of legend.querySelectorAll(".swatch")) swatch.style.background = swatch.dataset.colour;
  return h("figure", { class: "chartbox" }, svg, legend);
}

// The players of a match as "bot (score, rank)" chips, the winner marked.
function playersCell(game, result) {
  return h("span", { class: "players" }, result.players.map((p) =>
    h("span", { class: `chip rank${p.rank === 1 ? " first" : ""}` },
      h("a", { href: botLink(game, p.bot), class: "botname" }, p.bot),
      ` ${p.score} pts · #${p.rank}`, p.forfeit ? " · forfeit" : "", p.strikes ? ` · ${p.strikes} strikes` : "")));
}

function matchTable(rows, showGame) {
  if (!rows.length) return h("p", { class: "muted" }, "No recorded matches yet.");
  return h("table", { class: "matches" },
    h("thead", {}, h("tr", {}, showGame ? h("th", {}, "game") : null, h("th", {}, "#"), h("th", {}, "players"),
      h("th", {}, "winner"), h("th", {}, "steps"), h("th", {}, "replay"))),
    h("tbody", {}, rows.map((m) => h("tr", { "data-match": m.match_id },
      showGame ? h("td", {}, h("a", { href: gameLink(m.game) }, m.game)) : null,
      h("td", { class: "num" }, String(m.number)),
      h("td", {}, playersCell(m.game, m)),
      h("td", {}, m.winner === null ? "shared" : m.winner),
      h("td", { class: "num" }, String(m.steps)),
      h("td", {}, h("a", { href: matchLink(m.match_id), class: "replay-link" }, "watch"))))));
}

// -- pages ----------------------------------------------------------------------------------------

const COLUMNS = [
  { key: "rank", label: "rank", num: true },
  { key: "bot", label: "bot" },
  { key: "elo", label: "Elo", num: true },
  { key: "interval", label: "95% interval", num: true, value: (r) => r.interval[0] },
  { key: "games", label: "games", num: true },
  { key: "wdl", label: "W / D / L", num: true, value: (r) => r.wins + r.draws / 2 },
  { key: "score_rate", label: "score rate", num: true },
];

const sortState = { key: "rank", desc: false };

function cellText(row, key) {
  if (key === "interval") return `${row.interval[0].toFixed(0)} – ${row.interval[1].toFixed(0)}`;
  if (key === "wdl") return `${row.wins} / ${row.draws} / ${row.losses}`;
  if (key === "score_rate") return pct(row.score_rate);
  if (key === "elo") return row.elo.toFixed(1);
  return String(row[key]);
}

function leaderboardTable(game, rows, onSort) {
  const column = COLUMNS.find((c) => c.key === sortState.key);
  const value = column.value || ((r) => r[column.key]);
  const sorted = [...rows].sort((a, b) => {
    const va = value(a), vb = value(b);
    const order = va < vb ? -1 : va > vb ? 1 : a.rank - b.rank;
    return sortState.desc ? -order : order;
  });
  const head = h("tr", {}, COLUMNS.map((c) => h("th", {
    class: `sortable${c.num ? " num" : ""}${c.key === sortState.key ? (sortState.desc ? " desc" : " asc") : ""}`,
    "data-key": c.key, scope: "col", tabindex: 0,
    onclick: () => {
      sortState.desc = sortState.key === c.key ? !sortState.desc : c.key !== "rank" && c.key !== "bot";
      sortState.key = c.key;
      onSort();
    },
  }, c.label)));
  const body = sorted.map((r) => h("tr", { "data-bot": r.bot },
    COLUMNS.map((c) => h("td", { class: `${c.key}${c.num ? " num" : ""}` },
      c.key === "bot" ? h("a", { href: botLink(game, r.bot), class: "botname" }, r.bot) : cellText(r, c.key)))));
  return h("table", { id: "leaderboard", class: "board" }, h("thead", {}, head), h("tbody", {}, body));
}

async function homePage(main) {
  const games = await api("/api/games");
  main.replaceChildren(h("h1", {}, "Leaderboards"),
    h("div", { class: "cards" }, games.map((g) => h("a", { class: "gamecard", href: gameLink(g.name) },
      h("h2", {}, g.title), h("p", { class: "muted" }, g.name),
      h("p", {}, `${g.matches} matches · ${g.bots} bots · ${g.players[0]}–${g.players[1]} players`)))));
}

async function gamePage(main, game) {
  const [games, board, recent] = await Promise.all([
    api("/api/games"), api(`/api/leaderboard/${enc(game)}`), api(`/api/matches?game=${enc(game)}&limit=15`),
  ]);
  const info = games.find((g) => g.name === board.game);
  const names = board.rows.map((r) => r.bot);
  const tableBox = h("div", { class: "tablebox" });
  const drawTable = () => tableBox.replaceChildren(board.rows.length
    ? leaderboardTable(board.game, board.rows, drawTable)
    : h("p", { class: "muted" }, "No recorded matches of this game yet."));
  drawTable();
  const total = board.rows.reduce((n, r) => n + r.games, 0);
  main.replaceChildren(
    h("h1", {}, info ? info.title : board.game),
    h("p", { class: "muted" }, `${board.game} · ${total} seats played · Elo from 1500, K=32, `,
      "95% bootstrap interval · click a column to sort"),
    tableBox,
    h("h2", {}, "Rating history"),
    historyChart(board.history, names),
    h("h2", {}, "Recent matches ", h("a", { class: "small", href: `/matches?game=${enc(board.game)}` }, "all")),
    matchTable(recent, false));
}

async function botPage(main, game, bot) {
  const page = await api(`/api/bots/${enc(game)}/${enc(bot)}`);
  const row = page.row;
  const h2h = page.head_to_head;
  main.replaceChildren(
    h("p", { class: "crumbs" }, h("a", { href: gameLink(page.game) }, page.game), " › bot"),
    h("h1", { class: "botname" }, page.bot),
    row ? h("dl", { class: "facts" },
      h("dt", {}, "rank"), h("dd", {}, String(row.rank)),
      h("dt", {}, "Elo"), h("dd", {}, `${row.elo.toFixed(1)} (${row.interval[0].toFixed(0)} – ${row.interval[1].toFixed(0)})`),
      h("dt", {}, "games"), h("dd", {}, `${row.games} (${row.wins} won, ${row.draws} shared, ${row.losses} lost)`),
      h("dt", {}, "score rate"), h("dd", {}, pct(row.score_rate))) : null,
    h("h2", {}, "Rating history"),
    historyChart({ [page.bot]: page.history }, [page.bot], { height: 220 }),
    h("h2", {}, "Head to head"),
    h("table", { class: "h2h" },
      h("thead", {}, h("tr", {}, ["opponent", "met", "ahead", "tied", "behind", "score rate"].map((t) =>
        h("th", { class: t === "opponent" ? "" : "num" }, t)))),
      h("tbody", {}, h2h.map((r) => h("tr", {},
        h("td", {}, h("a", { href: botLink(page.game, r.opponent), class: "botname" }, r.opponent)),
        [r.games, r.ahead, r.tied, r.behind].map((v) => h("td", { class: "num" }, String(v))),
        h("td", { class: "num" }, pct(r.score_rate)))))),
    h("h2", {}, "Recent results ",
      h("a", { class: "small", href: `/matches?game=${enc(page.game)}&bot=${enc(page.bot)}` }, "all")),
    matchTable(page.recent, false));
}

async function matchesPage(main) {
  const params = new URLSearchParams(location.search);
  const game = params.get("game") || "";
  const bot = params.get("bot") || "";
  const [games, rows] = await Promise.all([
    api("/api/games"), api(`/api/matches?game=${enc(game)}&bot=${enc(bot)}&limit=200`),
  ]);
  const select = h("select", { name: "game" }, h("option", { value: "" }, "every game"),
    games.map((g) => h("option", { value: g.name, selected: g.name === game ? "selected" : null }, g.title)));
  const input = h("input", { name: "bot", placeholder: "bot name", value: bot });
  main.replaceChildren(
    h("h1", {}, "Matches"),
    h("form", { class: "filters", method: "get", action: "/matches" }, select, input,
      h("button", { type: "submit" }, "filter")),
    h("p", { class: "muted" }, `${rows.length} matches, newest first within each game`),
    matchTable(rows, true));
}

async function replayPage(main, matchId) {
  const [match, replay] = await Promise.all([
    api(`/api/matches/${enc(matchId)}`), api(`/api/matches/${enc(matchId)}/replay`),
  ]);
  const draw = await window.ArenaViewer.load(replay.game);
  main.replaceChildren(
    h("p", { class: "crumbs" }, h("a", { href: gameLink(match.game) }, match.game), " › ",
      h("a", { href: `/matches?game=${enc(match.game)}` }, "matches"), " › replay"),
    h("h1", {}, "Replay ", h("span", { class: "matchid" }, match.match_id)),
    h("p", {}, playersCell(match.game, match), ` · seed ${match.seed} · ${match.steps} decisions · `,
      match.termination, replay.reproduces ? " · reproduces byte for byte" : " · DOES NOT REPRODUCE"),
    window.ArenaViewer.build(replay, match, draw));
}

// -- router ---------------------------------------------------------------------------------------

function routeOf(path) {
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts.length === 0) return { page: homePage, args: [], live: true };
  if (parts[0] === "games" && parts.length === 2) return { page: gamePage, args: [parts[1]], live: true };
  if (parts[0] === "games" && parts[2] === "bots" && parts.length >= 4) {
    return { page: botPage, args: [parts[1], parts.slice(3).join("/")], live: true };
  }
  if (parts[0] === "matches" && parts.length === 1) return { page: matchesPage, args: [], live: true };
  if (parts[0] === "matches" && parts.length === 2) return { page: replayPage, args: [parts[1]], live: false };
  return null;
}

async function navBar() {
  const nav = document.getElementById("nav");
  try {
    const games = await api("/api/games");
    nav.replaceChildren(...games.map((g) => h("a", { href: gameLink(g.name), class: "navlink" }, g.name)));
  } catch (err) {
    nav.replaceChildren(h("span", { class: "error" }, err.message));
  }
}

async function render(route, main) {
  try {
    await route.page(main, ...route.args);
  } catch (err) {
    main.replaceChildren(h("h1", {}, "Not available"), h("p", { class: "error" }, err.message));
  }
}

async function start() {
  const main = document.getElementById("app");
  navBar();
  const route = routeOf(location.pathname);
  if (route === null) {
    main.replaceChildren(h("h1", {}, "No such page"), h("p", {}, h("a", { href: "/" }, "all games")));
    return;
  }
  await render(route, main);
  document.body.dataset.ready = "1";
  live.start(route.live ? async () => {
    await render(route, main);
    document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
  } : null);
}

window.Arena = { h, s, api, botLink, colourOf, PALETTE };
start();
