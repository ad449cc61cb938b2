// Unit tests of the tablet's pure logic: `node --test tablet/tests/` (run by
// tests/tablet/test_tablet_logic.py in CI). Rule ids in test names.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as L from '../js/logic.js';

// A 6-seat no-limit state on the flop: pots 600, seat 4 bet 200, seat 3 (us) has 0 in.
function state(over = {}) {
  const seats = [1, 2, 3, 4, 5, 6].map((n) => ({ seat: n, name: `P${n}`, stack: 5000, bet: 0, status: 'active',
    missed: { sb: false, bb: false }, cards: 2, shown: null, drew: null, connected: true, posted_dead: 0 }));
  seats[3].bet = 200;
  seats[2].status = 'acting';
  return { schema: 1, table: 't1', name: 'Table 1', seq: 10, hand: 3, game: 'holdem', limit: 'no-limit',
    stakes: { sb: 50, bb: 100, ante: 0, small_bet: null, big_bet: null }, max_seats: 6, street: 'flop',
    button: 1, sb_seat: 2, bb_seat: 3, board: ['Jh', '8c', '3d'], pots: [{ amount: 600, eligible: [1, 2, 3, 4] }],
    seats, turn: { seat: 3, started: 1000, deadline: 1030, seconds: 30 }, showdown: null, all_in_equity: null,
    fault: null, paused: false, rake: 0, ...over };
}

test('A-1: only the legal actions become buttons, with their amounts', () => {
  const legal = { fold: true, check: false, call: 200, bet: null, raise: { min: 400, max: 5000 }, all_in: 5000, draw: null };
  const ui = L.actionButtons(legal, state(), 3);
  assert.deepEqual(ui.buttons.map((b) => b.action), ['fold', 'call', 'raise', 'all_in']);
  assert.equal(ui.buttons.find((b) => b.action === 'call').amount, 200);
  assert.equal(ui.buttons.find((b) => b.action === 'raise').amount, 400);
  assert.equal(ui.slider.min, 400);
  assert.equal(ui.slider.max, 5000);
  assert.equal(ui.draw, null);
});

test('A-1: checking is offered only when legal; no fold button when the table forbids it', () => {
  const legal = { fold: false, check: true, call: null, bet: { min: 100, max: 5000 }, raise: null, all_in: 5000, draw: null };
  const ui = L.actionButtons(legal, state(), 3);
  assert.deepEqual(ui.buttons.map((b) => b.action), ['check', 'bet', 'all_in']);
  assert.equal(ui.slider.action, 'bet');
});

test('A-1: not this seat\'s turn (legal null) gives no buttons', () => {
  assert.deepEqual(L.actionButtons(null, state(), 3), { buttons: [], slider: null, draw: null });
});

test('S-6: a fixed-limit raise has no slider and no duplicate all-in', () => {
  const legal = { fold: true, check: false, call: 100, bet: null, raise: { min: 200, max: 200 }, all_in: 200, draw: null };
  const ui = L.actionButtons(legal, state({ limit: 'fixed-limit' }), 3);
  assert.equal(ui.slider, null);
  assert.deepEqual(ui.buttons.map((b) => `${b.action}:${b.amount}`), ['fold:null', 'call:100', 'raise:200']);
});

test('S-8: a seat that cannot cover the call sees fold and all-in only', () => {
  const legal = { fold: true, check: false, call: null, bet: null, raise: null, all_in: 150, draw: null };
  const ui = L.actionButtons(legal, state(), 3);
  assert.deepEqual(ui.buttons.map((b) => b.action), ['fold', 'all_in']);
  assert.equal(ui.buttons[1].label, 'All-in 150');
});

test('G-3: the draw gives the most cards to discard and no betting buttons', () => {
  const legal = { fold: false, check: false, call: null, bet: null, raise: null, all_in: null, draw: 5 };
  const ui = L.actionButtons(legal, state({ game: 'draw', street: 'draw' }), 3);
  assert.deepEqual(ui, { buttons: [], slider: null, draw: { max: 5 } });
});

test('S-5: pot-size raise is the call plus the pot after the call, as a street total', () => {
  // pots 600 + bets 200 on the table; we call 200, then the pot is 1000: raise to 200 + 1000.
  assert.equal(L.potSizeTo(state(), 3, 200), 1200);
  // our own 100 already in (the big blind) facing 200: to = 100 + 100 + (600 + 300 + 100)
  const s = state();
  s.seats[2].bet = 100;
  assert.equal(L.potSizeTo(s, 3, 100), 1200);
  // nobody bet: a pot-size bet is the pot
  const quiet = state();
  quiet.seats[3].bet = 0;
  assert.equal(L.potSizeTo(quiet, 3, 0), 600);
});

