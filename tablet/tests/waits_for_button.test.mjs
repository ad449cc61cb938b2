// A seat waiting for the button says so on the tablets (issue 19, T-4: the public state's
// seats[].waits_for_button, docs/state.md). `node --test tablet/tests/`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as L from '../js/logic.js';

const NL = JSON.parse(readFileSync(new URL('../i18n/nl.json', import.meta.url), 'utf8'));

test('issue 19: a seat that waits for the button says so; other waiting seats say Waiting', () => {
  L.setLanguage('en');
  assert.equal(L.statusWord({ status: 'waiting', waits_for_button: true }), 'Waits for the button');
  assert.equal(L.statusWord({ status: 'waiting', waits_for_button: false }), 'Waiting');
  assert.equal(L.statusWord({ status: 'waiting' }), 'Waiting'); // an older table's state has no field
  assert.equal(L.statusWord({ status: 'active', waits_for_button: true }), ''); // dealt in: nothing to say
  L.setLanguage('nl', NL);
  assert.equal(L.statusWord({ status: 'waiting', waits_for_button: true }), 'Wacht op de button');
  L.setLanguage('en');
});
