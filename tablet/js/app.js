// The seat tablet (issue 10): MQTT over WebSockets to the table's Mosquitto with this seat's
// credentials (docs/mqtt.md), drawing the public state and this seat's private view
// (docs/state.md). Pure decisions live in logic.js; this file holds the DOM and the client.
import * as L from './logic.js';

const $ = (sel) => document.querySelector(sel);
const el = (tag, props = {}, ...kids) => {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === 'class') n.className = v;
    else if (k === 'dataset') Object.assign(n.dataset, v);
    else if (k === 'text') n.textContent = v;
    else if (k.startsWith('on')) n.addEventListener(k.slice(2), v);
    else n.setAttribute(k, v);
  }
  for (const kid of kids) if (kid != null) n.append(kid);
  return n;
};

const RETRY_MS = 3000; // docs/mqtt.md: no reply within 3 s -> send the very same payload again
const NOTICE_MS = 7000;

const app = {
  cfg: null, client: null, topics: null,
  everConnected: false, connected: false, caughtUp: false, controllerOnline: null,
  replaced: false, // issue 20: another device took this seat's session: no reconnect loop
  claim: true, // this connection claims the seat (page opened, "Play this seat here"), else a reconnect
  presenceChecked: false, presenceTimer: null,
  state: null, priv: null, chat: null, history: null, lobby: {}, lobbyPresence: {},
  myLists: null, // the room's answer about this seat's player: their waiting lists (issue 18)
  listAsked: 0, // when this tablet last asked the room for its player's lists (ms)
  replies: new Map(), pending: new Map(), prefix: '', counter: 0,
  discards: [], sliderValue: null, clockOffset: null, lastTurnKey: null,
  turnSent: null, // {key, id}: a betting action already sent on this turn (no double taps)
  tab: 'chat', received: [], refusals: [], sent: [], notices: [], noticeTimer: null, pickedTable: null, lastMoves: '',
};

// ------------------------------------------------------------------ start-up
async function start() {
  const cfg = L.parseSettings(location.search, location.hostname, location.protocol === 'https:');
  app.cfg = cfg;
  app.tableLang = new URLSearchParams(location.search).get('lang');
  await useLanguage(L.pickLanguage(storedLanguage(), app.tableLang));
  if (cfg.errors.length) return showSetup(cfg);
  app.topics = L.topics(cfg.table, cfg.seat);
  const rnd = new Uint32Array(2);
  crypto.getRandomValues(rnd);
  app.prefix = rnd[0].toString(36) + rnd[1].toString(36);
  wireUi();
  wireLanguage();
  connect();
  window.addEventListener('pagehide', () => {
    const c = app.client;
    if (app.connected) c.publish(app.topics.presence, L.presencePayload(false, app.prefix), { qos: 1, retain: true });
    c.end();
  });
  // back from the browser's page cache: the client was ended on pagehide, start afresh
  window.addEventListener('pageshow', (e) => { if (e.persisted) location.reload(); });
  $('#take-back').addEventListener('click', () => {
    // the player takes the seat back on this device: the other one is shown the same screen
    app.replaced = false;
    app.claim = true;
    connect();
    render();
  });
  setInterval(tick, 250);
  window.addEventListener('resize', () => {
    if (!app.state) return;
    // a tournament's stack lines were fitted to the old size (a tablet turned: fitStacks)
    if (document.body.classList.contains('tourney')) renderTable(); else { fitStatuses(); layoutFelt(); }
    fitHeader(); // issue 20: the header's words for the new width
  });
  render();
}

function showSetup(cfg) {
  document.body.dataset.screen = 'setup';
  const form = $('#setup');
  form.hidden = false;
  $('#setup-errors').textContent = location.search ? cfg.errors.join('\n') : L.t("Enter this seat's connection settings.");
  for (const k of ['table', 'seat', 'user', 'pass', 'ws']) if (cfg[k]) form.elements[k].value = cfg[k];
  if (!cfg.ws || cfg.errors.some((e) => e.startsWith('ws'))) form.elements.ws.value = cfg.ws || '';
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const q = new URLSearchParams();
    for (const k of ['table', 'seat', 'user', 'pass', 'ws']) if (form.elements[k].value) q.set(k, form.elements[k].value.trim());
    location.search = q.toString();
  });
  $('#banner').textContent = L.t('Set up this seat');
  $('#conn').textContent = L.t('Not set up');
  $('#conn').dataset.conn = 'offline';
}

function connect() {
  const { cfg, topics } = app;
  const offline = L.presencePayload(false, app.prefix);
  // MQTT 5, clean start; subscriptions are made on every connect (resubscribe off) and the
  // retained state and private view arrive at once: that is the catch-up after a drop.
  app.client = window.mqtt.connect(cfg.ws, {
    username: cfg.user, password: cfg.pass, protocolVersion: 5, clean: true,
    clientId: `tablet-${cfg.table}-${cfg.seat}-${app.prefix}`, keepalive: 10,
    reconnectPeriod: 1000, connectTimeout: 5000, resubscribe: false,
    will: { topic: topics.presence, payload: offline, qos: 1, retain: true },
  });
  const c = app.client;
  c.on('connect', () => {
    if (c.options.reconnectPeriod !== 1000) { c.options.reconnectPeriod = 1000; $('#notice').hidden = true; }
    app.connected = true;
    app.everConnected = true;
    app.caughtUp = false;
    c.subscribe(L.subscriptions(cfg.table, cfg.seat).map((t) => t), { qos: 1 }, (err, granted) => {
      if (err) return notice(`Could not subscribe: ${err.message}`);
      const refused = (granted || []).filter((g) => g.qos >= 128);
      if (refused.length) console.warn('subscriptions refused by the broker', refused);
    });
    // Issue 20: the broker gives each login one session, so a reconnect after a drop takes
    // the seat from a device that logged in meanwhile. The seat's retained presence says
    // which device came last: read it before claiming the seat again (claimSeat).
    app.presenceChecked = false;
    clearTimeout(app.presenceTimer);
    c.subscribe(topics.presence, { qos: 1 }, () => {
      // a seat never announced has no retained presence: claim it after a moment
      app.presenceTimer = setTimeout(() => claimSeat(c, null), 1500);
    });
    if (app.claim) claimSeat(c, null);
    render();
  });
  c.on('reconnect', () => render());
  c.on('close', () => { app.connected = false; render(); });
  c.on('offline', () => { app.connected = false; render(); });
  c.on('error', (err) => {
    // Bad credentials: MQTT 5 reason 134/135. Say so instead of retrying silently.
    // (MQTT 3 codes 4/5). The notice stays until a login succeeds; retries slow down.
    if (err && (err.code === 134 || err.code === 135 || err.code === 4 || err.code === 5)) {
      notice(L.t("The broker refused this seat's login ({why}). Check user and password.", { why: err.message }), 'error', true);
      c.options.reconnectPeriod = 10000;
    }
  });
  c.on('close', () => clearTimeout(app.presenceTimer));
  c.on('disconnect', (packet) => {
    // The broker gives each login one session: another device logged in as this seat took
    // it over. Reconnecting would take it back and knock the other device off, for ever
    // (issue 20): stop, and let the player choose where the seat is played.
    if (L.takenOver(packet)) seatReplaced(c);
  });
  c.on('message', onMessage);
}

/** Announce this device at the seat (presence online, with its id), unless ``presence`` (the
 * seat's retained one) says another device took the seat since this page last had it. */
function claimSeat(c, presence) {
  if (app.presenceChecked || c !== app.client) return;
  app.presenceChecked = true;
  clearTimeout(app.presenceTimer);
  if (!app.claim && L.seatTakenBy(presence, app.prefix)) return seatReplaced(c);
  app.claim = false; // a later connect is a reconnect: it checks first
  c.publish(app.topics.presence, L.presencePayload(true, app.prefix), { qos: 1, retain: true });
  for (const p of app.pending.values()) sendRaw(p); // not answered before the drop: same id, same seq
}

