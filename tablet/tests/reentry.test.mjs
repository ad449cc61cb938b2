// A tournament re-entry asked at the busted player's seat tablet (issue 19, TDA 9): the
// Re-enter button from the room's offer, the words while the dealer has to confirm it (he
// takes the money, T-3) and while the director decides, his answer;
// the request on the seat's lobby topic names no player. `node --test tablet/tests/`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as L from '../js/logic.js';

const NL = JSON.parse(readFileSync(new URL('../i18n/nl.json', import.meta.url), 'utf8'));

function state(over = {}) {
  return { seats: [{ seat: 3, status: 'empty' }], tournament_view: {
    level: { number: 2, small_blind: 50, big_blind: 100, ante: 0, big_blind_ante: 0 }, running: true,
    players_left: 20, entries: 21, out: { 3: { name: 'Anna', place: 21, tied_to: 21, prize: 0 } }, ...over } };
}

test('issue 19: the busted seat is offered a re-entry while the room allows it', () => {
  L.setLanguage('en');
  assert.deepEqual(L.reentryOffer(state({ reentry: { 3: { left: 1, until_level: 4 } } }), 3),
    { button: { op: 'reenter', label: 'Re-enter (1 left, until end of level 4)' }, waiting: null });
  assert.equal(L.reentryOffer(state({ reentry: { 3: { left: 1, until_level: 4 } } }), 4), null); // another seat
  assert.equal(L.reentryOffer(state({ reentry: {} }), 3), null); // closed, or none left: no button
  assert.equal(L.reentryOffer(state({ reentry: { 3: { left: 0, until_level: 4 } } }), 3), null);
  assert.equal(L.reentryOffer(state({ reentry: { 3: 'yes' } }), 3), null); // a bad view shows nothing
  assert.equal(L.reentryOffer({ seats: [] }, 3), null); // a cash table
  L.setLanguage('nl', NL);
  assert.equal(L.reentryOffer(state({ reentry: { 3: { left: 2, until_level: 6 } } }), 3).button.label,
    'Re-entry (2 over, tot het einde van level 6)');
  L.setLanguage('en');
});

test('issue 19: the seat says the re-entry waits, where the room seats him, or why it refused', () => {
  L.setLanguage('en');
  const offer = { 3: { left: 1, until_level: 4 } };
  // pressed: it waits for the dealer, who takes the money (T-3); nothing goes to the room yet
  assert.deepEqual(L.reentryOffer(state({ reentry: offer, asked: { 3: 'reentry' } }), 3),
    { button: null, waiting: 'Re-entry asked: pay the dealer, who confirms it' });
  // the dealer confirmed: sent to the room's director
  assert.deepEqual(L.reentryOffer(state({ reentry: offer, asked: { 3: 'reentry' }, sent: { 3: 'reentry' } }), 3),
    { button: null, waiting: 'Re-entry sent: the director registers it' });
  L.setLanguage('nl', NL);
  assert.equal(L.reentryOffer(state({ reentry: offer, asked: { 3: 'reentry' } }), 3).waiting,
    'Re-entry gevraagd: betaal de dealer, die het bevestigt');
  L.setLanguage('en');
  assert.deepEqual(L.reentryOffer(state({ reentry_answer: { 3: { entry: { table: 't2', table_name: 'Oak', seat: 4 } } } }), 3),
    { button: null, waiting: 'Re-entry booked: go to Oak seat 4' });
  const why = 'TDA 9: late registration closed at the end of level 4 (level 5 now)';
  assert.deepEqual(L.reentryOffer(state({ reentry_answer: { 3: { why } } }), 3),
    { button: null, waiting: `Re-entry refused: ${why}` });
  // refused while the room still offers it (the seat was taken meanwhile...): he may ask again
  assert.deepEqual(L.reentryOffer(state({ reentry: offer, reentry_answer: { 3: { why: 'F-3: busy' } } }), 3).button,
    { op: 'reenter', label: 'Re-enter (1 left, until end of level 4)' });
  // the rebuy's words are not taken for it
  assert.equal(L.purchaseOffer(state({ asked: { 3: 'reentry' } }), 3), null);
});

test('issue 19: the request goes on the seat lobby topic with no list and no name', () => {
  assert.deepEqual(L.lobbyRequestPayload({ id: 'r1', seat: 3, op: 'reenter', list: 'no-limit holdem 1/2' }),
    { schema: 1, id: 'r1', seat: 3, op: 'reenter', list: null });
});
