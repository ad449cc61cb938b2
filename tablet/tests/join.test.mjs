// Taking this free seat from the tablet (T-3, T-2, T-4): `node --test tablet/tests/`.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as L from '../js/logic.js';

function state(over = {}) {
  const seats = [1, 2, 3, 4].map((n) => ({ seat: n, name: n === 3 ? null : `P${n}`, stack: n === 3 ? 0 : 5000,
    bet: 0, status: n === 3 ? 'empty' : 'active', missed: { sb: false, bb: false }, cards: 0, shown: null,
    drew: null, connected: n !== 3, posted_dead: 0 }));
  return { schema: 1, table: 't1', name: 'Table 1', seq: 4, hand: 2, game: 'holdem', limit: 'no-limit',
    stakes: { sb: 50, bb: 100, ante: 0, small_bet: null, big_bet: null }, max_seats: 4,
    buy_in: { min: 2000, max: 10000 }, join: { mode: 'direct', post_now: [3] }, street: 'waiting',
    seats, turn: null, showdown: null, all_in_equity: null, fault: null, paused: false, rake: 0, ...over };
}

test('T-3: the free seat is offered with the buy-in range and the T-4 post-now choice', () => {
  assert.deepEqual(L.joinOffer(state(), 3), { min: 2000, max: 10000, postNow: true });
  assert.equal(L.joinOffer(state({ join: { mode: 'direct', post_now: [] } }), 3).postNow, false); // T-4
  assert.equal(L.joinOffer(state(), 2), null); // taken
  assert.equal(L.joinOffer(state({ join: { mode: 'off', post_now: [] } }), 3), null); // the floor seats
  assert.equal(L.joinOffer(state({ join: undefined }), 3), null); // an older table: no joining
  assert.equal(L.joinOffer(null, 3), null);
  const fl = L.joinOffer(state({ limit: 'fixed-limit', buy_in: { min: 2000, max: null } }), 3);
  assert.deepEqual([fl.min, fl.max], [2000, null]);
});

test('T-2: the buy-in must be whole chips within the range', () => {
  const offer = L.joinOffer(state(), 3);
  assert.equal(L.checkBuyIn('2000', offer), 2000);
  assert.equal(L.checkBuyIn(10000, offer), 10000);
  for (const bad of ['', '1999', '10001', '2500.5', 'abc', '-3', null]) {
    assert.throws(() => L.checkBuyIn(bad, offer), /^Error: T-2/, String(bad));
  }
  assert.equal(L.checkBuyIn('99999999', { min: 2000, max: null }), 99999999); // fixed limit: no maximum
});

test('M-2: names are checked as the driver checks them', () => {
  assert.equal(L.cleanName('  Ann-Marie O\'Neil '), 'Ann-Marie O\'Neil');
  assert.equal(L.cleanName('Jose\u0301'), 'Jos\u00e9');
  const gothic = '\u{10330}'.repeat(20); // 20 code points, 40 UTF-16 units: the table takes it
  assert.equal(L.cleanName(gothic), gothic);
  for (const bad of ['', '   ', 'A'.repeat(21), 'Ann\tLee', 'Ann  Lee', '<b>', 'Ann \u{1F600}', 'Ann\u202e', '\u0301\u0301', '._-']) {
    assert.throws(() => L.cleanName(bad), /^Error: (M-2|T-3)/, JSON.stringify(bad));
  }
});

test('docs/mqtt.md: take_seat carries name and post; other actions do not; M-4 is told, not resent', () => {
  const p = L.actionPayload({ id: 's3-a-1', seat: 3, seq: 4, action: 'take_seat', amount: 2000, name: 'Ann', post: true });
  assert.deepEqual(p, { schema: 1, id: 's3-a-1', seat: 3, seq: 4, action: 'take_seat', amount: 2000, name: 'Ann', post: true });
  const q = L.actionPayload({ id: 's3-a-2', seat: 3, seq: 4, action: 'sit_in', name: 'Ann', post: true });
  assert.equal('name' in q || 'post' in q, false);
  assert.equal(L.replyOutcome({ accepted: false, reason: 'M-4: stale state seq 4: seat 3 has changed players since' }, false), 'refused');
  assert.equal(L.replyOutcome({ accepted: false, reason: 'T-2: too much' }, false), 'refused');
});