/** Issue 20: another device plays this seat: stop (no reconnect that would knock it off)
 * and offer to take the seat back. */
function seatReplaced(c) {
  app.replaced = true;
  app.connected = false;
  clearTimeout(app.presenceTimer);
  // a clean DISCONNECT: the broker must not publish this page's Last Will, which the
  // device now playing the seat would read as this one coming after it
  c.end(!c.connected);
  render();
}

// ------------------------------------------------------------------ inbound
function onMessage(topic, payload, packet) {
  const t = app.topics;
  let data = null;
  if (payload && payload.length) {
    try { data = JSON.parse(new TextDecoder().decode(payload)); } catch { data = undefined; }
  }
  app.received.push(topic);
  if (app.received.length > 2000) app.received.splice(0, 1000);
  if (data === undefined) return console.warn('not JSON on', topic);
  const retained = !!packet.retain;
  if (topic === t.state) {
    if (data && L.acceptState(app.state, data, retained)) {
      noteTurnClock(data, retained);
      forgetPlayerLanguage(app.state, data);
      app.state = data;
      followTableLanguage();
    }
    app.caughtUp = true;
  } else if (topic === t.private) {
    // the discards picked stay only while this seat's draw is open (G-3); the chosen bet
    // only while this very turn lasts
    const drawing = (v) => !!(v && v.legal && Number.isInteger(v.legal.draw));
    if (!drawing(data) || (app.priv && data.hand !== app.priv.hand)) app.discards = [];
    if (!data || !data.to_act || !app.priv || !app.priv.to_act) app.sliderValue = null;
    app.priv = data;
  } else if (topic === t.reply) {
    onReply(data);
  } else if (topic === t.lists) {
    onLists(data);
  } else if (topic === t.chat) {
    app.chat = data;
  } else if (topic === t.seatedHistory) {
    app.history = data;
  } else if (topic === t.presence) {
    // our own seat's presence (issue 20): the retained one decides a reconnect's claim; a
    // later one from another device online means it took the seat
    if (!app.presenceChecked) claimSeat(app.client, retained ? data : null);
    else if (!retained && data && data.online && L.seatTakenBy(data, app.prefix)) seatReplaced(app.client);
    return;
  } else if (topic === t.controller) {
    app.controllerOnline = !!(data && data.online);
    if (!app.controllerOnline) app.caughtUp = true; // nothing more will come until it is back
  } else if (topic.startsWith('livetable/lobby/')) {
    const id = topic.slice('livetable/lobby/'.length);
    if (data) app.lobby[id] = data; else delete app.lobby[id];
  } else if (/^livetable\/[^/]+\/presence\/controller$/.test(topic)) {
    app.lobbyPresence[topic.split('/')[1]] = !!(data && data.online);
  }
  render();
}

/** The room's answer about this seat's player (issue 18): their lists and places; a refused
 * request says why (the room's words: "no list ...", "already on ..."). */
function onLists(data) {
  app.myLists = data && typeof data === 'object' ? data : null;
  const id = app.myLists && app.myLists.id;
  if (!id) return;
  const pending = app.pending.get(id); // the room answered: no need to send it again
  if (pending) { clearTimeout(pending.timer); app.pending.delete(id); }
  // a refusal of a join or leave this page sent (a retained one of an earlier page is not
  // news; a status asked for by opening the tab is not the player's doing)
  const mine = app.sent.find((x) => x.id === id);
  if (app.myLists.ok === false && mine && mine.op !== 'status' && !app.replies.has(`room:${id}`)) {
    app.replies.set(`room:${app.myLists.id}`, app.myLists);
    notice(L.t('Waiting list: {reason}', { reason: String(app.myLists.error || L.t('no reason given')) }));
  }
}

/** Ask the room to put this seat's player on `list` or take them off (`op` join, leave), or
 * for their lists (`status`): sent on the seat's own lobby topic, answered like an action. */
function sendLobby(op, list = null) {
  const payload = L.lobbyRequestPayload({ id: newId(), seat: app.cfg.seat, op, list });
  const p = { payload, timer: null, topic: app.topics.lobbyRequest };
  app.pending.set(payload.id, p);
  app.sent.push(payload);
  if (app.sent.length > 500) app.sent.splice(0, 250);
  if (op === 'status') app.listAsked = Date.now();
  sendRaw(p);
  render();
  return payload.id;
}

function noteTurnClock(view, retained) {
  const turn = view.turn;
  if (!turn) return;
  const key = `${view.hand}:${turn.seat}:${turn.started}`;
  if (key === app.lastTurnKey) return;
  app.lastTurnKey = key;
  const sample = Date.now() / 1000 - turn.started; // a fresh turn starts about when it is published
  if (app.clockOffset === null || (!retained && sample < app.clockOffset)) app.clockOffset = sample;
}

function onReply(r) {
  if (!r || typeof r !== 'object') return;
  const pending = app.pending.get(r.id);
  if (pending) { clearTimeout(pending.timer); app.pending.delete(r.id); }
  const what = L.replyOutcome(r, app.replies.has(r.id));
  if (what === 'ignore') return;
  app.replies.set(r.id, r);
  if (what === 'accepted') {
    if (pending && pending.payload.action === 'take_seat') $('#notice').hidden = true; // the seat is ours now
    return;
  }
  if (app.turnSent && app.turnSent.id === r.id) app.turnSent = null; // the player may try again
  app.refusals.push(r); // the table's reason with its rule id, for the floor and the logs
  console.info('refused:', r.reason);
  notice(L.t('Refused: {reason}', { reason: r.reason ? L.refusalText(r.reason).text : L.t('no reason given') }));
}

// ------------------------------------------------------------------ language (issue 20)
const catalogs = { en: {} };

/** The player's own language at this seat (localStorage), or null. */
function storedLanguage() {
  try { return localStorage.getItem(langKey()); } catch { return null; }
}

function langKey() {
  return `livetable-lang-${app.cfg && app.cfg.table}-${app.cfg && app.cfg.seat}`;
}

/** Load `code`'s JSON catalog (tablet/i18n/<code>.json), speak it, translate the static page. */
async function useLanguage(code) {
  if (!catalogs[code]) {
    try {
      const r = await fetch(`i18n/${code}.json`);
      catalogs[code] = r.ok ? await r.json() : null;
    } catch { catalogs[code] = null; }
  }
  const got = L.setLanguage(catalogs[code] ? code : 'en', catalogs[code] || {});
  document.documentElement.lang = got;
  for (const n of document.querySelectorAll('[data-i18n]')) {
    if (!n.dataset.i18nKey) n.dataset.i18nKey = n.textContent.trim();
    n.textContent = L.t(n.dataset.i18nKey);
  }
  for (const n of document.querySelectorAll('[data-i18n-attr]')) {
    for (const a of n.dataset.i18nAttr.split(',')) {
      const keyAttr = `data-i18n-${a}`;
      if (!n.hasAttribute(keyAttr)) n.setAttribute(keyAttr, n.getAttribute(a) || '');
      n.setAttribute(a, L.t(n.getAttribute(keyAttr)));
    }
  }
  const pick = $('#lang-pick');
  if (pick) for (const b of pick.querySelectorAll('button')) b.setAttribute('aria-pressed', String(b.dataset.lang === got));
  return got;
}

