// The replay viewer: step controls, a seat selector, and the drawing of the table, which is the game's.
//
// A replay from /api/v1/matches/{id}/replay is a list of frames; each has the public table (`public`, the
// engine's public view: what a spectator may see), every seat's own observation (`observations`), and
// the step's decisions and events. Nothing here knows a game: each game's drawing is one file,
// static/viewers/<game>.js (the game folder's viewer.js: arena/games/<game>/), loaded when a replay of that game is shown, which registers itself with
// `ArenaViewer.register(game, draw)`. A drawing gets the frame and `ctx` (`ctx.seat` is a seat number,
// or -1 for everything revealed) and shows a seat's secrets (its hand, its mission) only when that seat
// is selected or everything is. A game without a drawing file is shown as its public view in text.
// Text goes in through textContent only (see app.js).
"use strict";

(function () {
  const A = () => window.Arena;
  const h = (...args) => A().h(...args);
  const s = (...args) => A().s(...args);
  const PLAY_MS = 600;

  const lower = (name) => String(name).toLowerCase().replace(/_/g, " ");
  const seatName = (ctx, seat) => `${ctx.players[seat]} (seat ${seat})`;
  const sees = (ctx, seat) => ctx.seat === -1 || ctx.seat === seat;

  // A compact text form of a JSON action or event: {"play_card":{"card":{...}}} -> play card card=ROCK 5
  function brief(value) {
    if (value === null || value === undefined) return "–";
    if (Array.isArray(value)) return `[${value.map(brief).join(", ")}]`;
    if (typeof value !== "object") return String(value);
    const entries = Object.entries(value);
    if (entries.length === 1 && typeof entries[0][1] === "object" && entries[0][1] !== null &&
        !Array.isArray(entries[0][1]) && /^[a-z_]+$/.test(entries[0][0])) {
      return `${lower(entries[0][0])} ${brief(entries[0][1])}`.trim();
    }
    return entries.filter(([, v]) => v !== null).map(([k, v]) => `${k}=${brief(v)}`).join(" ");
  }

  function panel(title, ...children) {
    return h("section", { class: "panel" }, h("h3", {}, title), ...children);
  }

  // -- the games' drawings ----------------------------------------------------------------------------

  const DRAW = {};

  // Called by each static/viewers/<game>.js: `draw(frame, ctx, replay)` returns the table's element.
  function register(game, draw) {
    DRAW[game] = draw;
  }

  // The drawing of a game without a file of its own: the public view, field by field.
  function plain(frame) {
    return h("div", { class: "table plain" }, panel("public view",
      h("dl", { class: "facts" }, Object.entries(frame.public).flatMap(([key, value]) =>
        [h("dt", {}, lower(key)), h("dd", {}, brief(value))]))));
  }

  // Resolves to the game's drawing, loading static/viewers/<game>.js on first use (or `plain`).
  function load(game) {
    if (DRAW[game]) return Promise.resolve(DRAW[game]);
    return new Promise((resolve) => {
      const script = document.createElement("script");
      script.src = `/static/viewers/${encodeURIComponent(game)}.js`;
      script.onload = () => resolve(DRAW[game] || plain);
      script.onerror = () => resolve(plain);
      document.head.appendChild(script);
    });
  }

  // -- the viewer -------------------------------------------------------------------------------------

  // A sentence of several lines (a Ninja Master tally) as text nodes with line breaks between them.
  const lines = (text) => String(text).split("\n").flatMap((line, i) => (i ? [h("br"), line] : [line]));

  // The step in words: each decision and event as the game's sentence (the server's `words` and
  // `event_words`, made by the game's words.py, as `arena match -v` prints them), else as `brief`.
  function logOf(frame, ctx) {
    const items = [];
    for (const d of frame.decisions) {
      items.push(h("li", { class: "decision" }, `${ctx.players[d.seat] ?? `seat ${d.seat}`}: `,
        d.words ?? brief(d.action), d.by === "fallback" ? " (the referee's fallback move)" : ""));
    }
    const said = frame.event_words || [];
    frame.events.forEach((e, i) => items.push(h("li", { class: "event" }, lines(said[i] ?? brief(e)))));
    return items.length ? h("ul", { class: "log" }, items) : h("p", { class: "muted" }, "The start of the game.");
  }

  function build(replay, match, draw) {
    const players = replay.header.players.map((p) => p.bot);
    const ctx = { seat: -1, players, index: 0, replay };
    const last = replay.frames.length - 1;
    let index = 0;
    let timer = null;
    const board = h("div", { class: "viewer-board", id: "board" });
    const log = h("div", { class: "viewer-log", id: "log" });
    const label = h("span", { class: "frame-label", id: "frame-label" });
    const slider = h("input", { type: "range", min: 0, max: last, value: 0, id: "frame-slider",
      "aria-label": "frame", oninput: () => show(Number(slider.value)) });
    const play = h("button", { type: "button", id: "play", onclick: () => toggle() }, "▶ play");
    const seat = h("select", { id: "seat", "aria-label": "view from", onchange: () => { ctx.seat = Number(seat.value); show(index); } },
      h("option", { value: -1 }, "everything revealed"),
      players.map((bot, i) => h("option", { value: i }, `seat ${i}: ${bot}`)));

    function show(i) {
      index = Math.max(0, Math.min(last, i));
      ctx.index = index;
      const frame = replay.frames[index];
      slider.value = String(index);
      label.textContent = `frame ${index} / ${last}` + (index ? ` · decision step ${frame.step}` : " · start");
      board.replaceChildren(draw(frame, ctx, replay));
      log.replaceChildren(h("h3", {}, index ? "This step" : "Start"), logOf(frame, ctx),
        h("p", { class: "small" }, "scores: ", frame.scores.map((v, k) => `${players[k]} ${v}`).join(" · ")));
      root.dataset.frame = String(index);
      if (index === last && timer !== null) toggle();
    }

    function toggle() {
      if (timer !== null) {
        clearInterval(timer);
        timer = null;
        play.textContent = "▶ play";
        return;
      }
      if (index === last) show(0);
      play.textContent = "❚❚ pause";
      timer = setInterval(() => show(index + 1), PLAY_MS);
    }

    const button = (id, text, title, go) => h("button", { type: "button", id, title, onclick: go }, text);
    const controls = h("div", { class: "controls" },
      button("first", "|◀", "first frame", () => show(0)),
      button("back", "◀ back", "step back (←)", () => show(index - 1)),
      play,
      button("forward", "forward ▶", "step forward (→)", () => show(index + 1)),
      button("last", "▶|", "last frame", () => show(last)),
      slider, label, h("label", { class: "seatpick" }, "view: ", seat));
    const root = h("div", { class: "viewer", "data-game": replay.game }, controls, h("div", { class: "viewer-body" }, board, log));
    document.addEventListener("keydown", (event) => {
      if (event.target.tagName === "INPUT" || event.target.tagName === "SELECT") return;
      if (event.key === "ArrowRight") show(index + 1);
      if (event.key === "ArrowLeft") show(index - 1);
    });
    show(0);
    return root;
  }

  const kit = { h, s, lower, seatName, sees, brief, panel };
  window.ArenaViewer = { build, brief, register, load, kit };
})();
