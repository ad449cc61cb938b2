// The tournament on the seat tablet (issue 19): the public state's tournament_view as the
// page shows it. `node --test tablet/tests/` (tests/tablet/test_tablet_logic.py in CI).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as L from '../js/logic.js';

const NL = JSON.parse(readFileSync(new URL('../i18n/nl.json', import.meta.url), 'utf8'));

function view(over = {}) {
  return { level: { number: 3, small_blind: 100, big_blind: 200, ante: 0, big_blind_ante: 200 },
    next_level: { number: 4, small_blind: 200, big_blind: 400, ante: 0, big_blind_ante: 400 },
    seconds_left: 522, running: true, at: 1000, on_break: false, players_left: 5, entries: 6,
    average_stack: 2400, prize_pool: 600, finished: false, seats_bb: { 1: 125, 4: 80 }, ...over };
}

test('issue 19: level, next level and the numbers of a tournament', () => {
  L.setLanguage('en');
  assert.deepEqual(L.tournamentLines(view()), {
    level: 'Level 3 · 100/200 BB ante 200', next: 'Next 200/400 BB ante 400',
    numbers: 'Players 5/6 · Avg 2,400 · Pool 600' });
  assert.equal(L.tournamentLines(view({ next_level: null })).next, 'Last level');
  const onBreak = L.tournamentLines(view({ on_break: true }));
  assert.equal(onBreak.level, 'Break · Level 3 next');
  assert.equal(onBreak.next, 'Next 100/200 BB ante 200');
  assert.equal(L.tournamentLines(view({ level: { number: 2, small_blind: 50, big_blind: 100, ante: 25,
    big_blind_ante: 0 } })).level, 'Level 2 · 50/100 ante 25');
});

test('issue 19: the level clock counts down from the published moment while it runs', () => {
  assert.equal(L.levelTimeLeft(view(), 1000), '8:42');
  assert.equal(L.levelTimeLeft(view(), 1061.5), '7:41');
  assert.equal(L.levelTimeLeft(view(), 1061.5, 61.5), '8:42'); // the tablet's clock runs 61.5 s ahead
  assert.equal(L.levelTimeLeft(view(), 99999), '0:00');
  assert.equal(L.levelTimeLeft(view({ running: false }), 2000), '8:42');
  assert.equal(L.levelTimeLeft(view({ seconds_left: null }), 2000), '--:--');
});

test('issue 19: each seat\'s stack in big blinds, none for a seat the view does not list', () => {
  L.setLanguage('en');
  assert.equal(L.seatBigBlinds(view(), 1), '12.5 BB');
  assert.equal(L.seatBigBlinds(view(), 4), '8 BB');
  // from 100 big blinds whole ones (the phone's seat has the room of "99.9 BB")
  assert.equal(L.seatBigBlinds({ seats_bb: { 1: 999, 2: 1000, 3: 1234, 4: 12_349 } }, 1), '99.9 BB');
  assert.equal(L.seatBigBlinds({ seats_bb: { 1: 999, 2: 1000, 3: 1234, 4: 12_349 } }, 3), '123 BB');
  assert.equal(L.seatBigBlinds({ seats_bb: { 1: 999, 2: 1000, 3: 1234, 4: 12_349 } }, 4), '1,234 BB');
  assert.equal(L.seatBigBlinds(view(), 2), null);
  assert.equal(L.seatBigBlinds(null, 1), null);
  assert.equal(L.tournamentView({ tournament_view: view() }).prize_pool, 600);
  assert.equal(L.tournamentView({}), null);
  assert.equal(L.tournamentView({ tournament_view: { level: null } }), null);
});

