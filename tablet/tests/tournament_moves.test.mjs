// The room's multi-table tournament's moves on the seat tablet (issue 19): the view's `moves`
// (docs/tournament.md) as the page says them over the table. `node --test tablet/tests/`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as L from '../js/logic.js';

const NL = JSON.parse(readFileSync(new URL('../i18n/nl.json', import.meta.url), 'utf8'));
const OUT = { kind: 'out', player: 'p17', name: 'Player 17', seat: 3, table: 't2', table_name: 'Birch', to_seat: 6 };
const IN = { kind: 'in', player: 'p9', name: 'Player 9', seat: 5, table: 't1', table_name: 'Aspen' };

test('issue 19: a move said at the source, on the mover\'s own tablet, and at the target', () => {
  L.setLanguage('en');
  assert.deepEqual(L.moveTexts({ moves: [OUT, IN] }, 1),
    ['Player 17 moves to Birch (t2) seat 6', 'Player 9 from Aspen (t1)']);
  assert.deepEqual(L.moveTexts({ moves: [OUT] }, 3), ['You move to Birch (t2) seat 6']);
  assert.deepEqual(L.moveTexts({ moves: [{ ...OUT, table_name: 't2' }] }, 1), ['Player 17 moves to t2 seat 6']);
});

test('issue 19: a table break names where its players go; malformed notices are skipped', () => {
  L.setLanguage('en');
  const tv = { moves: [{ kind: 'break', tables: ['Aspen (t1)', 'Birch (t2)'] }, OUT, null, 'x', { kind: 'out' }] };
  assert.deepEqual(L.moveTexts(tv, 1), ['Table breaks: players move to Aspen (t1), Birch (t2)',
    'Player 17 moves to Birch (t2) seat 6']);
  assert.deepEqual(L.moveTexts({}, 1), []);
  assert.deepEqual(L.moveTexts(null, 1), []);
});

test('issue 19: moves in Dutch', () => {
  L.setLanguage('nl', NL);
  try {
    assert.deepEqual(L.moveTexts({ moves: [OUT, IN] }, 3),
      ['U gaat naar Birch (t2) stoel 6', 'Player 9 komt van Aspen (t1)']);
  } finally {
    L.setLanguage('en');
  }
});

test('issue 19: places paid and hand-for-hand at the room\'s tables', () => {
  L.setLanguage('en');
  const tv = { level: { number: 3, small_blind: 100, big_blind: 200 }, players_left: 10, entries: 12,
    average_stack: 2400, prize_pool: 1200, places_paid: 9, hand_for_hand: true };
  assert.equal(L.tournamentLines(tv).numbers, 'Players 10/12 · Avg 2,400 · Pool 1,200 · Paid 9 · Hand for hand');
});

test('issue 19: a notice whose time is past is not said (a retained state read late)', () => {
  L.setLanguage('en');
  const tv = { moves: [{ ...OUT, until: 100 }, { ...IN, until: 200 }] };
  assert.deepEqual(L.moveTexts(tv, 1, 150), ['Player 9 from Aspen (t1)']);
  assert.deepEqual(L.moveTexts(tv, 1, 200), []);
  assert.equal(L.moveTexts(tv, 1).length, 2);
});
