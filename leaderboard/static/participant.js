// The participant's pages of an arena server: sign in with the account token, see one's bots (versions,
// smoke matches, regression tests, recent matches and one's own bots' logs) and upload new versions.
//
// The session is a cookie this script cannot read (HttpOnly); every state-changing request sends the
// session's CSRF token, which GET /api/v1/session hands to this page only, in the X-CSRF-Token header.
// Safety rule, as in app.js: every string from the API (bot names, logs, errors) goes into the page
// through textContent or setAttribute, never innerHTML, so a bot's output is shown as text.
"use strict";

// -- DOM helpers -----------------------------------------------------------------------------------

function h(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    node.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

const enc = encodeURIComponent;
const mib = (bytes) => (bytes < 2 ** 20 ? `${Math.round(bytes / 1024)} KiB` : `${(bytes / 2 ** 20).toFixed(1)} MiB`);
const when = (seconds) => new Date(seconds * 1000).toLocaleString();
const botPage = (name) => `/participant/bots/${enc(name)}`;

// The page's state: the server's rules (GET /api/v1/participation) and the session (null: signed out).
const state = { rules: null, session: null };

// Returns the JSON answer of `path`; a refusal throws an Error with the server's message and status.
async function call(path, options = {}) {
  const headers = { Accept: "application/json", ...(options.headers || {}) };
  const response = await fetch(path, { credentials: "same-origin", ...options, headers });
  const body = await response.json().catch(() => ({ error: response.statusText }));
  if (!response.ok) {
    const err = new Error(body.error || response.statusText);
    err.status = response.status;
    throw err;
  }
  return body;
}

// A state-changing request of the session: it carries the CSRF token.
function write(path, options) {
  return call(path, { ...options, headers: { ...(options.headers || {}), "X-CSRF-Token": state.session.csrf } });
}

// Replaces `node`'s children with `children` (strings as text; null, undefined and false left out).
function fill(node, ...children) {
  node.replaceChildren(...children.flat(Infinity).filter((c) => c !== null && c !== undefined && c !== false));
}

function notice(kind, text, id) {
  return h("p", { class: `notice ${kind}`, id, role: kind === "refused" ? "alert" : "status" }, text);
}

function done(view) {
  document.body.dataset.view = view;
  document.body.dataset.ready = "1";
}

// -- how to take part ------------------------------------------------------------------------------

function howToTakePart(rules) {
  const server = location.origin;
  const a = rules.archive;
  const q = rules.quotas;
  const quota = (n, what) => (n ? `${n} ${what}` : `no limit of ${what}`);
  return h("div", { class: "panelbox", id: "how" },
    h("h2", {}, "How to take part"),
    h("ol", { class: "steps" },
      h("li", {}, "Make an account below (or ", h("code", {}, `arena account create NAME --server ${server}`),
        "). Its token is shown once: keep it, it is your password here and for the command line ",
        h("code", {}, "ARENA_ACCOUNT_TOKEN"), ".",
        rules.approve_accounts ? " The organiser approves new accounts before they may submit." : ""),
      h("li", {}, "Write a bot: start from a kit in the project's ", h("code", {}, "bots/"),
        " folder and try it on your machine with ", h("code", {}, "arena match"), "."),
      h("li", {}, "Pack its folder, ", h("code", {}, "tar czf bot.tar.gz -C mybot ."),
        ", and upload it here with the command that starts it (", h("code", {}, "python bot.py"), "), or run ",
        h("code", {}, `arena bots submit NAME --games GAME --dir mybot --entry "python bot.py" --server ${server}`), "."),
      h("li", {}, "Each version first plays a smoke match against random; it enters tournaments and ladders once it ",
        "passes. This page shows how it went, its regression tests, its matches and what your bot wrote in them.")),
    h("p", { class: "muted", id: "limits" },
      `Limits: an archive of at most ${mib(a.packed_bytes)} packed, ${mib(a.unpacked_bytes)} unpacked and `,
      `${a.files} files; per account ${quota(q.bots_per_game, "bots per game")}, `,
      `${quota(q.submissions_per_hour, "submissions an hour")}, ${quota(q.uploads, "uploads at once")} and `,
      `${quota(q.series, "regression tests at once")}.`));
}

// -- signed out --------------------------------------------------------------------------------------

function signInPanel() {
  const token = h("input", { type: "password", id: "token", name: "token", autocomplete: "off", size: 60,
    placeholder: "account.NAME.…", required: "required" });
  const result = h("div", { id: "signin-result" });
  const form = h("form", { class: "stack", id: "signin", onsubmit: async (event) => {
    event.preventDefault();
    result.replaceChildren();
    try {
      state.session = await call("/api/v1/session", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ token: token.value.trim() }),
      });
      token.value = "";
      await home();
    } catch (err) {
      result.replaceChildren(notice("refused", `Not signed in: ${err.message}`));
    }
  } },
  h("label", { for: "token" }, "account token"), token,
  h("button", { type: "submit" }, "sign in"));
  return h("div", { class: "panelbox" }, h("h2", {}, "Sign in"), form, result);
}

