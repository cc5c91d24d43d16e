// Ninja Burger: the mission being attempted with its checks and rolls, and per seat its honor, money,
// ninja, Ninja Stuff, mission and hand (secret ones only when the seat is shown). The views name ninja
// and fortune cards by id; the replay carries the engine's catalogue of them. See
// arena/games/ninja_burger/engine.py.
"use strict";

(function () {
  const { h, lower, seatName, sees } = window.ArenaViewer.kit;

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

  const byId = (cards) => Object.fromEntries(cards.map((card) => [card.id, card]));

  function ninjaBurger(frame, ctx, replay) {
    const pub = frame.public;
    const cat = { ninjas: byId(replay.catalogue.ninjas), fortune: byId(replay.catalogue.fortune) };
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

  window.ArenaViewer.register("ninja-burger", ninjaBurger);
})();
