// A multilang spout for Egret's ShellSpout tests, written against the protocol alone.
// Emits word0..word2 with message ids, then one direct tuple, then nothing.
"use strict";
const fs = require("fs");
const path = require("path");
const readline = require("readline");

const rl = readline.createInterface({ input: process.stdin, terminal: false });
let lines = [];
let setup = null;
let count = 0;
let awaitingTaskIds = false;
const hang = process.env.HANG === "1";

function send(msg) {
  process.stdout.write(JSON.stringify(msg) + "\nend\n");
}

function sync() {
  send({ command: "sync" });
}

function handle(msg) {
  if (setup === null) {
    setup = msg;
    fs.closeSync(fs.openSync(path.join(msg.pidDir, String(process.pid)), "w"));
    send({ pid: process.pid });
    return;
  }
  if (Array.isArray(msg)) {
    if (awaitingTaskIds) {
      awaitingTaskIds = false;
      send({ command: "log", msg: "task ids " + JSON.stringify(msg), level: 2 });
      sync();
    }
    return;
  }
  switch (msg.command) {
    case "next":
      if (hang) {
        return; // never answers: the heartbeat timeout must kill us
      }
      if (count < 3) {
        send({ command: "emit", id: "m" + count, tuple: ["word" + count] });
        count++;
        awaitingTaskIds = true;
        return; // sync after the task ids arrive
      }
      if (count === 3) {
        send({ command: "emit", stream: "direct", task: 7, tuple: ["direct"] });
        count++;
      }
      sync();
      return;
    case "ack":
    case "fail":
      send({ command: "log", msg: msg.command + " " + msg.id, level: 2 });
      if (msg.command === "fail") {
        send({ command: "error", msg: "tuple " + msg.id + " failed" });
      }
      sync();
      return;
    case "activate":
    case "deactivate":
      send({ command: "log", msg: msg.command, level: 2 });
      sync();
      return;
    case "crash":
      process.exit(5);
  }
}

rl.on("line", (line) => {
  if (line === "end") {
    const msg = JSON.parse(lines.join("\n"));
    lines = [];
    handle(msg);
  } else {
    lines.push(line);
  }
});
rl.on("close", () => process.exit(0));
