// The stream viewer (#/streams/<table>): a stream-enabled table's change
// records as they arrive, newest first, each with its event name, sequence
// number, approximate time and keys, and its OLD and NEW images side by side
// with what changed highlighted. Reads through the DynamoDB Streams API
// (stream_reader.js), only while the view is mounted, not paused and the page
// visible; keeps the newest MAX_RECORDS. A table without a stream gets a
// button to enable one (UpdateTable).
//
//   mount(container, { call, table }) -> { unmount() }

import { StreamReader } from './stream_reader.js';
import { diffImages, el, errorNodes, valueText } from './attribute_display.js';
import { ensureViewStyles, mountTablePicker } from './view_common.js';

export const MAX_RECORDS = 500;
const COLLAPSE_OVER = 12;  // more attributes than this: unchanged ones fold away
const VIEW_TYPES = {
  NEW_AND_OLD_IMAGES: 'New and old images',
  NEW_IMAGE: 'New images',
  OLD_IMAGE: 'Old images',
  KEYS_ONLY: 'Keys only',
};
const STATE_TEXT = {
  starting: 'Connecting…', live: 'Live', paused: 'Paused', hidden: 'Paused while the page is hidden',
  stopped: 'Stopped', error: 'Stopped by an error',
};

let uid = 0;