function createPanel() {
  const name = h("input", { type: "text", id: "account-name", name: "name", size: 30, required: "required",
    pattern: "[a-z0-9][a-z0-9_\\-]{0,39}", placeholder: "lowercase letters, digits, - and _" });
  const result = h("div", { id: "create-result" });
  const form = h("form", { class: "stack", id: "create", onsubmit: async (event) => {
    event.preventDefault();
    result.replaceChildren();
    try {
      const made = await call(`/api/v1/accounts/${enc(name.value.trim())}`, { method: "POST" });
      result.replaceChildren(notice("ok", `Account ${made.account.name} made (${made.account.state}). ` +
        "Its token, shown only now: copy it somewhere safe, then sign in with it."),
      h("p", { class: "token", id: "new-token" }, made.token));
    } catch (err) {
      result.replaceChildren(notice("refused", `No account made: ${err.message}`));
    }
  } },
  h("label", { for: "account-name" }, "account name"), name,
  h("button", { type: "submit" }, "make an account"));
  return h("div", { class: "panelbox" }, h("h2", {}, "New here? Make an account"), form, result);
}

// -- signed in ---------------------------------------------------------------------------------------

function whoLine() {
  const s = state.session;
  const out = h("button", { type: "button", id: "signout", class: "signout", onclick: async () => {
    try {
      await write("/api/v1/session", { method: "DELETE" });
    } catch (err) {
      // an ended session is signed out already
    }
    state.session = null;
    await home();
  } }, "sign out");
  return h("p", { id: "signed-in" }, "Signed in as ", h("strong", { class: "botname" }, s.account.name),
    ` · account ${s.account.state} · this session ends ${when(s.expires)}`, out);
}

function stateNotice(account) {
  if (account.state === "pending") {
    return notice("info", "Your account waits for the organiser's approval: you can upload once it is approved.");
  }
  if (account.state === "disabled") {
    return notice("refused", "Your account is disabled by the organiser: it can submit nothing, and its bots play " +
      "no new matches.");
  }
  return null;
}

function smokeText(smoke) {
  if (!smoke) return h("span", { class: "muted" }, "none");
  return h("span", { class: `status-${smoke.status}` }, smoke.status, smoke.reason ? `: ${smoke.reason}` : "");
}

function regressionText(r) {
  if (!r) return h("span", { class: "muted" }, "none asked");
  // verdict_text: the verdict in words, a "regression" with how often an unchanged version gets one
  const verdict = r.state === "waiting" ? "waiting for this version to become active"
    : r.verdict ? r.verdict_text || r.verdict : r.state;
  return h("span", { class: `status-${r.verdict || r.state}` },
    `${r.new} vs ${r.old}: ${verdict} (${r.games} games, LLR ${Number(r.llr).toFixed(2)})`,
    r.reason ? ` · ${r.reason}` : "");
}