test('S-5: pot limit shortcuts stay within the legal range; the pot is the maximum', () => {
  const legal = { fold: true, check: false, call: 200, bet: null, raise: { min: 400, max: 1200 }, all_in: 5000, draw: null };
  const sl = L.sliderBounds(legal, state({ limit: 'pot-limit' }), 3);
  assert.deepEqual(sl.shortcuts.map((c) => c.label), ['Min', '\u00bd Pot', 'Pot']);
  assert.deepEqual(sl.shortcuts.map((c) => c.amount), [400, 700, 1200]);
  for (const c of sl.shortcuts) assert.ok(c.amount >= sl.min && c.amount <= sl.max);
});

test('S-4: no-limit shortcuts: min, half pot, pot, clamped, without duplicates, no second all-in', () => {
  const legal = { fold: true, check: false, call: 200, bet: null, raise: { min: 400, max: 5000 }, all_in: 5000, draw: null };
  const sl = L.sliderBounds(legal, state(), 3);
  assert.deepEqual(sl.shortcuts.map((c) => [c.label, c.amount]),
    [['Min', 400], ['\u00bd Pot', 700], ['Pot', 1200]]); // the All-in button bets 5000 (issue 20)
  const short = { ...legal, raise: { min: 400, max: 900 } };
  const sl2 = L.sliderBounds(short, state(), 3);
  assert.deepEqual(sl2.shortcuts.map((c) => c.amount), [400, 700, 900]);
});

test('S-10: the slider snaps to the small blind from the minimum, but the maximum is reachable', () => {
  const sl = { min: 400, max: 4975, step: 50 };
  assert.equal(L.snapAmount(437, sl), 450);
  assert.equal(L.snapAmount(10, sl), 400);
  assert.equal(L.snapAmount(99999, sl), 4975);
  assert.equal(L.snapAmount(4960, sl), 4950);
});

test('A-3: pre-selections facing a bet carry the amount to call', () => {
  const s = state();
  s.seats[2].status = 'active';
  s.turn = { seat: 5, started: 1, deadline: 31, seconds: 30 };
  const priv = { seat: 3, cards: ['As', 'Kd'], to_act: false, legal: null, preselect: null };
  const opts = L.preselectOptions(s, priv, 3);
  assert.deepEqual(opts.map((o) => o.choice), ['fold', 'call', 'call_any', 'raise_any', 'all_in']);
  assert.equal(opts[1].amount, 200);
});

test('A-3: with nothing to call the choices are check/fold, check, call any', () => {
  const s = state();
  s.seats[3].bet = 0;
  const priv = { seat: 3, cards: ['As', 'Kd'], to_act: false, legal: null, preselect: null };
  assert.deepEqual(L.preselectOptions(s, priv, 3).map((o) => o.choice),
    ['check_fold', 'check', 'call_any', 'raise_any', 'all_in']);
});

test('A-3: no pre-selection on our turn, when folded, all-in, between hands or in the draw', () => {
  const priv = { seat: 3, cards: ['As', 'Kd'], to_act: false, legal: null, preselect: null };
  assert.deepEqual(L.preselectOptions(state(), { ...priv, to_act: true }, 3), []);
  const folded = state(); folded.seats[2].status = 'folded';
  assert.deepEqual(L.preselectOptions(folded, priv, 3), []);
  const allin = state(); allin.seats[2].status = 'all-in'; allin.seats[2].stack = 0;
  assert.deepEqual(L.preselectOptions(allin, priv, 3), []);
  assert.deepEqual(L.preselectOptions(state({ street: 'draw' }), priv, 3), []);
  assert.deepEqual(L.preselectOptions(state({ street: 'waiting' }), priv, 3), []);
  assert.deepEqual(L.preselectOptions(state(), null, 3), []);
});

test('G-3: discards toggle and never exceed the most the seat may draw', () => {
  let sel = [];
  sel = L.toggleDiscard(sel, 'As', 2);
  sel = L.toggleDiscard(sel, 'Kd', 2);
  assert.deepEqual(L.toggleDiscard(sel, '7c', 2), ['As', 'Kd']);
  assert.deepEqual(L.toggleDiscard(sel, 'As', 2), ['Kd']);
  assert.equal(L.drawLabel([]), 'Stand pat');
  assert.equal(L.drawLabel(['Kd', '7c']), 'Discard 2');
});

