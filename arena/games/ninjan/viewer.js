// Ninjan's table: the three piles, the cards revealed this round, and per seat its score, its hand
// (face down unless the seat is shown) and the cards it collected. See arena/games/ninjan/engine.py.
"use strict";

(function () {
  const { h, lower, seatName, sees } = window.ArenaViewer.kit;

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

  window.ArenaViewer.register("ninjan", ninjan);
})();
