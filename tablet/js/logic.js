// Pure logic of the seat tablet (issue 10): no DOM, no MQTT, no clock, no randomness.
// Everything here takes plain JSON views (docs/state.md) and returns plain values, so it is
// unit tested with `node --test tablet/tests/` and reused by app.js.
// Chips are integers; seats 1..N; cards are written "As", "Td".

export const SCHEMA = 1;

// ------------------------------------------------------------------ language (issue 20)
// English is the source; other languages come as JSON catalogs (tablet/i18n/<lang>.json:
// {"English text with {placeholders}": "translation"}), loaded by app.js. Numbers follow
// the language: 12,345 in English, 12.345 in Dutch.
export const LANGUAGES = { en: { name: 'English', group: ',' }, nl: { name: 'Nederlands', group: '.' } };
const lang = { code: 'en', catalog: {} };

/** Speak `code` with `catalog` from now on; an unknown code falls back to English. */
export function setLanguage(code, catalog = {}) {
  lang.code = LANGUAGES[code] ? code : 'en';
  lang.catalog = lang.code === 'en' ? {} : (catalog || {});
  return lang.code;
}

/** The language spoken now ('en' or 'nl'). */
export function language() { return lang.code; }

/** `key` (English, with {name} placeholders) in the current language, `vars` filled in. */
export function t(key, vars = {}) {
  const text = Object.prototype.hasOwnProperty.call(lang.catalog, key) ? lang.catalog[key] : key;
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}

/** `key` in `context` (like gettext's msgctxt): the catalog's "context|key" when it has one,
 * else as t(key) — for the same English words that need a shorter translation in a seat. */
export function tc(context, key, vars = {}) {
  const k = `${context}|${key}`;
  return Object.prototype.hasOwnProperty.call(lang.catalog, k) ? t(k, vars) : t(key, vars);
}

/** The language a tablet shows: the player's own choice, else the tablet's address's (`lang`
 * in the URL), else the table's config (`language` in the public state), else English.
 * Unknown codes are ignored. */
export function pickLanguage(playerChoice, tableChoice, stateChoice = null) {
  for (const c of [playerChoice, tableChoice, stateChoice]) if (c && LANGUAGES[c]) return c;
  return 'en';
}
export const ROOT = 'livetable';

const TABLE_RE = /^[a-z0-9][a-z0-9_-]{0,31}$/;
const ID_RE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Topics of one seat's tablet (docs/mqtt.md). Throws Error for a bad table id or seat. */
export function topics(table, seat) {
  if (typeof table !== 'string' || !TABLE_RE.test(table) || table === 'lobby') {
    throw new Error(`M-6: table id ${JSON.stringify(table)} must match [a-z0-9][a-z0-9_-]* and not be 'lobby'`);
  }
  if (!Number.isInteger(seat) || seat < 1 || seat > 10) throw new Error(`M-6: seat ${seat} is not in 1..10`);
  const t = `${ROOT}/${table}`;
  return {
    state: `${t}/state`, chat: `${t}/chat`, history: `${t}/history`, seatedHistory: `${t}/history/seated`,
    controller: `${t}/presence/controller`, presence: `${t}/presence/seat/${seat}`,
    private: `${t}/seat/${seat}/private`, reply: `${t}/seat/${seat}/reply`,
    action: `${t}/seat/${seat}/action`, seatChat: `${t}/seat/${seat}/chat`,
    lobbyRequest: `${t}/seat/${seat}/lobby`, lists: `${t}/seat/${seat}/lists`, // waiting lists (issue 18)
    lobby: `${ROOT}/lobby/+`, lobbyPresence: `${ROOT}/+/presence/controller`,
  };
}

/** What a seat's tablet subscribes to (all QoS 1): its table's public topics, its own seat's
 * private view, replies and waiting lists (issue 18), the seated history (P-4) and the room's
 * lobby (L-1). */
export function subscriptions(table, seat) {
  const t = topics(table, seat);
  return [t.state, t.chat, t.seatedHistory, t.controller, t.private, t.reply, t.lists, t.lobby, t.lobbyPresence];
}

/**
 * Read the connection settings from a URL query string (docs/tablet.md).
 * Returns {table, seat, user, pass, ws, errors}; `errors` lists what is missing or wrong.
 * `ws` defaults to ws://<page host>:9001 (the broker's WebSockets listener).
 */
export function parseSettings(search, pageHost = 'localhost', secure = false) {
  const q = new URLSearchParams(search || '');
  const errors = [];
  const table = (q.get('table') || '').trim();
  const seat = Number.parseInt(q.get('seat') || '', 10);
  if (!TABLE_RE.test(table) || table === 'lobby') errors.push('table: 1..32 characters of a-z 0-9 _ -');
  if (!Number.isInteger(seat) || seat < 1 || seat > 10 || String(seat) !== (q.get('seat') || '').trim()) {
    errors.push('seat: a number 1..10');
  }
  const user = q.get('user') || (errors.length ? '' : `${table}-seat${seat}`);
  const pass = q.get('pass') || '';
  if (!pass) errors.push('pass: the seat password from `livetable tablets provision`');
  const ws = q.get('ws') || `${secure ? 'wss' : 'ws'}://${pageHost || 'localhost'}:9001`;
  if (!/^wss?:\/\/[^/\s]+/.test(ws)) errors.push('ws: a ws:// or wss:// address');
  return { table, seat: Number.isInteger(seat) ? seat : null, user, pass, ws, errors };
}

/** Parse a card text ("Td") into {rank, suit, text}; null for anything else ("??": face down). */
export function parseCard(text) {
  if (typeof text !== 'string' || !/^[2-9TJQKA][cdhs]$/.test(text)) return null;
  return { rank: text[0], suit: text[1], text };
}

const SUIT_SYMBOL = { s: '\u2660', h: '\u2665', d: '\u2666', c: '\u2663' };
const RANK_LABEL = { T: '10' };

export const RANK_NAME = { 2: 'Two', 3: 'Three', 4: 'Four', 5: 'Five', 6: 'Six', 7: 'Seven', 8: 'Eight', 9: 'Nine',
  T: 'Ten', J: 'Jack', Q: 'Queen', K: 'King', A: 'Ace' };
export const SUIT_NAME = { s: 'Spades', h: 'Hearts', d: 'Diamonds', c: 'Clubs' };

/** How a card is drawn: {label: "10♦", suit: "d" (the four-colour deck: spades black, hearts
 * red, diamonds blue, clubs green, as on the dealer display), name: "Ten of diamonds", red};
 * a face-down card "??" gives {label: "", back: true}. */
export function cardFace(text) {
  const c = parseCard(text);
  if (!c) return { label: '', back: true, red: false, text: String(text) };
  return { label: (RANK_LABEL[c.rank] || c.rank) + SUIT_SYMBOL[c.suit], red: c.suit === 'h' || c.suit === 'd',
    suit: c.suit, name: t('{rank} of {suit}', { rank: t(RANK_NAME[c.rank]), suit: t(SUIT_NAME[c.suit]).toLowerCase() }),
    back: false, text };
}

/** Format integer chips grouped by thousands for the language: 12500 -> "12,500" (Dutch
 * "12.500"). Non-integers -> "?". */
export function chips(n) {
  if (!Number.isInteger(n)) return '?';
  const s = String(Math.abs(n)).replace(/\B(?=(\d{3})+(?!\d))/g, LANGUAGES[lang.code].group);
  return n < 0 ? `-${s}` : s;
}

export const GAME_NAMES = { holdem: "Hold'em", omaha: 'Omaha', draw: 'Five Card Draw' };
export const LIMIT_NAMES = { 'no-limit': 'No Limit', 'pot-limit': 'Pot Limit', 'fixed-limit': 'Fixed Limit' };

/** The card room's short words (issue 20: a phone's header cut the stakes off). */
export const SHORT_GAME_NAMES = { holdem: "Hold'em", omaha: 'Omaha', draw: 'Draw' };
export const SHORT_LIMIT_NAMES = { 'no-limit': 'NL', 'pot-limit': 'PL', 'fixed-limit': 'FL' };

/** "No Limit Hold'em 50/100" (L-1): the game, limit and stakes of a state or lobby entry
 * ("... 100/200 ante 25", "... 100/200 BBA 200": a big-blind ante, TDA RP-11);
 * ``short``: "NL Hold'em 50/100" (a narrow header). */
export function describeGame(v, { short = false } = {}) {
  const games = short ? SHORT_GAME_NAMES : GAME_NAMES;
  const limits = short ? SHORT_LIMIT_NAMES : LIMIT_NAMES;
  const game = games[v.game] ? t(games[v.game]) : v.game;
  const limit = limits[v.limit] ? t(limits[v.limit]) : v.limit;
  const s = v.stakes || {};
  let stakes = `${chips(s.sb)}/${chips(s.bb)}`;
  if (v.limit === 'fixed-limit' && Number.isInteger(s.small_bet)) stakes = `${chips(s.small_bet)}/${chips(s.big_bet)}`;
  if (Number.isInteger(s.ante) && s.ante > 0) stakes += ` ${t('ante {chips}', { chips: chips(s.ante) })}`;
  else if (Number.isInteger(s.bba) && s.bba > 0) stakes += ` ${t('BBA {chips}', { chips: chips(s.bba) })}`; // TDA RP-11 (issue 19)
  return `${limit} ${game} ${stakes}`;
}