test('issue 19: a seat that is out shows no stack in big blinds (a busted seat read "0 BB")', () => {
  L.setLanguage('en');
  const seat = (n, over = {}) => ({ seat: n, name: `P${n}`, stack: 2500, bet: 0, status: 'active', ...over });
  const tv = view({ seats_bb: { 1: 125, 2: 0, 3: 0, 4: 0, 5: 0 }, out: { 4: { name: 'P4', place: 5, prize: 0 } },
    rebuy_pending: { 5: { name: 'P5', asked: false } } });
  assert.equal(L.seatBigBlinds(tv, seat(1)), '12.5 BB'); // a live seat: its figure, as by number
  assert.equal(L.seatBigBlinds(tv, seat(2, { stack: 0, status: 'sitting-out' })), null); // busted this hand
  assert.equal(L.seatBigBlinds(tv, seat(2, { stack: 0, status: 'active' })), null); // lost it all at the showdown
  assert.equal(L.seatBigBlinds(tv, seat(3, { stack: 0, status: 'all-in', bet: 2500 })), '0 BB'); // still in the hand
  assert.equal(L.seatBigBlinds(tv, seat(4, { stack: 0, status: 'empty', name: null })), null); // Out — 5th
  assert.equal(L.seatBigBlinds(tv, seat(5, { stack: 0, status: 'empty' })), null); // kept for a rebuy
  assert.equal(L.seatIsOut(tv, seat(1)), false);
  assert.equal(L.seatIsOut(tv, seat(2, { stack: 0, status: 'sitting-out' })), true);
  assert.equal(L.seatIsOut(null, seat(1, { stack: 0, status: 'all-in' })), false);
  assert.equal(L.seatIsOut(tv, null), true);
});

test('issue 19: the tournament in Dutch', () => {
  L.setLanguage('nl', NL);
  try {
    assert.equal(L.seatBigBlinds(view(), 1), '12,5 BB');
    assert.equal(L.tournamentLines(view({ average_stack: 12400 })).numbers, 'Spelers 5/6 · Gem. 12.400 · Prijzenpot 600');
  } finally {
    L.setLanguage('en');
  }
});

test('issue 19: ½ Pot and Pot bet whole chips of the smallest one in play (no 137 in a 25-chip tournament)', () => {
  L.setLanguage('en');
  // pots 175, nobody bet: half pot 87, a pot bet 175; the smallest chip is 25
  const st = { limit: 'no-limit', stakes: { sb: 25, bb: 50, ante: 0, chip: 25 }, street: 'flop',
    pots: [{ amount: 175, eligible: [1, 3] }],
    seats: [{ seat: 1, bet: 0, stack: 2000, status: 'active' }, { seat: 3, bet: 0, stack: 2000, status: 'acting' }] };
  const legal = { fold: false, check: true, call: null, bet: { min: 50, max: 2000 }, raise: null, all_in: 2000 };
  const sl = L.sliderBounds(legal, st, 3);
  assert.deepEqual(sl.shortcuts.map((c) => [c.label, c.amount]), [['Min', 50], ['\u00bd Pot', 75], ['Pot', 175]]);
  for (const c of sl.shortcuts) assert.equal(c.amount % 25, 0);
  // without a chip in the state (an older controller) the sizes stay exact
  const { chip, ...stakes } = st.stakes;
  assert.deepEqual(L.sliderBounds(legal, { ...st, stakes }, 3).shortcuts.map((c) => c.amount), [50, 87, 175]);
});

test('issue 19: a busted seat says its place; its own tablet says the place and the prize', () => {
  L.setLanguage('en');
  const tv = view({ out: { 5: { name: 'Player 5', place: 5, tied_to: 5, prize: 0 },
    2: { name: 'Player 2', place: 2, tied_to: 2, prize: 120 } } });
  assert.equal(L.finishText(L.seatFinish(tv, 5), false), 'Out \u2014 5th');
  assert.equal(L.finishText(L.seatFinish(tv, 5), true), 'You finished 5th');
  assert.equal(L.finishText(L.seatFinish(tv, 2), true), 'You finished 2nd \u2014 120');
  assert.equal(L.seatFinish(tv, 3), null);
  assert.equal(L.seatFinish(view(), 5), null);
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 111].map((n) => L.ordinal(n)),
    ['1st', '2nd', '3rd', '4th', '11th', '12th', '13th', '21st', '22nd', '23rd', '111th']);
  L.setLanguage('nl', NL);
  assert.equal(L.finishText(L.seatFinish(tv, 2), true), 'Je eindigde als 2e \u2014 120');
  assert.equal(L.finishText(L.seatFinish(tv, 5), false), 'Uit \u2014 5e');
  L.setLanguage('en');
});