function botsTable(bots) {
  if (!bots.length) return h("p", { class: "muted", id: "no-bots" }, "No bots yet: upload your first below.");
  return h("table", { id: "bots" },
    h("thead", {}, h("tr", {}, ["bot", "games", "active version", "newest version", "smoke match", "regression test"]
      .map((t) => h("th", {}, t)))),
    h("tbody", {}, bots.map((b) => h("tr", { "data-bot": b.name },
      h("td", {}, h("a", { href: botPage(b.name), class: "botname" }, b.name)),
      h("td", {}, b.games.join(", ")),
      h("td", { class: "version" }, b.version || "none yet"),
      h("td", {}, b.candidate || b.version || ""),
      h("td", { class: "smoke" }, smokeText(b.smoke)),
      h("td", { class: "regression" }, regressionText(b.regression))))));
}

function quotaLine(account) {
  const limit = (n) => n || "no limit";
  const perGame = Object.entries(account.bots_per_game.used).map(([g, n]) => `${g} ${n}`).join(", ") || "none";
  return h("p", { class: "muted", id: "quotas" },
    `Quotas: bots per game ${perGame} (at most ${limit(account.bots_per_game.limit)} each) · `,
    `submissions this hour ${account.submissions_per_hour.used} of ${limit(account.submissions_per_hour.limit)} · `,
    `uploads at once ${account.uploads.used} of ${limit(account.uploads.limit)} · `,
    `regression tests running ${account.series.used.length} of ${limit(account.series.limit)}`);
}

// The upload form: a bot's name (a new one, or one of one's own), its games, the entry (and build)
// command and the archive, posted as the raw body of POST /api/v1/session/bots/NAME (the API's
// submission path, with the session standing in for the account token).
function uploadPanel(names, bot, onStored) {
  const field = (id, label, attrs, hint) => [h("label", { for: id }, label),
    h("input", { id, name: id, type: "text", size: 40, ...attrs }), hint ? h("p", { class: "hint" }, hint) : null];
  const list = h("datalist", { id: "own-bots" }, names.map((n) => h("option", { value: n })));
  const result = h("div", { id: "upload-result" });
  const limit = state.rules.archive.packed_bytes;
  const form = h("form", { class: "stack", id: "upload", onsubmit: async (event) => {
    event.preventDefault();
    const value = (id) => form.querySelector(`#${id}`).value.trim();
    const file = form.querySelector("#bot-archive").files[0];
    const query = new URLSearchParams({ games: value("bot-games"), entry: value("bot-entry") });
    if (value("bot-build")) query.set("build", value("bot-build"));
    if (form.querySelector("#bot-test").checked) query.set("test_against", "previous");
    const button = form.querySelector("button");
    button.disabled = true;
    result.replaceChildren(h("p", { class: "muted" }, `Uploading ${file.name} (${file.size} bytes)…`));
    try {
      const stored = await write(`/api/v1/session/bots/${enc(value("bot-name"))}?${query}`, {
        method: "POST", headers: { "Content-Type": "application/gzip" }, body: file,
      });
      const b = stored.bot;
      await onStored(notice("ok", `Accepted: ${b.name} version ${b.candidate || b.version} stored ` +
        `(${stored.created ? "a new bot" : "a new version"}). It plays a smoke match against random first and ` +
        "enters tournaments and ladders once that passes.", "upload-outcome"));
    } catch (err) {
      result.replaceChildren(notice("refused", `Refused: ${err.message}`, "upload-outcome"));
    }
    button.disabled = false;
  } },
  ...field("bot-name", "bot", { list: "own-bots", required: "required", value: bot ? bot.name : null },
    "one of your bots for a new version, or a new name for a new bot"),
  list,
  ...field("bot-games", "games", { required: "required", value: bot ? bot.games.join(",") : null,
    placeholder: "ninjan" }, "comma-separated"),
  ...field("bot-entry", "entry command", { required: "required", placeholder: "python bot.py",
    value: bot && bot.entry.length ? bot.entry.join(" ") : null }, "run in the unpacked folder"),
  ...field("bot-build", "build command", { placeholder: "optional, e.g. make",
    value: bot && bot.build.length ? bot.build.join(" ") : null }),
  h("label", { for: "bot-archive" }, "archive"),
  h("input", { id: "bot-archive", name: "archive", type: "file", accept: ".tar.gz,.tgz,application/gzip",
    required: "required" }),
  h("p", { class: "hint" }, `a tar.gz of the bot's folder (tar czf bot.tar.gz -C mybot .), at most ${mib(limit)}`),
  h("label", { for: "bot-test" }, "regression test"),
  h("label", {}, h("input", { id: "bot-test", type: "checkbox" }), " test it against the version it replaces"),
  h("button", { type: "submit" }, "upload"));
  return h("div", { class: "panelbox" }, h("h2", {}, "Upload a new version"), form, result);
}

