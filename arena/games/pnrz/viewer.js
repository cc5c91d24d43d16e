// Pirates, Ninjas, Robots & Zombies: the tile grid with each faction's scored region outlined (the
// engine's public view carries the regions), and per seat its factions, score and hand (face down
// unless the seat is shown). See arena/games/pnrz/engine.py.
"use strict";

(function () {
  const { h, s, lower, seatName, sees } = window.ArenaViewer.kit;

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
      for (const cell of region.cells) {
        svg.appendChild(s("rect", { x: (cell.x - 2 * minX) * size + 2, y: (cell.y - 2 * minY) * size + 2, width: size - 4,
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

  window.ArenaViewer.register("pnrz", pnrz);
})();
