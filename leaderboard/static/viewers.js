// The replay viewer: step controls, a seat selector, and one drawing of the table per game.
//
// A replay from /api/matches/{id}/replay is a list of frames; each has the public table (`public`),
// every seat's own observation (`observations`), and the step's decisions and events. A drawing gets
// the frame and `seat` (a seat number, or -1 for everything revealed) and shows a seat's secrets (its
// hand, its mission) only when that seat is selected or everything is. Text goes in through
// textContent only (see app.js).
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

  // -- Ninjan ---------------------------------------------------------------------------------------

  const SUIT = { ROCK: ["R", "rock"], PAPER: ["P", "paper"], SCISSORS: ["S", "scis."] };

  function ninjanCard(card, extra = "") {
    const [letter, glyph] = SUIT[card.suit];
    return h("span", { class: `card suit-${card.suit.toLowerCase()} ${extra}`, "data-card": `${letter}${card.value}`,
      title: `${lower(card.suit)} ${card.value}` }, h("span", { class: "glyph" }, letter), h("span", { class: "suitname" }, glyph),
      h("span", { class: "value" }, String(card.value)));
  }

  function ninjan(frame, ctx) {
    const pub = frame.public;
    const piles = h("div", { class: "piles" }, pub.piles.map((pile, i) => h("div", { class: "pile", "data-pile": i },
      h("div", { class: "label" }, `pile ${i + 1}`),
      h("div", { class: "stack" }, pile.cards.map((c, k) => ninjanCard(c, k === pile.cards.length - 1 ? "topcard" : ""))))));
    const revealed = pub.revealed.length ? h("div", { class: "revealed" }, "revealed: ",
      pub.revealed.map((p) => h("span", { class: `play${pub.resolving === p.seat ? " resolving" : ""}` },
        `${ctx.players[p.seat]} `, ninjanCard(p.card)))) : null;
    const players = h("div", { class: "seats" }, pub.players.map((p) => {
      const hand = sees(ctx, p.seat)
        ? frame.observations[p.seat].hand.map((c) => ninjanCard(c))
        : Array.from({ length: p.hand_size }, () => h("span", { class: "card back" }, "?"));
      return h("section", { class: `panel seat${pub.resolving === p.seat ? " acting" : ""}`, "data-seat": p.seat },
        h("h3", {}, seatName(ctx, p.seat), h("span", { class: "score" }, String(p.score))),
        h("div", { class: "label" }, `hand (${p.hand_size})`), h("div", { class: "hand" }, hand),
        h("div", { class: "label" }, `collected (${p.collected.length})`),
        h("div", { class: "collected" }, p.collected.map((c) => ninjanCard(c, "small"))));
    }));
    return h("div", { class: "table ninjan" },
      h("p", { class: "status" }, `round ${pub.round} of 9 · ${lower(pub.phase)}`), piles, revealed, players);
  }

  // -- Pirates, Ninjas, Robots & Zombies ----------------------------------------------------------

  const LETTERS = "PNRZT*BMKDXHSCFG"; // picture codes in the order of the engine's Picture enum
  const FACTIONS = ["PIRATE", "NINJA", "ROBOT", "ZOMBIE"];
  const FACTION_COLOUR = { PIRATE: "#c53030", NINJA: "#6b46c1", ROBOT: "#3182ce", ZOMBIE: "#38a169" };
  const KIND = ["character", "bonus", "enemy", "base"];
  const GLYPH = ["", "★", "✖", "⌂"];
  const PICTURE_NAME = ["pirate", "ninja", "robot", "zombie", "treasure chest", "throwing star", "battery",
    "brain", "kraken", "dragon", "soldiers", "hunter", "pirate ship", "castle", "factory", "graveyard"];

  function picture(letter) {
    const index = LETTERS.indexOf(letter);
    return { faction: FACTIONS[index % 4], kind: Math.floor(index / 4), name: PICTURE_NAME[index], letter };
  }

  // Draws the quadrants of tiles into `svg`: cell (cx, cy) is quadrant (cx % 2, cy % 2) of tile (x, y).
  function pictureCell(svg, cx, cy, size, letter) {
    const pic = picture(letter);
    const colour = FACTION_COLOUR[pic.faction];
    const kindName = KIND[pic.kind];
    const g = s("g", { class: `pic ${kindName}`, "data-picture": letter });
    g.appendChild(s("rect", { x: cx * size, y: cy * size, width: size, height: size,
      fill: pic.kind === 2 ? "#1a202c" : colour, "fill-opacity": pic.kind === 0 ? 0.55 : 0.9 },
    s("title", {}, `${pic.name} (${lower(pic.faction)} ${kindName})`)));
    g.appendChild(s("text", { x: cx * size + size / 2, y: cy * size + size / 2 + size * 0.14,
      "text-anchor": "middle", class: "pictext", fill: pic.kind === 2 ? colour : "#fff",
      "font-size": size * 0.42 }, pic.kind === 0 ? letter : `${GLYPH[pic.kind]}`));
    svg.appendChild(g);
  }

  function pnrzBoard(pub) {
    const size = 26;
    if (!pub.board.length) return h("p", { class: "muted" }, "No tile in play yet.");
    const xs = pub.board.map((t) => t.x), ys = pub.board.map((t) => t.y);
    const minX = Math.min(...xs), minY = Math.min(...ys);
    const cols = Math.max(...xs) - minX + 1, rows = Math.max(...ys) - minY + 1;
    const svg = s("svg", { class: "board pnrz", viewBox: `-4 -4 ${cols * 2 * size + 8} ${rows * 2 * size + 8}`,
      width: cols * 2 * size + 8, height: rows * 2 * size + 8, role: "img", "aria-label": "tile grid" });
    const offsets = [[0, 0], [1, 0], [1, 1], [0, 1]]; // NW, NE, SE, SW
    for (const tile of pub.board) {
      const tx = (tile.x - minX) * 2, ty = (tile.y - minY) * 2;
      [...tile.shown].forEach((letter, q) => pictureCell(svg, tx + offsets[q][0], ty + offsets[q][1], size, letter));
      svg.appendChild(s("rect", { x: tx * size, y: ty * size, width: 2 * size, height: 2 * size, class: "tileedge",
        "data-tile": tile.tile_id }, s("title", {}, `tile ${tile.tile_id} at (${tile.x}, ${tile.y}), rotation ${tile.rotation}`)));
    }
    for (const region of pub.regions) {
      for (const [cx, cy] of region.cells) {
        svg.appendChild(s("rect", { x: (cx - 2 * minX) * size + 2, y: (cy - 2 * minY) * size + 2, width: size - 4,
          height: size - 4, class: "region", "data-faction": region.faction }, s("title", {}, `${lower(region.faction)}: ${region.score} points`)));
      }
    }
    return h("div", { class: "boardbox" }, svg);
  }

  function pnrzTile(tile) {
    const size = 16;
    const svg = s("svg", { class: "minitile", viewBox: `0 0 ${2 * size} ${2 * size}`, width: 2 * size, height: 2 * size });
    const offsets = [[0, 0], [1, 0], [1, 1], [0, 1]];
    [...tile.pictures].forEach((letter, q) => pictureCell(svg, offsets[q][0], offsets[q][1], size, letter));
    const icon = tile.icon === "NONE" ? "" : ` · ${lower(tile.icon)}`;
    return h("span", { class: "handtile", title: `tile ${tile.id}${icon}` }, svg,
      h("span", { class: "small" }, `#${tile.id}${icon}`));
  }

  function pnrz(frame, ctx) {
    const pub = frame.public;
    const scores = Object.fromEntries(pub.faction_scores.map((f) => [f.faction, f.score]));
    const regionOf = Object.fromEntries(pub.regions.map((r) => [r.faction, r]));
    const players = h("div", { class: "seats" }, pub.players.map((p) => {
      const obs = frame.observations[p.seat];
      const hand = sees(ctx, p.seat) ? obs.hand.map(pnrzTile)
        : Array.from({ length: p.hand_size }, () => h("span", { class: "handtile back" }, "?"));
      return h("section", { class: `panel seat${pub.current === p.seat ? " acting" : ""}`, "data-seat": p.seat },
        h("h3", {}, seatName(ctx, p.seat), h("span", { class: "score" }, String(p.score))),
        h("div", { class: "factions" }, p.factions.map((f) => h("span", { class: "faction", "data-faction": f },
          h("span", { class: "dot", "data-colour": FACTION_COLOUR[f] }),
          `${lower(f)}: ${scores[f] ?? 0}`, regionOf[f] ? ` (${regionOf[f].cells.length} pictures)` : ""))),
        h("div", { class: "label" }, `hand (${p.hand_size})`), h("div", { class: "hand" }, hand));
    }));
    const node = h("div", { class: "table pnrz" },
      h("p", { class: "status" }, `turn ${pub.turn} · ${lower(pub.phase)}`,
        pub.current === null ? "" : ` · ${ctx.players[pub.current]} to play`, ` · draw pile ${pub.pile_size}`,
        pub.final_turns_left === null ? "" : ` · final turns left ${pub.final_turns_left}`,
        pub.icon !== "NONE" ? ` · extra action: ${lower(pub.icon)}` : ""),
      h("div", { class: "split" }, pnrzBoard(pub), players),
      h("p", { class: "muted small" }, "Letters are characters (1 point), ★ bonus items (3), ⌂ bases (5), ",
        "✖ arch-enemies (black); pictures outlined in gold form each faction's best section, the one that scores."));
    for (const dot of node.querySelectorAll(".dot")) dot.style.background = dot.dataset.colour;
    return node;
  }

  // -- Ninja Master ---------------------------------------------------------------------------------

  const NM_COLOUR = { ORANGE: "#dd6b20", PINK: "#d53f8c", BLUE: "#3182ce", GREEN: "#38a169", PURPLE: "#805ad5" };

  function die(face, i) {
    let label = "", cls = "die";
    if (face.symbol === "NINJA") { label = "●".repeat(face.ninjas); cls += " ninja"; }
    if (face.symbol === "SMOKE") { label = "smoke"; cls += " smoke"; }
    if (face.symbol === "SWORD") { label = "⚔"; cls += " sword"; }
    if (face.symbol === "SHURIKEN") { label = "✴"; cls += " shuriken"; }
    const title = face.colour ? `${lower(face.colour)} ${lower(face.symbol)}${face.ninjas ? ` ×${face.ninjas}` : ""}`
      : lower(face.symbol);
    const node = h("span", { class: cls, title, "data-die": i, "data-colour": face.colour ? NM_COLOUR[face.colour] : "" },
      h("span", {}, label));
    return node;
  }

  // The round's result as the players would write it down: one line per seat of the tally.
  function tallyTable(tally, ctx) {
    const cols = ["before", "sword", "ninjas", "shuriken", "call", "after"];
    return h("section", { class: "panel tally" },
      h("h3", {}, `round ${tally.round} tallied: ended by ${lower(tally.ended_by)}`,
        h("span", { class: "small" }, `${tally.ninja_total} ninjas · ${tally.swords} swords · ${tally.shurikens} shurikens`)),
      h("table", { class: "tallytable" },
        h("thead", {}, h("tr", {}, h("th", {}, "seat"), cols.map((c) => h("th", { class: "num" }, c)))),
        h("tbody", {}, tally.lines.map((line) => h("tr", {}, h("td", {}, seatName(ctx, line.seat)),
          cols.map((c) => h("td", { class: "num" }, String(line[c]))))))),
      tally.game_over ? h("p", { class: "status" }, "game over") : null);
  }

  // The dice on the table: this round's roll, or the previous frame's while the tally is shown.
  function shownDice(frame, ctx) {
    if (frame.public.dice.length || ctx.index === 0) return frame.public.dice;
    return ctx.replay.frames[ctx.index - 1].public.dice;
  }

  function ninjaMaster(frame, ctx) {
    const pub = frame.public;
    const dice = shownDice(frame, ctx);
    const tally = frame.events.map((e) => e.round_tallied).find(Boolean);
    const holder = (seat) => (seat === null ? "free" : ctx.players[seat]);
    const components = h("div", { class: "tokens" }, pub.components.map((c) => {
      const colour = c.component.replace("_NINJA", "");
      return h("span", { class: `token${c.holder === null ? " free" : ""}`, "data-component": c.component,
        "data-colour": NM_COLOUR[colour] || "" },
      h("span", { class: "tokenface" }, c.component === "SWORD" ? "⚔" : "N"),
      h("span", { class: "small" }, `${lower(c.component)}: `), h("b", {}, holder(c.holder)));
    }));
    const players = h("div", { class: "seats" }, pub.players.map((p) => h("section", {
      class: `panel seat${p.contending ? "" : " out"}`, "data-seat": p.seat },
    h("h3", {}, seatName(ctx, p.seat), h("span", { class: "score" }, `${p.score} VP`)),
    h("div", { class: "vpbar" }, h("span", { class: "fill", "data-width": Math.min(100, (100 * p.score) / 20) })),
    h("p", { class: "small" }, pub.shuriken_holder === p.seat ? "✴ shuriken holder (roller) " : "",
      pub.sword_holder === p.seat ? "⚔ sword holder " : "", p.contending ? "" : "sits out the play-off"),
    h("p", { class: "small" }, "holds: ", pub.components.filter((c) => c.holder === p.seat)
      .map((c) => lower(c.component)).join(", ") || "nothing"))));
    const node = h("div", { class: "table ninja-master" },
      h("p", { class: "status" }, `round ${pub.round} · ${lower(pub.phase)} · tick ${pub.tick} of 6`,
        pub.playoff ? " · tie play-off" : "", " · first to 20 VP wins"),
      h("div", { class: "dice" }, dice.length ? dice.map(die) : h("span", { class: "muted" }, "dice not rolled yet"),
        dice.length && !pub.dice.length ? h("span", { class: "muted small" }, "the dice of the round just tallied") : null),
      components, tally ? tallyTable(tally, ctx) : null, players);
    for (const el of node.querySelectorAll("[data-colour]")) {
      if (el.dataset.colour) el.style.setProperty("--c", el.dataset.colour);
    }
    for (const el of node.querySelectorAll(".fill")) el.style.width = `${el.dataset.width}%`;
    return node;
  }

  // -- Ninja Burger ---------------------------------------------------------------------------------

  function mission(card, extra = "") {
    if (!card) return h("p", { class: "muted small" }, "no mission");
    return h("div", { class: `mission${card.errand ? " errand" : ""} ${extra}`, "data-mission": card.id },
      h("b", {}, card.name), card.errand ? h("span", { class: "tag" }, "errand") : null,
      h("ul", {}, card.checks.map((c) => h("li", {}, c.skills.map(lower).join(" or "),
        c.modifier ? ` (${c.modifier > 0 ? "+" : ""}${c.modifier})` : ""))),
      h("p", { class: "small" }, `success: +${card.reward_honor} honor${card.reward_money ? `, +$${card.reward_money}` : ""}`,
        ` · failure: −${card.penalty_honor} honor${card.penalty_money ? `, −$${card.penalty_money}` : ""}`));
  }

  function fortune(card) {
    return h("span", { class: `fortune kind-${lower(card.kind).replace(/ /g, "-")}`, title: `${lower(card.kind)}: ${lower(card.effect)}` },
      card.name);
  }

  function ninjaCard(card) {
    if (!card) return h("span", { class: "muted" }, "choosing a ninja");
    const skills = card.skills.map((sk, i) => `${lower(sk)} ${card.values[i]}`).join(" · ");
    return h("div", { class: "ninjacard", "data-ninja": card.id }, h("b", {}, card.name),
      h("p", { class: "small" }, `${skills} · other ${card.other_stuff}`,
        card.ability ? ` · ${lower(card.ability)}${card.ability_skill ? ` (${lower(card.ability_skill)})` : ""}` : ""));
  }

  function ninjaBurger(frame, ctx, replay) {
    const pub = frame.public;
    const cat = replay.catalogue;
    const n = pub.players.length;
    const total = pub.players.reduce((t, p) => t + p.honor, 0);
    const players = h("div", { class: "seats" }, pub.players.map((p) => {
      const obs = frame.observations[p.seat];
      const secret = sees(ctx, p.seat);
      return h("section", { class: `panel seat${pub.active === p.seat ? " acting" : ""}`, "data-seat": p.seat },
        h("h3", {}, seatName(ctx, p.seat), h("span", { class: "score" }, `${p.honor} honor`)),
        h("p", { class: "small" }, `$${p.money} · ${p.hand_size} fortune cards`, p.attended ? " · at the staff meeting" : ""),
        ninjaCard(p.ninja === null ? null : cat.ninjas[p.ninja]),
        secret && obs.ninja_options.length ? h("div", {}, h("div", { class: "label" }, "ninja cards dealt"),
          obs.ninja_options.map(ninjaCard)) : null,
        p.items.length ? h("div", {}, h("div", { class: "label" }, "ninja stuff"),
          p.items.map((id) => fortune(cat.fortune[id]))) : null,
        h("div", { class: "label" }, p.mission ? "mission (revealed)" : "mission"),
        p.mission ? mission(p.mission) : secret ? mission(obs.mission, "secret") : h("p", { class: "muted small" }, "face down"),
        h("div", { class: "label" }, "hand"),
        h("div", { class: "hand" }, secret ? obs.hand.map(fortune)
          : Array.from({ length: p.hand_size }, () => h("span", { class: "fortune back" }, "?"))));
    }));
    const active = pub.active === null ? null : h("section", { class: "panel attempt" },
      h("h3", {}, `${seatName(ctx, pub.active)} attempts a mission`),
      h("ol", {}, pub.checks.map((c, i) => h("li", { class: i === pub.check_index ? "current" : "" },
        c.skills.map(lower).join(" or "), pub.plan[i] ? ` → ${lower(pub.plan[i])}` : "",
        c.modifier ? ` (${c.modifier > 0 ? "+" : ""}${c.modifier})` : ""))),
      pub.plays.length ? h("p", {}, "played on this check: ",
        pub.plays.map((pl) => h("span", {}, `${ctx.players[pl.seat]}: `, fortune(pl.card), " "))) : null);
    const rolls = frame.events.map((e) => e.check_rolled).filter(Boolean);
    const ended = frame.events.map((e) => e.mission_ended).filter(Boolean);
    const table = rolls.length || ended.length ? h("section", { class: "panel rolls" }, h("h3", {}, "At the table"),
      rolls.map((r) => h("p", { class: `roll ${r.passed ? "passed" : "failed"}` }, `${seatName(ctx, r.seat)} rolls for ${lower(r.skill)}: `,
        r.dice.length ? r.dice.map((d) => h("span", { class: "d6" }, String(d))) : "never fails",
        ` total ${r.total} vs skill ${r.target}: ${r.passed ? "passed" : "failed"}`)),
      ended.map((m) => h("p", { class: "status" }, `${seatName(ctx, m.seat)}: mission ${m.success ? "accomplished" : "failed"} `,
        `(${m.honor >= 0 ? "+" : ""}${m.honor} honor, ${m.money >= 0 ? "+" : ""}$${m.money})`))) : null;
    return h("div", { class: "table ninja-burger" },
      h("p", { class: "status" }, `round ${pub.round} · ${lower(pub.phase)} · mission deck ${pub.mission_deck} · `,
        `fortune deck ${pub.fortune_deck}`, pub.order.length ? ` · order: ${pub.order.map((o) => ctx.players[o]).join(", ")}` : ""),
      h("p", { class: "honortrack" }, `total honor ${total}: the game ends at ${10 * n} or at ${4 * n}`),
      active, table, players);
  }

  const DRAW = { ninjan, pnrz, "ninja-master": ninjaMaster, "ninja-burger": ninjaBurger };

  // -- the viewer -----------------------------------------------------------------------------------

  function logOf(frame, ctx) {
    const items = [];
    for (const d of frame.decisions) {
      items.push(h("li", { class: "decision" }, `${seatName(ctx, d.seat)}: ${brief(d.action)}`,
        d.by === "fallback" ? " (fallback move)" : ""));
    }
    for (const e of frame.events) items.push(h("li", { class: "event" }, brief(e)));
    return items.length ? h("ul", { class: "log" }, items) : h("p", { class: "muted" }, "The start of the game.");
  }

  function build(replay, match) {
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
      board.replaceChildren(DRAW[replay.game](frame, ctx, replay));
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

  window.ArenaViewer = { build, brief };
})();
