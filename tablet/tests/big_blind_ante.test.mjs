// The header's stakes show a big-blind ante on the tablets (issue 19, TDA RP-11: the public
// state's stakes.bba, docs/state.md). `node --test tablet/tests/`.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as L from '../js/logic.js';

const NL = JSON.parse(readFileSync(new URL('../i18n/nl.json', import.meta.url), 'utf8'));

test('issue 19: the header stakes show a big-blind ante (TDA RP-11), an ante as before', () => {
  L.setLanguage('en');
  const st = (stakes) => ({ game: 'holdem', limit: 'no-limit', stakes: { sb: 100, bb: 200, ante: 0, ...stakes } });
  assert.equal(L.describeGame(st({ bba: 200 })), "No Limit Hold'em 100/200 BBA 200");
  assert.equal(L.describeGame(st({ bba: 200 }), { short: true }), "NL Hold'em 100/200 BBA 200");
  assert.equal(L.describeGame(st({ ante: 25, bba: 0 })), "No Limit Hold'em 100/200 ante 25");
  assert.equal(L.describeGame(st({})), "No Limit Hold'em 100/200"); // an older table's state: no bba
  L.setLanguage('nl', NL);
  assert.match(L.describeGame(st({ bba: 2000 })), / 100\/200 BBA 2\.000$/);
  L.setLanguage('en');
});
