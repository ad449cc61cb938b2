// The tablet in English and Dutch (issue 20): the JSON catalog tablet/i18n/nl.json covers every
// text the page shows, keeps the placeholders, and numbers follow the language.
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as L from '../js/logic.js';

const here = (p) => new URL(p, import.meta.url);
const NL = JSON.parse(readFileSync(here('../i18n/nl.json'), 'utf8'));

/** Every string literal in the first argument of each t(...) / L.t(...) / tr(...) call. */
function keysInCalls(src) {
  const keys = new Set();
  const re = /\b(?:L\.)?(?:t|tr)\(/g;
  for (let m = re.exec(src); m; m = re.exec(src)) {
    let i = m.index + m[0].length; let depth = 1; let q = null; let cur = ''; let inFirst = true; let compared = false;
    for (; i < src.length && depth > 0; i += 1) {
      const c = src[i];
      if (q) {
        if (c === '\\' && src[i + 1] === 'u') { cur += String.fromCharCode(parseInt(src.slice(i + 2, i + 6), 16)); i += 5; }
        else if (c === '\\') { cur += src[i + 1]; i += 1; }
        else if (c === q) { if (inFirst && q !== '`' && !compared) keys.add(cur); q = null; } else cur += c;
      } else if (c === "'" || c === '"' || c === '`') {
        q = c; cur = ''; compared = /[=!]==\s*$/.test(src.slice(Math.max(0, i - 6), i)); // a === 'raise' operand
      } else if ('([{'.includes(c)) depth += 1;
      else if (')]}'.includes(c)) depth -= 1;
      else if (c === ',' && depth === 1) inFirst = false;
    }
  }
  return keys;
}

function keysInHtml(html) {
  const keys = new Set();
  for (const m of html.matchAll(/<\w+[^>]*\bdata-i18n(?!-)[^>]*>([^<]*)</g)) keys.add(m[1].trim());
  for (const m of html.matchAll(/<\w+([^>]*)data-i18n-attr="([^"]+)"([^>]*)>/g)) {
    for (const a of m[2].split(',')) {
      const v = new RegExp(`${a}="([^"]*)"`).exec(m[1] + m[3]);
      if (v) keys.add(v[1]);
    }
  }
  return keys;
}

test('issue 20: every text of the page has its Dutch, placeholders kept', () => {
  const src = readFileSync(here('../js/logic.js'), 'utf8') + readFileSync(here('../js/app.js'), 'utf8');
  const keys = new Set([...keysInCalls(src), ...keysInHtml(readFileSync(here('../index.html'), 'utf8')),
    ...Object.values(L.GAME_NAMES), ...Object.values(L.LIMIT_NAMES), ...Object.values(L.STATUS_WORDS).filter(Boolean),
    ...Object.values(L.RANK_NAME), ...Object.values(L.SUIT_NAME), ...Object.values(L.SHOWED), ...L.HAND_WORDS]);
  keys.delete('');
  assert.ok(keys.size > 120, `only ${keys.size} texts found`);
  const missing = [...keys].filter((k) => !(k in NL)).sort();
  assert.deepEqual(missing, []);
  for (const [k, v] of Object.entries(NL)) {
    const ph = (x) => (x.match(/\{\w+\}/g) || []).sort();
    assert.deepEqual(ph(v), ph(k), k);
  }
});

test('issue 20: Dutch words and numbers; English comes back', () => {
  try {
    L.setLanguage('nl', NL);
    assert.equal(L.chips(1234567), '1.234.567');
    assert.equal(L.potLine(1, 3538), 'Side pot 1: 3.538');
    const legal = { fold: true, check: false, call: 200, bet: null, raise: { min: 400, max: 5000 }, all_in: 5000, draw: null };
    assert.deepEqual(L.actionButtons(legal, null, 3).buttons.map((b) => b.label),
      ['Passen', 'Mee 200', 'Verhoog naar 400', 'All-in 5.000']);
    assert.equal(L.handWords('Two pair, kings and fives'), 'Twee paar, heren en vijven');
    assert.equal(L.lastActionText({ bet: 900, last_action: { action: 'raise', to: 900 } }), 'Verhoogt 900'); // seat|
    assert.equal(L.handWords('Straight, ace high'), 'Straat, aas hoog');
    assert.equal(L.handWords('Pair of aces'), 'Paar azen');
    assert.equal(L.handWords('Royal flush'), 'Royal flush');
    assert.equal(L.describeGame({ game: 'holdem', limit: 'no-limit', stakes: { sb: 500, bb: 1000, ante: 100 } }),
      "No Limit Hold'em 500/1.000 ante 100");
    assert.throws(() => L.checkBuyIn('1', { min: 2000, max: 10000 }), /de buy-in is minstens 2\.000/);
    assert.equal(L.plainText('T-2: de buy-in is minstens 2.000'), 'De buy-in is minstens 2.000');
  } finally {
    L.setLanguage('en');
  }
  assert.equal(L.chips(1234567), '1,234,567');
  assert.equal(L.t('Fold'), 'Fold');
});

test('issue 20: the player chooses over the table; unknown languages are ignored', () => {
  assert.equal(L.pickLanguage('nl', 'en'), 'nl');
  assert.equal(L.pickLanguage(null, 'nl'), 'nl');
  assert.equal(L.pickLanguage('xx', 'yy'), 'en');
  assert.equal(L.setLanguage('xx'), 'en');
  // the table's config ([table] language, in the state) when neither the player nor the address chose
  assert.equal(L.pickLanguage(null, null, 'nl'), 'nl');
  assert.equal(L.pickLanguage(null, 'en', 'nl'), 'en');
  assert.equal(L.pickLanguage('en', null, 'nl'), 'en');
});

test('issue 20: the table\'s refusals in the player\'s language, numbers too, no rule id', () => {
  for (const [, msg] of L.REFUSALS) assert.ok(msg in NL, `no Dutch for ${msg}`);
  const reason = 'S-4: minimum raise is to 1200, got 900';
  assert.deepEqual(L.refusalText(reason), { text: 'Raise to at least 1,200', known: true });
  L.setLanguage('nl', NL);
  try {
    assert.deepEqual(L.refusalText(reason), { text: 'Verhoog naar minstens 1.200', known: true });
    assert.equal(L.refusalText('T-2: buy-in must be at least 2000 and at most 10000, got 12000').text,
      'De buy-in is 2.000 tot 10.000');
    const odd = L.refusalText('Q-9: something new (T-3)'); // not known: plain words, English, no ids
    assert.deepEqual(odd, { text: 'Something new', known: false });
  } finally { L.setLanguage('en'); }
});
