// Issue 18: a seat the room holds for a called player, and a lobby table offline.
import test from 'node:test';
import assert from 'node:assert/strict';
import * as L from '../js/logic.js';

const state = (holds, status = 'empty') => ({ seats: [{ seat: 1, status: 'playing' }, { seat: 3, status }], holds });

test('a held seat says for whom and how long, by the table clock', () => {
  const h = L.seatHold(state([{ seat: 3, name: 'Anna', until: 1000 }]), 3, 845, 5); // table time 840
  assert.deepEqual(h, { name: 'Anna', left: 160, clock: '2:40', text: 'Held for Anna (2:40)' });
});

test('no hold: none, another seat, a seat taken, or its time past', () => {
  assert.equal(L.seatHold(state(undefined), 3, 0), null);
  assert.equal(L.seatHold(state([{ seat: 1, name: 'Anna', until: 1000 }]), 3, 0), null);
  assert.equal(L.seatHold(state([{ seat: 3, name: 'Anna', until: 1000 }], 'playing'), 3, 0), null);
  assert.equal(L.seatHold(state([{ seat: 3, name: 'Anna', until: 1000 }]), 3, 1000), null);
  assert.equal(L.seatHold(state([{ seat: 3, until: 1000 }]), 3, 0), null);
});

test('a lobby table offline says since when', () => {
  const at = new Date(2026, 0, 5, 9, 7).getTime() / 1000;
  assert.equal(L.offlineSince({ online: false, offline_since: at }), 'offline since 09:07');
  assert.equal(L.offlineSince({ online: false }), 'offline');
  assert.equal(L.offlineSince({ online: true, offline_since: at }), '');
  const groups = L.lobbyGroups({ lobby: { tables: [{ table: 't2', name: 'Birch', game: 'holdem', online: false, offline_since: at }] } });
  assert.equal(groups[0].tables[0].offline, 'offline since 09:07');
});