/** The player's language buttons (My seat): kept for this seat until the seat is given up. */
function wireLanguage() {
  $('#lang-pick').addEventListener('click', async (e) => {
    const b = e.target.closest('button[data-lang]');
    if (!b) return;
    try { localStorage.setItem(langKey(), b.dataset.lang); } catch { /* private mode: this page only */ }
    await useLanguage(b.dataset.lang);
    $('#shortcuts').dataset.key = '';
    render();
  });
}

/** A new player in this seat starts in the table's language (the last one's choice goes). */
function forgetPlayerLanguage(prev, next) {
  const was = L.seatOf(prev, app.cfg.seat);
  const now = L.seatOf(next, app.cfg.seat);
  if (was && was.status !== 'empty' && now && now.status === 'empty' && storedLanguage()) {
    try { localStorage.removeItem(langKey()); } catch { /* nothing stored */ }
    useLanguage(L.pickLanguage(null, app.tableLang, next && next.language)).then(() => render());
  }
}

/** The table's own language (the state's `language`, from its config) when neither the
 * player nor the tablet's address chose one (issue 20). */
function followTableLanguage() {
  const want = L.pickLanguage(storedLanguage(), app.tableLang, app.state && app.state.language);
  if (want !== L.language() && want !== app.followingLang) {
    app.followingLang = want;
    useLanguage(want).then(() => { app.followingLang = null; $('#shortcuts').dataset.key = ''; render(); });
  }
}

// ------------------------------------------------------------------ outbound
function newId() {
  app.counter += 1;
  return `s${app.cfg.seat}-${app.prefix}-${app.counter}`;
}

/** The deal offered to the final players (issue 19): every player's figures, how many
 * accepted, and this seat's Accept / Decline (L.dealOffer). */
function renderDeal(s) {
  const d = L.dealOffer(s, app.cfg.seat);
  const box = $('#deal-box');
  box.hidden = !d;
  if (!d) return;
  $('#deal-title').textContent = d.ended ? d.ended : d.title;
  $('#deal-table').hidden = !!d.ended;
  const body = $('#deal-table tbody');
  body.replaceChildren();
  for (const r of d.rows || []) {
    const tr = el('tr', { class: r.me ? 'me' : '' });
    for (const text of [r.name, r.stack, r.share, r.accepted ? '\u2713' : '']) tr.append(el('td', { text }));
    body.append(tr);
  }
  $('#deal-prizes').textContent = d.prizes || '';
  $('#deal-status').textContent = d.status || '';
  const buttons = $('#deal-buttons');
  buttons.replaceChildren();
  for (const b of d.buttons || []) {
    buttons.append(el('button', { class: b.action === 'deal_accept' ? 'act primary' : 'act',
      dataset: { act: b.action, offer: String(b.offer) }, text: b.label }));
  }
}

/** Send an action (docs/mqtt.md) with the seq of the state on screen; returns its id. */
function send(action, extra = {}) {
  if (!app.state) { notice(L.t('No table state yet: wait a moment.')); return null; }
  const payload = L.actionPayload({ id: newId(), seat: app.cfg.seat, seq: app.state.seq, action,
    amount: extra.amount ?? null, choice: extra.choice, cards: extra.cards, name: extra.name, post: extra.post });
  const p = { payload, timer: null };
  if (BETTING.has(action)) app.turnSent = { key: turnKey(), id: payload.id };
  app.pending.set(payload.id, p);
  app.sent.push(payload);
  if (app.sent.length > 500) app.sent.splice(0, 250);
  sendRaw(p);
  return payload.id;
}

const BETTING = new Set(['fold', 'check', 'call', 'bet', 'raise', 'all_in', 'draw', 'show', 'muck']);

function turnKey() {
  const s = app.state;
  return s && s.turn ? `${s.hand}:${s.turn.seat}:${s.turn.started}` : '';
}

/** True while a betting action sent on this very turn awaits the table (buttons disabled). */
function actionInFlight() {
  return !!(app.turnSent && app.turnSent.key === turnKey());
}

function sendRaw(p) {
  if (!app.client) return;
  clearTimeout(p.timer);
  if (app.connected) app.client.publish(p.topic || app.topics.action, JSON.stringify(p.payload), { qos: 1 });
  p.timer = setTimeout(() => { if (app.pending.has(p.payload.id)) sendRaw(p); }, RETRY_MS);
}

function sendChat(text) {
  let clean;
  try { clean = L.cleanChat(text); } catch (e) { notice(e.message); return false; }
  const body = { schema: L.SCHEMA, id: `c-${newId()}`, seat: app.cfg.seat, text: clean };
  app.client.publish(app.topics.seatChat, JSON.stringify(body), { qos: 1 });
  return true;
}

/** Show a message over the table for NOTICE_MS (or until cleared, when `sticky`). */
function notice(text, kind = 'error', sticky = false) {
  const n = $('#notice');
  app.notices.push(text);
  if (app.notices.length > 200) app.notices.splice(0, 100);
  n.textContent = L.plainText(text); // rule ids stay in window.livetable.notices, not on screen
  n.dataset.kind = kind;
  n.hidden = false;
  clearTimeout(app.noticeTimer);
  if (!sticky) app.noticeTimer = setTimeout(() => { n.hidden = true; }, NOTICE_MS);
}

