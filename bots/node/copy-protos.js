// Copies the wire contract (proto/ at the repository's root) into this folder, so that the bot is
// self-contained: a sandboxed bot sees only its own folder, and a submitted bot is only its folder.
// Runs after every `npm install` (the postinstall script); proto/ here is a copy, never edited.
"use strict";

const fs = require("fs");
const path = require("path");

const source = path.join(__dirname, "..", "..", "proto");
const target = path.join(__dirname, "proto");
if (fs.existsSync(source)) {
  fs.rmSync(target, { recursive: true, force: true });
  fs.cpSync(source, target, { recursive: true });
}