export function mount(container, ctx) {
  ensureViewStyles();
  if (!ctx.table) {
    return mountTablePicker(container, ctx, { view: 'streams', title: 'Streams',
      intro: 'Pick a table to watch its stream: every change to its items, as it happens.' });
  }
  const table = ctx.table;
  const id = `dv-streams-${++uid}`;
  const s = { alive: true, reader: null, keys: [], records: [], dropped: 0, total: 0, position: 'LATEST' };

  const errorBox = el('div', { class: 'error', role: 'alert', hidden: true });
  const info = el('p', { class: 'muted' }, 'Reading the table’s stream settings…');
  const stateBadge = el('span', { class: 'badge', 'data-state': 'starting' }, STATE_TEXT.starting);
  const pauseButton = el('button', { type: 'button', class: 'secondary', 'aria-pressed': 'false', disabled: true, onclick: togglePause },
    'Pause');
  const fromStartButton = el('button', { type: 'button', class: 'secondary', disabled: true,
    title: 'Read every record the stream still keeps (TRIM_HORIZON)', onclick: () => begin('TRIM_HORIZON') },
  'Read from the oldest');
  const latestButton = el('button', { type: 'button', class: 'secondary', disabled: true, hidden: true,
    title: 'Show only what is written from now on (LATEST)', onclick: () => begin('LATEST') }, 'Only new records');
  const clearButton = el('button', { type: 'button', class: 'secondary', onclick: clear }, 'Clear');
  const counter = el('span', { class: 'muted', 'aria-live': 'polite' });
  const toolbar = el('div', { class: 'dv-toolbar', hidden: true },
    stateBadge, pauseButton, fromStartButton, latestButton, clearButton, counter);
  const enableBox = el('div', { class: 'panel', hidden: true });
  const list = el('ol', { class: 'dv-records', 'aria-label': 'Stream records, newest first' });
  const empty = el('p', { class: 'muted dv-records-empty', hidden: true },
    'No records yet: write to the table (put, update or delete an item) and they appear here.');
  const root = el('section', { class: 'dv-view dv-streams', 'aria-labelledby': `${id}-h` },
    el('header', { class: 'view-head' }, el('h1', { id: `${id}-h` }, 'Stream · ', el('code', {}, table)), info),
    errorBox, enableBox, toolbar, empty, list);
  container.append(root);

  const showError = (e, what) => {
    errorBox.replaceChildren(...errorNodes(e, what));
    errorBox.hidden = false;
  };
  const clearError = () => { errorBox.hidden = true; };

  // ---- the table's stream ---------------------------------------------------------
  async function describeTable() {
    const { data } = await ctx.call('DescribeTable', { TableName: table });
    return data.Table ?? {};
  }

  async function open() {
    let t;
    try {
      t = await describeTable();
    } catch (e) {
      if (!s.alive) return;
      info.textContent = '';
      showError(e, 'DescribeTable');
      return;
    }
    if (!s.alive) return;
    s.keys = (t.KeySchema ?? []).map((k) => k.AttributeName);
    const spec = t.StreamSpecification;
    if (!t.LatestStreamArn || !spec?.StreamEnabled) {
      offerEnable(t);
      return;
    }
    enableBox.hidden = true;
    const viewType = spec.StreamViewType ?? 'NEW_AND_OLD_IMAGES';
    info.replaceChildren('Stream ', el('code', { class: 'dv-break' }, t.LatestStreamArn), ` · ${VIEW_TYPES[viewType] ?? viewType}`,
      viewType === 'NEW_AND_OLD_IMAGES' ? '' : ' (this stream does not carry both images)');
    s.reader = new StreamReader(ctx.call, t.LatestStreamArn, {
      onRecords: (records) => { if (s.alive) { clearError(); add(records); } },
      onError: (e) => { if (s.alive) showError(e, 'Reading the stream'); },
      onState: (st) => { if (s.alive) showState(st); },
    });
    toolbar.hidden = false;
    begin('LATEST');
  }

  function offerEnable(t) {
    info.textContent = t.StreamSpecification?.StreamEnabled === false || !t.LatestStreamArn
      ? 'This table has no stream enabled.' : '';
    const select = el('select', { id: `${id}-vt` },
      Object.entries(VIEW_TYPES).map(([v, txt]) => el('option', { value: v }, txt)));
    const button = el('button', { type: 'submit', class: 'primary' }, 'Enable the stream');
    const form = el('form', { class: 'dv-form', onsubmit: async (ev) => {
      ev.preventDefault();
      button.disabled = true;
      clearError();
      try {
        await ctx.call('UpdateTable', { TableName: table,
          StreamSpecification: { StreamEnabled: true, StreamViewType: select.value } });
        for (let i = 0; i < 20 && s.alive; i++) {
          const now = await describeTable();
          if (now.LatestStreamArn && now.StreamSpecification?.StreamEnabled && now.TableStatus !== 'UPDATING') break;
          await new Promise((r) => setTimeout(r, 500));
        }
        if (s.alive) open();
      } catch (e) {
        if (s.alive) showError(e, 'UpdateTable');
      } finally {
        button.disabled = false;
      }
    } },
    el('div', { class: 'field' }, el('label', { for: select.id }, 'Record'), select),
    el('div', { class: 'field dv-field-actions' }, button));
    enableBox.replaceChildren(el('p', {}, 'Enable a stream to see every change to this table’s items as it happens.'), form);
    enableBox.hidden = false;
  }

  function begin(position) {
    if (!s.reader) return;
    s.position = position;
    clear();
    clearError();
    fromStartButton.hidden = position === 'TRIM_HORIZON';
    latestButton.hidden = position !== 'TRIM_HORIZON';
    s.reader.start(position);
  }

  function togglePause() {
    if (!s.reader) return;
    if (s.reader.paused) s.reader.resume();
    else s.reader.pause();
  }

  function showState({ state, shards }) {
    stateBadge.dataset.state = state;
    stateBadge.textContent = STATE_TEXT[state] ?? state;
    stateBadge.title = shards?.length ? `Reading shard${shards.length > 1 ? 's' : ''} ${shards.join(', ')}` : '';
    const running = state !== 'stopped' && state !== 'error' && state !== 'starting';
    pauseButton.disabled = !running;
    pauseButton.textContent = state === 'paused' ? 'Resume' : 'Pause';
    pauseButton.setAttribute('aria-pressed', String(state === 'paused'));
    fromStartButton.disabled = state === 'starting';
    latestButton.disabled = state === 'starting';
    updateCounter();
  }

  // ---- records ------------------------------------------------------------------
  function add(records) {
    const fragment = document.createDocumentFragment();
    for (const r of records) {
      s.total++;
      s.records.push(r);
      fragment.prepend(renderRecord(r));
    }
    list.prepend(fragment);
    while (s.records.length > MAX_RECORDS) {
      s.records.shift();
      s.dropped++;
      list.lastElementChild?.remove();
    }
    updateCounter();
  }

  function clear() {
    s.records = [];
    s.total = 0;
    s.dropped = 0;
    list.replaceChildren();
    updateCounter();
  }

  function updateCounter() {
    const n = s.records.length;
    counter.textContent = `${n} record${n === 1 ? '' : 's'}` +
      (s.dropped ? ` (the newest ${MAX_RECORDS}; ${s.dropped} older dropped)` : '') +
      (s.position === 'TRIM_HORIZON' ? ' · from the oldest kept' : ' · since opened');
    empty.hidden = n > 0 || !s.reader;
  }

  function renderRecord(r) {
    const d = r.dynamodb ?? {};
    const when = d.ApproximateCreationDateTime;
    const date = when !== undefined ? new Date(Number(when) * (Number(when) > 1e11 ? 1 : 1000)) : null;
    const keys = Object.entries(d.Keys ?? {}).map(([k, v]) => `${k} = ${valueText(v, { max: 80 })}`).join(', ');
    const hasOld = d.OldImage !== undefined;
    const hasNew = d.NewImage !== undefined;
    const rows = diffImages(d.OldImage, d.NewImage, { first: s.keys });
    const changed = rows.filter((row) => row.change !== 'same').length;
    const head = el('header', { class: 'dv-record-head' },
      el('span', { class: `dv-event dv-event-${String(r.eventName).toLowerCase()}` }, r.eventName ?? '?'),
      el('span', { class: 'dv-record-keys' }, keys || '(no keys)'),
      el('span', { class: 'muted' }, 'seq ', el('code', {}, d.SequenceNumber ?? '?')),
      date ? el('time', { class: 'muted', datetime: date.toISOString(), title: date.toISOString() },
        date.toLocaleString()) : null,
      r.userIdentity?.principalId ? el('span', { class: 'badge' }, r.userIdentity.principalId) : null);
    const imagesNote = !hasOld && !hasNew ? el('p', { class: 'muted' }, 'This stream records keys only.') : null;
    const fold = rows.length > COLLAPSE_OVER;
    const shown = fold ? rows.filter((row) => row.change !== 'same' || s.keys.includes(row.name)) : rows;
    const hidden = fold ? rows.filter((row) => !shown.includes(row)) : [];
    const table = imagesNote ?? el('div', { class: 'dv-scroll-x' }, el('table', { class: 'dv-images' },
      el('caption', { class: 'offscreen' }, `Old and new image of ${keys}`),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Attribute'),
        el('th', { scope: 'col' }, hasOld ? 'Old image' : 'Old image (none)'),
        el('th', { scope: 'col' }, hasNew ? 'New image' : 'New image (none)'))),
      el('tbody', {}, shown.map(imageRow)),
      hidden.length ? el('tbody', { class: 'dv-folded', hidden: true }, hidden.map(imageRow)) : null));
    const unfold = hidden.length ? el('button', { type: 'button', class: 'link', 'aria-expanded': 'false',
      onclick: (ev) => {
        const body = table.querySelector('.dv-folded');
        body.hidden = !body.hidden;
        ev.target.setAttribute('aria-expanded', String(!body.hidden));
        ev.target.textContent = body.hidden ? `Show ${hidden.length} unchanged attributes` : 'Hide unchanged attributes';
      } }, `Show ${hidden.length} unchanged attributes`) : null;
    return el('li', { class: 'dv-record', 'data-event': r.eventName ?? '', 'data-seq': d.SequenceNumber ?? '',
      'aria-label': `${r.eventName} ${keys}${changed && hasOld && hasNew ? `, ${changed} attributes changed` : ''}` },
    head, table, unfold);
  }

  function imageRow(row) {
    const cell = (v, side) => el('td', { class: `dv-${side}` },
      v === undefined ? el('span', { class: 'muted' }, '—')
        : [el('span', { class: 'dv-type' }, Object.keys(v)[0]), ' ', valueText(v, { max: 400 })]);
    const label = { added: 'added', removed: 'removed', changed: 'changed' }[row.change];
    return el('tr', { class: `dv-row-${row.change}` },
      el('th', { scope: 'row' }, row.name, label ? el('span', { class: 'offscreen' }, ` (${label})`) : null),
      cell(row.oldValue, 'old'), cell(row.newValue, 'new'));
  }

  open();

  return {
    unmount() {
      s.alive = false;
      s.reader?.stop(false);
      root.remove();
    },
  };
}
