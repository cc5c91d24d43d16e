// The arena leaderboard pages: a tiny client-side router over the JSON API.
//
// Safety rule of this file: every string that comes from the API (bot names, match ids, errors) goes
// into the page through textContent or an attribute set with setAttribute, never through innerHTML,
// so a bot called "<script>" is shown as text. `h` and `s` below are the only element builders.
"use strict";

const POLL_MS = 1000; // how often a page asks /api/v1/stamp whether a new result was recorded

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

// -- JSON with exact 64-bit integers ----------------------------------------------------------------

// A match's seed is a 64-bit integer, and JSON.parse reads every number as a double, exact only up to
// 2^53: 3493577465270494163 would be shown as 3493577465270494000, a wrong seed to copy. parseJSON
// reads an integer literal past 2^53 as a BigInt (exact; shown by String() and in templates), and
// every other value as JSON.parse does. Where the browser hands a reviver each literal's source text
// (JSON.parse source text access), that is JSON.parse with a reviver; elsewhere readJSONByHand.
const WHOLE_NUMBER = /^-?\d+$/;

// Returns the value of a number literal: a BigInt when it is an integer that a double would round.
function exactNumber(literal) {
  const value = Number(literal);
  return Number.isSafeInteger(value) || !WHOLE_NUMBER.test(literal) ? value : BigInt(literal);
}

const READS_SOURCE_TEXT = (() => {
  try {
    return JSON.parse("1", (key, value, context) => context && context.source) === "1";
  } catch (err) {
    return false;
  }
})();

function parseJSON(text) {
  if (READS_SOURCE_TEXT) {
    return JSON.parse(text, (key, value, context) =>
      (typeof value === "number" && !Number.isSafeInteger(value) ? exactNumber(context.source) : value));
  }
  return /\d{16}/.test(text) ? readJSONByHand(text) : JSON.parse(text); // 15 digits are always exact
}

// A JSON reader for browsers without source text access: objects, arrays and literals by hand, each
// string by JSON.parse itself, each number by exactNumber. Throws SyntaxError as JSON.parse does.
function readJSONByHand(text) {
  const TOKENS = {
    string: /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y,
    number: /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y,
    word: /true|false|null/y,
    space: /[ \t\n\r]*/y,
  };
  let at = 0;
  const fail = () => {
    throw new SyntaxError(`JSON: unexpected ${at < text.length ? `'${text[at]}'` : "end"} at ${at}`);
  };
  const take = (kind) => {
    const pattern = TOKENS[kind];
    pattern.lastIndex = at;
    const found = pattern.exec(text);
    if (found === null) fail();
    at = pattern.lastIndex;
    return found[0];
  };
  const skip = (char) => {
    take("space");
    if (text[at] !== char) return false;
    at += 1;
    return true;
  };
  const expect = (char) => { if (!skip(char)) fail(); };
  const items = (close, item) => {
    if (skip(close)) return;
    do item(); while (skip(","));
    expect(close);
  };
  function value() {
    take("space");
    const first = text[at];
    if (first === "{") {
      at += 1;
      const object = {};
      items("}", () => {
        take("space");
        const key = JSON.parse(take("string"));
        expect(":");
        Object.defineProperty(object, key, { value: value(), writable: true, enumerable: true, configurable: true });
      });
      return object;
    }
    if (first === "[") {
      at += 1;
      const array = [];
      items("]", () => array.push(value()));
      return array;
    }
    if (first === '"') return JSON.parse(take("string"));
    if (first === "t" || first === "f" || first === "n") return JSON.parse(take("word"));
    return exactNumber(take("number"));
  }
  const whole = value();
  take("space");
  if (at !== text.length) fail();
  return whole;
}

async function api(path) {
  const response = await fetch(path, { headers: { Accept: "application/json" } });
  const text = await response.text().catch(() => "");
  let body;
  try {
    body = parseJSON(text);
  } catch (err) {
    body = { error: response.statusText };
  }
  if (!response.ok) throw new Error(body.error || response.statusText);
  return body;
}

