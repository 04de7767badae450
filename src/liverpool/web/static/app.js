// The one page of the front end: picks the view from the address (/ lobby, /t/{table} a table,
// /replay/{table} a finished game's replay). Domain words: lobby, table, replay.

import { showLobby } from "./lobby.js";
import { showTable } from "./table.js";
import { showReplay } from "./replay.js";

const root = document.getElementById("app");
const path = location.pathname;
let m;
if ((m = path.match(/^\/t\/([^/]+)\/?$/))) {
  showTable(root, decodeURIComponent(m[1]));
} else if ((m = path.match(/^\/replay\/([^/]+)\/?$/))) {
  showReplay(root, decodeURIComponent(m[1]));
} else {
  showLobby(root);
}