/** True when `incoming` should replace `current` (docs/state.md): an older seq is dropped;
 * a retained copy, met on (re)subscribing, is the broker's current one and is taken. An
 * equal seq is taken too: one publisher's messages arrive in order, so it is the same
 * state or a later one, and a fault or pause may come without a new seq (the known bug
 * xfailed in tests/controller/test_device_faults.py); dropping it would hide the pause. */
export function acceptState(current, incoming, retained) {
  if (!incoming || typeof incoming !== 'object' || !Number.isInteger(incoming.seq)) return false;
  if (!current || retained) return true;
  return incoming.seq >= current.seq;
}

/** The seat's entry in the public state, or null. */
export function seatOf(state, seat) {
  return (state && Array.isArray(state.seats) && state.seats.find((s) => s.seat === seat)) || null;
}

/** Chips in the middle: pots already collected plus every bet of the current round. */
export function potTotal(state) {
  const pots = (state && state.pots) || [];
  const bets = (state && state.seats) || [];
  return pots.reduce((a, p) => a + (p.amount || 0), 0) + bets.reduce((a, s) => a + (s.bet || 0), 0);
}

/**
 * S-5 pot-size bet or raise, as the street total "to" (what `legal.bet/raise` amounts are):
 * call first, then raise by the pot after that call:
 *   to = (my bet + call) + (pots + every bet on the table + call).
 * `call` is the chips this seat must add to call (0 when nobody bet).
 */
export function potSizeTo(state, seat, call) {
  const me = seatOf(state, seat);
  const myBet = me ? me.bet || 0 : 0;
  const c = Number.isInteger(call) ? call : 0;
  return myBet + c + potTotal(state) + c;
}

/** Clamp n into [lo, hi] (integers). */
export function clamp(n, lo, hi) {
  return Math.max(lo, Math.min(hi, Math.round(n)));
}

/**
 * Which buttons the seat sees on its turn, from the private view's `legal`:
 * a list of {action, label, amount} in table order (fold, check, call, bet|raise, all_in),
 * and `slider` for a bet or raise whose amount the player chooses (null when fixed, S-6).
 * `draw` (G-3) is {max} when the seat must pick its discards, else null.
 * Returns {buttons: [], slider: null, draw: null} when `legal` is null (not this seat's turn).
 */
export function actionButtons(legal, state, seat) {
  const out = { buttons: [], slider: null, draw: null };
  if (!legal) return out;
  if (Number.isInteger(legal.draw)) {
    out.draw = { max: legal.draw };
    return out;
  }
  if (legal.fold) out.buttons.push({ action: 'fold', label: t('Fold'), amount: null });
  if (legal.check) out.buttons.push({ action: 'check', label: t('Check'), amount: null });
  // S-8: a call that takes every chip is the all-in: one button says so, not two for one action
  const me = seatOf(state, seat);
  const callsAllIn = Number.isInteger(legal.call) && legal.call > 0 && Number.isInteger(legal.all_in)
    && legal.all_in === (me ? me.bet || 0 : 0) + legal.call;
  if (Number.isInteger(legal.call) && legal.call > 0) {
    out.buttons.push({ action: 'call', label: t(callsAllIn ? 'Call all-in {chips}' : 'Call {chips}', { chips: chips(legal.call) }),
      amount: legal.call });
  }
  const kind = legal.raise ? 'raise' : legal.bet ? 'bet' : null;
  if (kind) {
    const { min, max } = legal[kind];
    out.buttons.push({ action: kind, label: t(kind === 'raise' ? 'Raise to {chips}' : 'Bet {chips}', { chips: chips(min) }),
      amount: min });
    if (max > min) out.slider = sliderBounds(legal, state, seat);
  }
  if (Number.isInteger(legal.all_in) && legal.all_in > 0 && !callsAllIn
      && !(kind && legal[kind].max === legal.all_in && !out.slider)) {
    out.buttons.push({ action: 'all_in', label: t('All-in {chips}', { chips: chips(legal.all_in) }), amount: legal.all_in });
  }
  return out;
}

/**
 * The bet slider for no limit and pot limit (S-4, S-5): {action, min, max, step, shortcuts},
 * `shortcuts` a list of {label, amount} within [min, max]: Min, ½ Pot, Pot, Max (duplicates
 * dropped; no Max when it is the all-in, which has its own button). `step` is the small blind (S-10: bets in whole chips of the table's unit).
 * ½ Pot and Pot are rounded down to the smallest chip in play (`stakes.chip`, issue 19).
 * Returns null when `legal` has no bet or raise range.
 */
export function sliderBounds(legal, state, seat) {
  if (!legal) return null;
  const kind = legal.raise ? 'raise' : legal.bet ? 'bet' : null;
  if (!kind) return null;
  const { min, max } = legal[kind];
  const call = Number.isInteger(legal.call) ? legal.call : 0;
  const pot = potSizeTo(state, seat, call);
  const me = seatOf(state, seat);
  const myBet = me ? me.bet || 0 : 0;
  const half = myBet + call + Math.floor((potTotal(state) + call) / 2);
  // issue 19: a bet of whole chips of the smallest one in play (no 137 in a 25-chip tournament)
  const chip = state && state.stakes && Number.isInteger(state.stakes.chip) && state.stakes.chip > 1 ? state.stakes.chip : 1;
  const inChips = (x) => Math.floor(x / chip) * chip;
  const candidates = [
    { label: t('Min'), amount: min },
    { label: t('\u00bd Pot'), amount: clamp(inChips(half), min, max) },
    { label: t('Pot'), amount: clamp(state && state.limit === 'pot-limit' && pot >= max ? pot : inChips(pot), min, max) },
    { label: t(state && state.limit === 'pot-limit' ? 'Max (pot)' : 'Max'), amount: max },
  ];
  // the All-in button already bets every chip: no shortcut repeats it
  if (Number.isInteger(legal.all_in) && max === legal.all_in) candidates.pop();
  const seen = new Set();
  const shortcuts = candidates.filter((c) => (seen.has(c.amount) ? false : (seen.add(c.amount), true)));
  const sb = state && state.stakes && Number.isInteger(state.stakes.sb) && state.stakes.sb > 0 ? state.stakes.sb : 1;
  return { action: kind, min, max, step: sb, shortcuts };
}

/** Snap a slider value to the step from `min`, kept within [min, max] (max is always reachable). */
export function snapAmount(value, slider) {
  const v = clamp(Number(value), slider.min, slider.max);
  if (v === slider.max) return v;
  const steps = Math.round((v - slider.min) / slider.step);
  return clamp(slider.min + steps * slider.step, slider.min, slider.max);
}

/**
 * The A-3 pre-selections offered while others act: a list of {choice, label, amount}.
 * Offered only when the seat holds cards in a betting round, it is not its turn and it can
 * still act (not all-in). "Call X" carries X, the chips to call now (the table drops it if
 * the amount changes).
 */
export function preselectOptions(state, priv, seat) {
  if (!state || !priv || priv.to_act || !Array.isArray(priv.cards) || priv.cards.length === 0) return [];
  if (!['preflop', 'flop', 'turn', 'river', 'predraw', 'postdraw'].includes(state.street)) return [];
  const me = seatOf(state, seat);
  if (!me || !['active', 'acting'].includes(me.status) || me.stack <= 0) return [];
  const high = Math.max(0, ...state.seats.map((s) => s.bet || 0));
  const toCall = Math.min(high - (me.bet || 0), me.stack);
  if (toCall > 0) {
    return [
      { choice: 'fold', label: t('Fold'), amount: null },
      { choice: 'call', label: t('Call {chips}', { chips: chips(toCall) }), amount: toCall },
      { choice: 'call_any', label: t('Call any'), amount: null },
      { choice: 'raise_any', label: t('Raise any'), amount: null },
      { choice: 'all_in', label: t('All-in'), amount: null },
    ];
  }
  return [
    { choice: 'check_fold', label: t('Check/Fold'), amount: null },
    { choice: 'check', label: t('Check'), amount: null },
    { choice: 'call_any', label: t('Check/Call any'), amount: null },
    { choice: 'raise_any', label: t('Bet/Raise any'), amount: null },
    { choice: 'all_in', label: t('All-in'), amount: null },
  ];
}

/** G-3: toggle `card` in the discard selection, never beyond `max` cards; returns a new array. */
export function toggleDiscard(selected, card, max) {
  if (selected.includes(card)) return selected.filter((c) => c !== card);
  if (selected.length >= max) return selected.slice();
  return [...selected, card];
}

/** The draw button's label: "Stand pat" for none, else "Discard 2". */
export function drawLabel(selected) {
  return selected.length === 0 ? t('Stand pat') : t('Discard {n}', { n: selected.length });
}

/**
 * The buy-in range of the table (T-2) for the top-up (T-7): {min, max} in chips, max null
 * when there is none (fixed limit). The public state carries no buy-in fields yet, so the
 * rule's defaults are used: no limit and pot limit 20..100 big blinds, fixed limit at
 * least ten big bets. `buy_in` in the state ({min, max}) wins when present.
 */
export function buyInRange(state) {
  if (!state) return null;
  if (state.buy_in && Number.isInteger(state.buy_in.min)) {
    return { min: state.buy_in.min, max: Number.isInteger(state.buy_in.max) ? state.buy_in.max : null };
  }
  const s = state.stakes || {};
  if (state.limit === 'fixed-limit') {
    const big = Number.isInteger(s.big_bet) ? s.big_bet : 2 * (s.small_bet || s.bb || 0);
    return { min: 10 * big, max: null };
  }
  return { min: 20 * (s.bb || 0), max: 100 * (s.bb || 0) };
}