// The bots' owner views, asked at once: called after /api/v1/session/account, whose check of the
// session's token the server remembers for a while, so these do not each hash it again (the server
// hashes only a few secrets at once and refuses the rest with 503).
async function ownBots(names) {
  return Promise.all(names.map((n) => call(`/api/v1/session/bots/${enc(n)}`)));
}

// -- the pages --------------------------------------------------------------------------------------

async function signedOut(main, message) {
  document.getElementById("who").textContent = "not signed in";
  fill(main, h("h1", {}, "Take part"),
    message ? notice("info", message) : null,
    h("p", { class: "muted" }, "Sign in with your account token to see your bots, their smoke matches, regression " +
      "tests and matches with what your bots wrote in them, and to upload new versions."),
    signInPanel(), createPanel(), howToTakePart(state.rules));
  done("signed-out");
}

async function home(outcome) {
  const main = document.getElementById("app");
  if (!state.session) return signedOut(main);
  const account = await call("/api/v1/session/account");
  const bots = await ownBots(account.bots);
  document.getElementById("who").textContent = `signed in as ${account.name}`;
  fill(main, h("h1", {}, "Your bots"), whoLine(), stateNotice(account), quotaLine(account),
    botsTable(bots), uploadPanel(account.bots, null, (shown) => home(shown)));
  if (outcome) main.querySelector("#upload-result").replaceChildren(outcome);
  done("signed-in");
}

// One seat's output in one match, as rows of (decision step, line).
async function logRows(match, seat) {
  const log = await call(`/api/v1/session/matches/${enc(match)}/log/${seat}`);
  if (!log.lines.length) return h("p", { class: "muted" }, "Your bot wrote nothing in this match.");
  return h("div", {},
    h("table", { class: "botlog", "data-match": match },
      h("thead", {}, h("tr", {}, h("th", {}, "step"), h("th", {}, `what ${log.bot} wrote (seat ${seat})`))),
      h("tbody", {}, log.lines.map((line) => h("tr", {},
        h("td", { class: "step num" }, line.step === null ? "start" : String(line.step)),
        h("td", { class: "text" }, line.text))))),
    log.cut ? h("p", { class: "muted" }, "The rest of its output was over the log limit and was dropped.") : null);
}

function matchRows(name, match) {
  const seat = match.players.find((p) => p.bot === name).seat;
  const logCell = h("td", { colspan: 5 });
  const logRow = h("tr", { class: "logrow", hidden: "hidden" }, logCell);
  const button = h("button", { type: "button", class: "showlog", onclick: async () => {
    if (!logRow.hidden) { logRow.hidden = true; return; }
    logRow.hidden = false;
    logCell.replaceChildren(h("p", { class: "muted" }, "Loading…"));
    try {
      logCell.replaceChildren(await logRows(match.match_id, seat));
    } catch (err) {
      logCell.replaceChildren(notice("refused", err.message));
    }
  } }, "your bot's log");
  const players = h("span", { class: "players" }, match.players.map((p) =>
    h("span", { class: `chip${p.rank === 1 ? " first" : ""}` }, h("span", { class: "botname" }, p.bot),
      ` #${p.rank}`)));
  return [h("tr", { "data-match": match.match_id },
    h("td", {}, h("a", { href: `/matches/${enc(match.match_id)}` }, match.match_id)),
    h("td", {}, match.game), h("td", {}, players), h("td", { class: "num" }, String(seat)), h("td", {}, button)),
  logRow];
}

