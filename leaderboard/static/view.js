// arena view: under the leaderboard's replay viewer, the bots' output written during the step shown
// (each line stamped by the referee with the decision step it was written in) and a chart of each
// seat's think time per decision against the deadline (log scale), the step shown marked.
//
// The replay JSON of /api/v1/matches/{id}/replay carries, per frame, `logs` (seat, text) and `think`
// (seat, ms), and in all `think` and `deadline_ms`. Everything a bot wrote goes in through
// textContent only (Arena.h), never as markup.
"use strict";

(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const WIDTH = 900;
  const HEIGHT = 220;
  const PAD = { left: 56, right: 12, top: 10, bottom: 26 };
  const h = (...args) => window.Arena.h(...args);

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, String(value));
    for (const child of children) node.append(child);
    return node;
  }

  const players = (replay) => replay.header.players.map((p) => p.bot);

  // The panel of one frame: every line written during its step, then its decisions' think times.
  function panel(replay, frame, index) {
    const names = players(replay);
    const items = (frame.logs || []).map((line) =>
      h("li", { class: "line" }, h("span", { class: `who swatch${line.seat % 8}` }, `${names[line.seat]}`), line.text));
    const times = (frame.think || []).map((t) =>
      h("li", { class: "time" }, h("span", { class: `who swatch${t.seat % 8}` }, `${names[t.seat]}`),
        `thought ${t.ms.toFixed(1)} ms`, t.answered ? "" : " (no usable answer)"));
    const title = index === 0 ? "Bot output before the first decision" : `Bot output during step ${frame.step}`;
    let body;
    if (replay.match_log && !replay.match_log.found) body = h("p", { class: "muted" }, replay.match_log.problem);
    else if (!items.length && !times.length) body = h("p", { class: "muted" }, "Nothing written at this step.");
    else body = h("ol", {}, items, times);
    return h("section", { class: "botlog", id: "botlog" }, h("h3", {}, title), body);
  }

  // Each seat's think times as a line over the decision steps; y is logarithmic up to the deadline.
  function chart(replay) {
    const names = players(replay);
    const think = replay.think || [];
    if (!think.length) return h("section", { class: "think", id: "think-chart" }, h("p", { class: "muted" }, "No think times recorded."));
    const steps = Math.max(1, ...think.map((t) => t.step));
    const top = Math.max(replay.deadline_ms || 0, ...think.map((t) => t.ms), 1);
    const low = 0.1;
    const x = (step) => PAD.left + (step / steps) * (WIDTH - PAD.left - PAD.right);
    const y = (ms) => {
      const v = Math.log10(Math.max(ms, low) / low) / Math.log10(top / low);
      return HEIGHT - PAD.bottom - v * (HEIGHT - PAD.top - PAD.bottom);
    };
    const plot = svg("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": "think time per decision" });
    for (let tick = low; tick <= top * 1.0001; tick *= 10) {
      plot.append(svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(tick), y2: y(tick), stroke: "#e2e8f0" }),
        svg("text", { x: 4, y: y(tick) + 4 }, tick >= 1 ? `${tick.toFixed(0)} ms` : `${tick} ms`));
    }
    if (replay.deadline_ms) {
      plot.append(svg("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(replay.deadline_ms), y2: y(replay.deadline_ms),
        stroke: "#c53030", "stroke-dasharray": "6 4" }),
      svg("text", { x: WIDTH - PAD.right - 140, y: y(replay.deadline_ms) + 13 }, `deadline ${replay.deadline_ms} ms`));
    }
    names.forEach((name, seat) => {
      const mine = think.filter((t) => t.seat === seat);
      if (!mine.length) return;
      const points = mine.map((t) => `${x(t.step).toFixed(1)},${y(t.ms).toFixed(1)}`).join(" ");
      plot.append(svg("polyline", { points, fill: "none", stroke: window.Arena.PALETTE[seat % 8], "stroke-width": 1.5,
        class: `seat${seat}` }));
    });
    const marker = svg("line", { id: "think-marker", y1: PAD.top, y2: HEIGHT - PAD.bottom, stroke: "#1a202c", "stroke-width": 1 });
    plot.append(marker, svg("text", { x: PAD.left, y: HEIGHT - 6 }, "step 0"),
      svg("text", { x: WIDTH - PAD.right - 60, y: HEIGHT - 6 }, `step ${steps}`));
    const deadline = replay.deadline_ms ? `deadline ${replay.deadline_ms} ms` : "no deadline";
    const legend = h("p", { class: "legend" }, names.map((name, seat) => h("span", { class: `swatch${seat % 8}` }, `━ ${name}`)));
    const section = h("section", { class: "think", id: "think-chart" },
      h("h3", {}, `Think time per decision (log scale; ${deadline})`), legend, plot);
    section.moveTo = (step) => {
      marker.setAttribute("x1", String(x(step)));
      marker.setAttribute("x2", String(x(step)));
    };
    return section;
  }

  async function attach(viewer) {
    const id = decodeURIComponent(location.pathname.split("/").filter(Boolean)[1] || "");
    const replay = await window.Arena.api(`/api/v1/matches/${encodeURIComponent(id)}/replay`);
    if (!replay.match_log) return; // a leaderboard replay stored without its log: nothing to add
    const graph = chart(replay);
    let current = panel(replay, replay.frames[0], 0);
    viewer.append(current, graph);
    const update = () => {
      const index = Number(viewer.dataset.frame || 0);
      const frame = replay.frames[index];
      const next = panel(replay, frame, index);
      current.replaceWith(next);
      current = next;
      if (graph.moveTo) graph.moveTo(frame.step);
      viewer.dataset.logFrame = String(index);
    };
    new MutationObserver(update).observe(viewer, { attributes: true, attributeFilter: ["data-frame"] });
    update();
  }

  const watch = new MutationObserver(() => {
    const viewer = document.querySelector(".viewer");
    if (viewer && !viewer.dataset.logs) {
      viewer.dataset.logs = "1";
      attach(viewer).catch((err) => viewer.append(h("p", { class: "error" }, err.message)));
    }
  });
  watch.observe(document.getElementById("app"), { childList: true, subtree: true });
})();
