// A deal offered to the final players on their tablets (issue 19): the view's deal_offer as
// the page shows it. `node --test tablet/tests/` (tests/tablet/test_tablet_logic.py in CI).
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as L from '../js/logic.js';

const NL = JSON.parse(readFileSync(new URL('../i18n/nl.json', import.meta.url), 'utf8'));

function state(offer, ended = null) {
  return { seq: 9, tournament_view: {
    level: { number: 3, small_blind: 100, big_blind: 200, ante: 0, big_blind_ante: 0 },
    next_level: null, seconds_left: 100, running: true, at: 1000, on_break: false, players_left: 3,
    entries: 6, average_stack: 4000, prize_pool: 1000, finished: false, seats_bb: {},
    deal_offer: offer, deal_ended: ended } };
}

const OFFER = { offer: 2, method: 'icm', unit: 1, total: 1000, prizes: [500, 300, 200], accepted: 1, of: 3,
  agreed: false, words: '1 of 3 accepted',
  players: [{ seat: 1, name: 'Ann', stack: 6000, share: 402, accepted: false },
    { seat: 4, name: 'Bob', stack: 4000, share: 334, accepted: true },
    { seat: 6, name: 'Cy', stack: 2000, share: 264, accepted: false }] };

test('issue 19: every player\'s figures, the prizes if play goes on, how many accepted', () => {
  L.setLanguage('en');
  const d = L.dealOffer(state(OFFER), 1);
  assert.equal(d.title, 'Deal offered: ICM');
  assert.deepEqual(d.rows.map((r) => [r.seat, r.name, r.stack, r.share, r.accepted, r.me]), [
    [1, 'Ann', '6,000', '402', false, true], [4, 'Bob', '4,000', '334', true, false],
    [6, 'Cy', '2,000', '264', false, false]]);
  assert.equal(d.prizes, 'If play goes on: 1st 500 \u00b7 2nd 300 \u00b7 3rd 200');
  assert.equal(d.status, '1 of 3 accepted');
  assert.deepEqual(d.buttons, [{ action: 'deal_accept', label: 'Accept the deal', offer: 2 },
    { action: 'deal_decline', label: 'Decline', offer: 2 }]);
});

test('issue 19: a seat that accepted may still decline; a seat not in the deal has no buttons', () => {
  L.setLanguage('en');
  const bob = L.dealOffer(state(OFFER), 4);
  assert.equal(bob.accepted, true);
  assert.deepEqual(bob.buttons.map((b) => b.action), ['deal_decline']);
  const other = L.dealOffer(state(OFFER), 2);
  assert.equal(other.mine, false);
  assert.deepEqual(other.buttons, []);
  assert.equal(other.status, '1 of 3 accepted'); // the others still see the figures
});

test('issue 19: agreed by every player: no buttons, the director confirms', () => {
  L.setLanguage('en');
  const agreed = { ...OFFER, agreed: true, players: OFFER.players.map((p) => ({ ...p, accepted: true })) };
  const d = L.dealOffer(state(agreed), 6);
  assert.equal(d.status, 'Deal agreed \u2014 the director confirms');
  assert.deepEqual(d.buttons, []);
  assert.equal(L.dealOffer(state({ ...OFFER, method: 'chip-chop' }), 1).title, 'Deal offered: chip chop');
});

test('issue 19: an offer over says why; nothing offered or a view not the shape expected is null', () => {
  L.setLanguage('en');
  assert.deepEqual(L.dealOffer(state(null, { offer: 2, reason: 'Cy declined' }), 1),
    { ended: 'Deal offer 2 is over: Cy declined' });
  assert.equal(L.dealOffer(state(null), 1), null);
  assert.equal(L.dealOffer(state({ offer: 'x', players: [] }), 1), null);
  assert.equal(L.dealOffer(state({ offer: 1, players: 'no' }), 1), null);
  assert.equal(L.dealOffer({ seq: 1 }, 1), null); // a cash table
  const odd = L.dealOffer(state({ offer: 1, players: [{ seat: 2, name: 'Z', stack: 'lots', share: null }, null] }), 2);
  assert.deepEqual(odd.rows.map((r) => [r.stack, r.share]), [['?', '0']]);
});

test('issue 19: the deal in Dutch', () => {
  L.setLanguage('nl', NL);
  const d = L.dealOffer(state(OFFER), 1);
  assert.equal(d.status, '1 van 3 akkoord');
  assert.equal(d.rows[0].stack, '6.000');
  assert.equal(d.buttons[0].label, 'Deal aannemen');
  assert.equal(d.prizes, 'Als er doorgespeeld wordt: 1e 500 \u00b7 2e 300 \u00b7 3e 200');
  L.setLanguage('en');
});