// ------------------------------------------------------------------ UI wiring
function wireUi() {
  $('#actions').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-act]');
    if (!b) return;
    if (b.dataset.act === 'reenter') { sendLobby('reenter'); return; } // issue 19: on the seat's lobby topic
    const amount = b.dataset.amount ? Number(b.dataset.amount) : null;
    send(b.dataset.act, { amount: ['bet', 'raise'].includes(b.dataset.act) ? amount : null });
  });
  const slider = $('#amount-slider');
  const input = $('#amount-input');
  const setAmount = (v) => {
    const sl = currentSlider();
    if (!sl) return;
    app.sliderValue = L.snapAmount(v, sl);
    renderSlider(sl);
  };
  slider.addEventListener('input', () => setAmount(slider.value));
  input.addEventListener('change', () => setAmount(input.value));
  $('#shortcuts').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-amount]');
    if (b) setAmount(Number(b.dataset.amount));
  });
  $('#bet-button').addEventListener('click', () => {
    const sl = currentSlider();
    if (sl) send(sl.action, { amount: app.sliderValue ?? sl.min });
  });
  $('#my-cards').addEventListener('click', (e) => {
    const c = e.target.closest('.card.selectable');
    const legal = app.priv && app.priv.legal;
    if (!c || !legal || !Number.isInteger(legal.draw)) return;
    app.discards = L.toggleDiscard(app.discards, c.dataset.card, legal.draw);
    render();
  });
  $('#draw-button').addEventListener('click', () => {
    send('draw', { cards: app.discards.slice() });
  });
  $('#deal-buttons').addEventListener('click', (e) => { // issue 19: the seat's answer to the deal offered
    const b = e.target.closest('button[data-act]');
    if (b) send(b.dataset.act, { amount: Number(b.dataset.offer) });
  });
  $('#showdown-box').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-act]');
    if (b) send(b.dataset.act);
  });
  $('#auto-muck').addEventListener('click', (e) => {
    send('auto_muck', { choice: e.currentTarget.getAttribute('aria-pressed') === 'true' ? 'off' : 'on' });
  });
  $('#preselects').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-choice]');
    if (!b) return;
    const on = b.getAttribute('aria-pressed') === 'true';
    const amount = b.dataset.amount ? Number(b.dataset.amount) : null;
    send('preselect', on ? { choice: 'none' } : { choice: b.dataset.choice, amount });
  });
  $('#sit-out').addEventListener('click', () => send('sit_out'));
  $('#sit-in').addEventListener('click', () => send('sit_in'));
  $('#post-bb').addEventListener('click', () => send('post_bb'));
  $('#wait-bb').addEventListener('click', () => send('wait_bb'));
  $('#topup-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const amount = Number.parseInt($('#topup-amount').value, 10);
    const lim = L.topUpLimit(app.state, app.cfg.seat);
    if (!Number.isInteger(amount) || amount < 1) return notice(`T-7: ${L.t('enter the chips to add')}`);
    if (lim && lim.max !== null && amount > lim.max) return notice(`T-7: ${L.t('at most {chips} more (the buy-in maximum)', { chips: L.chips(lim.max) })}`);
    send('top_up', { amount });
  });
  // T-3: take this free seat with a name, a buy-in in the range (T-2), post now or wait (T-4)
  const joinAmount = (pick) => {
    const offer = L.joinOffer(app.state, app.cfg.seat);
    if (offer && pick(offer) !== null) $('#join-amount').value = String(pick(offer));
  };
  $('#join-min').addEventListener('click', () => joinAmount((o) => o.min));
  $('#join-max').addEventListener('click', () => joinAmount((o) => o.max));
  $('#join-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const offer = L.joinOffer(app.state, app.cfg.seat);
    if (!offer) return notice(`T-3: ${L.t('this seat is not free to take from the tablet')}`);
    let name; let amount;
    try {
      name = L.cleanName($('#join-name').value);
      amount = L.checkBuyIn($('#join-amount').value, offer);
    } catch (err) { return notice(err.message); }
    const post = $('#join-post').checked && offer.postNow;
    send('take_seat', { amount, name, post });
  });
  // T-2: buy in again after busting (issue 20)
  const rebuyAmount = (pick) => {
    const offer = L.rebuyOffer(app.state, app.cfg.seat);
    if (offer && pick(offer) !== null) $('#rebuy-amount').value = String(pick(offer));
  };
  $('#rebuy-min').addEventListener('click', () => rebuyAmount((o) => o.min));
  $('#rebuy-max').addEventListener('click', () => rebuyAmount((o) => o.max));
  $('#rebuy-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const offer = L.rebuyOffer(app.state, app.cfg.seat);
    if (!offer || offer.dealer) return notice(`T-3: ${L.t('hand your chips to the dealer to buy in again')}`);
    let amount;
    try { amount = L.checkBuyIn($('#rebuy-amount').value, offer); } catch (err) { return notice(err.message); }
    send('buy_in', { amount });
  });
  $('#stand-up').addEventListener('click', () => {
    if (window.confirm(L.t('Give up your seat? Your chips leave the table with you.'))) send('stand_up');
  });
  $('#chat-form').addEventListener('submit', (e) => {
    e.preventDefault();
    if (sendChat($('#chat-input').value)) $('#chat-input').value = '';
  });
  $('#tabs').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-tab]');
    if (!b) return;
    // on a phone the panel opens as a sheet over the table; its tab tapped again closes it
    app.sheetOpen = !(app.sheetOpen && app.tab === b.dataset.tab);
    app.tab = b.dataset.tab;
    // the Lobby tab asks the room for the seated player's lists (at most every 10 s)
    // (a table with no room has no lists: nothing to ask)
    if (app.tab === 'lobby' && app.connected && mySeat() && Date.now() - app.listAsked > 10000
        && L.waitingLists(app.lobby, null, null).length) sendLobby('status');
    render();
  });
  $('#tourney').addEventListener('click', () => { // a phone shows one line; a tap on it shows the rest
    const toggle = $('#tourney-toggle');
    const open = toggle.getAttribute('aria-expanded') !== 'true';
    toggle.setAttribute('aria-expanded', String(open));
    $('#tourney').classList.toggle('open', open);
  });
  $('#lobby').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-op]');
    if (b) { if (!b.disabled) sendLobby(b.dataset.op, b.dataset.list); return; }
    const row = e.target.closest('[data-table]');
    if (!row) return;
    app.pickedTable = app.pickedTable === row.dataset.table ? null : row.dataset.table;
    render();
  });
}

function currentSlider() {
  const legal = app.priv && app.priv.to_act ? app.priv.legal : null;
  return L.actionButtons(legal, app.state, app.cfg.seat).slider;
}

// ------------------------------------------------------------------ drawing
function cardEl(text, extra = {}) {
  const f = L.cardFace(text);
  const n = el('span', { class: `card${f.back ? ' back' : ` suit-${f.suit}`}`, text: f.label,
    dataset: { card: f.text }, role: 'img', 'aria-label': f.back ? L.t('Face-down card') : f.name });
  if (extra.selectable) n.classList.add('selectable');
  if (extra.selected) n.classList.add('selected');
  if (extra.wins) { n.classList.add('wins'); n.title = L.t('Winning card'); }
  return n;
}

function tick() {
  renderTimers();
  renderTournamentClock();
  renderHolds();
}

/** Issue 18: the held seats' countdowns; a hold that ends shows its seat free again. */
function renderHolds() {
  if (!app.state || !Array.isArray(app.state.holds) || !app.state.holds.length) return;
  for (const node of document.querySelectorAll('[data-held]')) {
    const hold = L.seatHold(app.state, Number(node.dataset.held), Date.now() / 1000, app.clockOffset || 0);
    if (!hold) { renderTable(); renderSide(); return; }
    node.textContent = L.t('Held ({time})', { time: hold.clock });
  }
  const mine = L.seatHold(app.state, app.cfg.seat, Date.now() / 1000, app.clockOffset || 0);
  if (mine) $('#seat-info').textContent = seatInfoHeld(mine);
}

function seatInfoHeld(hold) {
  return L.t('Seat {n} is held for {name}, called from the waiting list ({time} left): {name} takes it with "Take this seat".',
    { n: app.cfg.seat, name: hold.name, time: hold.clock });
}

function render() {
  const screen = L.screenState({ settingsOk: true, everConnected: app.everConnected, connected: app.connected,
    caughtUp: app.caughtUp, controllerOnline: app.controllerOnline, state: app.state, priv: app.priv,
    replaced: app.replaced });
  // the turn comes: a phone's panel sheet closes so the buttons are in reach
  if (screen === 'your-turn' && document.body.dataset.screen !== 'your-turn') app.sheetOpen = false;
  document.body.dataset.screen = screen;
  const conn = $('#conn');
  conn.dataset.conn = app.replaced ? 'replaced' : !app.connected ? (app.everConnected ? 'reconnecting' : 'connecting')
    : app.controllerOnline === false ? 'offline' : 'online';
  conn.textContent = L.t({ connecting: 'Connecting…', reconnecting: 'Reconnecting…', offline: 'Table offline',
    online: 'Connected', replaced: 'On another device' }[conn.dataset.conn]);
  $('#replaced').hidden = screen !== 'replaced';
  $('#banner').textContent = {
    connecting: L.t('Connecting to {ws}…', { ws: app.cfg.ws }),
    reconnecting: L.t('Connection lost — reconnecting…'),
    replaced: L.t('This seat is open on another device'),
    'catching-up': L.t('Connected — catching up with the table…'),
    offline: L.t('Table offline — waiting for the table to come back'),
    paused: L.t('Table paused') + (app.state && app.state.fault ? `: ${L.plainText(app.state.fault.message)}` : ''),
    'your-turn': L.t(app.priv && app.priv.legal && app.priv.legal.muck ? 'Your turn — show or muck' : 'Your turn'),
    playing: '',
  }[screen] ?? '';
  renderHeader();
  renderTournament();
  renderTable();
  renderMe();
  renderSide();
  renderTimers();
  showMe();
}

/**
 * The player's own area (#me) is on the screen only while something in it shows: a form,
 * cards, words, buttons or the turn's timer. Empty (seated between hands with nothing to do
 * or read, e.g. just after *Buy in*), it is hidden and keeps no room: in one column #main
 * gives its row and gaps to the side panels (style.css). The bust/rebuy e2e found an empty bar where the
 * "Buy in again" form had been. Reads the DOM only (no layout), after renderMe/renderTimers.
 */