test('docs/state.md: an older state is dropped, unless retained; an equal seq (a pause) is taken', () => {
  const cur = { seq: 10 };
  assert.equal(L.acceptState(cur, { seq: 11 }, false), true);
  assert.equal(L.acceptState(cur, { seq: 10, paused: true }, false), true);
  assert.equal(L.acceptState(cur, { seq: 9 }, false), false);
  assert.equal(L.acceptState(cur, { seq: 9 }, true), true);
  assert.equal(L.acceptState(null, { seq: 1 }, false), true);
  assert.equal(L.acceptState(cur, { seq: 'x' }, true), false);
});

test('M-2: the action payload has exactly the fields of docs/mqtt.md', () => {
  assert.deepEqual(L.actionPayload({ id: 's3-a-1', seat: 3, seq: 7, action: 'raise', amount: 600 }),
    { schema: 1, id: 's3-a-1', seat: 3, seq: 7, action: 'raise', amount: 600 });
  assert.deepEqual(L.actionPayload({ id: 's3-a-2', seat: 3, seq: 7, action: 'draw', cards: ['As'] }),
    { schema: 1, id: 's3-a-2', seat: 3, seq: 7, action: 'draw', amount: null, cards: ['As'] });
  assert.deepEqual(L.actionPayload({ id: 's3-a-3', seat: 3, seq: 7, action: 'preselect', choice: 'check_fold' }),
    { schema: 1, id: 's3-a-3', seat: 3, seq: 7, action: 'preselect', amount: null, choice: 'check_fold' });
  assert.throws(() => L.actionPayload({ id: 'bad id', seat: 3, seq: 7, action: 'fold' }), /M-2/);
});

test('docs/mqtt.md: a seat subscribes to its own private and reply topics, never another seat\'s', () => {
  const subs = L.subscriptions('t1', 3);
  assert.ok(subs.includes('livetable/t1/seat/3/private'));
  assert.ok(subs.includes('livetable/t1/seat/3/reply'));
  assert.ok(subs.every((t) => !/seat\/(?!3\/)/.test(t)));
  assert.ok(subs.every((t) => !t.includes('#')));
  assert.throws(() => L.topics('lobby', 3), /M-6/);
  assert.throws(() => L.topics('t1', 11), /M-6/);
});

test('connection settings come from the URL; missing ones are listed', () => {
  const ok = L.parseSettings('?table=t1&seat=3&pass=xyz&ws=ws://pi:9001', 'pi');
  assert.deepEqual(ok, { table: 't1', seat: 3, user: 't1-seat3', pass: 'xyz', ws: 'ws://pi:9001', errors: [] });
  assert.equal(L.parseSettings('?table=t1&seat=3&pass=x', 'pi').ws, 'ws://pi:9001');
  assert.equal(L.parseSettings('?table=t1&seat=3&pass=x', 'pi', true).ws, 'wss://pi:9001');
  const bad = L.parseSettings('?table=Bad!&seat=12', 'pi');
  assert.equal(bad.errors.length, 3);
  assert.equal(L.parseSettings('?table=t1&seat=3x&pass=p').errors.length, 1);
});

test('formatting: chips, cards and games', () => {
  assert.equal(L.chips(1234567), '1,234,567');
  assert.equal(L.chips(-600), '-600');
  assert.equal(L.chips(0), '0');
  assert.equal(L.chips(1.5), '?');
  assert.deepEqual(L.cardFace('Td'), { label: '10\u2666', red: true, suit: 'd', name: 'Ten of diamonds',
    back: false, text: 'Td' });
  assert.deepEqual(['Ks', 'Kh', 'Kd', 'Kc'].map((c) => L.cardFace(c).suit), ['s', 'h', 'd', 'c']); // four colours
  assert.equal(L.cardFace('As').red, false);
  assert.equal(L.cardFace('??').back, true);
  assert.equal(L.describeGame(state()), "No Limit Hold'em 50/100");
  assert.equal(L.describeGame({ game: 'draw', limit: 'fixed-limit', stakes: { sb: 50, bb: 100, ante: 0, small_bet: 100, big_bet: 200 } }),
    'Fixed Limit Five Card Draw 100/200');
});

test('T-2/T-7: top-up room is the buy-in maximum less the chips at the table', () => {
  const s = state({ street: 'waiting' });
  assert.deepEqual(L.buyInRange(s), { min: 2000, max: 10000 });
  assert.deepEqual(L.topUpLimit(s, 3), { max: 5000 });
  s.seats[2].stack = 10000;
  assert.equal(L.topUpLimit(s, 3), null);
  assert.deepEqual(L.buyInRange(state({ limit: 'fixed-limit', stakes: { sb: 50, bb: 100, ante: 0, small_bet: 100, big_bet: 200 } })),
    { min: 2000, max: null });
  assert.deepEqual(L.buyInRange(state({ buy_in: { min: 1000, max: 4000 } })), { min: 1000, max: 4000 });
  assert.equal(L.topUpLimit(state({ seats: [] }), 3), null);
});

