// Shared by the room's pages (issue 18): the lobby TV, the phone, the floor's list view and
// the floor console. Served by the players' desk and by the console at /pages.js; classic
// script, its names are globals.
'use strict';
const GAMES = { holdem: "Hold'em", omaha: 'Omaha', draw: 'Draw' };
const LIMITS = { 'no-limit': 'No Limit', 'pot-limit': 'Pot Limit', 'fixed-limit': 'Fixed Limit' };
/** The card room's short words, as the seat tablets' header writes them (tablet/js/logic.js). */
const SHORT_LIMITS = { 'no-limit': 'NL', 'pot-limit': 'PL', 'fixed-limit': 'FL' };

/** A new element: attrs `text` (its text), `on<event>` (a listener), others as attributes. */
function el(tag, attrs = {}, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') e.textContent = v; else if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
  }
  e.append(...kids);
  return e;
}

/** The one label of a game and its stakes on every room page (L-1, issue 18): "NL Hold'em
 * 50/100", "PL Omaha 1/2 ante 1" — the seat tablets' header words (describeGame short).
 * ``game``: "holdem"; ``limit``: "no-limit"; ``stakes``: "50/100" (a list's text) or
 * ``{sb, bb, ante?}`` (chips). */
function gameLabel(game, limit, stakes) {
  const text = typeof stakes === 'object' && stakes !== null
    ? `${num(stakes.sb)}/${num(stakes.bb)}${stakes.ante ? ` ante ${num(stakes.ante)}` : ''}`
    : String(stakes).replace(/\d{4,}/g, (d) => num(Number(d)));
  return `${SHORT_LIMITS[limit] || limit} ${GAMES[game] || game} ${text}`;
}

/** A waiting list's label (gameLabel) from its game ("pot-limit omaha") and stakes ("1/2"). */
function listName(game, stakes) {
  const [limit, g] = String(game).split(' ');
  return gameLabel(g, limit, stakes);
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

/** "14:05:09": the room's 24-hour time with seconds (the floor's lists and log, issue 18). */
function clockSeconds(t) {
  return new Date(t * 1000).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' });
}

/** Shrink ``e``'s font (from its style's size down to ``min`` px) until its one line fits its
 * box: an address is never broken (issue 18: "http://127.0.0. / 1:41303/phone"). */
function fitLine(e, min = 11) {
  e.style.whiteSpace = 'nowrap';
  e.style.fontSize = '';
  let size = parseFloat(getComputedStyle(e).fontSize);
  while (e.scrollWidth > e.clientWidth && size > min) {
    size -= 1;
    e.style.fontSize = `${size}px`;
  }
}

/** The address of the room's other page (the floor console, the floor's lists) on this host:
 * ``port`` served by the room service, or null when it serves none. */
function roomPage(port, path = '/') {
  return port ? `${location.protocol}//${location.hostname}:${port}${path}` : null;
}

/** A lobby table's link state: "offline since 14:05" (issue 18: the room lost its link). */
function offlineText(t) {
  return t.offline_since ? `offline since ${clock(t.offline_since)}` : 'offline';
}
