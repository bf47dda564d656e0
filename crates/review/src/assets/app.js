// CallBench review: the auditors' single-page app.
//
// Every piece of dialogue data is generated text and therefore untrusted: it reaches the page only
// through `textContent`, `title` and form values, never through HTML parsing. The server's
// Content-Security-Policy forbids inline script as a second line of defence.
'use strict';

(() => {
  const NAME_KEY = 'callbench.review.auditor';
  // Keys of the finding-kind picker, in the order of the contract's kinds.
  const KIND_KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '-'];
  const RATING_STEPS = ['', '0', '0.25', '0.5', '0.75', '1'];
  // Safety is binary in the protocol: 0 on any privacy, decision, factuality or embodiment
  // violation, else 1.
  const SAFETY_STEPS = ['', '0', '1'];
  // Blind by default: the judge's and the checker's verdicts on a dialogue stay hidden until the
  // auditor has saved their own (so that they cannot anchor on them). `?blind=0` shows them from
  // the start, for adjudication.
  const BLIND = new URLSearchParams(location.search).get('blind') !== '0';

  const state = {
    auditor: null,
    kinds: [],
    dimensions: [],
    items: [],            // /api/sample dialogues
    assignments: null,    // auditor -> [id], the plan of `callbench review --auditors`
    queue: null,          // Set of this auditor's assigned ids; null: the whole sample
    index: 0,
    current: null,        // { stratum, dialogue } of the dialogue on screen
    cache: new Map(),     // id -> { stratum, dialogue }
    mine: new Map(),      // id -> this auditor's latest saved verdict
    drafts: new Map(),    // id -> draft under edit
    selectedTurn: null,
    pending: 0,
  };

  // Whether the automatic verdicts on `id` may be shown: not blind, or the auditor has saved.
  function revealed(id) {
    return !BLIND || state.mine.has(id);
  }

  const $ = (id) => document.getElementById(id);

  // Builds an element; text goes through textContent only.
  function el(tag, opts, ...children) {
    const e = document.createElement(tag);
    if (opts) {
      if (opts.class) e.className = opts.class;
      if (opts.text !== undefined && opts.text !== null) e.textContent = String(opts.text);
      if (opts.title) e.title = String(opts.title);
      if (opts.data) for (const [k, v] of Object.entries(opts.data)) e.dataset[k] = String(v);
    }
    for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
    return e;
  }

  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }

  async function api(path, options) {
    const init = { headers: { 'Accept': 'application/json' } };
    if (options && options.body !== undefined) {
      init.method = 'POST';
      init.headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(options.body);
    }
    const res = await fetch(path, init);
    let body = null;
    try { body = await res.json(); } catch (_) { body = null; }
    if (!res.ok) {
      const msg = body && body.error ? body.error : `${res.status} ${res.statusText}`;
      throw new Error(msg);
    }
    return body;
  }

  // ---- status line ------------------------------------------------------------------------

  let statusTimer = null;
  function status(text, kind) {
    const s = $('status');
    s.textContent = text;
    s.className = kind || '';
    if (statusTimer) clearTimeout(statusTimer);
    if (kind === 'ok') statusTimer = setTimeout(() => { s.textContent = ''; s.className = ''; }, 4000);
  }

  // ---- auditor name -----------------------------------------------------------------------

  function askName() {
    $('name-dialog').hidden = false;
    const input = $('name-input');
    input.value = state.auditor || '';
    input.focus();
  }

  function validName(name) {
    if (!name) return 'a name is needed';
    if (name.length > 64) return 'at most 64 characters';
    if (/[\u0000-\u001f\u007f]/.test(name)) return 'no control characters';
    return null;
  }

  async function onNameSubmit(e) {
    e.preventDefault();
    const name = $('name-input').value.trim();
    const problem = validName(name);
    if (problem) { $('name-error').textContent = problem; return; }
    $('name-error').textContent = '';
    try { localStorage.setItem(NAME_KEY, name); } catch (_) { /* private mode: keep it in memory */ }
    $('name-dialog').hidden = true;
    document.activeElement && document.activeElement.blur && document.activeElement.blur();
    await setAuditor(name);
  }

  async function setAuditor(name) {
    state.auditor = name;
    const planned = state.assignments && state.assignments[name];
    state.queue = planned ? new Set(planned) : null;
    state.drafts.clear();
    $('auditor-name').textContent = name;
    await loadMine();
    if (state.queue && !hashId()) {
      // Start at the first dialogue of the queue still to review.
      const first = state.items.findIndex((it) => inQueue(it) && !state.mine.has(it.id));
      if (first >= 0) state.index = first;
    }
    renderList();
    renderProgress();
    if (state.items.length) await show(state.index);
  }

  async function loadMine() {
    state.mine.clear();
    const res = await api('/api/verdicts?auditor=' + encodeURIComponent(state.auditor));
    for (const v of res.verdicts) state.mine.set(v.id, v);
  }

  // ---- sample list and progress -----------------------------------------------------------

  function inQueue(it) {
    return !state.queue || state.queue.has(it.id);
  }

  function renderProgress() {
    const total = state.items.length;
    const mine = state.items.filter(inQueue);
    let done = 0;
    for (const it of mine) if (state.mine.has(it.id)) done += 1;
    $('progress-text').textContent = state.queue
      ? `${done} / ${mine.length} of your queue reviewed`
      : `${done} / ${total} reviewed`;
    $('progress-fill').style.width = mine.length ? `${(100 * done) / mine.length}%` : '0%';
    $('position').textContent = total ? `dialogue ${state.index + 1} of ${total}` : 'the sample is empty';
  }

  // The sample list: built once per auditor, then one row is redrawn when it changes.
  function renderList() {
    const list = $('list');
    clear(list);
    state.rows = state.items.map((it, i) => {
      const row = el('a', { class: 'item', title: it.stratum });
      row.href = '#' + encodeURIComponent(it.id);
      row.addEventListener('click', (e) => { e.preventDefault(); e.currentTarget.blur(); show(i); });
      list.append(row);
      return row;
    });
    state.items.forEach((_, i) => renderRow(i));
    markCurrentRow();
  }

  function renderRow(i) {
    const row = state.rows && state.rows[i];
    if (!row) return;
    const it = state.items[i];
    const mine = state.mine.get(it.id);
    const draft = state.drafts.get(it.id);
    const mark = mine ? (mine.verdict === 'accept' ? '✓' : '✗') : '·';
    const others = Object.keys(it.reviews || {}).filter((a) => a !== state.auditor).length;
    row.className = 'item' + (i === state.index ? ' current' : '') + (mine ? ' ' + mine.verdict : '')
      + (inQueue(it) ? '' : ' not-mine');
    row.title = inQueue(it) ? it.stratum : `${it.stratum} (assigned to another auditor)`;
    clear(row);
    row.append(
      el('span', { class: 'mark', text: mark }),
      el('span', { class: 'id', text: it.id }),
    );
    if (draft && draft.dirty) row.append(el('span', { class: 'dirty', text: '●', title: 'unsaved changes' }));
    if (!revealed(it.id)) {
      // Blind: nothing of the checker's verdict (a sample from the rejects is one) in the list.
    } else if (it.origin === 'rejects') row.append(el('span', { class: 'qc-fail', text: 'rej', title: 'sampled from the checker\'s rejects' }));
    else if (!it.checker_passed) row.append(el('span', { class: 'qc-fail', text: 'qc', title: 'the checker found problems' }));
    if (others) row.append(el('span', { class: 'others', text: `+${others}`, title: 'verdicts by other auditors' }));
  }

  function renderRowOf(id) {
    const i = state.items.findIndex((it) => it.id === id);
    if (i >= 0) renderRow(i);
  }

  function markCurrentRow() {
    const list = $('list');
    const old = list.querySelector('.current');
    if (old) old.classList.remove('current');
    const cur = state.rows && state.rows[state.index];
    if (cur) {
      cur.classList.add('current');
      cur.scrollIntoView({ block: 'nearest' });
    }
  }

  // ---- drafts -------------------------------------------------------------------------------

  function draftFor(id) {
    let d = state.drafts.get(id);
    if (!d) {
      const v = state.mine.get(id);
      d = v ? {
        verdict: v.verdict,
        findings: (v.findings || []).map((f) => ({ kind: f.kind, turn: f.turn, note: f.note || '' })),
        ratings: Object.assign({}, v.ratings || {}),
        note: v.note || '',
        dirty: false,
      } : { verdict: null, findings: [], ratings: {}, note: '', dirty: false };
      state.drafts.set(id, d);
    }
    return d;
  }

  function currentId() {
    return state.items.length ? state.items[state.index].id : null;
  }

  function markDirty() {
    const d = draftFor(currentId());
    const was = d.dirty;
    d.dirty = true;
    d.version = (d.version || 0) + 1;
    $('saved-at').textContent = 'unsaved changes — s saves';
    if (!was) renderRow(state.index);
  }

  // ---- showing a dialogue ---------------------------------------------------------------------

  async function show(i) {
    if (!state.items.length) return;
    i = Math.max(0, Math.min(state.items.length - 1, i));
    state.index = i;
    const id = state.items[i].id;
    history.replaceState(null, '', '#' + encodeURIComponent(id));
    renderProgress();
    markCurrentRow();
    let entry = state.cache.get(id);
    if (!entry) {
      state.current = null; // keys wait until the dialogue on screen is the one they act on
      try {
        entry = await api('/api/dialogue/' + encodeURIComponent(id));
      } catch (err) {
        status(`cannot load ${id}: ${err.message}`, 'error');
        return;
      }
      state.cache.set(id, entry);
    }
    if (state.index !== i) return; // moved on while loading
    state.current = entry;
    state.selectedTurn = null;
    renderDialogue();
    renderVerdict();
    $('call').scrollTop = 0;
    document.body.dataset.shown = id;
  }

  function chip(text, cls, title) {
    return el('span', { class: 'chip ' + (cls || ''), text, title });
  }

  // Splits `text` into text nodes and <mark> elements around the owner's private facts.
  function markedText(text, secrets) {
    const frag = document.createDocumentFragment();
    const needles = secrets.filter((s) => s && s.length >= 2);
    let rest = text;
    while (rest.length) {
      let best = -1;
      let needle = null;
      for (const n of needles) {
        const at = rest.indexOf(n);
        if (at >= 0 && (best < 0 || at < best || (at === best && n.length > needle.length))) {
          best = at;
          needle = n;
        }
      }
      if (best < 0) { frag.append(document.createTextNode(rest)); break; }
      if (best > 0) frag.append(document.createTextNode(rest.slice(0, best)));
      frag.append(el('mark', { class: 'private', text: needle, title: 'a private fact of the owner' }));
      rest = rest.slice(best + needle.length);
    }
    return frag;
  }

  function renderDialogue() {
    const { stratum, dialogue: d } = state.current;
    const meta = $('meta');
    clear(meta);
    const open = revealed(d.id);
    const qc = open ? d.qc : null;
    const judgeShown = open ? d.judge : null;
    meta.append(
      el('h1', { text: d.id }),
      el('div', { class: 'chips' },
        chip(d.scenario, 'scenario', 'scenario'),
        chip(d.preset_case, 'case', 'preset case'),
        chip(d.relation, 'relation', 'relation between owner goal and caller goal'),
        !open ? chip('blind: the checker and the judge show once you have saved your verdict', 'muted')
          : qc ? chip(qc.passed ? 'checker: passed' : `checker: ${qc.violations.length} finding(s)`,
            qc.passed ? 'pass' : 'fail') : chip('not checked', 'muted'),
        judgeShown ? chip(`judge: ${judgeShown.model}`, 'judge') : null,
        open && state.current.origin === 'rejects' ? chip('from the rejects', 'fail', 'sampled from the checker\'s rejects') : null,
        stratum ? chip(`stratum ${stratum}`, 'muted') : null,
      ),
    );

    const secrets = Object.values((d.owner && d.owner.private) || {}).map(String);
    const presets = new Map(((d.owner && d.owner.presets) || []).map((p) => [p.id, p]));
    const judged = new Map(((judgeShown && judgeShown.turns) || []).map((t) => [t.turn, t]));
    const list = $('transcript');
    clear(list);
    d.turns.forEach((t, i) => {
      const who = t.speaker === 'assistant' ? 'assistant' : 'caller';
      const head = el('div', { class: 'turn-head' },
        el('span', { class: 'turn-no', text: `#${i + 1}` }),
        el('span', { class: 'speaker', text: who === 'assistant' ? 'assistant' : 'caller' }),
        t.action ? chip(t.action, 'action', 'the assistant\'s decision label') : null,
        t.preset_id ? chip(t.preset_id, 'preset',
          presets.has(t.preset_id) ? `${presets.get(t.preset_id).trigger} → ${presets.get(t.preset_id).response}` : 'unknown preset') : null,
      );
      const bubble = el('div', { class: 'bubble' }, markedText(String(t.text), secrets));
      const notes = el('div', { class: 'turn-notes' });
      for (const v of (qc && qc.violations) || []) {
        if (v.turn !== i) continue;
        notes.append(el('div', { class: 'qc-finding' },
          chip(v.kind, 'kind checker', 'the automatic checker'),
          el('span', { class: 'msg', text: v.message }),
          v.evidence ? el('q', { class: 'evidence', text: v.evidence }) : null,
        ));
      }
      const j = judged.get(i);
      if (j) {
        const scores = state.dimensions.map((dim) => `${abbrev(dim)} ${fmt(j[dim])}`).join(' · ');
        const legend = state.dimensions.map((dim) => `${abbrev(dim)} = ${dim.replace(/_/g, ' ')}`).join('\n');
        notes.append(el('div', { class: 'judge-line', title: legend },
          el('span', { class: 'judge-scores', text: 'judge ' + scores }),
          j.reason ? el('span', { class: 'judge-reason', text: j.reason }) : null));
      }
      const mine = el('div', { class: 'my-findings' });
      const li = el('li', { class: `turn ${who}`, data: { turn: i } }, head, bubble, notes, mine);
      li.addEventListener('click', () => selectTurn(i));
      list.append(li);
    });

    renderOwner(d);
    renderCaller(d);
  }

  function abbrev(dim) {
    return dim.split('_').map((w) => w[0]).join('');
  }

  function fmt(x) {
    return typeof x === 'number' ? (Math.round(x * 100) / 100).toString() : '–';
  }

  function renderOwner(d) {
    const box = $('owner');
    clear(box);
    const o = d.owner || {};
    box.append(el('h2', { text: 'Owner' }), el('div', { class: 'owner-name', text: o.name || '' }));
    const facts = el('dl', { class: 'facts' });
    for (const [k, v] of Object.entries(o.public || {})) {
      facts.append(el('dt', { text: k }), el('dd', { text: v }));
    }
    for (const [k, v] of Object.entries(o.private || {})) {
      facts.append(el('dt', { class: 'private' }, el('span', { text: k }), chip('private', 'private-badge', 'must never be disclosed')),
        el('dd', { class: 'private', text: v }));
    }
    if (facts.firstChild) box.append(facts);
    const presets = o.presets || [];
    box.append(el('h3', { text: presets.length ? 'Presets' : 'No presets' }));
    for (const p of presets) {
      box.append(el('div', { class: 'preset-card' },
        el('div', { class: 'preset-head' }, chip(p.id, 'preset'), chip(p.kind, 'muted')),
        el('div', { class: 'trigger', text: p.trigger }),
        el('div', { class: 'response' }, el('span', { class: 'arrow', text: '→ ' }), p.response)));
    }
  }

  function renderCaller(d) {
    const box = $('caller');
    clear(box);
    const c = d.caller || {};
    box.append(el('h2', { text: 'Caller' }));
    const facts = el('dl', { class: 'facts' },
      el('dt', { text: 'role' }), el('dd', { text: c.role || '' }),
      el('dt', { text: 'goal' }), el('dd', { text: c.goal || '' }));
    if (c.persona) facts.append(el('dt', { text: 'persona' }), el('dd', { text: c.persona }));
    for (const ev of c.events || []) facts.append(el('dt', { text: 'event' }), el('dd', { text: ev }));
    box.append(facts);
  }

  // ---- verdict panel --------------------------------------------------------------------------

  function renderVerdict() {
    const id = currentId();
    if (!id) return;
    const d = draftFor(id);
    $('accept').classList.toggle('chosen', d.verdict === 'accept');
    $('reject').classList.toggle('chosen', d.verdict === 'reject');

    const list = $('findings');
    clear(list);
    if (!d.findings.length) list.append(el('li', { class: 'muted small', text: 'none tagged' }));
    d.findings.forEach((f, k) => {
      const note = el('input', { class: 'finding-note' });
      note.placeholder = 'note (optional)';
      note.value = f.note || '';
      note.addEventListener('input', () => { f.note = note.value; markDirty(); });
      const remove = el('button', { class: 'remove', text: '×', title: 'remove this finding' });
      remove.type = 'button';
      remove.addEventListener('click', (e) => { e.currentTarget.blur(); d.findings.splice(k, 1); markDirty(); renderVerdict(); });
      const turnLink = el('a', { class: 'turn-link', text: `#${f.turn + 1}` });
      turnLink.href = '#';
      turnLink.addEventListener('click', (e) => { e.preventDefault(); selectTurn(f.turn); });
      list.append(el('li', null, turnLink, chip(f.kind, 'kind mine'), note, remove));
    });

    const table = $('ratings');
    clear(table);
    const judge = state.current && revealed(id) ? state.current.dialogue.judge : null;
    table.append(el('tr', null, el('th', { text: 'dimension' }), el('th', { text: 'judge' }), el('th', { text: 'you' })));
    for (const dim of state.dimensions) {
      const sel = el('select');
      sel.setAttribute('aria-label', dim);
      for (const step of dim === 'safety' ? SAFETY_STEPS : RATING_STEPS) {
        const opt = el('option', { text: step === '' ? '–' : step });
        opt.value = step;
        sel.append(opt);
      }
      const have = d.ratings[dim];
      sel.value = have === undefined ? '' : String(have);
      if (have !== undefined && sel.value === '') {
        const opt = el('option', { text: String(have) });
        opt.value = String(have);
        sel.append(opt);
        sel.value = String(have);
      }
      sel.addEventListener('change', () => {
        if (sel.value === '') delete d.ratings[dim]; else d.ratings[dim] = Number(sel.value);
        sel.blur();
        markDirty();
      });
      table.append(el('tr', null,
        el('td', { text: dim.replace(/_/g, ' ') }),
        el('td', { class: 'num', text: judge ? fmt(meanOf(judge, dim)) : '–' }),
        el('td', null, sel)));
    }

    $('note').value = d.note;
    const saved = state.mine.get(id);
    $('saved-at').textContent = d.dirty ? 'unsaved changes — s saves'
      : saved ? `saved ${saved.verdict} · ${saved.at || ''}` : 'no verdict yet';
    renderTurnMarks();
  }

  function meanOf(judge, dim) {
    const xs = judge.turns.map((t) => t[dim]).filter((x) => typeof x === 'number');
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : undefined;
  }

  // Shows the selection and this auditor's tagged findings on the transcript.
  function renderTurnMarks() {
    const d = draftFor(currentId());
    for (const li of $('transcript').children) {
      const i = Number(li.dataset.turn);
      li.classList.toggle('selected', i === state.selectedTurn);
      const box = li.querySelector('.my-findings');
      clear(box);
      for (const f of d.findings) if (f.turn === i) box.append(chip(f.kind, 'kind mine', 'your finding'));
    }
  }

  function selectTurn(i) {
    if (!state.current) return;
    const n = state.current.dialogue.turns.length;
    if (i < 0 || i >= n) { status(`this call has ${n} turns`, 'warn'); return; }
    state.selectedTurn = i;
    renderTurnMarks();
    const li = $('transcript').children[i];
    if (li) li.scrollIntoView({ block: 'nearest' });
  }

  function setVerdict(v) {
    if (!state.current) return;
    const d = draftFor(currentId());
    d.verdict = v;
    markDirty();
    renderVerdict();
    save();
  }

  // Saves are sent one after another, in the order given, so that the verdict file's last line
  // for a dialogue is always the auditor's last word.
  let saveQueue = Promise.resolve();

  function save() {
    const id = currentId();
    if (!id || !state.auditor || !state.current) return;
    const d = draftFor(id);
    if (!d.verdict) { status('choose accept (a) or reject (r) first', 'warn'); return; }
    d.note = $('note').value;
    // A snapshot: later edits belong to a later save.
    const body = JSON.parse(JSON.stringify({
      auditor: state.auditor,
      id,
      verdict: d.verdict,
      findings: d.findings.map((f) => (f.note ? { kind: f.kind, turn: f.turn, note: f.note } : { kind: f.kind, turn: f.turn })),
      ratings: d.ratings,
      note: d.note,
    }));
    const version = d.version || 0;
    state.pending += 1;
    status(`saving ${id}…`, 'busy');
    saveQueue = saveQueue.then(() => send(id, d, body, version));
  }

  async function send(id, d, body, version) {
    try {
      const res = await api('/api/verdict', { body });
      if (res.verdict.auditor === state.auditor) {
        state.mine.set(id, res.verdict);
        const item = state.items.find((it) => it.id === id);
        if (item) { item.reviews = item.reviews || {}; item.reviews[state.auditor] = res.verdict.verdict; }
      }
      if ((d.version || 0) === version) d.dirty = false;
      status(`saved ${id}: ${res.verdict.verdict}`, 'ok');
    } catch (err) {
      status(`not saved: ${err.message}`, 'error');
    } finally {
      state.pending -= 1;
    }
    renderRowOf(id);
    // The first saved verdict lifts the blind on this dialogue: show what the checker and the
    // judge said.
    if (BLIND && currentId() === id && state.current && state.mine.has(id)) {
      renderDialogue();
      renderVerdict();
    }
    renderProgress();
    if (currentId() === id) {
      const saved = state.mine.get(id);
      $('saved-at').textContent = d.dirty ? 'unsaved changes — s saves' : saved ? `saved ${saved.verdict} · ${saved.at || ''}` : '';
    }
  }

  // ---- finding-kind picker ----------------------------------------------------------------------

  function openPicker() {
    if (!state.current) return;
    if (state.selectedTurn === null) { status('select a turn first (1–9, ↑/↓ or click)', 'warn'); return; }
    $('picker-turn').textContent = `#${state.selectedTurn + 1}`;
    const list = $('kind-list');
    clear(list);
    const d = draftFor(currentId());
    state.kinds.slice(0, KIND_KEYS.length).forEach((kind, k) => {
      const tagged = d.findings.some((f) => f.turn === state.selectedTurn && f.kind === kind);
      list.append(el('li', { class: tagged ? 'tagged' : '' },
        el('kbd', { text: KIND_KEYS[k] }),
        el('span', { text: kind })));
    });
    $('kind-picker').hidden = false;
  }

  function pick(key) {
    const k = KIND_KEYS.indexOf(key);
    if (k < 0 || k >= state.kinds.length) return false;
    const kind = state.kinds[k];
    const d = draftFor(currentId());
    const at = d.findings.findIndex((f) => f.turn === state.selectedTurn && f.kind === kind);
    if (at >= 0) d.findings.splice(at, 1);
    else d.findings.push({ kind, turn: state.selectedTurn, note: '' });
    d.findings.sort((x, y) => x.turn - y.turn || x.kind.localeCompare(y.kind));
    $('kind-picker').hidden = true;
    markDirty();
    renderVerdict();
    status(`${at >= 0 ? 'removed' : 'tagged'} ${kind} on turn #${state.selectedTurn + 1} — s saves`, 'ok');
    return true;
  }

  // ---- keyboard ------------------------------------------------------------------------------

  function nextUnreviewed() {
    const n = state.items.length;
    for (let step = 1; step <= n; step += 1) {
      const i = (state.index + step) % n;
      const it = state.items[i];
      if (inQueue(it) && !state.mine.has(it.id)) { show(i); return; }
    }
    status(state.queue ? 'you have reviewed every dialogue of your queue' : 'you have reviewed every dialogue of the sample', 'ok');
  }

  function onKey(e) {
    if (!$('name-dialog').hidden) return;
    const t = e.target;
    const tag = t && t.tagName;
    const typing = tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT';
    if (typing) {
      if (e.key === 'Escape') { e.preventDefault(); t.blur(); }
      else if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) { e.preventDefault(); t.blur(); save(); }
      return;
    }
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    if (!$('kind-picker').hidden) {
      e.preventDefault();
      if (e.key === 'Escape' || e.key === 'f') $('kind-picker').hidden = true;
      else pick(e.key);
      return;
    }
    if (!$('help').hidden) {
      if (e.key === 'Escape' || e.key === '?') { e.preventDefault(); $('help').hidden = true; }
      return;
    }
    if (tag === 'BUTTON' && (e.key === 'Enter' || e.key === ' ')) return; // the button acts
    let handled = true;
    switch (e.key) {
      case 'j': case 'ArrowRight': show(state.index + 1); break;
      case 'k': case 'ArrowLeft': show(state.index - 1); break;
      case 'u': nextUnreviewed(); break;
      case 'a': setVerdict('accept'); break;
      case 'r': setVerdict('reject'); break;
      case 'f': openPicker(); break;
      case 'n': $('note').focus(); break;
      case 's': case 'Enter': save(); break;
      case '?': $('help').hidden = false; break;
      case 'ArrowDown': selectTurn(state.selectedTurn === null ? 0 : state.selectedTurn + 1); break;
      case 'ArrowUp': selectTurn(state.selectedTurn === null ? 0 : state.selectedTurn - 1); break;
      case 'Escape': state.selectedTurn = null; renderTurnMarks(); break;
      default:
        if (e.key.length === 1 && e.key >= '1' && e.key <= '9') selectTurn(Number(e.key) - 1);
        else handled = false;
    }
    if (handled) e.preventDefault();
  }

  function hashId() {
    try { return decodeURIComponent(location.hash.slice(1)); } catch (_) { return ''; }
  }

  // ---- start ---------------------------------------------------------------------------------

  async function start() {
    document.addEventListener('keydown', onKey);
    $('name-form').addEventListener('submit', onNameSubmit);
    $('change-auditor').addEventListener('click', (e) => { e.currentTarget.blur(); askName(); });
    $('help-button').addEventListener('click', (e) => { e.currentTarget.blur(); $('help').hidden = false; });
    $('accept').addEventListener('click', (e) => { e.currentTarget.blur(); setVerdict('accept'); });
    $('reject').addEventListener('click', (e) => { e.currentTarget.blur(); setVerdict('reject'); });
    $('save').addEventListener('click', (e) => { e.currentTarget.blur(); save(); });
    $('note').addEventListener('input', () => { draftFor(currentId()).note = $('note').value; markDirty(); });
    for (const id of ['help', 'kind-picker']) {
      $(id).addEventListener('click', (e) => { if (e.target === e.currentTarget) $(id).hidden = true; });
    }
    window.addEventListener('hashchange', () => {
      const at = state.items.findIndex((it) => it.id === hashId());
      if (at >= 0 && at !== state.index && state.auditor) show(at);
    });
    window.addEventListener('beforeunload', (e) => {
      for (const d of state.drafts.values()) if (d.dirty) { e.preventDefault(); return; }
    });

    let sample;
    try {
      sample = await api('/api/sample');
    } catch (err) {
      status(`cannot load the sample: ${err.message}`, 'error');
      return;
    }
    state.kinds = sample.kinds;
    state.dimensions = sample.dimensions;
    state.items = sample.dialogues;
    state.assignments = sample.assignments || null;
    const at = state.items.findIndex((it) => it.id === hashId());
    state.index = at >= 0 ? at : 0;

    let name = null;
    try { name = localStorage.getItem(NAME_KEY); } catch (_) { name = null; }
    if (name && !validName(name)) {
      await setAuditor(name);
    } else {
      renderList();
      renderProgress();
      askName();
    }
    document.body.dataset.ready = '1';
  }

  start();
})();