test('A-2: the timer bar shrinks from 1 to 0 and allows for the clock offset', () => {
  const turn = { seat: 3, started: 1000, deadline: 1030, seconds: 30 };
  assert.equal(L.timerFraction(turn, 1000), 1);
  assert.equal(L.timerFraction(turn, 1015), 0.5);
  assert.equal(L.timerFraction(turn, 1045), 0);
  assert.equal(L.timerFraction(turn, 1020, 5), 0.5); // our clock runs 5 s ahead
  assert.equal(L.timerSeconds(turn, 1010.2), 20);
  assert.equal(L.timerFraction(null, 1000), null);
});

test('screen states: connecting, reconnecting, catching up, offline, paused, your turn', () => {
  const base = { settingsOk: true, everConnected: true, connected: true, caughtUp: true, controllerOnline: true,
    state: state(), priv: { to_act: false, legal: null } };
  assert.equal(L.screenState({ ...base, settingsOk: false }), 'setup');
  assert.equal(L.screenState({ ...base, connected: false, everConnected: false }), 'connecting');
  assert.equal(L.screenState({ ...base, connected: false }), 'reconnecting');
  assert.equal(L.screenState({ ...base, caughtUp: false }), 'catching-up');
  assert.equal(L.screenState({ ...base, controllerOnline: false }), 'offline');
  assert.equal(L.screenState({ ...base, state: state({ paused: true }) }), 'paused');
  assert.equal(L.screenState({ ...base, priv: { to_act: true, legal: { fold: true } } }), 'your-turn');
  assert.equal(L.screenState(base), 'playing');
});

test('refusals: the rule id is read from the reason', () => {
  assert.equal(L.reasonRule('A-1: it is not your turn'), 'A-1');
  assert.equal(L.reasonRule('M-4: stale state seq 12'), 'M-4');
  assert.equal(L.reasonRule('no rule'), '');
});

test('L-3: chat text is one line of 1..200 characters', () => {
  assert.equal(L.cleanChat('  nice hand '), 'nice hand');
  assert.throws(() => L.cleanChat('   '), /M-7/);
  assert.throws(() => L.cleanChat('x'.repeat(201)), /M-7/);
  assert.throws(() => L.cleanChat('two\nlines'), /M-7/);
  assert.throws(() => L.cleanChat('bidi\u202eover'), /M-7/);
});

test('S-8: equity is shown per seat as a whole percent, only when the state carries it', () => {
  const eq = { '1': 0.4621, '3': 0.5379 };
  assert.equal(L.equityText(state({ all_in_equity: eq, turn: null }), 1), '46%');
  assert.equal(L.equityText(state({ all_in_equity: eq, turn: null }), 3), '54%');
  assert.equal(L.equityText(state({ all_in_equity: eq, turn: null }), 2), '');
  assert.equal(L.equityText(state({ all_in_equity: { '1': 0.004, '2': 0.996 } }), 1), '<1%');
  assert.equal(L.equityText(state({ all_in_equity: { '1': 0.004, '2': 0.996 } }), 2), '>99%');
  assert.equal(L.equityText(state({ all_in_equity: { '1': 1, '2': 0 } }), 2), '0%');
  assert.equal(L.equityText(state(), 3), '');
  assert.equal(L.equityText(null, 3), '');
});