/** T-7: the most chips the seat may add now ({max: n}), or null when a top-up is not possible. */
export function topUpLimit(state, seat) {
  const me = seatOf(state, seat);
  const range = buyInRange(state);
  if (!me || me.status === 'empty' || !range) return null;
  if (range.max === null) return { max: null };
  const room = range.max - (me.stack || 0) - (me.bet || 0);
  return room > 0 ? { max: room } : null;
}

/**
 * T-3: what this seat's tablet may offer while the seat is free, or null (no state, the seat
 * is taken, or the table seats players through the floor: `join.mode` "off").
 * {min, max (null: no maximum), postNow (T-4: a new player here may post the big blind now
 * and be dealt in; else they wait for the big blind or for the button to pass)}.
 */
export function joinOffer(state, seat) {
  const me = seatOf(state, seat);
  const join = state && state.join;
  if (!me || me.status !== 'empty' || !join || join.mode === 'off') return null;
  const range = buyInRange(state);
  if (!range) return null;
  return { min: range.min, max: range.max, postNow: Array.isArray(join.post_now) && join.post_now.includes(seat) };
}

/** Name check before sending, as the driver checks it (docs/mqtt.md, M-2): returns the name
 * (trimmed, NFC) or throws Error. 1..20 letters, digits, single spaces and ' . - _ */
