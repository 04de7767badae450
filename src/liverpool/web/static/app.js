// The one page of the front end: picks the view from the address (/ lobby, /t/{table} a table,
// /replay/{table} a finished game's replay, /review/{table}?seat=N its review, /p/{player} a player's page, /leaderboard the
// ratings), and keeps the top bar's links ("My page", "Leaderboard") to the player this browser
// holds. Domain words: lobby, table, replay, player, leaderboard.

import { showLobby } from "./lobby.js";
import { showTable } from "./table.js";
import { showReplay } from "./replay.js";
import { showReview } from "./review.js";
import { showLeaderboard, showPlayer } from "./player.js";
import { carriedNotice, getPlayer, h, onPlayerChange } from "./util.js";
import { mountSettings } from "./settings.js";

function drawNav() {
  const nav = document.getElementById("nav");
  if (!nav) return;
  const me = getPlayer();
  nav.replaceChildren(
    h("a#nav-me", { href: me ? `/p/${encodeURIComponent(me.id)}` : "/p/me", title: me ? `${me.name}: your page` : "your page" }, "My page"),
    h("a#nav-leaderboard", { href: "/leaderboard" }, "Leaderboard"));
}

drawNav();
mountSettings();
onPlayerChange(drawNav);
carriedNotice();

const root = document.getElementById("app");
const path = location.pathname;
let m;
if ((m = path.match(/^\/t\/([^/]+)\/?$/))) {
  showTable(root, decodeURIComponent(m[1]));
} else if ((m = path.match(/^\/replay\/([^/]+)\/?$/))) {
  showReplay(root, decodeURIComponent(m[1]));
} else if ((m = path.match(/^\/review\/([^/]+)\/?$/))) {
  showReview(root, decodeURIComponent(m[1]), new URLSearchParams(location.search).get("seat"));
} else if ((m = path.match(/^\/p\/([^/]+)\/?$/))) {
  showPlayer(root, decodeURIComponent(m[1]));
} else if (/^\/leaderboard\/?$/.test(path)) {
  showLeaderboard(root);
} else {
  showLobby(root);
}
