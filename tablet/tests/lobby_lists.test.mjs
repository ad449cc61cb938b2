// The Lobby tab's waiting lists (issue 18): a row per list of the room's lobby, the seated
// player's place from the table's answer, and Join / Leave only for the player seated here.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as L from '../js/logic.js';

const NL = JSON.parse(readFileSync(new URL('../i18n/nl.json', import.meta.url), 'utf8'));
const LIST = 'no-limit holdem 1/2';
const room = {
  lobby: {
    tables: [{ table: 't1', name: 'Birch', game: 'holdem', limit: 'no-limit',
      stakes: { sb: 1, bb: 2, ante: 0, small_bet: null, big_bet: null }, seated: 6, max_seats: 9 }],
    lists: [{ game: 'no-limit holdem', stakes: '1/2', list: LIST, waiting: 4, open_seats: 0, tables: ['t1'] },
      { game: 'pot-limit omaha', stakes: '5/5', list: 'pot-limit omaha 5/5', waiting: 0, open_seats: 0, tables: [] }],
  },
};
const mine = { schema: 1, table: 't1', seat: 3, name: 'Anna', id: 'l3-1', ok: true, error: null,
  lists: [{ list: LIST, game: 'no-limit holdem', stakes: '1/2', place: 3, waiting: 5 }] };

test.afterEach(() => L.setLanguage('en'));

test('issue 18: a row per list, the player\'s place and Leave, Join elsewhere', () => {
  const rows = L.waitingLists(room, mine, 'Anna');
  assert.deepEqual(rows.map((r) => [r.list, r.label, r.waiting, r.place, r.op]), [
    [LIST, "NL Hold'em 1/2", 5, 3, 'leave'],
    ['pot-limit omaha 5/5', 'pot-limit omaha 5/5', 0, null, 'join']]);
  assert.equal(L.listPlaceText(rows[0]), "You are 3rd on NL Hold'em 1/2");
  assert.equal(L.listPlaceText(rows[1]), '');
  L.setLanguage('nl', NL);
  assert.equal(L.listPlaceText(L.waitingLists(room, mine, 'Anna')[0]), "Je staat 3e op NL Hold'em 1/2");
});

test('issue 18: another player\'s answer is not ours; an empty seat has no buttons', () => {
  // the last player's places are never shown to the next one in the seat
  const rows = L.waitingLists(room, mine, 'Bob');
  assert.deepEqual(rows.map((r) => [r.place, r.op, r.waiting]), [[null, 'join', 4], [null, 'join', 0]]);
  assert.deepEqual(L.waitingLists(room, mine, null).map((r) => r.op), [null, null]);
  assert.deepEqual(L.waitingLists({}, mine, 'Anna'), []);
  assert.deepEqual(L.waitingLists({ lobby: { lists: [null, { list: 5 }] } }, null, 'Anna'), []);
});

test('issue 18: the request names only the seat, the operation and the list', () => {
  assert.deepEqual(L.lobbyRequestPayload({ id: 'l3-9', seat: 3, op: 'join', list: LIST }),
    { schema: 1, id: 'l3-9', seat: 3, op: 'join', list: LIST });
  assert.deepEqual(L.lobbyRequestPayload({ id: 'l3-9', seat: 3, op: 'status', list: LIST }),
    { schema: 1, id: 'l3-9', seat: 3, op: 'status', list: null });
  const t = L.topics('t1', 3);
  assert.equal(t.lobbyRequest, 'livetable/t1/seat/3/lobby');
  assert.ok(L.subscriptions('t1', 3).includes('livetable/t1/seat/3/lists'));
});

test('newcomer F3: no lists says why (no room service, or none open), in English and Dutch', () => {
  assert.equal(L.waitingListsNote(room), '');
  assert.equal(L.waitingListsNote({}), 'Waiting lists need the room service: this table is not linked to a running room');
  assert.equal(L.waitingListsNote({ t1: { table: 't1' } }), L.waitingListsNote(null));
  assert.equal(L.waitingListsNote({ lobby: { tables: [], lists: [] } }), 'The room has no waiting list open');
  assert.equal(L.waitingListsNote({ lobby: { lists: [null, { list: 5 }] } }), 'The room has no waiting list open');
  L.setLanguage('nl', NL);
  assert.equal(L.waitingListsNote({}), 'Wachtlijsten hebben de zaalservice nodig: deze tafel is niet verbonden met een draaiende zaal');
  assert.equal(L.waitingListsNote({ lobby: { lists: [] } }), 'De zaal heeft geen wachtlijst open');
});
