"""Layout checks of the seat tablet page in the browser (issue 20): nothing overlaps,
nothing is cut off, touch targets a thumb can hit, text readable at arm's length.

:data:`LAYOUT_JS` runs in the page and returns a list of problems (strings), empty when the
screen is right. It looks at what a player sees: every visible seat (with its bet and its
D/SB/BB marks), the board, the pots, the showdown lines, my cards, and every visible button,
input and tab; and checks

- no two of them overlap (a seat's own bet and marks belong to it; an element and what it
  contains are not compared),
- each lies inside the viewport (the page never scrolls; a side panel's content scrolls
  inside the panel), and the page is no higher than the screen,
- no text is cut: a button's, a seat line's (a tournament's stack in big blinds too) or
  the tournament bar's content is not wider than its box (an amount
  cut with an ellipsis is cut too), a player's name neither (issue 20: "Player…" on a phone;
  the page sets a long name smaller, on two lines, or as initials with the full name kept),
- no word of a seat's status is broken over two lines ("Folde/d"; a hyphen may break),
- buttons and inputs are at least 40 px high and 44 px wide (touch targets),
- text is at least 12 px.
"""

from __future__ import annotations

LAYOUT_JS = r"""
() => {
  const problems = [];
  const visible = (e) => {
    if (!e || e.closest('[hidden]')) return false;
    const st = getComputedStyle(e);
    if (st.display === 'none' || st.visibility === 'hidden' || Number(st.opacity) === 0) return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const name = (e) => {
    const id = e.id ? '#' + e.id : '';
    const seat = e.closest('.seat');
    const cls = typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\s+/).join('.') : '';
    const txt = (e.innerText || e.value || '').trim().replace(/\s+/g, ' ').slice(0, 30);
    return `${e.tagName.toLowerCase()}${id}${cls}${seat && seat !== e ? '[seat ' + seat.dataset.seat + ']' : ''} "${txt}"`;
  };
  const sel = ['.seat', '.seat .bet', '.seat .marks', '#board', '#pots .pot', '#showdown .line', '#my-cards',
    '#hand-words', '#me button', '#me input', '#me label', '#me .hint', '#tabs button', '#topbar > *', '#banner',
    '#side .panel button', '#side .panel input', '#tourney > *', '#tourney-more > *'];
  const els = [...new Set(sel.flatMap((s) => [...document.querySelectorAll(s)]))].filter(visible);
  const lines = ['.seat .name', '.seat .stack', '.seat .status', '.seat .in-bb', '.pot', '#hand-words',
    '#showdown .line', '#tourney > *', '#tourney-more > *']
    .flatMap((s) => [...document.querySelectorAll(s)]).filter((e) => visible(e) && !e.matches('.sr-only'));
  const W = document.documentElement.clientWidth;
  const H = window.innerHeight;
  // the page never scrolls (issue 20: 1080x810 scrolled): all of it on the screen, the side
  // panels scrolling inside themselves
  const page = document.scrollingElement || document.documentElement;
  if (page.scrollHeight > H + 1) problems.push(`the page scrolls: ${page.scrollHeight} px high on a ${H} px screen`);
  const rect = (e) => e.getBoundingClientRect();
  for (const e of els) {
    const r = rect(e);
    if (r.left < -0.5 || r.right > W + 0.5) problems.push(`cut at the side: ${name(e)} spans ${Math.round(r.left)}..${Math.round(r.right)} of ${W}`);
    if (r.bottom > H + 0.5 && !e.closest('.panel')) problems.push(`below the screen: ${name(e)} ends at ${Math.round(r.bottom)} of ${H}`);
  }
  const sameSeat = (a, b) => a.closest('.seat') && a.closest('.seat') === b.closest('.seat');
  for (let i = 0; i < els.length; i += 1) {
    for (let j = i + 1; j < els.length; j += 1) {
      const a = els[i]; const b = els[j];
      if (a.contains(b) || b.contains(a) || sameSeat(a, b)) continue;
      const p = rect(a); const q = rect(b);
      const w = Math.min(p.right, q.right) - Math.max(p.left, q.left);
      const h = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
      if (w > 1 && h > 1) problems.push(`overlap ${Math.round(w)}x${Math.round(h)} px: ${name(a)} and ${name(b)}`);
    }
  }
  for (const e of [...els.filter((x) => x.matches('button')), ...lines]) {
    if (e.scrollWidth > e.clientWidth + 1) problems.push(`text cut: ${name(e)} needs ${e.scrollWidth} px, has ${e.clientWidth}`);
    if (e.scrollHeight > e.clientHeight + 1) problems.push(`text cut below: ${name(e)} needs ${e.scrollHeight} px high, has ${e.clientHeight}`);
  }
  for (const seat of document.querySelectorAll('.seat')) {  // every line of a seat inside the seat
    const r = seat.getBoundingClientRect();
    for (const part of seat.querySelectorAll('.top, .stack, .status, .card, .in-bb')) {
      const q = part.getBoundingClientRect();
      if (q.bottom > r.bottom + 0.5 || q.right > r.right + 0.5 || q.left < r.left - 0.5) problems.push(`out of its seat: ${name(part)}`);
    }
    const timer = seat.querySelector('.timer');  // the acting seat's bar covers none of its words
    for (const part of timer ? seat.querySelectorAll('.in-bb') : []) {
      const p = part.getBoundingClientRect(); const q = timer.getBoundingClientRect();
      if (Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 0.5 && Math.min(p.right, q.right) - Math.max(p.left, q.left) > 0.5)
        problems.push(`under the turn's bar: ${name(part)}`);
    }
  }
  for (const e of els.filter((x) => x.matches('#me button, #me input:not([type=radio]), #tabs button, #side .panel button'))) {
    const r = rect(e);
    if (r.height < 40 || r.width < 44) problems.push(`touch target ${Math.round(r.width)}x${Math.round(r.height)} px: ${name(e)}`);
  }
  // no word of a seat's status broken over two lines (brief L: "Folde/d", "Gepa/st" at 390x844);
  // a break at a hyphen is a break between words
  for (const e of document.querySelectorAll('.seat .status')) {
    if (!visible(e)) continue;
    const walker = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      for (const m of n.textContent.matchAll(/[^\s\-\u2013]+/g)) {
        const range = document.createRange();
        range.setStart(n, m.index);
        range.setEnd(n, m.index + m[0].length);
        const tops = new Set([...range.getClientRects()].filter((q) => q.width > 0).map((q) => Math.round(q.top)));
        if (tops.size > 1) problems.push(`word broken over two lines: "${m[0]}" in ${name(e)}`);
      }
    }
  }
  const texts = document.querySelectorAll('body *');
  for (const e of texts) {
    if (!visible(e) || ![...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())) continue;
    const px = parseFloat(getComputedStyle(e).fontSize);
    if (px < 12) problems.push(`text ${px}px: ${name(e)}`);
  }
  return problems;
}
"""