const enc = encodeURIComponent;
const gameLink = (game) => `/games/${enc(game)}`;
const botLink = (game, bot) => `/games/${enc(game)}/bots/${enc(bot)}`;
const matchLink = (id) => `/matches/${enc(id)}`;
const pairLink = (game, a, b) => `/games/${enc(game)}/head-to-head?a=${enc(a)}&b=${enc(b)}`;
const pct = (x) => `${(100 * x).toFixed(1)}%`;

// -- live updates -----------------------------------------------------------------------------------

// Pages served by arena view (view.html) over replay files rather than the platform's record.
const VIEW_MODE = document.body.dataset.mode === "view";

// Polls /api/v1/stamp (each game's count of recorded results) and calls `refresh` whenever it changes.
const live = {
  stamp: null,
  refresh: null,
  timer: null,
  start(refresh) {
    this.refresh = refresh;
    if (VIEW_MODE) return; // arena view's files are no live record: its badge says "local replay"
    if (this.timer === null) this.tick();
  },
  async tick() {
    const badge = document.getElementById("live");
    try {
      const stamp = JSON.stringify(await api("/api/v1/stamp"));
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

// The ratings with their 95% intervals: one horizontal bar per row (low to high) and a dot at the Elo.
function intervalChart(rows, label = (r) => r.bot) {
  if (!rows.length) return h("p", { class: "muted" }, "No rated matches yet.");
  const width = 1000;
  const step = 26;
  const pad = { left: 210, right: 24, top: 10, bottom: 34 };
  const height = pad.top + pad.bottom + step * rows.length;
  let min = Math.min(...rows.map((r) => r.low));
  let max = Math.max(...rows.map((r) => r.high));
  if (max - min < 40) { min -= 20; max += 20; }
  const x = (v) => pad.left + ((width - pad.left - pad.right) * (v - min)) / (max - min);
  const svg = s("svg", { viewBox: `0 0 ${width} ${height}`, class: "chart intervals", role: "img",
    "aria-label": "ratings with 95% intervals" });
  for (let i = 0; i <= 5; i++) {
    const value = min + ((max - min) * i) / 5;
    svg.appendChild(s("line", { x1: x(value), x2: x(value), y1: pad.top, y2: height - pad.bottom, class: "grid" }));
    svg.appendChild(s("text", { x: x(value), y: height - pad.bottom + 16, class: "tick", "text-anchor": "middle" },
      value.toFixed(0)));
  }
  svg.appendChild(s("text", { x: (pad.left + width - pad.right) / 2, y: height - 4, class: "axis",
    "text-anchor": "middle" }, "Elo (95% interval)"));
  rows.forEach((r, i) => {
    const y = pad.top + step * i + step / 2;
    const colour = r.provisional ? "#a0aec0" : PALETTE[i % PALETTE.length];
    const name = label(r);
    svg.appendChild(s("text", { x: pad.left - 8, y: y + 4, class: "tick", "text-anchor": "end" },
      name.length > 28 ? `${name.slice(0, 27)}…` : name));
    svg.appendChild(s("line", { x1: x(r.low), x2: x(r.high), y1: y, y2: y, class: "interval", stroke: colour },
      s("title", {}, `${name}: ${r.low.toFixed(0)} – ${r.high.toFixed(0)}`)));
    svg.appendChild(s("circle", { cx: x(r.elo), cy: y, r: 4.5, fill: colour }, s("title", {}, `${name}: ${r.elo}`)));
  });
  return h("figure", { class: "chartbox" }, svg);
}

// The players of a match as "bot (score, rank)" chips, the winner marked.
function playersCell(game, result) {
  return h("span", { class: "players" }, result.players.map((p) =>
    h("span", { class: `chip rank${p.rank === 1 ? " first" : ""}` },
      h("a", { href: botLink(game, p.bot), class: "botname" }, p.bot),
      ` ${p.score} pts · #${p.rank}`, p.forfeit ? " · forfeit" : "", p.strikes ? ` · ${p.strikes} strikes` : "")));
}

function matchRow(m, showGame) {
  return h("tr", { "data-match": m.match_id },
    showGame ? h("td", {}, h("a", { href: gameLink(m.game) }, m.game)) : null,
    h("td", { class: "num" }, String(m.number)),
    h("td", {}, playersCell(m.game, m)),
    h("td", {}, m.winner !== null ? m.winner : m.termination === "unfinished" ? "unfinished" : "shared"),
    h("td", { class: "num" }, String(m.steps)),
    h("td", {}, h("a", { href: matchLink(m.match_id), class: "replay-link" }, "watch")));
}

function matchTable(rows, showGame) {
  if (!rows.length) return h("p", { class: "muted" }, "No recorded matches yet.");
  return h("table", { class: "matches" },
    h("thead", {}, h("tr", {}, showGame ? h("th", {}, "game") : null, h("th", {}, "#"), h("th", {}, "players"),
      h("th", {}, "winner"), h("th", {}, "steps"), h("th", {}, "replay"))),
    h("tbody", {}, rows.map((m) => matchRow(m, showGame))));
}

// A table of matches with a "load more" button while the API has a next page: `url` is the API path
// of the list (with its query), each click asks it for the page after the last `next` and appends
// its rows. `note(body)` may say what the last page covered (head to head: how far the walk went).
function pagedMatches(rows, next, url, showGame, note = () => "") {
  const box = h("div", { class: "paged" });
  let table = matchTable(rows, showGame);
  const status = h("span", { class: "muted pagenote" });
  const more = h("button", { type: "button", class: "more", onclick: async () => {
    more.disabled = true;
    try {
      const body = await api(`${url}${url.includes("?") ? "&" : "?"}after=${enc(next)}`);
      if (body.matches.length && table.tagName !== "TABLE") {
        const fresh = matchTable(body.matches, showGame);
        table.replaceWith(fresh);
        table = fresh;
      } else {
        append(table.querySelector("tbody") || table, body.matches.map((m) => matchRow(m, showGame)));
      }
      next = body.next;
      status.textContent = note(body);
      more.hidden = next === null;
    } catch (err) {
      status.textContent = err.message;
    }
    more.disabled = false;
  } }, "load more");
  more.hidden = next === null;
  return append(box, [table, h("p", { class: "pager" }, more, " ", status)]);
}

// -- pages ----------------------------------------------------------------------------------------

const COLUMNS = [
  { key: "rank", label: "rank", num: true },
  { key: "bot", label: "bot" },
  { key: "version", label: "version" },
  { key: "elo", label: "Elo", num: true },
  { key: "interval", label: "95% interval", num: true, value: (r) => r.low },
  { key: "games", label: "games", num: true },
  { key: "los_next", label: "LOS next", num: true, value: (r) => (losShown(r) === null ? -1 : losShown(r)),
    title: "likelihood of superiority over the next row shown" },
];

const METHOD = "Elo fitted to all results at once (Bradley-Terry on every pair of seats, a k-seat match's " +
  "pairs weighing 3/(k+1); prior: two draws of every bot against a virtual 1500, not BayesElo's) · 95% " +
  "interval from the fit's curvature, relative to the pool · LOS: likelihood of superiority over the next row";
// " · draw ratio X%" of a view (the share of pairwise results drawn); "" when the view has none.
const drawRatio = (view) => (view.draw_ratio == null ? "" : ` · draw ratio ${(100 * view.draw_ratio).toFixed(1)}%`);
// The line of a game's fitted seat advantages (each seat against seat 0, per table size): none for a
// game fitted without them, or a view cached before views had them.
function seatAdvantage(board) {
  const sizes = new Map();
  for (const a of board.seat_advantage || []) {
    const sign = (x) => (x >= 0 ? "+" : "−") + Math.abs(x).toFixed(1);
    if (!sizes.has(a.players)) sizes.set(a.players, []);
    sizes.get(a.players).push(`seat ${a.seat} ${sign(a.elo)} [${sign(a.low)}, ${sign(a.high)}]`);
  }
  if (!sizes.size) return [];
  const parts = [...sizes].sort((x, y) => x[0] - y[0]).map(([n, seats]) => `${n} players: ${seats.join(", ")}`);
  return [h("p", { class: "muted seat-advantage" },
    `Seat advantage over seat 0 (Elo, 95% interval), fitted with the ratings: ${parts.join("; ")}`)];
}
const PROVISIONAL = "fewer than 10 matches, or 95% interval wider than ±150: ranked by its rating like " +
  "every row, but its rank is uncertain";

// How every standings table of the page is shown: the column it is sorted by, and whether the
// provisional rows are hidden (kept across the live redraws).
const sortState = { key: "rank", desc: false };
const filterState = { hideProvisional: false };

// A row's LOS over the next row shown: the next row, or the next established one when the provisional
// rows are hidden (null on the last; a view cached before it carried the second: null too).
const losShown = (r) => (filterState.hideProvisional ? r.los_next_established : r.los_next) ?? null;

function cellText(row, key) {
  if (key === "interval") return `${row.low.toFixed(0)} – ${row.high.toFixed(0)}`;
  if (key === "los_next") return losShown(row) === null ? "–" : pct(losShown(row));
  if (key === "version") return row.version || "–";
  if (key === "elo") return row.elo.toFixed(1);
  return String(row[key]);
}

const provisionalBadge = () => h("span", { class: "badge", title: `provisional: ${PROVISIONAL}` }, "provisional");

// The standings in one order, by rating (or by the column clicked): a provisional row stays where its
// rating puts it, marked with a badge, and a box hides the provisional rows. `link` makes the bot cell
// (null: plain text); `redraw` draws the table again after a click.
function standingsTable(rows, redraw, link, id = "leaderboard") {
  const column = COLUMNS.find((c) => c.key === sortState.key);
  const value = column.value || ((r) => r[column.key]);
  const provisional = rows.filter((r) => r.provisional).length;
  const shown = [...rows].filter((r) => !(filterState.hideProvisional && r.provisional)).sort((a, b) => {
    const va = value(a), vb = value(b);
    const order = va < vb ? -1 : va > vb ? 1 : a.rank - b.rank;
    return sortState.desc ? -order : order;
  });
  const head = h("tr", {}, COLUMNS.map((c) => h("th", {
    class: `sortable${c.num ? " num" : ""}${c.key === sortState.key ? (sortState.desc ? " desc" : " asc") : ""}`,
    "data-key": c.key, scope: "col", tabindex: 0, title: c.title,
    onclick: () => {
      sortState.desc = sortState.key === c.key ? !sortState.desc : c.key !== "rank" && c.key !== "bot";
      sortState.key = c.key;
      redraw();
    },
  }, c.label)));
  const botCell = (r) => [link ? h("a", { href: link(r), class: "botname" }, r.bot) : r.bot,
    r.provisional ? " " : null, r.provisional ? provisionalBadge() : null];
  const line = (r) => h("tr", { "data-bot": r.bot, class: r.provisional ? "provisional" : null },
    COLUMNS.map((c) => h("td", { class: `${c.key}${c.num ? " num" : ""}` },
      c.key === "bot" ? botCell(r) : cellText(r, c.key))));
  const table = h("table", { id, class: "board" }, h("thead", {}, head),
    h("tbody", {}, shown.length ? shown.map(line)
      : h("tr", { class: "empty" }, h("td", { colspan: COLUMNS.length, class: "muted" },
        `All ${rows.length} rows are provisional, and hidden.`))));
  if (!provisional) return table;
  const hide = h("input", { type: "checkbox", id: `${id}-hide-provisional`,
    checked: filterState.hideProvisional ? "checked" : null,
    onchange: (event) => { filterState.hideProvisional = event.target.checked; redraw(); } });
  return h("div", { class: "standings" },
    h("p", { class: "board-controls" }, h("label", { for: hide.id }, hide,
      ` hide the ${provisional} provisional row${provisional === 1 ? "" : "s"}`)),
    table,
    h("p", { class: "muted provisional-note" }, provisionalBadge(), ` ${PROVISIONAL}`,
      filterState.hideProvisional ? "; hidden, so LOS compares each row with the next one shown" : ""));
}

// The pairwise table: the row's expected score against the column's (columns numbered by rank).
function pairsTable(rows, pairs) {
  return h("table", { id: "pairs", class: "grid-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "rank"), h("th", {}, "bot"),
      rows.map((c) => h("th", { class: "num", title: c.bot }, String(c.rank))))),
    h("tbody", {}, rows.map((r) => h("tr", { "data-bot": r.bot },
      h("td", { class: "num" }, String(r.rank)), h("td", { class: "botname" }, r.bot),
      rows.map((c) => h("td", { class: "num" }, c === r ? "–" : pct(pairs[r.bot][c.bot])))))));
}

const tournamentLink = (id) => `/tournaments/${enc(id)}`;

// How a newcomer takes part, on a server that takes participants (GET /api/v1/participation).
function takePart(rules) {
  const mib = (n) => (n < 2 ** 20 ? `${Math.round(n / 1024)} KiB` : `${(n / 2 ** 20).toFixed(1)} MiB`);
  return h("section", { id: "take-part", class: "chartbox" }, h("h2", {}, "How to take part"),
    h("p", {}, "Anyone may enter a bot. ", h("a", { href: "/participant" }, "Make an account"),
      rules.approve_accounts ? " (the organiser approves it)" : "", ", write a bot from a kit in the project's bots/ ",
      "folder, and upload its folder as a tar.gz on ", h("a", { href: "/participant" }, "your page"),
      ` (or: arena bots submit NAME --games GAME --dir DIR --entry CMD --server ${location.origin}). A new version `,
      "plays a smoke match against random, then enters the tournaments and ladders."),
    h("p", { class: "muted" }, `At most ${mib(rules.archive.packed_bytes)} an archive, `,
      `${rules.quotas.bots_per_game || "any number of"} bots per game and ${rules.quotas.submissions_per_hour || "any number of"} `,
      "submissions an hour per account."));
}

async function homePage(main) {
  const [games, queue, rules] = await Promise.all([api("/api/v1/games"), api("/api/v1/tournaments"),
    api("/api/v1/participation").catch(() => null)]);
  const tournaments = queue.tournaments;
  main.replaceChildren(h("h1", {}, "Leaderboards"),
    h("div", { class: "cards" }, games.map((g) => h("a", { class: "gamecard", href: gameLink(g.name) },
      h("h2", {}, g.title), h("p", { class: "muted" }, g.name),
      h("p", {}, `${g.matches} matches · ${g.bots} bots · ${g.players[0]}–${g.players[1]} players`)))),
    h("h2", {}, "Tournaments"),
    tournaments.length ? h("table", { id: "tournaments" },
      h("thead", {}, h("tr", {}, ["tournament", "game", "format", "bots", "done"].map((t) => h("th", {}, t)))),
      h("tbody", {}, tournaments.map((t) => h("tr", { "data-tournament": t.id },
        h("td", {}, h("a", { href: tournamentLink(t.id) }, t.id)), h("td", {}, t.game || ""),
        h("td", {}, t.format || ""), h("td", {}, t.bots || ""),
        h("td", { class: "num" }, `${Number(t.recorded || 0) + Number(t.dead || 0)} / ${t.total}`)))))
      : h("p", { class: "muted" }, "No tournaments yet."),
    ...(rules ? [takePart(rules)] : []));
}

async function gamePage(main, game) {
  const [games, board, recent] = await Promise.all([
    api("/api/v1/games"), api(`/api/v1/games/${enc(game)}/leaderboard`),
    api(`/api/v1/matches?game=${enc(game)}&limit=15`),
  ]);
  const info = games.find((g) => g.name === board.game);
  const tableBox = h("div", { class: "tablebox" });
  const drawTable = () => tableBox.replaceChildren(board.rows.length
    ? standingsTable(board.rows, drawTable, (r) => botLink(board.game, r.bot))
    : h("p", { class: "muted" }, "No recorded matches of this game yet."));
  drawTable();
  main.replaceChildren(
    h("h1", {}, info ? info.title : board.game),
    h("p", { class: "muted" }, `${board.game} · ${board.matches} matches${drawRatio(board)} · each bot's latest version · `,
      METHOD, " · click a column to sort"),
    ...seatAdvantage(board),
    tableBox,
    h("h2", {}, "Ratings and their 95% intervals"),
    intervalChart(board.rows),
    ...(board.rows.length > 1 ? [
      h("h2", {}, "Win probabilities"),
      h("p", { class: "muted" }, "Expected score of the row's bot against the column's (a draw counts half)."),
      pairsTable(board.rows, board.pairs)] : []),
    h("h2", {}, "Recent matches ", h("a", { class: "small", href: `/matches?game=${enc(board.game)}` }, "all")),
    matchTable(recent.matches, false));
}

async function botPage(main, game, bot) {
  const page = await api(`/api/v1/games/${enc(game)}/bots/${enc(bot)}`);
  const row = page.row;
  const h2h = page.head_to_head;
  const versionBox = h("div", { class: "tablebox" });
  const drawVersions = () => versionBox.replaceChildren(standingsTable(page.versions, drawVersions, null, "versions"));
  drawVersions();
  main.replaceChildren(
    h("p", { class: "crumbs" }, h("a", { href: gameLink(page.game) }, page.game), " › bot"),
    h("h1", { class: "botname" }, page.bot),
    row ? h("dl", { class: "facts" },
      h("dt", {}, "rank"), h("dd", {}, `${row.rank}${row.provisional ? " (provisional)" : ""}`),
      h("dt", {}, "latest version"), h("dd", {}, row.version || "–"),
      h("dt", {}, "Elo"), h("dd", {}, `${row.elo.toFixed(1)} (95%: ${row.low.toFixed(0)} – ${row.high.toFixed(0)})`),
      h("dt", {}, "games"), h("dd", {}, String(row.games)),
      h("dt", {}, "LOS over the next"), h("dd", {}, row.los_next === null ? "–" : pct(row.los_next))) : null,
    ...(page.regression ? regressionSection(page.regression) : []),
    h("h2", {}, "Every version"),
    h("p", { class: "muted" }, "Each version is rated on its own results; LOS compares it with the next version listed."),
    versionBox,
    intervalChart(page.versions, (r) => r.version || r.bot),
    h("h2", {}, "Head to head"),
    h("table", { class: "h2h" },
      h("thead", {}, h("tr", {}, ["opponent", "met", "ahead", "tied", "behind", "score rate", ""].map((t) =>
        h("th", { class: t === "opponent" || !t ? "" : "num" }, t)))),
      h("tbody", {}, h2h.map((r) => h("tr", {},
        h("td", {}, h("a", { href: botLink(page.game, r.opponent), class: "botname" }, r.opponent)),
        [r.games, r.ahead, r.tied, r.behind].map((v) => h("td", { class: "num" }, String(v))),
        h("td", { class: "num" }, pct(r.score_rate)),
        h("td", {}, h("a", { href: pairLink(page.game, page.bot, r.opponent), class: "h2h-link" }, "meetings")))))),
    h("h2", {}, "Recent results ",
      h("a", { class: "small", href: `/matches?game=${enc(page.game)}&bot=${enc(page.bot)}` }, "all")),
    pagedMatches(page.recent, page.recent_next,
      `/api/v1/matches?game=${enc(page.game)}&bot=${enc(page.bot)}&limit=20`, false));
}

// The newest version's regression test against the previous one (arena bots submit --test-against previous).
function regressionSection(r) {
  // verdict_text words a verdict (arena.schedule.regression.verdict_text): a "regression" says how often
  // the test calls an unchanged version one
  const state = r.state === "waiting" ? "waiting for this version to become active" : (r.verdict_text || "running");
  return [h("h2", {}, "Regression test"),
    h("p", { id: "regression" }, `version ${r.new} against ${r.old}: ${state} · ${r.games} of at most `,
      `${r.max_games} games · W/D/L ${r.wins}/${r.draws}/${r.losses} · LLR ${r.llr.toFixed(2)} `,
      `(${r.lower.toFixed(2)}, ${r.upper.toFixed(2)}) · pairs scoring 0, ½, 1, 1½, 2: ${r.pentanomial.join(", ")}`),
    h("p", { class: "muted" }, `SPRT H0: elo ${r.elo0}, H1: elo ${r.elo1}, alpha ${r.alpha}, beta ${r.beta}`,
      r.reason ? ` · stopped: ${r.reason}` : "")];
}

// A tournament's standings (fitted on its results only) and its crosstable, as cutechess-cli prints it.
async function tournamentPage(main, id) {
  const t = (await api(`/api/v1/tournaments/${enc(id)}`)).standings;
  const tableBox = h("div", { class: "tablebox" });
  const drawTable = () => tableBox.replaceChildren(t.rows.length
    ? standingsTable(t.rows, drawTable, (r) => botLink(t.game, r.bot))
    : h("p", { class: "muted" }, "No recorded matches of this tournament yet."));
  drawTable();
  const cell = (c) => `${c.wins}-${c.draws}-${c.losses}`;
  const cross = h("table", { id: "crosstable", class: "grid-table" },
    h("thead", {}, h("tr", {}, h("th", {}, "rank"), h("th", {}, "bot"), h("th", { class: "num" }, "score"),
      h("th", { class: "num" }, "games"), t.rows.map((r) => h("th", { class: "num", title: r.bot }, String(r.rank))))),
    h("tbody", {}, t.crosstable.map((line, i) => {
      const cells = [...line.against];
      return h("tr", { "data-bot": line.bot },
        h("td", { class: "num" }, String(t.rows[i].rank)), h("td", { class: "botname" }, line.bot),
        h("td", { class: "num" }, line.score.toFixed(1)), h("td", { class: "num" }, String(line.games)),
        t.rows.map((_, j) => h("td", { class: "num" }, j === i ? "–" : cell(cells.shift()))));
    })));
  main.replaceChildren(
    h("p", { class: "crumbs" }, h("a", { href: gameLink(t.game) }, t.game), " › tournament"),
    h("h1", {}, "Tournament ", h("span", { class: "matchid" }, t.tournament)),
    h("p", { class: "muted" }, `${t.game} · ${t.matches} of ${t.total} matches recorded${drawRatio(t)} · fitted on this tournament's `,
      "results only · ", METHOD),
    tableBox,
    h("h2", {}, "Crosstable"),
    h("p", { class: "muted" }, "Wins-draws-losses of the row against the column: a match of n seats gives every " +
      "pair of seats a result; score = wins + draws / 2."),
    ...(t.rows.length ? [cross] : []));
}

async function matchesPage(main) {
  const params = new URLSearchParams(location.search);
  const game = params.get("game") || "";
  const bot = params.get("bot") || "";
  const limit = params.get("limit") || "100";
  const url = `/api/v1/matches?game=${enc(game)}&bot=${enc(bot)}&limit=${enc(limit)}`;
  const [games, first] = await Promise.all([api("/api/v1/games"), api(url)]);
  const select = h("select", { name: "game" }, h("option", { value: "" }, "every game"),
    games.map((g) => h("option", { value: g.name, selected: g.name === game ? "selected" : null }, g.title)));
  const input = h("input", { name: "bot", placeholder: "bot name", value: bot });
  main.replaceChildren(
    h("h1", {}, "Matches"),
    h("form", { class: "filters", method: "get", action: "/matches" }, select, input,
      h("button", { type: "submit" }, "filter")),
    h("p", { class: "muted" }, VIEW_MODE ? "Newest replay file first" : "Newest first within each game",
      bot && !VIEW_MODE ? " · # is the bot's own match count" : ""),
    pagedMatches(first.matches, first.next, url, true));
}

// Two bots' record against each other (from the last fit) and their meetings, newest first.
async function headToHeadPage(main, game) {
  const params = new URLSearchParams(location.search);
  const [a, b] = [params.get("a") || "", params.get("b") || ""];
  const url = `/api/v1/games/${enc(game)}/head-to-head?a=${enc(a)}&b=${enc(b)}&limit=20`;
  const pair = await api(url);
  const rec = pair.record;
  const walkNote = (body) =>
    `searched ${body.walked.matches - body.unread} of ${body.walked.bot}'s ${body.walked.matches} matches`;
  const walked = h("p", { class: "muted", id: "walked" }, walkNote(pair));
  const update = (body) => { walked.textContent = walkNote(body); return ""; };
  main.replaceChildren(
    h("p", { class: "crumbs" }, h("a", { href: gameLink(pair.game) }, pair.game), " › head to head"),
    h("h1", {}, h("a", { href: botLink(pair.game, a), class: "botname" }, a), " vs ",
      h("a", { href: botLink(pair.game, b), class: "botname" }, b)),
    h("dl", { class: "facts", id: "record" },
      h("dt", {}, "met"), h("dd", {}, rec ? String(rec.games) : "0"),
      h("dt", {}, `${a} ahead / tied / behind`), h("dd", {}, rec ? `${rec.ahead} / ${rec.tied} / ${rec.behind}` : "–"),
      h("dt", {}, `${a}'s score rate`), h("dd", {}, rec ? pct(rec.score_rate) : "–"),
      h("dt", {}, "expected score (fit)"), h("dd", {}, pair.expected === null || pair.expected === undefined
        ? "–" : pct(pair.expected))),
    h("h2", {}, "Meetings"),
    h("p", { class: "muted" }, "Newest first, found by walking the list of the bot with fewer matches; " +
      "# is its own match count."),
    pagedMatches(pair.matches, pair.next, url, false, update),
    walked);
}

async function replayPage(main, matchId) {
  const [match, replay] = await Promise.all([
    api(`/api/v1/matches/${enc(matchId)}`), api(`/api/v1/matches/${enc(matchId)}/replay`),
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
  if (parts[0] === "games" && parts[2] === "head-to-head" && parts.length === 3) {
    return { page: headToHeadPage, args: [parts[1]], live: true };
  }
  if (parts[0] === "games" && parts[2] === "bots" && parts.length >= 4) {
    return { page: botPage, args: [parts[1], parts.slice(3).join("/")], live: true };
  }
  if (parts[0] === "tournaments" && parts.length === 2) return { page: tournamentPage, args: [parts[1]], live: true };
  if (parts[0] === "matches" && parts.length === 1) return { page: matchesPage, args: [], live: true };
  if (parts[0] === "matches" && parts.length === 2) return { page: replayPage, args: [parts[1]], live: false };
  return null;
}

async function navBar() {
  const nav = document.getElementById("nav");
  try {
    const games = await api("/api/v1/games");
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

window.Arena = { h, s, api, parseJSON, readJSONByHand, botLink, PALETTE };
start();
