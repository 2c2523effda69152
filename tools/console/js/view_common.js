// What the graph view, the stream viewer and the metrics view share with no
// data of their own: their stylesheet (views.css, linked once even if the
// page does not link it) and the table picker shown when a route names no
// table (#/graph, #/streams).

import { el, errorNodes } from './attribute_display.js';

// Links views.css next to console.css unless the page already has it.
export function ensureViewStyles() {
  const href = new URL('../views.css', import.meta.url).href;
  const present = [...document.querySelectorAll('link[rel="stylesheet"]')]
    .some((l) => l.href === href || /(^|\/)views\.css(\?|$)/.test(l.getAttribute('href') ?? ''));
  if (!present) document.head.append(el('link', { rel: 'stylesheet', href }));
}

// Lists the tables (ListTables, page by page) as links to `#/<view>/<table>`.
// Returns { unmount() }.
export function mountTablePicker(container, ctx, { view, title, intro }) {
  let alive = true;
  const list = el('ul', { class: 'dv-table-links', 'aria-label': 'Tables' }, el('li', { class: 'muted' }, 'Reading the tables…'));
  const more = el('button', { type: 'button', class: 'secondary', hidden: true }, 'More tables');
  const errorSlot = el('div');
  const root = el('section', { class: 'dv-view panel', 'aria-labelledby': `dv-${view}-pick-h` },
    el('header', { class: 'view-head' }, el('h1', { id: `dv-${view}-pick-h` }, title)),
    el('p', {}, intro), errorSlot, list, more);
  container.append(root);
  let start = null;
  let first = true;
  async function page() {
    more.disabled = true;
    try {
      const body = { Limit: 100 };
      if (start) body.ExclusiveStartTableName = start;
      const { data } = await ctx.call('ListTables', body);
      if (!alive) return;
      if (first) list.replaceChildren();
      first = false;
      for (const t of data.TableNames ?? []) {
        list.append(el('li', {}, el('a', { href: `#/${view}/${encodeURIComponent(t)}` }, t)));
      }
      if (list.children.length === 0) list.append(el('li', { class: 'muted' }, 'No tables in this namespace.'));
      start = data.LastEvaluatedTableName ?? null;
      more.hidden = !start;
    } catch (e) {
      if (!alive) return;
      errorSlot.replaceChildren(el('div', { class: 'error', role: 'alert' }, ...errorNodes(e, 'ListTables')));
    } finally {
      more.disabled = false;
    }
  }
  more.addEventListener('click', page);
  page();
  return { unmount() { alive = false; root.remove(); } };
}