function showMe() {
  const box = $('#me');
  box.hidden = ![...box.children].some((c) => !c.hidden && (c.childElementCount > 0 || c.textContent.trim() !== ''));
}

function renderHeader() {
  const s = app.state;
  $('#table-name').textContent = s ? s.name : L.t('Table {table}', { table: app.cfg.table });
  $('#hand-no').textContent = s && s.hand ? L.t('Hand #{n}', { n: s.hand }) : '';
  fitHeader();
}

/** Issue 20: a phone's header cut the stakes ("Simulated holdem  No Limi…"): when the line
 * does not fit, the table's name goes first, then the game and limit take their short
 * words ("NL Hold'em 50/100"), then the seat number (it is on the felt): the stakes stay. */
function fitHeader() {
  const s = app.state;
  const title = $('#table-title');
  const name = $('#table-name');
  const line = $('#game-line');
  const mySeat = L.t('Seat {n}', { n: app.cfg.seat });
  const over = () => title.scrollWidth > title.clientWidth + 1;
  name.hidden = false;
  line.textContent = s ? `${L.describeGame(s)} · ${mySeat}` : mySeat;
  if (!s || !over()) return;
  name.hidden = true;
  if (over()) line.textContent = `${L.describeGame(s, { short: true })} · ${mySeat}`;
  if (over()) line.textContent = L.describeGame(s, { short: true });
}

/** Issue 19: the tournament's level, time left, next level, players, average and pool. */
function renderTournament() {
  const tv = L.tournamentView(app.state);
  $('#tourney').hidden = !tv;
  document.body.classList.toggle('tourney', !!tv); // the tournament's layout (style.css)
  if (!tv) return;
  const lines = L.tournamentLines(tv);
  $('#tourney-level').textContent = lines.level;
  $('#tourney-next').textContent = lines.next;
  $('#tourney-numbers').textContent = lines.numbers;
  renderTournamentClock();
  // the room's tournament moved players (issue 19): said once over the table, as any notice
  const moves = L.moveTexts(tv, app.cfg.seat, Date.now() / 1000 - (app.clockOffset ?? 0)).join(' · ');
  if (moves && moves !== app.lastMoves) notice(moves, 'info');
  app.lastMoves = moves;
}

function renderTournamentClock() {
  const tv = L.tournamentView(app.state);
  if (tv) $('#tourney-clock').textContent = L.levelTimeLeft(tv, Date.now() / 1000, app.clockOffset ?? 0);
}

function renderTable() {
  const s = app.state;
  const seats = $('#seats');
  seats.replaceChildren();
  $('#board').replaceChildren();
  $('#pots').replaceChildren();
  $('#showdown').textContent = '';
  if (!s) return;
  const winners = L.winnerSeats(s);
  const best = L.winningCards(s); // the five cards that won, framed in gold (issue 20)
  for (const seat of s.seats) {
    const isMe = seat.seat === app.cfg.seat;
    const marks = el('span', { class: 'marks' });
    if (s.button === seat.seat) marks.append(el('span', { class: 'mark button', text: 'D', title: L.t('Dealer button') }));
    if (s.sb_seat === seat.seat) marks.append(el('span', { class: 'mark sb', text: 'SB', title: L.t('Small blind') }));
    if (s.bb_seat === seat.seat) marks.append(el('span', { class: 'mark bb', text: 'BB', title: L.t('Big blind') }));
    const cards = el('div', { class: 'cards' });
    const mine = best.bySeat.get(seat.seat);
    if (Array.isArray(seat.shown)) seat.shown.forEach((c) => cards.append(cardEl(c, { wins: !!(mine && mine.has(c)) })));
    else if (!isMe) for (let i = 0; i < (seat.cards || 0); i += 1) cards.append(cardEl('??'));
    // issue 19: the stack in big blinds with the cards (beside them on a narrow seat, above
    // them on a wide one: the stack line keeps the chips and the D/SB/BB marks)
    const inBB = L.seatBigBlinds(L.tournamentView(s), seat); // none for a seat that is out
    if (inBB) cards.append(el('span', { class: 'in-bb', text: inBB }));
    const equity = L.equityText(s, seat.seat);
    const extra = [];
    if (seat.drew !== null && seat.drew !== undefined) extra.push(seat.drew === 0 ? L.t('stood pat') : L.t('drew {n}', { n: seat.drew }));
    const missed = L.missedText(seat); // T-6: "missed SB+BB" when both
    if (missed) extra.push(missed);
    if (seat.buy_in_pending > 0) extra.push(L.t('buy-in {chips} to confirm', { chips: L.chips(seat.buy_in_pending) }));
    const offline = seat.status !== 'empty' && seat.connected === false;
    if (offline) extra.push(L.t('tablet offline'));
    const hold = L.seatHold(s, seat.seat, Date.now() / 1000, app.clockOffset || 0); // issue 18
    const said = seat.status === 'folded' ? '' : L.lastActionText(seat);
    const chip = said ? el('span', { class: `said act-${seat.last_action.action}`, text: said })
      : seat.bet > 0 ? el('span', { class: 'bet', text: L.chips(seat.bet), title: L.t('Bet in this round') }) : null;
    // a buy-in waiting for the dealer says it all: the seat sits out until it comes (T-3)
    const words = [(said && seat.status === 'all-in') || seat.buy_in_pending > 0 ? ''
      : seat.status === 'empty' && L.seatFinish(L.tournamentView(s), seat.seat) // issue 19: "Out — 5th"
        ? L.finishText(L.seatFinish(L.tournamentView(s), seat.seat), isMe) : L.statusWord(seat), ...extra]
      .filter(Boolean).join(' · ');
    // the same words with "offline" for "tablet offline": a seat too small for the long ones (fitStatuses)
    const short = offline ? words.replace(L.t('tablet offline'), L.t('offline')) : words;
    // issue 18: a seat held for a called player: the name above, "Held (2:41)" below.
    // Otherwise a space between the chip and the words: the line breaks there, never inside a
    // word ("9,900 Folde/d" at 390 px: the chip and the word were one unbreakable run)
    const status = hold ? el('div', { class: 'status held', dataset: { held: String(seat.seat) }, title: hold.text,
      text: L.t('Held ({time})', { time: hold.clock }) })
      : el('div', { class: 'status', dataset: short !== words ? { long: words, short } : {} },
        chip, chip && words ? ' ' : null, words);
    const won = winners.has(seat.seat);
    if (won) extra.unshift(L.t('winner'));
    const node = el('div', { class: `seat ${seat.status}${hold ? ' held' : ''}${isMe ? ' me' : ''}${won ? ' winner' : ''}`,
      dataset: { seat: String(seat.seat) } },
      el('div', { class: 'top' },
        el('span', { class: 'name' },
          el('span', { class: 'who', text: hold ? hold.name
            : seat.status === 'empty' ? L.t('Seat {n}', { n: seat.seat }) : seat.name || L.t('Seat {n}', { n: seat.seat }) }),
          isMe ? el('span', { class: 'you', text: ` ${L.t('(you)')}` }) : null)),
      el('div', { class: 'stack' }, seat.status === 'empty' ? '' : L.chips(seat.stack), marks),
      status,
      cards,
      equity ? el('div', { class: 'equity', dataset: { equity: String(seat.seat) }, text: equity, title: L.t('All-in equity') }) : null,
      s.turn && s.turn.seat === seat.seat ? el('div', { class: 'timer', dataset: { timer: 'seat' } }, el('div', { class: 'bar' })) : null);
    seats.append(node);
  }
  for (const c of s.board || []) $('#board').append(cardEl(c, { wins: best.all.has(c) }));
  for (const p of L.potLines(s)) $('#pots').append(el('span', { class: p.total ? 'pot total' : 'pot', text: p.text }));
  const sd = L.showdownLines(s);
  $('#showdown').replaceChildren(...sd.map((t) => el('div', { class: 'line', text: t })));
  fitNames();
  fitStatuses();
  fitStacks();
  layoutFelt();
}

