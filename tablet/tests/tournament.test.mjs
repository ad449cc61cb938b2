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

test('issue 19: the tournament in Dutch', () => {
  L.setLanguage('nl', NL);
  try {
    assert.equal(L.seatBigBlinds(view(), 1), '12,5 BB');
    assert.equal(L.tournamentLines(view({ average_stack: 12400 })).numbers, 'Spelers 5/6 · Gem. 12.400 · Prijzenpot 600');
  } finally {
    L.setLanguage('en');
  }
});