test('issue 19: the bar says when a simulation runs the clock faster than the wall', () => {
  L.setLanguage('en');
  assert.equal(L.tournamentLines(view({ clock_speed: 60 })).numbers,
    'Players 5/6 · Avg 2,400 · Pool 600 · clock \u00d760 (simulated)');
  assert.equal(L.tournamentLines(view({ clock_speed: 1 })).numbers, 'Players 5/6 · Avg 2,400 · Pool 600');
  assert.equal(L.tournamentLines(view({ clock_speed: null })).numbers, 'Players 5/6 · Avg 2,400 · Pool 600');
});

test('issue 19: the bar says Paused while the director has stopped the clock', () => {
  L.setLanguage('en');
  assert.equal(L.tournamentLines(view({ running: false })).level, 'Level 3 · 100/200 BB ante 200 · Paused');
  assert.equal(L.tournamentLines(view({ running: false, finished: true })).level, 'Level 3 · 100/200 BB ante 200');
  assert.equal(L.tournamentLines(view()).level, 'Level 3 · 100/200 BB ante 200');
  L.setLanguage('nl', NL);
  assert.match(L.tournamentLines(view({ running: false })).level, / · Gepauzeerd$/);
  L.setLanguage('en');
});

test('issue 19: a rebuy and an add-on offered at the seat, then waiting for the dealer', () => {
  L.setLanguage('en');
  const st = (over) => ({ tournament_view: view({ purchase_chips: { rebuy: 2000, addon: 3000 }, ...over }) });
  assert.deepEqual(L.purchaseOffer(st({ offers: { 3: ['rebuy', 'addon'] } }), 3).buttons,
    [{ action: 'rebuy', label: 'Rebuy 2,000' }, { action: 'addon', label: 'Add-on 3,000' }]);
  assert.equal(L.purchaseOffer(st({ offers: { 3: ['rebuy'] } }), 4), null);
  assert.equal(L.purchaseOffer({ seats: [] }, 3), null); // a cash table
  const waiting = L.purchaseOffer(st({ offers: { 3: ['rebuy'] }, asked: { 3: 'rebuy' } }), 3);
  assert.deepEqual(waiting, { buttons: [], waiting: 'Rebuy 2,000: pay the dealer, who confirms it' });
  // TFIX 7: busted in the rebuy period, the seat kept: rebuy or decline
  const busted = L.purchaseOffer(st({ offers: { 3: ['rebuy', 'decline_rebuy'] }, rebuy_pending: { 3: { name: 'P3' } } }), 3);
  assert.deepEqual(busted, { buttons: [{ action: 'rebuy', label: 'Rebuy 2,000' },
    { action: 'decline_rebuy', label: 'No rebuy' }], waiting: 'Busted \u2014 rebuy?' });
});

test('issue 19: at a room table the refusal of the last rebuy by the director is shown at the seat', () => {
  L.setLanguage('en');
  const st = (over) => ({ tournament_view: view({ purchase_chips: { rebuy: 2000, addon: 3000 }, ...over }) });
  const why = 'rebuy: stack 4000 is above the 2000 allowed';
  assert.deepEqual(L.purchaseOffer(st({ purchase_refused: { 3: why } }), 3),
    { buttons: [], waiting: `Refused by the director: ${why}` });
  assert.equal(L.purchaseOffer(st({ purchase_refused: { 3: why } }), 4), null);
  assert.equal(L.purchaseOffer(st({ purchase_refused: { 3: why }, asked: { 3: 'addon' } }), 3).waiting,
    'Add-on 3,000: pay the dealer, who confirms it');
});

test('issue 19: the colour-up break says who won a chip in the chip race', () => {
  L.setLanguage('en');
  const race = { removed: [25], chip: 100, seats: { 5: { name: 'P5', cards: ['As'], won: true },
    2: { name: 'P2', cards: ['Kd', '3c'], won: true }, 4: { name: 'P4', cards: ['2c'], won: false } } };
  assert.equal(L.raceText(view({ chip_race: race })), 'Chip race: seat 2, seat 5 win a 100');
  assert.match(L.tournamentLines(view({ on_break: true, chip_race: race })).numbers, /· Chip race: seat 2, seat 5 win a 100$/);
  assert.equal(L.raceText(view({ chip_race: { chip: 100, seats: { 4: { won: false } } } })), 'Chip race: no chip won');
  assert.equal(L.raceText(view()), '');
});