/**
 * A tournament's stack lines whole in their seats (issue 19 in issue 20's layouts): a stack
 * line (chips and D/SB/BB marks) or a cards row (cards and the stack in big blinds) too
 * wide for its seat is set smaller, down to 12 px; a cards row still too wide (face-up
 * cards on a phone's seat) keeps its cards and leaves the figure in big blinds to screen
 * readers and the tooltip of the chips.
 */
function fitStacks() {
  if (!document.body.classList.contains('tourney')) return;
  const over = (e) => e.scrollWidth > e.clientWidth + 0.5;
  for (const seat of document.querySelectorAll('#seats .seat')) {
    for (const line of seat.querySelectorAll('.stack, .cards')) {
      let px = parseFloat(getComputedStyle(line).fontSize);
      const bb = line.querySelector('.in-bb');
      if (bb) bb.style.fontSize = `${Math.min(px, parseFloat(getComputedStyle(bb).fontSize))}px`;
      while (over(line) && px > 12) {
        px = Math.max(12, px - 0.5);
        line.style.fontSize = `${px}px`;
        if (bb) bb.style.fontSize = `${px}px`;
      }
      if (bb && over(line)) {
        bb.classList.add('sr-only');
        seat.querySelector('.stack').title = bb.textContent;
      }
    }
  }
}

/** True when `node`'s content is whole in its box (nothing cut right or below). */
function fitsWhole(node) {
  return node.scrollWidth <= node.clientWidth + 0.5 && node.scrollHeight <= node.clientHeight + 0.5;
}

/** Set `node`'s text smaller, half a pixel at a time, until it fits (fitsWhole) or is 12 px. */
function shrinkToFit(node) {
  let px = parseFloat(getComputedStyle(node).fontSize);
  while (!fitsWhole(node) && px > 12) { px = Math.max(12, px - 0.5); node.style.fontSize = `${px}px`; }
}

/**
 * Every seat's status line whole in its seat (the 10" tablet in Dutch cut "Wacht op de button
 * · SB gemist" after two lines): the line takes the seat's room between the stack and the
 * cards (style.css), which holds three or four lines in a seat not dealt in; words that still
 * need more are set closer (line height 1.1), then smaller, down to 12 px; then "tablet
 * offline" becomes "offline" (a phone's seat with a two-line name, cards and "Raise to
 * 25,000"). The whole words stay the tooltip of a line so shortened. Fitted again after
 * a resize (the seat's size depends on the screen): the long words come back where they fit.
 */
function fitStatuses() {
  for (const status of document.querySelectorAll('#seats .seat .status')) {
    const words = status.lastChild && status.lastChild.nodeType === Node.TEXT_NODE ? status.lastChild : null;
    const { long, short } = status.dataset;
    if (words && long) words.textContent = long;
    status.style.fontSize = '';
    status.style.lineHeight = '';
    if (!status.classList.contains('held')) status.removeAttribute('title');
    const fits = () => fitsWhole(status);
    if (fits()) continue;
    status.style.lineHeight = '1.1';
    shrinkToFit(status);
    if (fits() || status.classList.contains('held')) continue;
    const full = status.textContent;
    status.title = full;
    if (words && short) { // "Raise to 25,000 tablet offline" in a phone's seat with a two-line name and cards
      words.textContent = short;
      status.style.fontSize = '';
      shrinkToFit(status);
    }
  }
}

/**
 * Every player's name readable whole in its seat (issue 20: "Player…" on a phone): a name
 * too long for the seat's line is set smaller, down to 12 px; still too long, it takes two
 * lines (the status line gives one up); only then initials, the full name kept for screen
 * readers and as a tooltip. "(you)" leaves the line first (it stays for screen readers:
 * the seat is also the one at the bottom, framed in gold).
 */
function fitNames() {
  for (const name of document.querySelectorAll('#seats .seat .name')) {
    const seat = name.closest('.seat');
    const who = name.querySelector('.who');
    const fits = () => fitsWhole(name);
    if (fits()) continue;
    const you = name.querySelector('.you');
    if (you) you.classList.add('sr-only');
    shrinkToFit(name);
    if (fits()) continue;
    seat.classList.add('name-2');
    if (fits()) continue;
    seat.classList.remove('name-2');
    const full = who.textContent;
    name.title = full;
    who.setAttribute('aria-label', full);
    who.textContent = L.initials(full);
  }
}

/** T-1: place the seats round the felt for this screen (L.seatSlots), the board and pots in
 * the middle; the felt takes the height that needs. Seats never overlap (issue 20). */
function layoutFelt() {
  const felt = $('#felt');
  const nodes = [...felt.querySelectorAll('.seat')];
  if (!nodes.length || !felt.clientWidth) return;
  const n = Math.max(app.state.max_seats || 0, ...app.state.seats.map((x) => x.seat));
  const w = nodes[0].offsetWidth; const h = nodes[0].offsetHeight;
  const gap = Math.round(w * 0.06);
  const middle = $('#middle');
  const W = felt.clientWidth;
  let midH = parseFloat(getComputedStyle(middle).minHeight) || 100;
  let out = L.seatSlots(n, app.cfg.seat, W, h, w, gap, midH);
  for (let pass = 0; pass < 2; pass += 1) { // grow the middle when the showdown needs more room
    middle.style.cssText = `left:${out.middle.x}px;top:${out.middle.y}px;width:${out.middle.w}px;height:auto`;
    if (middle.scrollHeight <= out.middle.h) break;
    midH = middle.scrollHeight;
    out = L.seatSlots(n, app.cfg.seat, W, h, w, gap, midH);
  }
  middle.style.height = `${out.middle.h}px`;
  felt.style.height = `${out.H}px`;
  for (const node of nodes) {
    const c = out.seats[node.dataset.seat];
    if (c) node.style.cssText = `left:${c.x - w / 2}px;top:${c.y - h / 2}px`;
  }
}