export function cleanName(text) {
  const tr = translate;
  const t = String(text ?? '').normalize('NFC').trim();
  if (!t) throw new Error(`T-3: ${tr('enter your name')}`);
  if ([...t].length > 20) throw new Error(`M-2: ${tr('a name is at most 20 characters')}`); // code points, as the table counts
  if (t.includes('  ')) throw new Error(`M-2: ${tr('no two spaces in a row in a name')}`);
  if (!/^[\p{L}\p{N}\p{Mn}\p{Mc} '._-]+$/u.test(t)) throw new Error(`M-2: ${tr("a name holds letters, digits, spaces and ' . - _ only")}`);
  if (!/[\p{L}\p{N}]/u.test(t)) throw new Error(`M-2: ${tr('a name needs at least one letter or digit')}`);
  return t;
}

/** T-2: the buy-in typed, checked against the offer; returns the chips or throws Error. */
export function checkBuyIn(value, offer) {
  const n = typeof value === 'number' ? value : Number(String(value ?? '').trim());
  if (!Number.isInteger(n) || n < 1) throw new Error(`T-2: ${t('enter the buy-in in whole chips')}`);
  if (n < offer.min) throw new Error(`T-2: ${t('the buy-in is at least {chips}', { chips: chips(offer.min) })}`);
  if (offer.max !== null && n > offer.max) throw new Error(`T-2: ${t('the buy-in is at most {chips}', { chips: chips(offer.max) })}`);
  return n;
}

/** the fraction (1..0) of the action time left, from the turn and the local clock.
 * `offset` is local clock minus the table's clock in seconds (estimated by the app). */
export function timerFraction(turn, nowLocal, offset = 0) {
  if (!turn || !(turn.deadline > turn.started)) return null;
  const left = turn.deadline - (nowLocal - offset);
  return Math.max(0, Math.min(1, left / (turn.deadline - turn.started)));
}

/** Seconds left on the turn timer, rounded up (never negative); null without a turn. */
export function timerSeconds(turn, nowLocal, offset = 0) {
  if (!turn) return null;
  return Math.max(0, Math.ceil(turn.deadline - (nowLocal - offset)));
}

/**
 * The screen's headline state, most important first: 'setup' (no settings), 'connecting'
 * (never connected yet), 'reconnecting' (lost the broker), 'catching-up' (connected, the
 * retained state not back yet), 'offline' (the table's controller is offline), 'paused',
 * 'your-turn', 'playing'.
 */
export function screenState({ settingsOk, everConnected, connected, caughtUp, controllerOnline, state, priv, replaced }) {
  if (!settingsOk) return 'setup';
  if (replaced) return 'replaced'; // issue 20: another device took this seat's session over
  if (!connected) return everConnected ? 'reconnecting' : 'connecting';
  if (!caughtUp) return 'catching-up';
  if (controllerOnline === false) return 'offline';
  if (state && state.paused) return 'paused';
  if (priv && priv.to_act && priv.legal) return 'your-turn';
  return 'playing';
}

/** MQTT 5's DISCONNECT reason "Session taken over" (0x8E): the broker gives each login one
 * session (docs/mqtt.md) and another device logged in as this seat. */
export const SESSION_TAKEN_OVER = 142;

/** Issue 20: whether the broker's DISCONNECT ``packet`` says another device took the seat
 * (Mosquitto 2.0.11 closes the old connection without one: see seatTakenBy). */
export function takenOver(packet) {
  return !!packet && packet.reasonCode === SESSION_TAKEN_OVER;
}

/** The seat's presence payload (docs/mqtt.md) with this page's ``device`` id (issue 20). */
export function presencePayload(online, device) {
  return JSON.stringify({ schema: SCHEMA, online: !!online, device });
}

/**
 * Issue 20: another device took this seat over, from the seat's retained presence
 * (``presence/seat/<n>``) read when this page reconnects after a drop, before it claims the
 * seat again: a presence (online, or its Last Will) of another ``device`` means that device
 * logged in as the seat after this page did. Presences without a device (older pages) and
 * this page's own say nothing.
 */
export function seatTakenBy(presence, device) {
  return !!presence && typeof presence.device === 'string' && presence.device !== '' && presence.device !== device;
}

/** The action payload a tablet sends (docs/mqtt.md); throws Error on a bad id or seat. */
export function actionPayload({ id, seat, seq, action, amount = null, choice, cards, name, post }) {
  if (!ID_RE.test(id)) throw new Error(`M-2: bad action id ${id}`);
  if (!Number.isInteger(seat) || !Number.isInteger(seq)) throw new Error('M-2: seat and seq must be integers');
  const obj = { schema: SCHEMA, id, seat, seq, action, amount: Number.isInteger(amount) ? amount : null };
  if (action === 'preselect' || action === 'auto_muck') obj.choice = choice;
  if (action === 'draw') obj.cards = cards || [];
  if (action === 'take_seat') { obj.name = name; obj.post = !!post; } // T-3, T-4
  return obj;
}

/**
 * P-2 show or muck from the private view: null, or {show, muck, hint}. On the seat's
 * showdown turn (its hand cannot beat one already shown) both are offered; between hands
 * the player who won uncalled is offered Show only ("need not show, but may").
 */
export function showdownChoice(priv) {
  const legal = priv && priv.legal;
  if (!legal || !(legal.show || legal.muck)) return null;
  if (priv.to_act && legal.muck) {
    return { show: !!legal.show, muck: true, hint: `${t('Your hand does not beat the hand shown: show or muck.')} (P-2)` };
  }
  if (!priv.to_act && legal.show) return { show: true, muck: false, hint: `${t('You won uncalled: show your hand?')} (P-2)` };
  return { show: !!legal.show, muck: !!legal.muck, hint: '' };
}

/**
 * What the tablet does with a reply (docs/mqtt.md): 'accepted', 'ignore' or 'refused' (tell
 * the player). `known`: a reply to this id came before.
 * - an M-4 (stale) refusal is never sent again with a newer seq: the controller takes a
 *   seat request across new states while the seat holds the same player, and a
 *   pre-selection within its betting round, so M-4 means the request's moment is gone
 *   (another player in the seat, a new round): the player decides again;
 * - a second acceptance of an id is ignored; M-5 (our own 3 s retry's copy reached the
 *   table twice) is ignored: the first one counts and the state shows it;
 * - a refusal after an acceptance is shown: the table may refuse a seat request it first
 *   took in (e.g. a top-up over the maximum, T-7).
 */
export function replyOutcome(reply, known) {
  if (reply.accepted) return known ? 'ignore' : 'accepted';
  if (reasonRule(reply.reason) === 'M-5') return 'ignore';
  return 'refused';
}

/** The rule id a refusal reason starts with ("A-1: it is not your turn" -> "A-1"), or ''. */
export function reasonRule(reason) {
  const m = /^([A-Z]-\d+)\b/.exec(reason || '');
  return m ? m[1] : '';
}

/** Chat text check before sending (L-3, M-7): returns the stripped text or throws Error. */
export function cleanChat(text) {
  const tr = translate;
  const t = String(text || '').normalize('NFC').trim();
  if (!t) throw new Error(`M-7: ${tr('chat text is empty')} (L-3)`);
  if (t.length > 200) throw new Error(`M-7: ${tr('chat text is over 200 characters')} (L-3)`);
  // control and format characters (Cc, Cf): one chat line is one line
  if (/[\p{Cc}\p{Cf}\p{Co}\p{Cn}]/u.test(t)) throw new Error(`M-7: ${tr('chat text holds a control character')} (L-3)`);
  return t;
}

/**
 * S-8: a seat's all-in equity as the display writes it: a whole percent, '<1%' / '>99%' at
 * the ends; '' when the state carries none for the seat (docs/state.md `all_in_equity`:
 * only in an all-in run-out, never while a seat is to act).
 */
export function equityText(state, seat) {
  const eq = state && state.all_in_equity;
  const v = eq ? Number(eq[String(seat)]) : NaN;
  if (!Number.isFinite(v)) return '';
  if (v > 0 && v < 0.01) return '<1%';
  if (v > 0.99 && v < 1) return '>99%';
  return `${Math.round(v * 100)}%`;
}

/**
 * The room's lobby (L-1) from the retained lobby entries and controller presences:
 * groups [{game, label, tables: [{table, name, line, seated, max_seats, players, online,
 * waiting}]}] ordered Hold'em, Omaha, Draw; tables by name. The entry ``lobby`` is the
 * room's whole lobby (issue 18, bridged in from the room broker: ``{tables: [...]}`` with
 * every table of the room and its waiting-list length ``waiting``); a table's own entry
 * wins for its seats (it comes straight from its controller). ``waiting`` is null without it.
 */
export function lobbyGroups(entries, presence = {}) {
  const order = ['holdem', 'omaha', 'draw'];
  const rank = (g) => (order.includes(g) ? order.indexOf(g) : order.length);
  const groups = new Map();
  const all = {};
  const room = entries && entries.lobby;
  if (room && Array.isArray(room.tables)) {
    for (const e of room.tables) if (e && typeof e.table === 'string') all[e.table] = e;
  }
  for (const [id, e] of Object.entries(entries || {})) {
    if (id === 'lobby' || !e || typeof e !== 'object' || typeof e.table !== 'string') continue;
    all[e.table] = all[e.table] ? { ...all[e.table], ...e } : e;
  }
  for (const e of Object.values(all)) {
    const online = presence[e.table] === undefined ? e.online !== false : presence[e.table] && e.online !== false;
    const row = { table: e.table, name: e.name || e.table, line: describeGame(e), seated: e.seated || 0,
      max_seats: e.max_seats || 0, players: (e.players || []).slice().sort((a, b) => a.seat - b.seat), online,
      waiting: Number.isInteger(e.waiting) ? e.waiting : null,
      offline: online ? '' : offlineSince({ online: false, offline_since: e.offline_since }) };
    if (!groups.has(e.game)) groups.set(e.game, []);
    groups.get(e.game).push(row);
  }
  return [...groups.entries()]
    .sort((a, b) => rank(a[0]) - rank(b[0]))
    .map(([game, tables]) => ({ game, label: GAME_NAMES[game] || game,
      tables: tables.sort((a, b) => a.name.localeCompare(b.name)) }));
}

/**
 * One line per past hand for the seat (P-4): newest first, {hand, board, net, lines}.
 * `lines` gives each seat's cards as the history allows (shown, or mucked in the seated
 * view) and the pots' winners.
 */
export function historyRows(history, seat) {
  const hands = (history && Array.isArray(history.hands)) ? history.hands.slice().reverse() : [];
  return hands.map((h) => {
    const me = (h.seats || []).find((s) => s.seat === seat);
    const lines = (h.seats || []).map((s) => {
      const cards = Array.isArray(s.cards) ? s.cards.join(' ') : '';
      return `${t('Seat {n}', { n: s.seat })} ${s.name || ''}: ${t(SHOWED[s.showed] || String(s.showed))}${cards ? ' ' + cards : ''} (${s.net >= 0 ? '+' : ''}${chips(s.net)})`;
    });
    let before = null; // the hand's words once: pots in a row won by the same hand share them (issue 20)
    for (const p of h.pots || []) {
      const key = JSON.stringify([p.winners || [], p.hand || '']);
      lines.push(t('Pot {chips} to {who}', { chips: chips(p.amount),
        who: (p.winners || []).map((w) => { const x = (h.seats || []).find((y) => y.seat === w); return x && x.name ? x.name : t('Seat {n}', { n: w }); }).join(', ') })
        + (p.hand && key !== before ? `: ${handWords(p.hand)}` : ''));
      before = key;
    }
    return { hand: h.hand, board: h.board || [], net: me ? me.net : null, lines };
  });
}

/** A name's initials for a seat too small for the name even on two lines (issue 20):
 * "Frank van Dijk" -> "F. v. D."; one word -> its first six letters and a full stop. */
export function initials(name) {
  const words = String(name || '').trim().split(/[\s_-]+/).filter(Boolean);
  if (words.length <= 1) return words.length ? `${[...words[0]].slice(0, 6).join('')}.` : '';
  return words.map((w) => `${[...w][0]}.`).join(' ');
}

/**
 * Where a seat sits on the drawn table, seen from `mySeat` (always bottom centre), going
 * clockwise (T-1): {x, y} in percent of the table area. Seats 1..n.
 */
export function seatPosition(seat, mySeat, n) {
  const r = (((seat - (mySeat || 1)) % n) + n) % n;
  const a = Math.PI / 2 + (r * 2 * Math.PI) / n;
  return { x: Math.round((50 + 44 * Math.cos(a)) * 10) / 10, y: Math.round((50 + 40 * Math.sin(a)) * 10) / 10 };
}

export const STATUS_WORDS = { empty: 'Empty seat', waiting: 'Waiting', folded: 'Folded', 'all-in': 'All-in',
  'sitting-out': 'Sitting out', acting: 'Acting', active: '' };

/** A short status word for a seat (docs/state.md statuses), '' for a plain active seat; a seat
 * not dealt in until the button passed (T-4, `waits_for_button`, issue 19) says so. */
export function statusWord(s) {
  const words = STATUS_WORDS;
  if (s && s.status === 'waiting' && s.waits_for_button === true) return t('Waits for the button');
  return s ? (words[s.status] !== undefined ? (words[s.status] && t(words[s.status])) : s.status) : '';
}

/**
 * T-4/T-6: whether the seat is offered "Post the big blind now / Wait for the big blind":
 * only a seat that is not dealt in and owes a missed blind. A new player who already chose
 * is not asked again mid-hand (issue 20: offered to a seat that owed nothing).
 */
export function owesBlinds(me) {
  return !!(me && ['waiting', 'sitting-out'].includes(me.status) && me.missed && (me.missed.bb || me.missed.sb));
}

/**
 * T-6: the seat's missed-blind marks as its status line says them: "missed SB", "missed BB",
 * or "missed SB+BB" when the seat missed both (it owes both: the big blind live and the small
 * one dead; before, it read "missed BB"), as the dealer display's "MISSED SB+BB". '' when the
 * seat (the public state's seat object, docs/state.md `missed: {sb, bb}`) carries no mark.
 */
export function missedText(seat) {
  const m = seat && seat.missed;
  const blinds = m ? [m.sb && 'SB', m.bb && 'BB'].filter(Boolean).join('+') : '';
  return blinds ? t('missed {blind}', { blind: blinds }) : '';
}

/**
 * T-5/A-2 (issue 20): a seat sitting out with chips is offered Sit in where the action
 * buttons are, with why it sits out: null, or {why}. ``out_reason`` (docs/state.md):
 * "timeout" (its action clock ran out), "request" (the player sat out), "busted" (no chips:
 * the buy-in again is offered instead). A buy-in waiting for the dealer comes first.
 */
export function sitInOffer(state, seat) {
  const me = seatOf(state, seat);
  if (!me || me.status !== 'sitting-out' || !(me.stack > 0) || me.buy_in_pending > 0) return null;
  return { why: me.out_reason === 'timeout' ? t('You were sat out: your time ran out') : t('You are sitting out') };
}

/**
 * T-2: the buy-in a busted player may make again from the tablet, or null: the seat holds the
 * player with no chips, no bet, no buy-in waiting for the dealer, not in a hand.
 * {min, max (null: none), dealer, confirm}: `join.mode` "direct" books it at once; "confirm"
 * (`confirm: true`) asks for it and the dealer confirms the chips (T-3, issue 20); "off"
 * (`dealer: true`) leaves it to the floor's own tools.
 */
export function rebuyOffer(state, seat) {
  const me = seatOf(state, seat);
  if (!me || me.status === 'empty' || me.stack > 0 || (me.bet || 0) > 0 || me.buy_in_pending > 0) return null;
  if (['active', 'acting', 'all-in'].includes(me.status)) return null;
  const range = buyInRange(state);
  if (!range) return null;
  const mode = state.join && state.join.mode;
  return { min: range.min, max: range.max, dealer: mode === 'off', confirm: mode === 'confirm' };
}

/**
 * The table's refusal reasons (docs/mqtt.md replies: "S-4: minimum raise is to 1200, got
 * 900") as the player reads them, in the page's language (issue 20): each known reason is
 * an English sentence of the catalog (tablet/i18n/nl.json) about "you", its numbers
 * formatted for the language; the rule id stays in `window.livetable.refusals` and the
 * console for the floor. The patterns follow the controller's texts
 * (controller/engine/hand.py, controller/engine/table/seating.py, play.py, step.py,
 * controller/devices/mqtt.py, drivers/mqtt/guard.py); tests/tablet/test_tablet_refusals.py
 * drives the real table into each refusal and checks every one is matched here.
 * Groups named n_* are chips (formatted); other groups are copied as they are.
 */
export const REFUSALS = [
  [/^A-1: it is (?:not seat \d+'s turn|seat \d+'s turn, not seat \d+'s)$/, 'It is not your turn'],
  [/^A-1: stale action: /, 'The table moved on before your action arrived: decide again'],
  [/^A-1: no hand is running$/, 'No hand is being played'],
  [/^A-1: no player is to act now\b/, 'Nobody is to act now'],
  [/^A-1: seat \d+ cannot check: (?<n_call>\d+) to call$/, 'You cannot check: {call} to call'],
  [/^A-1: seat \d+ has nothing to call; check$/, 'Nothing to call: check'],
  [/^A-1: seat \d+ may check; folding is not offered when checking is free$/, 'Checking is free: you cannot fold'],
  [/^S-[46]: minimum bet is to (?<n_min>\d+), got \d+$/, 'Bet at least {min}'],
  [/^S-[46]: minimum raise is to (?<n_min>\d+), got \d+$/, 'Raise to at least {min}'],
  [/^S-[568]: maximum bet is to (?<n_max>\d+), (?:got|all-in would be) \d+$/, 'Bet at most {max}'],
  [/^S-[568]: maximum raise is to (?<n_max>\d+), (?:got|all-in would be) \d+$/, 'Raise to at most {max}'],
  [/^S-4: a bet must be to more than (?<n_cur>\d+), got \d+; call instead$/, 'Bet more than {cur}'],
  [/^S-4: a raise must be to more than (?<n_cur>\d+), got \d+; call instead$/, 'Raise to more than {cur}, or call'],
  [/^S-8: seat \d+ can (?:bet|raise) to at most (?<n_max>\d+) \(all-in\), got \d+$/, 'You have {max} in all: at most all-in'],
  [/^S-[678]: .*; seat \d+ may only call \((?<n_cur>\d+)\) or fold$/, 'You may only call {cur} or fold'],
  [/^S-10: (?:bets|amounts) are multiples of (?<n_chip>\d+), got \d+$/, 'Amounts go in steps of {chip}'],
  [/^S-10: chips come in multiples of (?<n_chip>\d+), got \d+$/, 'Amounts go in steps of {chip}'],
  [/^A-3: it is seat \d+'s turn; act now$/, 'It is your turn: act now'],
  [/^A-3: the call is (?<n_call>\d+), not \d+$/, 'The call is now {call}'],
  [/^A-3: seat \d+ (?:is not in the hand|has no decision left in this hand)$/, 'You have no decision left in this hand'],
  [/^T-2: buy-in must be at least (?<n_min>\d+) and at most (?<n_max>\d+), got \d+$/, 'The buy-in is {min} to {max}'],
  [/^T-2: buy-in must be at least (?<n_min>\d+) and no maximum, got \d+$/, 'The buy-in is at least {min}'],
  [/^T-2: .+ left this table (?<mins>\d+) min ago with (?<n_amount>\d+): /,
    'You left this table {mins} min ago with {amount}: within 20 minutes you come back with at least that'],
  [/^T-2: seat \d+'s buy-in of (?<n_amount>\d+) waits for the dealer to confirm the chips$/,
    'Your buy-in of {amount} waits for the dealer to confirm the chips'],
  [/^T-2: seat \d+ has no chips; buy in (?:again|first)$/, 'You have no chips: buy in again'],
  [/^T-7: seat \d+ has chips; add more with a top-up between hands$/, 'You have chips: add more with a top-up between hands'],
  [/^T-7: at most (?<n_max>\d+) on the table; seat \d+ has \d+(?: and \d+ to come)?, may add (?<n_room>\d+)$/,
    'At most {max} on the table: you may add {room}'],
  [/^T-\d: (?<n_left>\d+) of the (?<n_want>\d+) chips not added: /, '{left} of your {want} chips were not added'],
  [/^T-3: seat \d+ is taken$/, 'This seat is taken'],
  [/^T-3: a player needs a name$/, 'enter your name'],
  [/^T-3: .+ already sits in seat (?<seat>\d+)$/, 'That name already sits at this table (seat {seat})'],
  [/^T-3: (?:this table seats players through the floor|at this table the floor books a buy-in)/,
    'At this table the floor seats players and books buy-ins: ask the floor'],
  [/^T-4: seat \d+ is between the big blind and the button/,
    'Between the big blind and the button you are dealt in once the button has passed: wait for the big blind'],
  [/^T-5: seat \d+ is already sitting out$/, 'You are already sitting out'],
  [/^T-8: seat \d+ is leaving$/, 'You are leaving the table'],
  [/^F-1: the table is paused\b/, 'The table is paused'],
  [/^M-4: /, 'The table moved on: decide again'],
  // the MQTT link's own refusals (docs/mqtt.md M-1..M-10): what a tablet sent never reached the table
  [/^M-[12]: /, 'The table could not read what your tablet sent: reload the page'],
  [/^M-3: /, 'That was too long for the table'],
  [/^M-5: /, 'The table already has that from your tablet'],
  [/^M-6: /, 'Your tablet sent that for another seat: reload the page'],
  [/^M-7: chat text is over (?<max>\d+) characters/, 'A chat line is at most {max} characters'],
  [/^M-7: chat text is empty/, 'Type something to send'],
  [/^M-7: /, 'A chat line is one line of plain text'],
  [/^M-8: /, 'Chat too fast: wait a few seconds'],
  [/^M-9: /, 'Too many actions at once: wait a moment'],
  [/^M-10: /, 'The table did not take that: send it again'],
];

// "M-2: take_seat: T-3: a player needs a name": the link's wrapper around the table's own reason
const WRAPPED = /^M-2: [a-z_]+: (?=[A-Z]-\d+: )/;

/**
 * A refusal reason for the player: {text, known}. `known` false: no pattern matched; the
 * text is then the reason without its rule ids (plainText), in English.
 */
export function refusalText(reason) {
  const r = String(reason ?? '');
  if (WRAPPED.test(r)) {
    const inner = refusalText(r.replace(WRAPPED, ''));
    if (inner.known) return inner;
  }
  for (const [re, msg] of REFUSALS) {
    const m = re.exec(r);
    if (!m) continue;
    const vars = {};
    for (const [k, v] of Object.entries(m.groups || {})) {
      if (v === undefined) continue;
      if (k.startsWith('n_')) vars[k.slice(2)] = chips(Number(v)); else vars[k] = v;
    }
    return { text: t(msg, vars), known: true };
  }
  return { text: plainText(r), known: false };
}

const RULE_ID = '[A-Z]-\\d+';
const RULE_LIST = `${RULE_ID}(?:\\s*(?:[,/]|and)\\s*${RULE_ID})*`;

/**
 * Text for players: the rule ids the table puts in its reasons ("T-2: the buy-in is at
 * least 2,000", "(T-3, T-4)", "(P-4: not shown publicly)") taken out, the first letter
 * capitalised. Ids stay in logs and the floor's tools (window.livetable.refusals keeps the
 * table's reason as sent); players read card-room words (issue 20).
 */
export function plainText(text) {
  let t = String(text ?? '');
  t = t.replace(new RegExp(`\\s*\\((?:${RULE_LIST})\\)`, 'g'), '');          // " (T-3, T-4)"
  t = t.replace(new RegExp(`\\((?:${RULE_LIST}):\\s*`, 'g'), '(');             // "(P-4: not shown" -> "(not shown"
  t = t.replace(new RegExp(`(^|[:;.]\\s+|\\[)(?:${RULE_LIST}):\\s*`, 'g'), '$1'); // "T-2: the ..." at a start
  t = t.replace(new RegExp(`\\s*\\b(?:${RULE_LIST})\\b`, 'g'), '');           // anything left
  t = t.replace(/\s{2,}/g, ' ').trim();
  return t ? t[0].toUpperCase() + t.slice(1) : t;
}

/**
 * Where the seats sit on the drawn table, seen from `mySeat` (bottom centre), clockwise (T-1):
 * up the left side, along the top, down the right side, as a player sees the table from
 * their chair. Seats are boxes of `w` x `h` px on a felt `W` px wide, at least `gap` px apart,
 * with a free middle at least `midH` px high for the board and the pots.
 *
 * Returns {H, seats: {n: {x, y}} (box centres in px), middle: {x, y, w, h}}: the felt height
 * needed and where each seat goes, none overlapping another or the middle, all inside
 * 0..W x 0..H. Of the ways to share the other seats between the sides, the lowest felt wins
 * (then the widest middle). Works for 2..10 seats; a felt narrower than three seats side by
 * side puts every other seat in the two side columns.
 */
export function seatSlots(n, mySeat, W, h0, w, gap, midH) {
  const h = h0;
  const others = n - 1;
  const mine = mySeat || 1;
  let best = null;
  for (let top = others % 2; top <= others; top += 2) {
    const side = (others - top) / 2;
    const colX = side > 0 ? w + gap : 0; // the middle starts right of the left column
    const inner = W - 2 * colX; // room between the columns
    // the top row sits between the columns when it fits there, else across the whole width
    const rowW = top * w + (top - 1) * gap;
    const topBetween = side > 0 && rowW <= inner;
    if (rowW > W) continue;
    if (side > 0 && W < 3 * w + 2 * gap) {
      if (top > 1) continue; // one column each side, one seat on top at most, me below
    }
    const colTop = side > 0 && !topBetween && top > 0 ? h + gap : 0;
    const needCols = side > 0 ? colTop + side * h + (side - 1) * gap : 0;
    const needMid = (top > 0 ? h + gap : 0) + midH + gap + h;
    const H = Math.max(needCols, needMid, 2 * h + gap);
    const midW = side > 0 ? inner - 2 * gap : W;
    const cand = { H, midW, top, side, colTop, topBetween, roomy: midW >= w };
    const better = !best || (cand.roomy && !best.roomy)
      || (cand.roomy === best.roomy && (H < best.H - 0.5 || (Math.abs(H - best.H) <= 0.5 && midW > best.midW)));
    if (better) best = cand;
  }
  const { H, top, side, colTop, topBetween } = best;
  const pos = [{ x: W / 2, y: H - h / 2 }];
  const colStep = side > 1 ? (H - colTop - h) / (side - 1) : 0;
  for (let i = 0; i < side; i += 1) pos.push({ x: w / 2, y: H - h / 2 - i * colStep }); // left, upwards
  const x0 = topBetween ? w + gap + w / 2 : w / 2;
  const x1 = topBetween ? W - w - gap - w / 2 : W - w / 2;
  for (let i = 0; i < top; i += 1) pos.push({ x: top === 1 ? W / 2 : x0 + (i * (x1 - x0)) / (top - 1), y: h / 2 });
  for (let i = 0; i < side; i += 1) pos.push({ x: W - w / 2, y: colTop + h / 2 + i * colStep }); // right, down
  const seats = {};
  for (let r = 0; r < n; r += 1) seats[((mine - 1 + r) % n) + 1] = pos[r];
  const my = top > 0 ? h + gap : 0;
  const mx = side > 0 ? w + gap : 0;
  return { H, seats, middle: { x: mx, y: my, w: W - 2 * mx, h: H - h - gap - my } };
}

/** A pot as a dealer calls it: "Main pot: 12,500", "Side pot 2: 3,538" (P-1). The colon keeps
 * the pot's number apart from its chips ("Side pot 2 3,538" read as 23,538, issue 20). */
export function potLine(index, amount) {
  return `${index === 0 ? t('Main pot') : t('Side pot {n}', { n: index })}: ${chips(amount)}`;
}

/**
 * The pot lines of the felt: each pot (main first), then "Total: N", the pots with the bets
 * in front of the players, while any bet is out (issue 20: before the flop the blinds are
 * bets and no pot showed at all), as the display shows it.
 */
export function potLines(state) {
  const pots = (state && state.pots) || [];
  const lines = pots.map((p, i) => ({ text: potLine(i, p.amount), total: false }));
  const bets = ((state && state.seats) || []).reduce((a, x) => a + (Number.isInteger(x.bet) ? x.bet : 0), 0);
  if (bets > 0) lines.push({ text: t('Total: {chips}', { chips: chips(potTotal(state)) }), total: true });
  return lines;
}

/** Name of the player in `seat`, else "Seat N". */
export function seatName(state, seat) {
  const s = seatOf(state, seat);
  return s && s.name ? s.name : t('Seat {n}', { n: seat });
}

/**
 * The showdown as a dealer announces it (P-1, P-3, R-1), one line per pot, main pot first:
 * "Main pot 40,000: Ann wins 39,700 (straight, ace high)" — what the winner takes is
 * after the rake, so the pot and the winnings may differ and the rake gets its own last line
 * ("Rake 300"); a split pot names every share: "Side pot 1 23,538 split: Ann 11,769, Bob
 * 11,769 (straight, ace high)". Empty when the state has no showdown.
 */
export function showdownLines(state) {
  const awards = (state && Array.isArray(state.showdown)) ? state.showdown.slice() : [];
  awards.sort((a, b) => (a.pot || 0) - (b.pot || 0));
  const rakeOf = (a) => (Number.isInteger(a.rake) && a.rake > 0 ? ` · ${t('rake {chips}', { chips: chips(a.rake) })}` : '');
  const lower = (x) => { const w = handWords(x); return w ? w[0].toLowerCase() + w.slice(1) : w; };
  const lines = awards.map((a) => {
    const pot = `${a.pot ? t('Side pot {n}', { n: a.pot }) : t('Main pot')} ${chips(a.amount)}`;
    const winners = Array.isArray(a.winners) ? a.winners : [];
    const shares = a.shares || {};
    const got = (w) => (Number.isInteger(shares[String(w)]) ? shares[String(w)] : null);
    if (winners.length > 1) {
      const who = winners.map((w) => `${seatName(state, w)} ${chips(got(w))}`).join(', ');
      return t('{pot} split: {who}', { pot, who }) + (a.hand ? ` (${lower(a.hand)})` : '') + rakeOf(a);
    }
    const w = winners[0];
    const amount = got(w) ?? a.amount;
    return t('{pot}: {name} wins {chips}', { pot, name: w ? seatName(state, w) : '?', chips: chips(amount) })
      + (a.hand ? ` (${lower(a.hand)})` : '') + rakeOf(a);
  });
  const perPot = awards.some((a) => 'rake' in a); // the rake where it was taken
  if (lines.length && !perPot && Number.isInteger(state.rake) && state.rake > 0) lines.push(t('Rake {chips}', { chips: chips(state.rake) }));
  return lines;
}

/** Seats that won chips at the showdown (P-3), for the winners' frames. */
export function winnerSeats(state) {
  const out = new Set();
  for (const a of (state && Array.isArray(state.showdown)) ? state.showdown : []) {
    for (const w of a.winners || []) out.add(w);
  }
  return out;
}

/** The seat's last action this betting round in words (issue 20): "Check", "Call 300",
 * "Bet 300", "Raise to 900", "All-in 5,000", "Fold"; '' when it has not acted this round. */
export function lastActionText(s) {
  const a = s && s.last_action;
  if (!a || typeof a !== 'object') return '';
  const to = Number.isInteger(a.to) ? chips(a.to) : '';
  switch (a.action) {
    case 'check': return t('Check');
    case 'call': return s.bet > 0 ? t('Call {chips}', { chips: chips(s.bet) }) : t('Call');
    case 'bet': return t('Bet {chips}', { chips: to }).trim();
    case 'raise': return tc('seat', 'Raise to {chips}', { chips: to }).trim();
    case 'all_in': return t('All-in {chips}', { chips: to }).trim();
    case 'fold': return t('Fold');
    default: return '';
  }
}

const translate = (key, vars) => t(key, vars);

export const SHOWED = { shown: 'shown', mucked: 'mucked', folded: 'folded', won: 'won', void: 'void' };

/**
 * The table's hand in words (H-6, controller/engine/evaluator.py describe: "Two pair, kings
 * and fives", "Straight, ace high", "Pair of aces") in the current language, built from the
 * catalog's category and rank words; text of another shape is returned as it came.
 */
export function handWords(text) {
  if (typeof text !== 'string' || lang.code === 'en') return text;
  const rank = (w) => (w ? t(w.trim()) : w);
  const m = /^([^,]+?)(?:, (.+))?$/.exec(text);
  if (!m) return text;
  const head = m[1];
  const pair = /^Pair of (\w+)$/.exec(head);
  if (pair && !m[2]) return t('Pair of {rank}', { rank: rank(pair[1]) });
  if (!m[2]) return t(head);
  const rest = m[2]
    .replace(/^(\w+) high$/, (x, r) => t('{rank} high', { rank: rank(r) }))
    .replace(/^(\w+) full of (\w+)$/, (x, a, b) => t('{a} full of {b}', { a: rank(a), b: rank(b) }))
    .replace(/^(\w+) and (\w+)$/, (x, a, b) => t('{a} and {b}', { a: rank(a), b: rank(b) }))
    .replace(/^(\w+)$/, (x, r) => rank(r));
  return `${t(head)}, ${rest}`;
}

/** The words of the table's hands in words (H-6) that handWords translates. */
export const HAND_WORDS = ['Royal flush', 'Straight flush', 'Four of a kind', 'Full house', 'Flush', 'Straight',
  'Three of a kind', 'Two pair', 'High card', 'deuce', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine',
  'ten', 'jack', 'queen', 'king', 'ace', 'deuces', 'threes', 'fours', 'fives', 'sixes', 'sevens', 'eights', 'nines',
  'tens', 'jacks', 'queens', 'kings', 'aces'];

/** The cards that won a pot at the showdown, per seat (state showdown[].best), and all of
 * them together (for the board): {bySeat: Map(seat -> Set), all: Set}. */
export function winningCards(state) {
  const bySeat = new Map();
  const all = new Set();
  for (const a of (state && Array.isArray(state.showdown)) ? state.showdown : []) {
    for (const [w, five] of Object.entries(a.best || {})) {
      if (!Array.isArray(five)) continue;
      const set = bySeat.get(Number(w)) || new Set();
      for (const c of five) { set.add(c); all.add(c); }
      bySeat.set(Number(w), set);
    }
  }
  return { bySeat, all };
}

// ------------------------------------------------------------------ tournaments (issue 19)
function levelStakes(lv) {
  let text = `${chips(lv.small_blind)}/${chips(lv.big_blind)}`;
  if (lv.big_blind_ante > 0) text += ` ${t('BB ante {chips}', { chips: chips(lv.big_blind_ante) })}`;
  else if (lv.ante > 0) text += ` ${t('ante {chips}', { chips: chips(lv.ante) })}`;
  return text;
}

/** The state's `tournament_view` (docs/tournament.md) when it is one, else null. */
export function tournamentView(state) {
  const tv = state && state.tournament_view;
  return tv && typeof tv === 'object' && tv.level && typeof tv.level === 'object' ? tv : null;
}

/** Seconds left in the level as "m:ss" at `nowLocal` (seconds; `offset`: local clock minus
 * the table's), counting down from the view's `at` while the clock runs; "--:--" on the
 * last level (it never ends). */
export function levelTimeLeft(tv, nowLocal, offset = 0) {
  if (!tv || !Number.isFinite(tv.seconds_left)) return '--:--';
  let left = tv.seconds_left;
  if (tv.running && Number.isFinite(tv.at)) left -= Math.max(0, nowLocal - offset - tv.at);
  const secs = Math.max(0, Math.ceil(left));
  return `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}`;
}

/** What the tablet shows of a tournament: `level` ("Level 3 · 100/200 BB ante 200", or
 * "Break · Level 3 next"; "… · Paused" while the director has stopped the clock), `next` ("Next 200/400 …" or "Last level"), `numbers` ("Players
 * 5/6 · Avg 2,400 · Pool 600"). */
export function tournamentLines(tv) {
  const lv = tv.level;
  let level = tv.on_break ? `${t('Break')} · ${t('Level {n} next', { n: lv.number })}`
    : `${t('Level {n}', { n: lv.number })} · ${levelStakes(lv)}`;
  if (tv.running === false && !tv.finished) level += ` · ${t('Paused')}`; // the director stopped the clock
  const nxt = tv.on_break ? lv : tv.next_level;
  const next = nxt && typeof nxt === 'object' ? t('Next {stakes}', { stakes: levelStakes(nxt) }) : t('Last level');
  const parts = [t('Players {left}/{entries}', { left: chips(tv.players_left), entries: chips(tv.entries) }),
    t('Avg {chips}', { chips: chips(tv.average_stack) }), t('Pool {money}', { money: chips(tv.prize_pool) })];
  // the room's multi-table tournament (issue 19): places paid, hand-for-hand on the bubble
  if (Number.isInteger(tv.places_paid) && tv.places_paid > 0) parts.push(t('Paid {n}', { n: chips(tv.places_paid) }));
  if (tv.hand_for_hand === true) parts.push(t('Hand for hand'));
  // a simulation's clock runs faster than the wall's: say so, or the levels seem to fly by
  if (Number.isInteger(tv.clock_speed) && tv.clock_speed > 1) parts.push(t('clock \u00d7{n} (simulated)', { n: chips(tv.clock_speed) }));
  const race = raceText(tv);
  if (race) parts.push(race);
  return { level, next, numbers: parts.join(' · ') };
}

/** The room's multi-table tournament moves (the view's `moves`, docs/tournament.md), one text
 * each: "Table breaks: players move to Birch (t2)", "Player 17 moves to Birch (t2) seat 6"
 * ("You move to Birch (t2) seat 6" on the tablet of the seat he leaves, `mySeat`), "Player 17
 * from Aspen (t1)"; malformed notices are skipped, and with `now` (the table's clock, Unix s)
 * those whose `until` is past (a retained state read late). */
export function moveTexts(tv, mySeat, now = null) {
  const out = [];
  const label = (n) => (n.table_name && n.table_name !== n.table ? `${n.table_name} (${n.table})` : String(n.table));
  for (const n of tv && Array.isArray(tv.moves) ? tv.moves : []) {
    if (!n || typeof n !== 'object') continue;
    if (Number.isFinite(now) && Number.isFinite(n.until) && n.until <= now) continue;
    if (n.kind === 'break' && Array.isArray(n.tables)) {
      out.push(t('Table breaks: players move to {tables}', { tables: n.tables.join(', ') }));
    } else if (n.kind === 'out' && n.table) {
      const seat = Number.isInteger(n.to_seat) ? n.to_seat : '?';
      out.push(n.seat === mySeat ? t('You move to {table} seat {seat}', { table: label(n), seat })
        : t('{name} moves to {table} seat {seat}', { name: n.name || '?', table: label(n), seat }));
    } else if (n.kind === 'in' && n.table) {
      out.push(t('{name} from {table}', { name: n.name || '?', table: label(n) }));
    }
  }
  return out;
}

/** A tournament's rebuy and add-on at `seat` (issue 19), from the view's `offers`, `asked`,
 * `purchase_refused` (a room table's: the director's reason) and `purchase_chips`:
 * {buttons: [{action: 'rebuy'|'addon'|'decline_rebuy', label: 'Rebuy 2,000'}], waiting}
 * (`waiting`: the words while the dealer has still to confirm one asked for, the room's
 * refusal of the last one, or "Busted — rebuy?" while the seat is kept for its busted player:
 * the view's `rebuy_pending`), or null. */
export function purchaseOffer(state, seat) {
  const tv = tournamentView(state);
  if (!tv) return null;
  const key = String(seat);
  const sizes = tv.purchase_chips && typeof tv.purchase_chips === 'object' ? tv.purchase_chips : {};
  const asked = tv.asked && typeof tv.asked === 'object' ? tv.asked[key] : undefined;
  if (asked === 'rebuy' || asked === 'addon') {
    return { buttons: [], waiting: t(asked === 'rebuy' ? 'Rebuy {chips}: pay the dealer, who confirms it'
      : 'Add-on {chips}: pay the dealer, who confirms it', { chips: chips(sizes[asked] || 0) }) };
  }
  const offers = tv.offers && Array.isArray(tv.offers[key]) ? tv.offers[key] : [];
  const buttons = offers.filter((k) => k === 'rebuy' || k === 'addon').map((k) => ({
    action: k, label: t(k === 'rebuy' ? 'Rebuy {chips}' : 'Add-on {chips}', { chips: chips(sizes[k] || 0) }) }));
  // TFIX 7: busted in the rebuy period, the seat kept until he decides or the next deal
  if (offers.includes('decline_rebuy')) buttons.push({ action: 'decline_rebuy', label: t('No rebuy') });
  const busted = tv.rebuy_pending && typeof tv.rebuy_pending === 'object' && tv.rebuy_pending[key];
  // at a table of the room's tournament: the room's director refused the last one (its rule)
  const refused = tv.purchase_refused && typeof tv.purchase_refused[key] === 'string' ? tv.purchase_refused[key] : '';
  if (refused) return { buttons, waiting: t('Refused by the director: {why}', { why: refused }) };
  return buttons.length ? { buttons, waiting: busted ? t('Busted \u2014 rebuy?') : null } : null;
}

/** A deal offered to the final players (issue 19, the TDA deal-making rule: every player left
 * agrees; the director confirms), from the view's `deal_offer` for the tablet at `seat`:
 * {offer, title, rows: [{seat, name, stack, share, accepted, me}] (chips and money as text),
 * prizes: 'If play goes on: 1st 500 · 2nd 300 · 3rd 200', status: '1 of 4 accepted' or
 * 'Deal agreed — the director confirms', mine: whether this seat is in it, accepted: whether
 * it accepted, buttons: [{action: 'deal_accept'|'deal_decline', label, offer}] (none once
 * agreed, for a seat not in it, Accept gone once accepted)}; else, while the view's
 * `deal_ended` says why the last offer ended, {ended: 'Deal offer 1 is over: Player 3
 * declined'}; else null. A view that is not the shape expected is null (never thrown). */
export function dealOffer(state, seat) {
  const tv = tournamentView(state);
  if (!tv) return null;
  const d = tv.deal_offer;
  if (!d || typeof d !== 'object' || !Array.isArray(d.players) || !Number.isInteger(d.offer)) {
    const e = tv.deal_ended;
    return e && typeof e === 'object' && Number.isInteger(e.offer)
      ? { ended: t('Deal offer {n} is over: {why}', { n: e.offer, why: String(e.reason || '') }) } : null;
  }
  const rows = d.players.filter((p) => p && Number.isInteger(p.seat)).map((p) => ({
    seat: p.seat, name: String(p.name || t('seat {n}', { n: p.seat })), stack: chips(p.stack || 0),
    share: chips(p.share || 0), accepted: p.accepted === true, me: p.seat === seat }));
  const mineRow = rows.find((r) => r.me);
  const places = Array.isArray(d.prizes) ? d.prizes.map((m, i) => `${ordinal(i + 1)} ${chips(m)}`) : [];
  const agreed = d.agreed === true;
  const buttons = [];
  if (mineRow && !agreed) {
    if (!mineRow.accepted) buttons.push({ action: 'deal_accept', label: t('Accept the deal'), offer: d.offer });
    buttons.push({ action: 'deal_decline', label: t('Decline'), offer: d.offer });
  }
  return {
    offer: d.offer,
    title: t(d.method === 'chip-chop' ? 'Deal offered: chip chop' : 'Deal offered: ICM'),
    rows,
    prizes: places.length ? t('If play goes on: {places}', { places: places.join(' \u00b7 ') }) : '',
    status: agreed ? t('Deal agreed \u2014 the director confirms')
      : t('{n} of {of} accepted', { n: rows.filter((r) => r.accepted).length, of: rows.length }),
    mine: !!mineRow, accepted: !!(mineRow && mineRow.accepted), agreed, buttons,
  };
}

/** A tournament re-entry at `seat` (issue 19, TDA 9 late registration), for the player who
 * busted from it while nobody sits there: from the view's `reentry` (the room's offer:
 * {left, until_level}), `asked` ('reentry': asked, waiting for the dealer, who takes the
 * money and confirms it, T-3), `sent` ('reentry': confirmed, waiting for the room's director)
 * and `reentry_answer` (the room's: {entry: {table, table_name, seat}} or {why}):
 * {button: {op: 'reenter', label: 'Re-enter (1 left, until end of level 4)'} | null, waiting}
 * (`waiting`: the words while it waits, where the room seats him, or its refusal), or null. */
export function reentryOffer(state, seat) {
  const tv = tournamentView(state);
  if (!tv) return null;
  const key = String(seat);
  if (tv.sent && typeof tv.sent === 'object' && tv.sent[key] === 'reentry') {
    return { button: null, waiting: t('Re-entry sent: the director registers it') };
  }
  if (tv.asked && typeof tv.asked === 'object' && tv.asked[key] === 'reentry') {
    return { button: null, waiting: t('Re-entry asked: pay the dealer, who confirms it') };
  }
  const answer = tv.reentry_answer && typeof tv.reentry_answer === 'object' ? tv.reentry_answer[key] : undefined;
  const to = answer && answer.entry && typeof answer.entry === 'object' ? answer.entry : null;
  if (to) {
    return { button: null, waiting: t('Re-entry booked: go to {table} seat {seat}',
      { table: String(to.table_name || to.table || '?'), seat: Number.isInteger(to.seat) ? to.seat : '?' }) };
  }
  const offer = tv.reentry && typeof tv.reentry === 'object' ? tv.reentry[key] : undefined;
  const button = offer && Number.isInteger(offer.left) && offer.left > 0 && Number.isInteger(offer.until_level)
    ? { op: 'reenter', label: t('Re-enter ({n} left, until end of level {level})', { n: offer.left, level: offer.until_level }) }
    : null;
  const why = answer && typeof answer.why === 'string' ? answer.why : '';
  if (why) return { button, waiting: t('Re-entry refused: {why}', { why }) };
  return button ? { button, waiting: null } : null;
}

/** The colour-up's chip race on the break (TDA chip race; the view's `chip_race`):
 * "Chip race: seat 2, seat 5 win a 100" (or "Chip race: no chip won"); '' when none. */
export function raceText(tv) {
  const race = tv && tv.chip_race;
  if (!race || typeof race !== 'object' || !race.seats) return '';
  const won = Object.keys(race.seats).filter((n) => race.seats[n] && race.seats[n].won).map(Number).sort((a, b) => a - b);
  if (!won.length) return t('Chip race: no chip won');
  return t('Chip race: {seats} win a {chip}', { seats: won.map((n) => t('seat {n}', { n })).join(', '), chip: chips(race.chip) });
}

/** A place as English or Dutch words: 1 -> "1st", 2 -> "2nd", 13 -> "13th", 22 -> "22nd" ("5e"). */
export function ordinal(n) {
  const m100 = n % 100; const m10 = n % 10;
  if (m100 >= 11 && m100 <= 13) return t('{n}th', { n });
  if (m10 === 1) return t('{n}st', { n });
  if (m10 === 2) return t('{n}nd', { n });
  if (m10 === 3) return t('{n}rd', { n });
  return t('{n}th', { n });
}

/** The finish of the player who busted out of `seat` while nobody has taken it since (the
 * view's `out`: {name, place, tied_to, prize}), or null. */
export function seatFinish(tv, seat) {
  const o = tv && tv.out && typeof tv.out === 'object' ? tv.out[String(seat)] : undefined;
  return o && Number.isInteger(o.place) && o.place > 0 ? o : null;
}

/** What a busted seat shows: to its own tablet "You finished 5th — 120" (or "You finished
 * 5th" out of the money), to the others "Out — 5th". */
export function finishText(finish, mine) {
  const place = ordinal(finish.place);
  if (!mine) return t('Out \u2014 {place}', { place });
  return Number.isInteger(finish.prize) && finish.prize > 0
    ? t('You finished {place} \u2014 {prize}', { place, prize: chips(finish.prize) })
    : t('You finished {place}', { place });
}

/** Whether the seat (the public state's seat object) is out of the tournament view `tv`'s
 * play: an empty seat, a seat the view lists as busted (`out`, "Out — 5th") or kept for its
 * busted player's rebuy (`rebuy_pending`), or a player with no chips left who is not all-in
 * (busted in the hand just played: the stack is 0 and nothing of it is in a pot). */
export function seatIsOut(tv, seat) {
  if (!seat || seat.status === 'empty') return true;
  const key = String(seat.seat);
  if (tv && ((tv.out && typeof tv.out === 'object' && tv.out[key])
    || (tv.rebuy_pending && typeof tv.rebuy_pending === 'object' && tv.rebuy_pending[key]))) return true;
  return seat.stack === 0 && seat.status !== 'all-in';
}

/** A seat's stack in big blinds from the view's tenths (125 -> "12.5 BB", Dutch "12,5 BB");
 * from 100 big blinds whole ones (1234 -> "123 BB": the tenth matters to a short stack, and
 * the figure fits beside the cards on a phone's seat); null when the view has none for the seat.
 * `seat`: the public state's seat object, or a bare seat number (the view's figure alone). A
 * seat that is out (seatIsOut: busted, finished, empty) has none: a busted seat read "0 BB"
 * beside "Out — 5th" or "Sitting out". */
export function seatBigBlinds(tv, seat) {
  if (seat !== null && typeof seat === 'object') {
    if (seatIsOut(tv, seat)) return null;
    seat = seat.seat;
  }
  const tenths = tv && tv.seats_bb ? tv.seats_bb[String(seat)] : undefined;
  if (!Number.isInteger(tenths)) return null;
  const whole = Math.floor(tenths / 10); const tenth = whole >= 100 ? 0 : tenths % 10;
  return tenth ? t('{whole}.{tenth} BB', { whole: chips(whole), tenth }) : t('{bb} BB', { bb: chips(whole) });
}

/**
 * Issue 18: the room's hold on a free seat (public state ``holds``, docs/state.md): the seat
 * was offered to a player called from the waiting list. Returns {name, left (whole seconds
 * until the hold ends, by the table's clock: ``nowLocal`` less ``offset``), clock ("2:41"),
 * text ("Held for Anna (2:41)")} while it lasts, else null (no hold, a seat taken, or the hold's time past).
 */
export function seatHold(state, seat, nowLocal, offset = 0) {
  const me = seatOf(state, seat);
  if (!me || me.status !== 'empty' || !Array.isArray(state.holds)) return null;
  const h = state.holds.find((x) => x && x.seat === seat && typeof x.name === 'string' && Number.isFinite(x.until));
  if (!h) return null;
  const left = Math.floor(h.until - (nowLocal - offset));
  if (left <= 0) return null;
  const clock = `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}`;
  return { name: h.name, left, clock, text: t('Held for {name} ({time})', { name: h.name, time: clock }) };
}

/** The room's lobby entry's link state (issue 18): '' online, "offline since 14:05" (24 h
 * clock, the reader's time) or "offline". */
export function offlineSince(entry) {
  if (!entry || entry.online !== false) return '';
  if (!Number.isFinite(entry.offline_since)) return t('offline');
  const d = new Date(entry.offline_since * 1000);
  return t('offline since {time}', { time: `${String(d.getHours()).padStart(2, '0')}:${String(d.getMinutes()).padStart(2, '0')}` });
}

/**
 * The room's waiting lists for the Lobby tab (issue 18), one row per list of the room's lobby
 * (`entries.lobby.lists`): `{list, label, waiting, place, op}`. `label` is the game in the
 * header's short words ("NL Hold'em 1/2", from a table of that list), else the list's id;
 * `mine` is the table's answer on `seat/<n>/lists` (`{name, lists: [{list, place, waiting}]}`),
 * taken only when it is about `seatName`, the player seated at this tablet now (null: nobody,
 * no button). `place` is that player's place on the list or null; `op` the button: `leave`
 * when on it, `join` when seated and not on it, null when the seat is empty.
 */
export function waitingLists(entries, mine, seatName) {
  const room = entries && entries.lobby;
  const lists = room && Array.isArray(room.lists) ? room.lists : [];
  const byTable = {};
  for (const e of (room && Array.isArray(room.tables) ? room.tables : [])) if (e && typeof e.table === 'string') byTable[e.table] = e;
  const ours = mine && seatName && mine.name === seatName && Array.isArray(mine.lists) ? mine.lists : [];
  return lists.filter((l) => l && typeof l.list === 'string').map((l) => {
    const table = (Array.isArray(l.tables) ? l.tables : []).map((t) => byTable[t]).find((e) => e && e.stakes);
    const on = ours.find((x) => x && x.list === l.list);
    const place = on && Number.isInteger(on.place) ? on.place : null;
    const waiting = on && Number.isInteger(on.waiting) ? on.waiting : (Number.isInteger(l.waiting) ? l.waiting : 0);
    return { list: l.list, label: table ? describeGame(table, { short: true }) : l.list, waiting, place,
      op: !seatName ? null : place !== null ? 'leave' : 'join' };
  });
}

/**
 * Why the Lobby tab shows no waiting lists (newcomer finding F3), '' when it has some: without
 * the room's lobby entry (no room service, or this table not bridged to one, e.g. try-tablet)
 * "Waiting lists need the room service", else "The room has no waiting list open".
 */
export function waitingListsNote(entries) {
  const room = entries && entries.lobby;
  if (!room || typeof room !== 'object') return t('Waiting lists need the room service: this table is not linked to a running room');
  const lists = Array.isArray(room.lists) ? room.lists.filter((l) => l && typeof l.list === 'string') : [];
  return lists.length ? '' : t('The room has no waiting list open');
}

/** "You are 3rd on NL Hold'em 1/2" (issue 18): a waiting-list row's place in words. */
export function listPlaceText(row) {
  return row && Number.isInteger(row.place) ? t('You are {place} on {list}', { place: ordinal(row.place), list: row.label }) : '';
}

/** The tablet's waiting-list request on `seat/<n>/lobby` (docs/mqtt.md): join or leave
 * `list` (the room's list id), `status` (the player's lists; no list), or `reenter` (issue
 * 19: a tournament re-entry for the player who busted from the seat; no list, no name: the
 * table knows who busted there). */
export function lobbyRequestPayload({ id, seat, op, list = null }) {
  return { schema: 1, id, seat, op, list: op === 'status' || op === 'reenter' ? null : list };
}
