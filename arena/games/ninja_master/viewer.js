// Ninja Master: the dice, who holds each ninja token and the sword, the round's tally when one was
// made, and per seat its VP. A perfect-information game: every seat sees the public view. See
// arena/games/ninja_master/engine.py.
"use strict";

(function () {
  const { h, lower, seatName } = window.ArenaViewer.kit;

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

  window.ArenaViewer.register("ninja-master", ninjaMaster);
})();