function renderMe() {
  const p = app.priv;
  const s = app.state;
  const sd = L.showdownChoice(p); // P-2: also the uncalled winner's offer between hands
  const legal = p && (p.to_act || sd) ? p.legal : null;
  const ui = L.actionButtons(legal, s, app.cfg.seat);
  const mine = $('#my-cards');
  mine.replaceChildren();
  if (p && Array.isArray(p.cards)) {
    for (const c of p.cards) {
      mine.append(cardEl(c, { selectable: !!ui.draw, selected: app.discards.includes(c) }));
    }
  }
  const me = L.seatOf(s, app.cfg.seat);
  const rebuy = L.rebuyOffer(s, app.cfg.seat);
  const sitIn = p && p.to_act ? null : L.sitInOffer(s, app.cfg.seat); // issue 20: say why, offer Sit in
  const buy = p && p.to_act ? null : L.purchaseOffer(s, app.cfg.seat); // issue 19: rebuy, add-on
  const reenter = !me || me.status === 'empty' ? L.reentryOffer(s, app.cfg.seat) : null; // issue 19, TDA 9
  $('#hand-words').textContent = p && p.hand_words ? L.handWords(p.hand_words)
    : sitIn ? sitIn.why
    : !p && me && me.buy_in_pending > 0 && me.status === 'sitting-out' // a buy-in again (T-3)
      ? L.t('Buy-in {chips}: hand the chips or cash to the dealer, who confirms it', { chips: L.chips(me.buy_in_pending) })
    : !p && me && me.buy_in_pending > 0
      ? L.t('Seated: hand {chips} in chips or cash to the dealer, who confirms your buy-in', { chips: L.chips(me.buy_in_pending) })
      : !p && me && me.status === 'waiting' && me.waits_for_button === true // T-4 (issue 19)
        ? L.t('Seated: you wait for the button, then you are dealt in')
      : !p && me && me.status === 'waiting' ? L.t('Seated: you are dealt in from a coming hand')
        : rebuy ? L.t('You have no chips left')
          : buy && buy.waiting ? buy.waiting
          : reenter && reenter.waiting ? reenter.waiting
          : (!me || me.status === 'empty') && L.seatFinish(L.tournamentView(s), app.cfg.seat) // issue 19
            ? L.finishText(L.seatFinish(L.tournamentView(s), app.cfg.seat), true) : '';

  renderDeal(s);
  const acts = $('#actions');
  acts.replaceChildren();
  for (const b of ui.buttons) {
    if (ui.slider && b.action === ui.slider.action) continue; // the slider's own button bets
    acts.append(el('button', { class: 'act', dataset: { act: b.action, amount: b.amount ?? '' }, text: b.label }));
  }
  if (sitIn && !ui.buttons.length) {
    acts.append(el('button', { class: 'act primary', dataset: { act: 'sit_in', amount: '' }, text: L.t('Sit in') }));
  }
  if (buy && !ui.buttons.length) { // the dealer confirms it (livetable floor confirm-buyin)
    for (const b of buy.buttons) acts.append(el('button', { class: 'act', dataset: { act: b.action, amount: '' }, text: b.label }));
  }
  if (reenter && reenter.button && !ui.buttons.length) { // sent on the seat's lobby topic (sendLobby)
    acts.append(el('button', { class: 'act primary', dataset: { act: 'reenter', amount: '' }, text: reenter.button.label }));
  }
  $('#slider-box').hidden = !ui.slider;
  if (ui.slider) renderSlider(ui.slider);
  const busy = actionInFlight();
  for (const b of document.querySelectorAll('#actions button, #bet-button, #draw-button, #showdown-box button')) b.disabled = busy;
  mine.classList.toggle('folded', !!(me && me.status === 'folded'));

  $('#draw-box').hidden = !ui.draw;
  if (ui.draw) $('#draw-button').textContent = `${L.drawLabel(app.discards)} ${L.t('(up to {n})', { n: ui.draw.max })}`;

  $('#showdown-box').hidden = !sd;
  if (sd) {
    $('#showdown-hint').textContent = L.plainText(sd.hint);
    $('#showdown-box button[data-act="show"]').hidden = !sd.show;
    $('#showdown-box button[data-act="muck"]').hidden = !sd.muck;
  }
  const am = $('#auto-muck');
  am.hidden = !me || me.status === 'empty';
  am.setAttribute('aria-pressed', String(!!(me && me.auto_muck)));
  renderJoin();
  renderRebuy(rebuy);

  const pres = L.preselectOptions(s, p, app.cfg.seat);
  const box = $('#preselects');
  box.replaceChildren();
  const current = p && p.preselect ? p.preselect.choice : null;
  for (const o of pres) {
    box.append(el('button', { class: 'pre', dataset: { choice: o.choice, amount: o.amount ?? '' },
      'aria-pressed': String(current === o.choice), text: o.label }));
  }
  $('#preselect-box').hidden = pres.length === 0;
}

/** T-3/T-4: the "Take this seat" form while this seat is free and the table lets tablets seat. */
function renderJoin() {
  const offer = L.joinOffer(app.state, app.cfg.seat);
  const form = $('#join-form');
  form.hidden = !offer;
  if (!offer) return;
  const amount = $('#join-amount');
  amount.min = offer.min;
  if (offer.max !== null) amount.max = offer.max; else amount.removeAttribute('max');
  if (!amount.value && document.activeElement !== amount) amount.value = String(offer.min);
  $('#join-max').hidden = offer.max === null;
  $('#join-range').textContent = buyInRangeText(offer);
  const post = $('#join-post');
  post.disabled = !offer.postNow;
  if (!offer.postNow && post.checked) form.querySelector('input[value="wait"]').checked = true;
  // T-4: both hints stay in the box, the one that does not apply invisible: the box is as
  // high as the longer, so Take this seat and the tabs below stay still from hand to hand
  for (const hint of document.querySelectorAll('#join-blind-hint > span')) {
    hint.classList.toggle('off', (hint.dataset.when === 'post') !== offer.postNow);
  }
  const busy = [...app.pending.values()].some((p) => p.payload.action === 'take_seat');
  $('#join-button').disabled = busy;
}

/** T-2: "Buy in again" while this seat's player has no chips left (issue 20). */
function renderRebuy(offer) {
  const form = $('#rebuy-form');
  form.hidden = !offer;
  if (!offer) return;
  const amount = $('#rebuy-amount');
  amount.min = offer.min;
  if (offer.max !== null) amount.max = offer.max; else amount.removeAttribute('max');
  if (!amount.value && document.activeElement !== amount) amount.value = String(offer.min);
  for (const id of ['#rebuy-amount', '#rebuy-min', '#rebuy-max', '#rebuy-button']) $(id).hidden = offer.dealer;
  $('#rebuy-max').hidden = offer.dealer || offer.max === null;
  $('#rebuy-range').textContent = offer.dealer ? L.t('Ask the floor, who books your buy-in.')
    : offer.confirm ? `${buyInRangeText(offer)} · ${L.t('the dealer confirms it when you hand over the chips')}`
      : buyInRangeText(offer);
  amount.closest('label').hidden = offer.dealer;
  $('#rebuy-button').disabled = [...app.pending.values()].some((p) => p.payload.action === 'buy_in');
}

/** "Buy-in 2,000 to 10,000" (or "2,000 or more" without a maximum), in the language. */
function buyInRangeText(offer) {
  return offer.max === null ? L.t('Buy-in {min} or more', { min: L.chips(offer.min) })
    : L.t('Buy-in {min} to {max}', { min: L.chips(offer.min), max: L.chips(offer.max) });
}

function renderSlider(sl) {
  const v = app.sliderValue === null || app.sliderValue < sl.min || app.sliderValue > sl.max ? sl.min : app.sliderValue;
  app.sliderValue = v;
  const slider = $('#amount-slider');
  slider.min = sl.min; slider.max = sl.max; slider.step = 1; slider.value = v;
  const input = $('#amount-input');
  input.min = sl.min; input.max = sl.max;
  if (document.activeElement !== input) input.value = v;
  $('#bet-button').textContent = L.t(sl.action === 'raise' ? 'Raise to {chips}' : 'Bet {chips}', { chips: L.chips(v) });
  $('#bet-button').dataset.act = sl.action;
  $('#bet-button').dataset.amount = String(v);
  const sc = $('#shortcuts');
  if (sc.dataset.key !== JSON.stringify(sl.shortcuts)) {
    sc.dataset.key = JSON.stringify(sl.shortcuts);
    sc.replaceChildren(...sl.shortcuts.map((c) => el('button', { dataset: { amount: String(c.amount) },
      text: `${c.label} ${L.chips(c.amount)}` })));
  }
}

function renderTimers() {
  const s = app.state;
  const turn = s && s.turn;
  const now = Date.now() / 1000;
  const offset = app.clockOffset ?? 0;
  const frac = L.timerFraction(turn, now, offset);
  const level = frac === null ? '' : frac > 0.5 ? 'high' : frac > 0.2 ? 'mid' : 'low';
  for (const t of document.querySelectorAll('[data-timer="seat"]')) {
    t.dataset.level = level;
    t.firstChild.style.width = `${Math.round((frac ?? 0) * 100)}%`;
  }
  const mine = $('#my-timer');
  const myTurn = !!(turn && turn.seat === app.cfg.seat);
  mine.hidden = !myTurn;
  if (myTurn) {
    mine.dataset.level = level;
    mine.querySelector('.bar').style.width = `${Math.round((frac ?? 0) * 100)}%`;
    mine.querySelector('.secs').textContent = `${L.timerSeconds(turn, now, offset)} s`;
  }
}