#: Rule ids (``T-3``, ``A-3``) anywhere in the text a player reads.
RULE_IDS_JS = r"""
() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const e = n.parentElement;
    if (!e || e.closest('[hidden]') || e.closest('script')) continue;
    const st = getComputedStyle(e);
    if (st.display === 'none' || st.visibility === 'hidden') continue;
    if (/\b[A-Z]-\d+\b/.test(n.textContent)) out.push(n.textContent.trim().slice(0, 80));
  }
  for (const e of document.querySelectorAll('[title], [aria-label], [placeholder]')) {
    for (const a of ['title', 'aria-label', 'placeholder']) {
      const v = e.getAttribute(a);
      if (v && /\b[A-Z]-\d+\b/.test(v)) out.push(`${a}: ${v}`);
    }
  }
  return out;
}
"""

#: What a box the page empties leaves behind (the bust/rebuy e2e: after *Buy in*, an empty
#: bar stayed where the "Buy in again" form was). Returns problems (strings), empty when
#: nothing is left: ``#me`` (the player's own area) is on the screen only while something in
#: it shows (a form, cards, words, buttons, the timer), and the boxes of ``#main`` one above
#: the other (the table, my area, the side panels) are no further apart than the grid's row
#: gap (a hidden box keeps no room, not even its gaps).
LEFT_BEHIND_JS = r"""
() => {
  const problems = [];
  const shown = (e) => {
    if (e.closest('[hidden]')) return false;
    const st = getComputedStyle(e);
    if (st.display === 'none' || st.visibility === 'hidden') return false;
    const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0;
  };
  const me = document.querySelector('#me');
  const content = [...me.querySelectorAll('*')].some((e) => shown(e) && (e.matches('button, input, .card, .timer')
    || [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())));
  if (shown(me) && !content) {
    problems.push(`an empty box: #me, ${Math.round(me.getBoundingClientRect().height)} px high with nothing in it`);
  }
  const main = document.querySelector('#main');
  const gap = parseFloat(getComputedStyle(main).rowGap) || 0;
  const boxes = [...main.children].filter((e) => shown(e) && getComputedStyle(e).position !== 'fixed')
    .map((e) => [e, e.getBoundingClientRect()]);
  for (const [a, p] of boxes) {  // the nearest box below each, in the same column
    const below = boxes.filter(([b, q]) => b !== a && q.top >= p.bottom - 0.5
      && Math.min(p.right, q.right) - Math.max(p.left, q.left) > 1).sort((x, y) => x[1].top - y[1].top)[0];
    if (below && below[1].top - p.bottom > gap + 1) {
      problems.push(`room kept: ${Math.round(below[1].top - p.bottom)} px between #${a.id} and #${below[0].id} (gap ${gap} px)`);
    }
  }
  return problems;
}
"""
