// Shows DynamoDB JSON attribute values as text for the graph view and the
// stream viewer: each value's type tag (S, N, SS, M, ...) and a short or full
// rendering, an item as rows of name / type / value, and the difference
// between two images (a stream record's OLD and NEW).
//
//   typeOf({ N: '3' })               -> 'N'
//   valueText({ SS: ['a', 'b'] })    -> '{"a", "b"}'
//   itemRows(item)                   -> [{ name, type, text }], sorted by name
//   diffImages(oldImage, newImage)   -> [{ name, oldValue, newValue, change }]

const TYPES = ['S', 'N', 'B', 'BOOL', 'NULL', 'SS', 'NS', 'BS', 'L', 'M'];

// The type tag of an attribute value ('?' for something that is not one).
export function typeOf(av) {
  if (!av || typeof av !== 'object') return '?';
  for (const t of TYPES) if (t in av) return t;
  return '?';
}

const quote = (s) => JSON.stringify(s);

// The value as text: strings quoted inside sets, lists and maps, bare at the
// top level; numbers as sent; binary as its base64; sets in braces, lists in
// brackets, maps as {name: value}. `max` cuts the text (with an ellipsis).
export function valueText(av, { max = Infinity, nested = false } = {}) {
  const t = typeOf(av);
  let text;
  switch (t) {
    case 'S': text = nested ? quote(av.S) : av.S; break;
    case 'N': text = String(av.N); break;
    case 'B': text = nested ? quote(av.B) : String(av.B); break;
    case 'BOOL': text = av.BOOL ? 'true' : 'false'; break;
    case 'NULL': text = 'null'; break;
    case 'SS': case 'BS': text = '{' + av[t].map(quote).join(', ') + '}'; break;
    case 'NS': text = '{' + av.NS.join(', ') + '}'; break;
    case 'L': text = '[' + av.L.map((v) => valueText(v, { nested: true })).join(', ') + ']'; break;
    case 'M':
      text = '{' + Object.keys(av.M).sort()
        .map((k) => `${quote(k)}: ${valueText(av.M[k], { nested: true })}`).join(', ') + '}';
      break;
    default: text = JSON.stringify(av);
  }
  return text.length > max ? text.slice(0, Math.max(0, max - 1)) + '…' : text;
}

// A canonical string of a value: equal values (sets in any order, maps in any
// key order) give equal strings.
export function canonical(av) {
  const t = typeOf(av);
  if (t === 'SS' || t === 'BS' || t === 'NS') return t + ':' + JSON.stringify([...av[t]].map(String).sort());
  if (t === 'L') return 'L:[' + av.L.map(canonical).join(',') + ']';
  if (t === 'M') {
    return 'M:{' + Object.keys(av.M).sort().map((k) => JSON.stringify(k) + ':' + canonical(av.M[k])).join(',') + '}';
  }
  if (t === 'N') return 'N:' + normaliseNumber(av.N);
  return t + ':' + JSON.stringify(av[t] ?? null);
}

// "1.50" and "1.5" are one DynamoDB number; compares them as such.
function normaliseNumber(n) {
  const s = String(n).trim();
  if (!/^[-+]?\d*\.?\d*(e[-+]?\d+)?$/i.test(s)) return s;
  const v = Number(s);
  return Number.isFinite(v) && Math.abs(v) < 2 ** 53 ? String(v) : s;
}

// An item's attributes as rows, the names in `first` (key attributes) first,
// the others sorted.
export function itemRows(item, { first = [], max = Infinity } = {}) {
  if (!item) return [];
  const names = Object.keys(item);
  const head = first.filter((n) => names.includes(n));
  const rest = names.filter((n) => !head.includes(n)).sort();
  return [...head, ...rest].map((name) => ({
    name, type: typeOf(item[name]), text: valueText(item[name], { max }),
  }));
}

// The rows of two images side by side: every attribute of either, `first`
// first, with change = 'added' (only in newImage), 'removed' (only in
// oldImage), 'changed' or 'same'. A missing image (INSERT's old, REMOVE's
// new, a KEYS_ONLY stream) counts as having no attributes.
export function diffImages(oldImage, newImage, { first = [] } = {}) {
  const o = oldImage ?? {};
  const n = newImage ?? {};
  const names = [...new Set([...Object.keys(o), ...Object.keys(n)])];
  const head = first.filter((x) => names.includes(x));
  const rest = names.filter((x) => !head.includes(x)).sort();
  return [...head, ...rest].map((name) => {
    const oldValue = o[name];
    const newValue = n[name];
    let change = 'same';
    if (oldValue === undefined && oldImage && newImage) change = 'added';
    else if (newValue === undefined && oldImage && newImage) change = 'removed';
    else if (oldValue !== undefined && newValue !== undefined && canonical(oldValue) !== canonical(newValue)) {
      change = 'changed';
    }
    return { name, oldValue, newValue, change };
  });
}

// Creates an element: el('td', { class: 'x', title: 't' }, 'text', childNode).
// Attributes whose value is false, null or undefined are left out; `on*`
// functions become listeners.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k === 'class') node.className = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

// A table of an item's attributes (name, type tag, value) for a side panel.
export function attributeTable(item, { first = [], caption } = {}) {
  const rows = itemRows(item, { first });
  if (rows.length === 0) return el('p', { class: 'muted' }, 'No attributes.');
  return el('table', { class: 'dv-attrs' },
    caption ? el('caption', {}, caption) : null,
    el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, 'Attribute'), el('th', { scope: 'col' }, 'Type'),
      el('th', { scope: 'col' }, 'Value'))),
    el('tbody', {}, rows.map((r) => el('tr', {},
      el('th', { scope: 'row' }, r.name), el('td', {}, el('span', { class: 'dv-type' }, r.type)),
      el('td', { class: 'dv-value' }, r.text)))));
}

// The contents of an error box: what was being done, then the error's type in
// bold and its message as the server sent it.
export function errorNodes(e, what) {
  const type = e?.type ?? e?.name ?? 'Error';
  const message = e?.type ? e.message : e?.message ?? String(e);
  return [what ? `${what}: ` : '', el('strong', { class: 'error-type' }, type), message ? ': ' : '',
    el('span', { class: 'error-message' }, message)];
}