function renderSide() {
  for (const b of document.querySelectorAll('#tabs button')) b.setAttribute('aria-selected', String(b.dataset.tab === app.tab));
  for (const name of ['chat', 'hands', 'seat', 'lobby']) $(`#panel-${name}`).hidden = app.tab !== name;
  $('#side').classList.toggle('open', !!app.sheetOpen);
  // chat (L-3)
  const lines = $('#chat-lines');
  const msgs = (app.chat && app.chat.messages) || [];
  if (lines.dataset.count !== String(msgs.length) || lines.dataset.last !== String(msgs.length && msgs[msgs.length - 1].id)) {
    lines.dataset.count = String(msgs.length);
    lines.dataset.last = String(msgs.length && msgs[msgs.length - 1].id);
    lines.replaceChildren(...msgs.map((m) => el('li', { class: m.seat === null ? 'floor' : '' },
      el('span', { class: 'who', text: `${m.name || (m.seat ? L.t('Seat {n}', { n: m.seat }) : L.t('Floor'))}: ` }), m.text)));
    lines.scrollTop = lines.scrollHeight;
  }
  // last hands (P-4)
  const rows = L.historyRows(app.history, app.cfg.seat);
  $('#history-empty').hidden = rows.length > 0;
  $('#history').replaceChildren(...rows.map((r) => el('li', { dataset: { hand: String(r.hand) } },
    el('div', {}, el('b', { text: `${L.t('Hand #{n}', { n: r.hand })} ` }), r.board.map((c) => L.cardFace(c).label).join(' '),
      r.net === null ? null : el('span', { class: `net ${r.net >= 0 ? 'win' : 'loss'}`,
        text: `  ${r.net >= 0 ? '+' : ''}${L.chips(r.net)}` })),
    ...r.lines.map((t) => el('div', { class: 'line', text: L.plainText(t) })))));
  // my seat (T-4, T-5, T-7, T-8)
  const me = L.seatOf(app.state, app.cfg.seat);
  const seated = me && me.status !== 'empty';
  $('#seat-info').textContent = !app.state ? '' : seated
    ? L.t('Seat {n}: {name}, {chips} chips', { n: me.seat, name: me.name || '', chips: L.chips(me.stack) })
      + (me.status === 'sitting-out' ? `, ${L.t('sitting out')}` : '')
    : L.seatHold(app.state, app.cfg.seat, Date.now() / 1000, app.clockOffset || 0)
      ? seatInfoHeld(L.seatHold(app.state, app.cfg.seat, Date.now() / 1000, app.clockOffset || 0))
      : L.joinOffer(app.state, app.cfg.seat) ? L.t('Seat {n} is free: take it with "Take this seat".', { n: app.cfg.seat })
      : L.t('Seat {n} is free: ask the floor to seat you.', { n: app.cfg.seat });
  // busted between hands (all-in mid-hand is not), or its buy-in again waits for the dealer (T-3)
  const broke = !!L.rebuyOffer(app.state, app.cfg.seat) || !!(seated && me.stack === 0 && me.buy_in_pending > 0);
  $('#sit-out').disabled = !seated || me.status === 'sitting-out';
  $('#sit-in').disabled = !seated || me.status !== 'sitting-out' || broke; // T-2: chips first
  $('#sit-hint').textContent = seated && me.status === 'sitting-out' && broke ? L.t('Buy in again to play.') : '';
  // T-4/T-6: only a seat that owes a blind chooses to post it now or wait for the big blind
  $('#bb-choice').hidden = !(seated && L.owesBlinds(me));
  const lim = L.topUpLimit(app.state, app.cfg.seat);
  $('#topup-button').disabled = !seated || !lim || me.buy_in_pending > 0 || broke; // T-2/T-3: a buy-in first
  $('#topup-range').textContent = !seated ? '' : broke ? L.t('No chips: buy in again') : !lim ? L.t('At the buy-in maximum')
    : lim.max === null ? L.t('No maximum') : L.t('Up to {chips} more', { chips: L.chips(lim.max) });
  if (lim && lim.max !== null) $('#topup-amount').max = lim.max;
  $('#stand-up').disabled = !seated;
  // lobby (L-1)
  const groups = L.lobbyGroups(app.lobby, app.lobbyPresence);
  $('#lobby').replaceChildren(...groups.flatMap((g) => [el('h3', { text: L.t(g.label) }), ...g.tables.map((t) =>
    el('div', { class: `lobby-table${t.table === app.cfg.table ? ' here' : ''}${t.online ? '' : ' off'}`,
      dataset: { table: t.table } },
    el('div', {}, el('b', { text: t.name }), t.name !== t.table ? el('span', { class: 'tid', text: ` ${t.table}` }) : null,
      ` ${t.line} · ${L.t('{n}/{max} seated', { n: t.seated, max: t.max_seats })}${t.waiting === null ? '' : ` · ${L.t('{n} waiting', { n: t.waiting })}`}${t.online ? '' : ` · ${t.offline || L.t('offline')}`}`),
    app.pickedTable === t.table ? el('div', { class: 'players',
      text: t.players.length ? t.players.map((p) => `${L.t('Seat {n}', { n: p.seat })}: ${p.name}`).join(', ') : L.t('Nobody seated') }) : null))]),
  ...waitingListRows());
}

/** The room's waiting lists with this seat's player's places and a Join / Leave each (issue 18). */
function waitingListRows() {
  const me = mySeat();
  const rows = L.waitingLists(app.lobby, app.myLists, me ? me.name : null);
  if (!rows.length) { // say why, not nothing (newcomer F3)
    const note = L.waitingListsNote(app.lobby);
    return note ? [el('h3', { text: L.t('Waiting lists') }), el('p', { class: 'lists-note', text: note })] : [];
  }
  const asking = new Set([...app.pending.values()].filter((p) => p.topic).map((p) => p.payload.list));
  return [el('h3', { text: L.t('Waiting lists') }), ...rows.map((r) => el('div', { class: 'wait-list', dataset: { list: r.list } },
    el('div', {}, el('b', { text: r.label }), ` · ${L.t('{n} waiting', { n: r.waiting })}`,
      r.place !== null ? el('div', { class: 'place', text: L.listPlaceText(r) }) : null),
    r.op ? el('button', { class: r.op === 'leave' ? 'leave' : 'join', dataset: { op: r.op, list: r.list },
      text: r.op === 'leave' ? L.t('Leave') : L.t('Join'),
      ...(asking.has(r.list) || !app.connected ? { disabled: '' } : {}) }) : null))];
}

/** This tablet's seat when a player sits in it, else null. */
function mySeat() {
  const s = L.seatOf(app.state, app.cfg.seat);
  return s && s.name && s.status !== 'empty' ? s : null;
}

// For end-to-end tests and the floor's debugging in a browser console: read-only views and
// the same send() the buttons use.
window.livetable = {
  get state() { return app.state; }, get private() { return app.priv; },
  get connected() { return app.connected; }, get replaced() { return app.replaced; }, get received() { return app.received.slice(); },
  get refusals() { return app.refusals.slice(); }, get replies() { return Object.fromEntries(app.replies); },
  get sent() { return app.sent.slice(); }, get notices() { return app.notices.slice(); },
  get client() { return app.client; }, send, sendChat,
};

start();
