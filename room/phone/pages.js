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
  return `${LIMITS[limit] || limit} ${GAMES[g] || g} ${String(stakes).replace(/\d{4,}/g, (d) => num(Number(d)))}`;
}

/** A whole number with the reader's thousands separators ("12,500"); "—" for null/undefined. */
const NUMBER = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
function num(n) {
  return Number.isFinite(n) ? NUMBER.format(n) : '—';
}

/** "14:05": the reader's hours and minutes of Unix seconds ``t``. */
function clock(t) {
  return new Date(t * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
}

/** Text with a break allowed after each "/" and "." (an address), never inside a word. */
function breakable(text) {
  const out = [];
  for (const part of String(text).split(/(?<=[/.])/)) out.push(part, document.createElement('wbr'));
  return out;
}

/** A lobby table's link state: "offline since 14:05" (issue 18: the room lost its link). */
function offlineText(t) {
  return t.offline_since ? `offline since ${clock(t.offline_since)}` : 'offline';
}
