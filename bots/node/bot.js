// An arena bot in JavaScript. It speaks the same proto/arena/v1 contract as every bot: Join with the
// seat token, then answer each DecisionRequest. This one prefers actions that take a pile (Ninjan) and
// otherwise picks a random legal action, which is enough to show the typed messages in another language.
//
//   npm install --prefix bots/node     (also copies proto/ here: a sandboxed bot sees only its folder)
//   arena match ninjan "node bots/node/bot.js" random
"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

// proto/ beside this file: a copy of the repository's proto/ made by `npm install` (copy-protos.js).
const PROTO_ROOT = path.join(__dirname, "proto");
const definition = protoLoader.loadSync("arena/v1/arena.proto", {
  includeDirs: [PROTO_ROOT],
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  oneofs: true,
});
const arena = grpc.loadPackageDefinition(definition).arena.v1;

const address = process.env.ARENA_ADDRESS;
const token = process.env.ARENA_TOKEN;
if (!address || !token) {
  console.error("node bot: set ARENA_ADDRESS and ARENA_TOKEN (arena match does this for the bots it starts)");
  process.exit(2);
}

function choose(request) {
  const legal = request.legal_actions;
  const takes = legal
    .map((action, index) => ({ action, index }))
    .filter(({ action }) => action.ninjan && action.ninjan.kind === "take_pile");
  if (takes.length > 0) {
    // Take the richest pile: the observation carries every pile's cards.
    const piles = request.observation.ninjan.piles;
    const value = (i) => piles[i].cards.reduce((sum, card) => sum + card.value, 0);
    takes.sort((a, b) => value(b.action.ninjan.take_pile.pile) - value(a.action.ninjan.take_pile.pile));
    return takes[0].index;
  }
  return Math.floor(Math.random() * legal.length);
}

const client = new arena.Referee(address, grpc.credentials.createInsecure());
const stream = client.Play();
stream.write({ join: { token, bot_name: "node", client: "node-example/1.0.0" } });
stream.on("data", (message) => {
  switch (message.kind) {
    case "decision":
      stream.write({ answer: { request_id: message.decision.request_id, index: choose(message.decision) } });
      break;
    case "error":
      console.error(`node bot: referee says ${message.error.code}: ${message.error.message}`);
      break;
    case "result":
      console.error(`node bot: match ${message.result.match_id} over`);
      break;
    default:
      break;
  }
});
stream.on("end", () => process.exit(0));
stream.on("error", (err) => {
  if (err.code === grpc.status.CANCELLED) process.exit(0);
  console.error(`node bot: connection ended: ${err.details || err.message}`);
  process.exit(1);
});