test('L-1: the lobby lists tables by game, Hold\'em first, with seated players', () => {
  const entry = (table, game, name, seated) => ({ schema: 1, table, name, game, limit: 'no-limit',
    stakes: { sb: 50, bb: 100, ante: 0, small_bet: null, big_bet: null }, max_seats: 6,
    players: [{ seat: 2, name: 'Bo' }, { seat: 1, name: 'Ann' }], seated, hand: 1, online: true });
  const groups = L.lobbyGroups({ d1: entry('d1', 'draw', 'Draw 1', 2), t2: entry('t2', 'holdem', 'B table', 2),
    t1: entry('t1', 'holdem', 'A table', 2), o1: entry('o1', 'omaha', 'Omaha 1', 2) }, { t2: false });
  assert.deepEqual(groups.map((g) => g.label), ["Hold'em", 'Omaha', 'Five Card Draw']);
  assert.deepEqual(groups[0].tables.map((t) => [t.table, t.online]), [['t1', true], ['t2', false]]);
  assert.deepEqual(groups[0].tables[0].players.map((p) => p.seat), [1, 2]);
  assert.equal(groups[0].tables[0].line, "No Limit Hold'em 50/100");
  // the room's lobby bridged in (issue 18): every table of the room, with its waiting list
  const room = L.lobbyGroups({ t1: entry('t1', 'holdem', 'A table', 2),
    lobby: { tables: [{ ...entry('t1', 'holdem', 'A table', 1), waiting: 3 }, { ...entry('o9', 'omaha', 'Omaha 9', 4), waiting: 0 }] } });
  assert.deepEqual(room.map((g) => g.tables.map((t) => [t.table, t.seated, t.waiting])), [[['t1', 2, 3]], [['o9', 4, 0]]]);
  assert.equal(L.lobbyGroups({ t1: entry('t1', 'holdem', 'A table', 2) })[0].tables[0].waiting, null);
});

test('P-4: last hands newest first with this seat\'s net and the cards the view allows', () => {
  const history = { schema: 1, table: 't1', view: 'seated', hands: [
    { hand: 1, board: ['Jh', '8c', '3d', '2s', 'Kc'], seats: [
      { seat: 3, name: 'Cy', cards: ['Qs', 'Qd'], showed: 'mucked', net: -600 },
      { seat: 1, name: 'Ann', cards: ['As', 'Ad'], showed: 'shown', net: 600 }],
    pots: [{ amount: 1200, winners: [1], hand: 'Three of a kind, aces' }] },
    { hand: 2, board: [], seats: [{ seat: 3, name: 'Cy', cards: null, showed: 'folded', net: -50 }], pots: [] }] };
  const rows = L.historyRows(history, 3);
  assert.deepEqual(rows.map((r) => [r.hand, r.net]), [[2, -50], [1, -600]]);
  assert.ok(rows[1].lines.includes('Seat 3 Cy: mucked Qs Qd (-600)'));
  assert.ok(rows[1].lines.includes('Pot 1,200 to Ann: Three of a kind, aces')); // the winner by name
  assert.equal(rows[0].lines[0], 'Seat 3 Cy: folded (-50)');
  assert.deepEqual(L.historyRows(null, 3), []);
});

test('P-4: several pots won by the same hand say the hand once (issue 20)', () => {
  const history = { schema: 1, table: 't1', view: 'seated', hands: [
    { hand: 4, board: ['Jh', '8c', '3d', '2s', 'Kc'], seats: [{ seat: 1, name: 'Ann', cards: ['As', 'Ad'], showed: 'shown', net: 900 }],
      pots: [{ amount: 900, winners: [1], hand: 'Three of a kind, aces' }, { amount: 400, winners: [1], hand: 'Three of a kind, aces' },
        { amount: 200, winners: [2], hand: 'Two pair, kings and eights' }] }] };
  const pots = L.historyRows(history, 1)[0].lines.filter((l) => l.startsWith('Pot '));
  assert.deepEqual(pots, ['Pot 900 to Ann: Three of a kind, aces', 'Pot 400 to Ann',
    'Pot 200 to Seat 2: Two pair, kings and eights']);
});

test('the table is drawn from this seat: ours at the bottom, the next seat clockwise to its left', () => {
  assert.deepEqual(L.seatPosition(3, 3, 6), { x: 50, y: 90 });
  const left = L.seatPosition(4, 3, 6);
  assert.ok(left.x < 50 && left.y > 50);
  const across = L.seatPosition(6, 3, 6);
  assert.equal(across.x, 50);
  assert.ok(across.y < 50);
  assert.deepEqual(L.seatPosition(1, 1, 9), { x: 50, y: 90 });
});

test('docs/mqtt.md replies: accepted, duplicates and M-5 ignored, M-4 told and never resent', () => {
  const ok = { id: 'a', accepted: true, reason: null };
  assert.equal(L.replyOutcome(ok, false), 'accepted');
  assert.equal(L.replyOutcome(ok, true), 'ignore');
  const dup = { id: 'a', accepted: false, reason: 'M-5: id already received' };
  assert.equal(L.replyOutcome(dup, true), 'ignore');
  assert.equal(L.replyOutcome(dup, false), 'ignore');
  // a pre-selection whose round is over, a seat request from the seat's last player: a
  // newer seq would apply them to a round or a player they were not made for
  const stale = { id: 'b', accepted: false, reason: 'M-4: stale state seq 12: the betting round it was made in is over' };
  assert.equal(L.replyOutcome(stale, false), 'refused');
  const late = { id: 'c', accepted: false, reason: 'T-7: over the buy-in maximum' };
  assert.equal(L.replyOutcome(late, true), 'refused'); // the table refused after taking it in
  assert.equal(L.replyOutcome({ id: 'd', accepted: false, reason: 'A-1: it is not your turn' }, false,
    { action: 'check', tries: 1 }), 'refused');
});

