#!/usr/bin/env node
// An example bot for the liverpool bot protocol, version 1 (docs/bot-protocol.md), in
// JavaScript: Node's standard library only.
//
// It plays like examples/example_bot.py: it goes down whenever it can, lays off whatever it
// can, and otherwise picks a random legal action (seeded by the game_start "seed", so a
// tournament gives the same results every time). Run it by hand to see the protocol:
//
//     liverpool simulate --games 4 --bots 'cmd:node examples/example_bot.js',basic,basic,basic
//
// Everything the bot prints to standard output must be a protocol message, one JSON object
// per line; diagnostics go to standard error (console.error). console.log writes a whole line
// at once, and writes to a pipe are synchronous on Linux and macOS, so nothing needs flushing.

"use strict";

const readline = require("readline");

const NAME = "example.js (goes down, lays off, else random)";
const PREFERRED = ["go_down", "lay_off"];

// Math.random cannot be seeded: mulberry32, a small 32-bit generator, can.
function seededRandom(seed) {
  let state = seed >>> 0;
  return function next() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function send(message) {
  console.log(JSON.stringify(message));
}

function choose(legal, random) {
  for (const kind of PREFERRED) {
    const option = legal.find((a) => a.type === kind);
    if (option) {
      return option;
    }
  }
  return legal[Math.floor(random() * legal.length)];
}

function main() {
  let random = seededRandom(0);
  // the host closes our input when it is done with us: then "close" ends the bot
  const input = readline.createInterface({ input: process.stdin, terminal: false });

  input.on("line", (line) => {
    if (!line.trim()) {
      return;
    }
    let message;
    try {
      message = JSON.parse(line);
    } catch (error) {
      console.error(`not JSON, skipped: ${line.slice(0, 200)}`);
      return;
    }
    switch (message.type) {
      case "hello":
        send({ type: "hello", protocol: 1, name: NAME });
        break;
      case "game_start":
        random = seededRandom(Number(message.seed) || 0);
        break;
      case "decide":
        send({ type: "action", id: message.id, action: choose(message.legal, random) });
        break;
      case "error":
        console.error(`the host replaced me: ${message.message}`);
        break;
      case "quit":
        input.close();
        break;
      default:
        // hand_start, hand_end, game_end: nothing to do for this bot
        break;
    }
  });

  input.on("close", () => process.exit(0));
}

main();