async function botView(name) {
  const main = document.getElementById("app");
  if (!state.session) return signedOut(main, `Sign in to see your bot ${name}.`);
  document.getElementById("who").textContent = `signed in as ${state.session.account.name}`;
  let bot;
  try {
    bot = await call(`/api/v1/session/bots/${enc(name)}`);
  } catch (err) {
    fill(main, h("p", { class: "crumbs" }, h("a", { href: "/participant" }, "your bots"), " › bot"),
      h("h1", { class: "botname" }, name), notice("refused", err.message, "bot-refused"));
    return done("bot");
  }
  const pages = await Promise.all(bot.games.map((g) => call(`/api/v1/matches?game=${enc(g)}&bot=${enc(name)}&limit=10`)));
  const recent = pages.flatMap((p) => p.matches);
  const smoke = bot.smoke;
  fill(main, 
    h("p", { class: "crumbs" }, h("a", { href: "/participant" }, "your bots"), " › bot"),
    h("h1", { class: "botname" }, bot.name),
    whoLine(),
    h("dl", { class: "facts", id: "bot-facts" },
      h("dt", {}, "games"), h("dd", {}, bot.games.map((g) => [h("a", { href: `/games/${enc(g)}/bots/${enc(name)}` }, g), " "])),
      h("dt", {}, "runs"), h("dd", {}, bot.kind === "builtin" ? `the built-in ${bot.builtin}` : bot.entry.join(" ")),
      bot.build.length ? [h("dt", {}, "build"), h("dd", {}, bot.build.join(" "))] : null,
      h("dt", {}, "active version"), h("dd", {}, bot.version || "none yet"),
      h("dt", {}, "candidate"), h("dd", {}, bot.candidate || "none")),
    h("h2", {}, "Smoke match"),
    h("p", { id: "smoke" }, smokeText(smoke), smoke ? ` · version ${bot.candidate || bot.version}` : ""),
    smoke && smoke.log ? h("pre", { class: "logtail", id: "smoke-log" }, smoke.log) : null,
    h("h2", {}, "Regression test"),
    h("p", { id: "regression" }, regressionText(bot.regression)),
    h("h2", {}, "Versions"),
    h("ul", { id: "versions" }, [...bot.versions].reverse().map((v) => h("li", { class: "matchid" }, v,
      v === bot.version ? " (active)" : "", v === bot.candidate ? " (candidate)" : ""))),
    h("h2", {}, "Recent matches"),
    recent.length ? h("table", { class: "matches", id: "recent" },
      h("thead", {}, h("tr", {}, ["match", "game", "players", "seat", ""].map((t) => h("th", {}, t)))),
      h("tbody", {}, recent.map((m) => matchRows(name, m)))) : h("p", { class: "muted" }, "No recorded matches yet."),
    uploadPanel([bot.name], bot, async (shown) => {
      await botView(name);
      main.querySelector("#upload-result").replaceChildren(shown);
    }));
  done("bot");
}

async function start() {
  const main = document.getElementById("app");
  try {
    state.rules = await call("/api/v1/participation");
  } catch (err) {
    fill(main, h("h1", {}, "Take part"), h("p", {}, "This site shows one machine's own leaderboard: there ",
      "is nothing to sign in to. A competition's server (arena server) has this page."));
    return done("none");
  }
  try {
    state.session = await call("/api/v1/session");
  } catch (err) {
    if (err.status !== 401) throw err;
    state.session = null;
  }
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  try {
    if (parts.length === 3 && parts[1] === "bots") await botView(parts[2]);
    else await home();
  } catch (err) {
    if (err.status !== 401) {
      fill(main, h("h1", {}, "Not available"), notice("refused", err.message));
      return done("error");
    }
    state.session = null;
    await signedOut(main, "Your session has ended: sign in again.");
  }
}

start();