test('P-2: show or muck on the showdown turn; the uncalled winner may only show; nothing otherwise', () => {
  const none = { fold: false, check: false, call: null, bet: null, raise: null, all_in: null, draw: null };
  const turn = L.showdownChoice({ to_act: true, legal: { ...none, show: true, muck: true } });
  assert.equal(turn.show, true);
  assert.equal(turn.muck, true);
  assert.match(turn.hint, /show or muck/);
  const offer = L.showdownChoice({ to_act: false, legal: { ...none, show: true, muck: false } });
  assert.deepEqual([offer.show, offer.muck], [true, false]);
  assert.match(offer.hint, /won uncalled/);
  assert.equal(L.showdownChoice({ to_act: true, legal: { ...none, fold: true, call: 100, show: false, muck: false } }), null);
  assert.equal(L.showdownChoice({ to_act: false, legal: null }), null);
  assert.equal(L.showdownChoice(null), null);
  // the showdown turn is the player's turn; the buttons of betting are not offered
  assert.equal(L.screenState({ settingsOk: true, everConnected: true, connected: true, caughtUp: true,
    controllerOnline: true, state: state({ street: 'showdown' }), priv: { to_act: true, legal: { ...none, show: true, muck: true } } }),
  'your-turn');
  assert.deepEqual(L.actionButtons({ ...none, show: true, muck: true }, state(), 3).buttons, []);
});

test('P-2: the auto-muck preference is sent with its choice', () => {
  assert.deepEqual(L.actionPayload({ id: 's3-a-4', seat: 3, seq: 7, action: 'auto_muck', choice: 'on' }),
    { schema: 1, id: 's3-a-4', seat: 3, seq: 7, action: 'auto_muck', amount: null, choice: 'on' });
  assert.deepEqual(L.actionPayload({ id: 's3-a-5', seat: 3, seq: 7, action: 'muck' }),
    { schema: 1, id: 's3-a-5', seat: 3, seq: 7, action: 'muck', amount: null });
});

test('T-1: seat slots never overlap each other nor the middle, on a phone and a tablet', () => {
  const overlap = (a, b) => Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 0.5
    && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 0.5;
  for (const [W, w, h] of [[374, 96, 86], [760, 120, 100], [900, 144, 110], [300, 96, 86]]) {
    for (let n = 2; n <= 10; n += 1) {
      for (const me of [1, Math.min(3, n), n]) {
        const out = L.seatSlots(n, me, W, h, w, 6, 120);
        const boxes = Object.entries(out.seats).map(([s, c]) => ({ s, x: c.x - w / 2, y: c.y - h / 2, w, h }));
        assert.equal(boxes.length, n);
        assert.deepEqual(out.seats[me], { x: W / 2, y: out.H - h / 2 }, 'my seat at the bottom centre');
        assert.ok(out.middle.h >= 120 && (W < 374 || out.middle.w >= w), `middle ${JSON.stringify(out.middle)} n=${n} W=${W}`);
        for (const b of boxes) {
          assert.ok(b.x >= -0.5 && b.x + w <= W + 0.5 && b.y >= -0.5 && b.y + h <= out.H + 0.5, `seat ${b.s} outside`);
          assert.ok(!overlap(b, out.middle), `seat ${b.s} on the middle n=${n} W=${W}`);
          for (const c of boxes) if (c !== b) assert.ok(!overlap(b, c), `seats ${b.s} and ${c.s} overlap n=${n} W=${W}`);
        }
        // clockwise: the seat after mine is on my left (lower x), the one before on my right
        if (n > 2) assert.ok(out.seats[(me % n) + 1].x < W / 2 && out.seats[((me + n - 2) % n) + 1].x > W / 2);
      }
    }
  }
});

test('S-8: a call that takes every chip is one button, "Call all-in", not Call beside All-in (issue 20)', () => {
  const s = state();
  s.seats[2].stack = 9900;
  const legal = { fold: true, check: false, call: 9900, bet: null, raise: null, all_in: 9900, draw: null };
  const ui = L.actionButtons(legal, s, 3);
  assert.deepEqual(ui.buttons.map((b) => `${b.action}:${b.label}`), ['fold:Fold', 'call:Call all-in 9,900']);
  // with chips left after the call the all-in stays its own button
  const deep = { ...legal, call: 200, raise: { min: 400, max: 9900 } };
  assert.deepEqual(L.actionButtons(deep, s, 3).buttons.map((b) => b.action), ['fold', 'call', 'raise', 'all_in']);
});

