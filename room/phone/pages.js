// Shared by the players' pages (issue 18): the lobby TV, the phone, the floor's list view.
// Served by the room service at /pages.js; classic script, its names are globals.
'use strict';
const GAMES = { holdem: "Hold'em", omaha: 'Omaha', draw: 'Draw' };
const LIMITS = { 'no-limit': 'No Limit', 'pot-limit': 'Pot Limit', 'fixed-limit': 'Fixed Limit' };

/** A new element: attrs `text` (its text), `on<event>` (a listener), others as attributes. */
function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  e.append(...kids);
  return e;
}

/** "Pot Limit Omaha 1/2" from a list's game ("pot-limit omaha") and stakes ("1/2"). */
function listName(game, stakes) {
  const [limit, g] = game.split(' ');
  return `${LIMITS[limit] || limit} ${GAMES[g] || g} ${stakes}`;
}
