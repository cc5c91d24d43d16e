// A hostile bot in JavaScript for tests/test_hostile.py, through @grpc/grpc-js (bots/node/node_modules).
//
//   node tests/bots/hostile.js MODE     (ARENA_ADDRESS, ARENA_TOKEN from the environment)
//
// Every message the bot receives is reported on its stdout as one line `HOSTILE {json}` (written at
// once): the referee keeps the bot's output in its log, as a sandboxed bot can write no file of the
// test's. It reads bots/node/node_modules and proto/: a sandbox must bind both besides its own folder.
//
// Modes, on the first decision (later decisions are answered with index 0):
//   other-game  a populated Ninja Master action (call 12) in a Ninjan match
//   garbage     raw bytes that are not an arena.v1.BotMessage, sent through a generic stream
"use strict";

const fs = require("fs");
const path = require("path");
const MODULES = path.join(__dirname, "..", "..", "bots", "node", "node_modules");
const grpc = require(path.join(MODULES, "@grpc", "grpc-js"));
const protoLoader = require(path.join(MODULES, "@grpc", "proto-loader"));

const definition = protoLoader.loadSync("arena/v1/arena.proto", {
  includeDirs: [path.join(__dirname, "..", "..", "proto")],
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: false,
  oneofs: true,
});
const play = definition["arena.v1.Referee"].Play;
const mode = process.argv[2];
const log = (item) => fs.writeSync(1, "HOSTILE " + JSON.stringify(item) + "\n");

// A generic client: requests are sent as the raw Buffers given, so garbage can go on the wire.
const client = new grpc.Client(process.env.ARENA_ADDRESS, grpc.credentials.createInsecure());
const stream = client.makeBidiStreamRequest(play.path, (buffer) => buffer, play.responseDeserialize);
const send = (message) => stream.write(play.requestSerialize(message));

send({ join: { token: process.env.ARENA_TOKEN, bot_name: `hostile-${mode}`, client: "hostile.js" } });
let decisions = 0;
stream.on("data", (message) => {
  log(message);
  if (message.kind !== "decision") return;
  const requestId = message.decision.request_id;
  decisions += 1;
  if (decisions > 1) {
    send({ answer: { request_id: requestId, index: 0 } });
  } else if (mode === "other-game") {
    send({ answer: { request_id: requestId, action: { ninja_master: { call: { number: 12 } } } } });
  } else if (mode === "garbage") {
    stream.write(Buffer.from([0xff, 0xfe, 0x67, 0x61, 0x72, 0x62, 0x61, 0x67, 0x65, 0x00, 0x01]));
  } else {
    console.error(`hostile.js: unknown mode ${mode}`);
    process.exit(2);
  }
});
stream.on("end", () => process.exit(0));
stream.on("error", (err) => {
  log({ status: err.code, details: err.details });
  process.exit(err.code === grpc.status.CANCELLED ? 0 : 1);
});