test('T-4/T-6: post now or wait for the big blind only for a seat that owes a blind (issue 20)', () => {
  const s = state();
  assert.equal(L.owesBlinds({ ...s.seats[2], status: 'waiting' }), false); // a new player, owes nothing
  assert.equal(L.owesBlinds({ ...s.seats[2], status: 'waiting', missed: { sb: false, bb: true } }), true);
  assert.equal(L.owesBlinds({ ...s.seats[2], status: 'sitting-out', missed: { sb: true, bb: false } }), true);
  assert.equal(L.owesBlinds({ ...s.seats[2], status: 'active', missed: { sb: false, bb: true } }), false);
  assert.equal(L.owesBlinds(null), false);
});

test('T-6: a seat that missed both blinds says it owes both, "missed SB+BB" (it read "missed BB")', () => {
  const s = state();
  L.setLanguage('en');
  assert.equal(L.missedText({ ...s.seats[2], missed: { sb: true, bb: true } }), 'missed SB+BB');
  assert.equal(L.missedText({ ...s.seats[2], missed: { sb: false, bb: true } }), 'missed BB');
  assert.equal(L.missedText({ ...s.seats[2], missed: { sb: true, bb: false } }), 'missed SB');
  assert.equal(L.missedText(s.seats[2]), '');
  assert.equal(L.missedText({ seat: 3, status: 'empty' }), '');
  assert.equal(L.missedText(null), '');
  L.setLanguage('nl', { 'missed {blind}': '{blind} gemist' });
  try {
    assert.equal(L.missedText({ ...s.seats[2], missed: { sb: true, bb: true } }), 'SB+BB gemist');
  } finally {
    L.setLanguage('en');
  }
});

test('T-2: a busted seat is offered the buy-in again, in the range; the dealer confirms it at a confirm table', () => {
  const s = state({ street: 'waiting', buy_in: { min: 2000, max: 10000 }, join: { mode: 'direct', post_now: [] } });
  s.seats[2] = { ...s.seats[2], stack: 0, bet: 0, status: 'sitting-out' };
  assert.deepEqual(L.rebuyOffer(s, 3), { min: 2000, max: 10000, dealer: false, confirm: false });
  // issue 20: a confirm table takes the request too; the dealer's confirm brings the chips
  assert.deepEqual(L.rebuyOffer({ ...s, join: { mode: 'confirm', post_now: [] } }, 3),
    { min: 2000, max: 10000, dealer: false, confirm: true });
  assert.deepEqual(L.rebuyOffer({ ...s, join: { mode: 'off', post_now: [] } }, 3),
    { min: 2000, max: 10000, dealer: true, confirm: false });
  assert.equal(L.rebuyOffer(s, 4), null); // chips on the stack: a top-up, not a buy-in
  s.seats[2].buy_in_pending = 3000;
  assert.equal(L.rebuyOffer(s, 3), null); // already asked; the dealer confirms it
  s.seats[2] = { ...s.seats[2], buy_in_pending: 0, status: 'all-in' };
  assert.equal(L.rebuyOffer(s, 3), null); // all-in in a running hand: not busted yet
});

test('issue 20: players read no rule ids; the sense stays', () => {
  assert.equal(L.plainText('T-2: the buy-in is at least 2,000'), 'The buy-in is at least 2,000');
  assert.equal(L.plainText('Seated: you are dealt in from a coming hand (T-3, T-4)'), 'Seated: you are dealt in from a coming hand');
  assert.equal(L.plainText('Bob mucks [As Kd] (P-4: not shown publicly)'), 'Bob mucks [As Kd] (not shown publicly)');
  assert.equal(L.plainText('posts a big blind to play (T-4/T-6)'), 'Posts a big blind to play');
  assert.equal(L.plainText('Refused: M-4: the table moved on (A-1)'), 'Refused: the table moved on');
  assert.equal(L.plainText('Pair of 10s, 3-4 left'), 'Pair of 10s, 3-4 left'); // not an id
});

