// The Items view's result grid: virtualised (only the rows in view, plus a
// few either side, are in the DOM, so tens of thousands of items scroll
// smoothly), with one column per attribute present (key attributes first,
// then the others in order of first appearance), each cell showing the
// value's DynamoDB type (S, N, B, BOOL, NULL, M, L, SS, NS, BS) beside it.
//
// Keyboard: the grid is one tab stop (role=grid, aria-activedescendant);
// Up/Down/PageUp/PageDown/Home/End move the active row, Space selects it,
// Enter opens it, Delete asks to delete it, Ctrl+A selects every loaded row.
//
//   const grid = createGrid({ onOpen, onDelete, onSelectionChange });
//   grid.setData(items, ['pk', 'sk']); grid.append(more);
import { h, clear, newId } from './dom.js';
import { typeOf, displayValue } from './dynamo_json.js';

const OVERSCAN = 6;
const MAX_COLUMNS = 200;
const FIXED = [{ id: '__select', width: 38 }, { id: '__open', width: 44 }];

export function createGrid({ onOpen, onDelete, onSelectionChange } = {}) {
  const gridId = newId('grid');
  let items = [];
  let keyNames = [];
  let columns = [];          // attribute names
  let widths = [];           // px per attribute column
  let active = -1;
  const selected = new Set();
  const rendered = new Map(); // row index -> element
  const rowH = 34;           // px; console.css gives .grid-row this height
  let frame = 0;

  const selectAll = h('input', { type: 'checkbox', 'aria-label': 'Select every loaded item' });
  const header = h('div', { class: 'grid-header', role: 'row', 'aria-rowindex': '1' });
  const body = h('div', { class: 'grid-body', role: 'rowgroup' });
  const scroller = h('div', { class: 'grid-scroll' }, header, body);
  const empty = h('div', { class: 'grid-empty', hidden: true }, 'No items.');
  const el = h('div', {
    class: 'grid', role: 'grid', id: gridId, tabindex: '0', 'aria-label': 'Items',
    'aria-multiselectable': 'true', 'aria-rowcount': '1',
  }, scroller, empty);

  selectAll.addEventListener('change', () => {
    if (selectAll.checked) items.forEach((it) => selected.add(it));
    else selected.clear();
    syncSelection();
    onSelectionChange?.(selected.size);
  });

  const template = () => [...FIXED.map((c) => `${c.width}px`), ...widths.map((w) => `${w}px`)].join(' ');
  const totalWidth = () => FIXED.reduce((a, c) => a + c.width, 0) + widths.reduce((a, w) => a + w, 0);

  function computeColumns(from, reset) {
    if (reset) columns = [...keyNames];
    const seen = new Set(columns);
    for (const it of from) {
      for (const k of Object.keys(it)) {
        if (!seen.has(k) && columns.length < MAX_COLUMNS) { seen.add(k); columns.push(k); }
      }
    }
    const sample = items.slice(0, 300);
    widths = columns.map((c) => {
      let len = c.length + 4;
      for (const it of sample) {
        const v = it[c];
        if (v) len = Math.max(len, Math.min(48, displayValue(v).length + 5));
      }
      return Math.round(Math.min(360, Math.max(96, len * 7.6 + 24)));
    });
  }

  function renderHeader() {
    scroller.style.setProperty('--grid-cols', template());
    scroller.style.setProperty('--grid-width', `${totalWidth()}px`);
    clear(header,
      h('div', { class: 'cell sel', role: 'columnheader' }, selectAll),
      h('div', { class: 'cell open', role: 'columnheader' }, h('span', { class: 'offscreen' }, 'Edit')),
      columns.map((c, i) => h('div', {
        class: `cell${i < keyNames.length ? ' key' : ''}`, role: 'columnheader', title: c, 'aria-colindex': String(i + 3),
      }, h('span', { class: 'col-name' }, c), i < keyNames.length ? h('span', { class: 'key-mark', title: 'key attribute' }, 'key') : null)));
    el.setAttribute('aria-colcount', String(columns.length + 2));
  }

  function cell(av, col, i) {
    const t = typeOf(av);
    if (!t) return h('div', { class: 'cell absent', role: 'gridcell', 'aria-colindex': String(i + 3) });
    const text = displayValue(av);
    return h('div', { class: 'cell', role: 'gridcell', title: `${col} (${t}): ${text.length > 500 ? text.slice(0, 500) + '…' : text}`, 'aria-colindex': String(i + 3) },
      h('span', { class: `t t-${t}` }, t), h('span', { class: 'v' }, text.length > 200 ? text.slice(0, 200) + '…' : text));
  }

  function rowEl(i) {
    const it = items[i];
    const isSel = selected.has(it);
    const check = h('input', { type: 'checkbox', tabindex: '-1', checked: isSel, 'aria-label': `Select item ${i + 1}` });
    check.addEventListener('click', (e) => { e.stopPropagation(); toggle(i); });
    check.addEventListener('dblclick', (e) => e.stopPropagation());
    const open = h('button', { type: 'button', class: 'small secondary icon', tabindex: '-1', 'aria-label': `Edit item ${i + 1}`, title: 'Edit' }, '✎');
    open.addEventListener('click', (e) => { e.stopPropagation(); setActive(i); onOpen?.(items[i]); });
    const row = h('div', {
      class: `grid-row${isSel ? ' selected' : ''}${i === active ? ' active' : ''}`, role: 'row', id: `${gridId}-r${i}`,
      'aria-rowindex': String(i + 2), 'aria-selected': String(isSel), 'data-index': String(i),
      style: { transform: `translateY(${i * rowH}px)` },
    }, h('div', { class: 'cell sel', role: 'gridcell' }, check), h('div', { class: 'cell open', role: 'gridcell' }, open),
    columns.map((c, ci) => cell(it[c], c, ci)));
    row.addEventListener('click', () => setActive(i));
    row.addEventListener('dblclick', () => onOpen?.(items[i]));
    return row;
  }

  // Renders the rows in view; keeps those already there.
  function paint() {
    frame = 0;
    const top = scroller.scrollTop;
    const viewH = scroller.clientHeight || 400;
    const first = Math.max(0, Math.floor(top / rowH) - OVERSCAN);
    const last = Math.min(items.length - 1, Math.ceil((top + viewH) / rowH) + OVERSCAN);
    for (const [i, row] of rendered) {
      if (i < first || i > last) { row.remove(); rendered.delete(i); }
    }
    for (let i = first; i <= last; i++) {
      if (!rendered.has(i)) {
        const row = rowEl(i);
        rendered.set(i, row);
        body.append(row);
      }
    }
  }
  const schedule = () => { if (!frame) frame = requestAnimationFrame(paint); };
  scroller.addEventListener('scroll', schedule, { passive: true });
  new ResizeObserver(schedule).observe(scroller);  // a taller view shows more rows

  function refreshRows() {
    for (const row of rendered.values()) row.remove();
    rendered.clear();
    selectAll.checked = items.length > 0 && selected.size === items.length;
    selectAll.indeterminate = selected.size > 0 && selected.size < items.length;
    paint();
  }

  function layout() {
    body.style.height = `${items.length * rowH}px`;
    el.setAttribute('aria-rowcount', String(items.length + 1));
    empty.hidden = items.length > 0;
    el.classList.toggle('is-empty', items.length === 0);
  }

  // Brings the rows in the DOM up to date with the selection (in place, so
  // that a focused checkbox keeps its focus).
  function syncSelection() {
    for (const [j, row] of rendered) {
      const on = selected.has(items[j]);
      row.classList.toggle('selected', on);
      row.setAttribute('aria-selected', String(on));
      const box = row.querySelector('.cell.sel input');
      if (box) box.checked = on;
    }
    selectAll.checked = items.length > 0 && selected.size === items.length;
    selectAll.indeterminate = selected.size > 0 && selected.size < items.length;
  }

  function toggle(i) {
    const it = items[i];
    if (selected.has(it)) selected.delete(it); else selected.add(it);
    setActive(i);
    syncSelection();
    onSelectionChange?.(selected.size);
  }

  function setActive(i, scroll = false) {
    if (!items.length) return;
    active = Math.max(0, Math.min(items.length - 1, i));
    if (scroll) {
      const y = active * rowH;
      const headerH = header.offsetHeight;
      if (y < scroller.scrollTop) scroller.scrollTop = y;
      else if (y + rowH > scroller.scrollTop + scroller.clientHeight - headerH) scroller.scrollTop = y + rowH - scroller.clientHeight + headerH;
      paint();
    }
    for (const [j, row] of rendered) row.classList.toggle('active', j === active);
    el.setAttribute('aria-activedescendant', `${gridId}-r${active}`);
  }

  el.addEventListener('keydown', (e) => {
    if (e.target !== el) return;
    const page = Math.max(1, Math.floor(scroller.clientHeight / rowH) - 1);
    const moves = { ArrowDown: 1, ArrowUp: -1, PageDown: page, PageUp: -page };
    if (e.key in moves) setActive(active < 0 ? 0 : active + moves[e.key], true);
    else if (e.key === 'Home') setActive(0, true);
    else if (e.key === 'End') setActive(items.length - 1, true);
    else if (e.key === ' ' && active >= 0) toggle(active);
    else if (e.key === 'Enter' && active >= 0) onOpen?.(items[active]);
    else if (e.key === 'Delete' && active >= 0) onDelete?.(items[active]);
    else if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'a') { selectAll.checked = true; selectAll.dispatchEvent(new Event('change')); }
    else return;
    e.preventDefault();
  });
  el.addEventListener('focus', () => { if (active < 0 && items.length) setActive(0, true); });

  return {
    el,
    setData(newItems, keys) {
      items = [...newItems];
      keyNames = keys;
      selected.clear();
      active = -1;
      el.removeAttribute('aria-activedescendant');
      computeColumns(items, true);
      renderHeader();
      layout();
      scroller.scrollTop = 0;
      refreshRows();
      onSelectionChange?.(0);
    },
    append(more) {
      const before = columns.length;
      items.push(...more);
      computeColumns(more, false);
      if (columns.length !== before || more.length) renderHeader();
      layout();
      refreshRows();
    },
    // Puts `item` in place of the item with the same key (or first, if new).
    upsert(item, sameKey) {
      const i = items.findIndex((it) => sameKey(it, item));
      if (i >= 0) {
        if (selected.delete(items[i])) selected.add(item);
        items[i] = item;
      } else {
        items.unshift(item);
      }
      computeColumns([item], false);
      renderHeader();
      layout();
      refreshRows();
      return i >= 0 ? i : 0;
    },
    remove(gone) {
      const set = new Set(gone);
      items = items.filter((it) => !set.has(it));
      for (const it of set) selected.delete(it);
      active = Math.min(active, items.length - 1);
      layout();
      refreshRows();
      onSelectionChange?.(selected.size);
    },
    items: () => items,
    columns: () => columns,
    selected: () => items.filter((it) => selected.has(it)),
    activeItem: () => (active >= 0 ? items[active] : null),
    focusRow(i) { el.focus(); setActive(i, true); },
  };
}