test('P-1/R-1: pots and winners as a dealer announces them, main pot first, rake shown (issue 20)', () => {
  assert.equal(L.potLine(2, 3538), 'Side pot 2: 3,538');
  const s = state({ rake: 300, showdown: [
    { pot: 1, amount: 23538, winners: [1, 3], shares: { 1: 11769, 3: 11769 }, hand: 'Straight, ace high' },
    { pot: 0, amount: 40000, winners: [4], shares: { 4: 39700 }, hand: 'Three of a kind, kings' },
  ] });
  assert.deepEqual(L.showdownLines(s), [
    'Main pot 40,000: P4 wins 39,700 (three of a kind, kings)',
    'Side pot 1 23,538 split: P1 11,769, P3 11,769 (straight, ace high)',
    'Rake 300',
  ]);
  assert.deepEqual(L.showdownLines(state()), []);
  const perPot = state({ rake: 300, showdown: [
    { pot: 0, amount: 40000, winners: [4], shares: { 4: 39700 }, rake: 300, hand: 'Flush' }] });
  assert.deepEqual(L.showdownLines(perPot), ['Main pot 40,000: P4 wins 39,700 (flush) · rake 300']); // where it was taken
  assert.deepEqual([...L.winnerSeats(s)].sort(), [1, 3, 4]);
});

test('A-1: each seat says its last action this round (issue 20)', () => {
  const s = state().seats[3];
  assert.equal(L.lastActionText({ ...s, last_action: { action: 'raise', to: 900 } }), 'Raise to 900');
  assert.equal(L.lastActionText({ ...s, bet: 300, last_action: { action: 'call', to: null } }), 'Call 300');
  assert.equal(L.lastActionText({ ...s, last_action: { action: 'check', to: null } }), 'Check');
  assert.equal(L.lastActionText({ ...s, last_action: { action: 'all_in', to: 5000 } }), 'All-in 5,000');
  assert.equal(L.lastActionText({ ...s, last_action: null }), '');
});

test('H-1: the five cards that won are known per seat and on the board (issue 20)', () => {
  const s = state({ showdown: [{ pot: 0, amount: 600, winners: [4], shares: { 4: 600 }, hand: 'Pair of jacks',
    best: { 4: ['Jh', 'Jc', 'As', 'Kd', '8c'] } }] });
  const w = L.winningCards(s);
  assert.deepEqual([...w.bySeat.get(4)], ['Jh', 'Jc', 'As', 'Kd', '8c']);
  assert.ok(w.all.has('Jh') && !w.all.has('3d'));
  assert.equal(L.winningCards(state()).all.size, 0);
});

test('issue 20: initials, the last resort for a name no seat can hold', () => {
  assert.equal(L.initials('Frank van Dijk'), 'F. v. D.');
  assert.equal(L.initials('Jan-Willem'), 'J. W.');
  assert.equal(L.initials('Bartholomeus'), 'Bartho.');
  assert.equal(L.initials(''), '');
});

test('issue 20: another device on the seat is seen in the seat presence, and the screen says so', () => {
  assert.equal(L.seatTakenBy({ schema: 1, online: true, device: 'b' }, 'a'), true);
  assert.equal(L.seatTakenBy({ schema: 1, online: false, device: 'b' }, 'a'), true); // its Last Will
  assert.equal(L.seatTakenBy({ schema: 1, online: false, device: 'a' }, 'a'), false); // our own drop
  assert.equal(L.seatTakenBy({ schema: 1, online: true }, 'a'), false); // an older page: no device
  assert.equal(L.seatTakenBy(null, 'a'), false);
  assert.equal(L.takenOver({ reasonCode: 142 }), true);
  assert.equal(L.takenOver({ reasonCode: 0 }), false);
  assert.deepEqual(JSON.parse(L.presencePayload(true, 'a')), { schema: 1, online: true, device: 'a' });
  const base = { settingsOk: true, everConnected: true, connected: false, caughtUp: true, controllerOnline: true };
  assert.equal(L.screenState({ ...base, replaced: true }), 'replaced');
  assert.equal(L.screenState(base), 'reconnecting');
});

test('issue 20: the total pot with the bets in front of the players shows, also before the flop', () => {
  const pre = state({ pots: [] });
  pre.seats.forEach((x) => { x.bet = 0; });
  pre.seats[0].bet = 50; pre.seats[1].bet = 100; pre.seats[2].bet = 650;
  assert.deepEqual(L.potLines(pre), [{ text: 'Total: 800', total: true }]);
  const flop = state();
  assert.deepEqual(L.potLines(flop).map((l) => l.text), ['Main pot: 600', 'Total: 800']);
  flop.seats.forEach((x) => { x.bet = 0; });
  assert.deepEqual(L.potLines(flop).map((l) => l.text), ['Main pot: 600']); // no bets out: no total
});
