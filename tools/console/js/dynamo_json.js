// DynamoDB JSON ("attribute values": {"S": "x"}, {"N": "1"}, {"M": {...}}) and
// plain JSON, both ways, for the item editor, the grid and the exports.
//
// Plain JSON maps to DynamoDB types as the SDKs' document clients do: a string
// is S, a number N (kept exactly as written: the parser here never rounds a
// number through a double), true/false BOOL, null NULL, an array L, an object
// M. Sets (SS, NS, BS) and binary (B) have no plain JSON form: an item holding
// one is edited as DynamoDB JSON.

export const TYPES = ['S', 'N', 'B', 'BOOL', 'NULL', 'M', 'L', 'SS', 'NS', 'BS'];

// A number kept as its text (plain JSON numbers, exactly as written).
export class Num {
  constructor(text) { this.text = text; }
  toString() { return this.text; }
}

// The type of an attribute value ("S", "N", ...), or null when it is not one.
export function typeOf(av) {
  if (!av || typeof av !== 'object' || Array.isArray(av)) return null;
  const keys = Object.keys(av);
  return keys.length === 1 && TYPES.includes(keys[0]) ? keys[0] : null;
}

// ---- An exact JSON parser (numbers become Num) --------------------------------

// Sticky (anchored at lastIndex) JSON string and number tokens.
const STRING_RE = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;
const NUMBER_RE = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

// Parses JSON text like JSON.parse, but numbers become Num (their text) and
// errors say the line and column. Throws SyntaxError.
export function parseExact(text) {
  let i = 0;
  const fail = (what) => {
    const before = text.slice(0, i);
    const line = before.split('\n').length;
    const col = i - before.lastIndexOf('\n');
    throw new SyntaxError(`${what} at line ${line}, column ${col}`);
  };
  const ws = () => { while (i < text.length && ' \t\r\n'.includes(text[i])) i++; };
  const value = () => {
    ws();
    const c = text[i];
    if (c === '{') return object();
    if (c === '[') return array();
    if (c === '"') return string();
    if (c === '-' || (c >= '0' && c <= '9')) return number();
    for (const [word, v] of [['true', true], ['false', false], ['null', null]]) {
      if (text.startsWith(word, i)) { i += word.length; return v; }
    }
    return fail(i >= text.length ? 'Unexpected end of JSON' : `Unexpected character '${c}'`);
  };
  const object = () => {
    i++;
    const out = {};
    ws();
    if (text[i] === '}') { i++; return out; }
    for (;;) {
      ws();
      if (text[i] !== '"') fail('Expected a "quoted" member name');
      const k = string();
      ws();
      if (text[i] !== ':') fail("Expected ':'");
      i++;
      if (Object.prototype.hasOwnProperty.call(out, k)) fail(`Duplicate member "${k}"`);
      out[k] = value();
      ws();
      if (text[i] === ',') { i++; continue; }
      if (text[i] === '}') { i++; return out; }
      fail("Expected ',' or '}'");
    }
  };
  const array = () => {
    i++;
    const out = [];
    ws();
    if (text[i] === ']') { i++; return out; }
    for (;;) {
      out.push(value());
      ws();
      if (text[i] === ',') { i++; continue; }
      if (text[i] === ']') { i++; return out; }
      fail("Expected ',' or ']'");
    }
  };
  const string = () => {
    STRING_RE.lastIndex = i;
    const m = STRING_RE.exec(text);
    if (!m) fail('Bad string');
    i += m[0].length;
    return JSON.parse(m[0]);
  };
  const number = () => {
    NUMBER_RE.lastIndex = i;
    const m = NUMBER_RE.exec(text);
    if (!m) fail('Bad number');
    i += m[0].length;
    return new Num(m[0]);
  };
  const v = value();
  ws();
  if (i < text.length) fail(`Unexpected '${text[i]}' after the JSON value`);
  return v;
}

// JSON text of a value that may hold Num (written as bare numbers).
export function stringifyExact(v, indent = 2, depth = 0) {
  const pad = indent ? '\n' + ' '.repeat(indent * (depth + 1)) : '';
  const end = indent ? '\n' + ' '.repeat(indent * depth) : '';
  const sep = indent ? ': ' : ':';
  if (v instanceof Num) return v.text;
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    return '[' + v.map((x) => pad + stringifyExact(x, indent, depth + 1)).join(',') + end + ']';
  }
  if (v && typeof v === 'object') {
    const keys = Object.keys(v);
    if (!keys.length) return '{}';
    return '{' + keys.map((k) => pad + JSON.stringify(k) + sep + stringifyExact(v[k], indent, depth + 1))
      .join(',') + end + '}';
  }
  return JSON.stringify(v);
}

// JSON text of `v` (which may hold Num) on one line, with a space after
// each ',' and ':' between members (never inside strings).
export function inlineJson(v) {
  if (v instanceof Num) return v.text;
  if (Array.isArray(v)) return `[${v.map(inlineJson).join(', ')}]`;
  if (v && typeof v === 'object') return `{${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}: ${inlineJson(x)}`).join(', ')}}`;
  return JSON.stringify(v);
}

// An item (or any value) as editable text: each value on one line when it
// fits in `width` characters, else opened up one level, recursively.
export function formatItemText(v, width = 96, indent = 0) {
  const one = inlineJson(v);
  const isObj = v && typeof v === 'object' && !(v instanceof Num);
  if (!isObj || (indent && indent + one.length <= width)) return one;
  const pad = ' '.repeat(indent + 2);
  const entries = Array.isArray(v) ? v.map((x) => [null, x]) : Object.entries(v);
  if (!entries.length) return one;
  const lines = entries.map(([k, x]) => {
    const head = k === null ? '' : `${JSON.stringify(k)}: `;
    return pad + head + formatItemText(x, width - head.length, indent + 2);
  });
  const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
  return `${open}\n${lines.join(',\n')}\n${' '.repeat(indent)}${close}`;
}

// ---- Plain JSON <-> DynamoDB JSON --------------------------------------------

// The attribute value of a plain JSON value (from parseExact or JSON.parse).
export function fromPlain(v) {
  if (v instanceof Num) return { N: v.text };
  if (typeof v === 'number') return { N: String(v) };
  if (typeof v === 'string') return { S: v };
  if (typeof v === 'boolean') return { BOOL: v };
  if (v === null) return { NULL: true };
  if (Array.isArray(v)) return { L: v.map(fromPlain) };
  if (typeof v === 'object') return { M: mapValues(v, fromPlain) };
  throw new TypeError(`No DynamoDB type for ${typeof v}`);
}

// A plain item (object) as a DynamoDB item.
export function itemFromPlain(obj) {
  if (!obj || typeof obj !== 'object' || Array.isArray(obj) || obj instanceof Num) {
    throw new TypeError('An item is a JSON object: {"attribute": value, ...}');
  }
  return mapValues(obj, fromPlain);
}

// The first attribute of an item (path) that plain JSON cannot express, or null.
export function unplainable(av, path = '') {
  const t = typeOf(av);
  if (t === 'B' || t === 'SS' || t === 'NS' || t === 'BS') return { path, type: t };
  if (t === 'M') {
    for (const [k, v] of Object.entries(av.M)) {
      const r = unplainable(v, path ? `${path}.${k}` : k);
      if (r) return r;
    }
  }
  if (t === 'L') {
    for (let j = 0; j < av.L.length; j++) {
      const r = unplainable(av.L[j], `${path}[${j}]`);
      if (r) return r;
    }
  }
  return null;
}

// The plain value of an attribute value: N as Num (exact), sets as arrays
// (their type is lost), B as its base64 text.
export function toPlain(av) {
  const t = typeOf(av);
  const v = t ? av[t] : undefined;
  switch (t) {
    case 'S': case 'B': case 'BOOL': return v;
    case 'N': return new Num(v);
    case 'NULL': return null;
    case 'M': return mapValues(v, toPlain);
    case 'L': return v.map(toPlain);
    case 'SS': case 'BS': return [...v];
    case 'NS': return v.map((n) => new Num(n));
    default: return av;
  }
}

export const itemToPlain = (item) => mapValues(item, toPlain);

function mapValues(obj, fn) {
  const out = {};
  for (const [k, v] of Object.entries(obj)) out[k] = fn(v);
  return out;
}

// ---- Validation ----------------------------------------------------------------

// Problems with a DynamoDB JSON item's shape (each "path: what"), before it is
// sent; the values themselves (number syntax, empty sets, sizes) are left to
// the API, whose messages the editor shows as given.
export function validateItem(item) {
  const problems = [];
  if (!item || typeof item !== 'object' || Array.isArray(item)) {
    return ['An item is a JSON object of attribute names to values: {"id": {"S": "a"}}'];
  }
  for (const [k, v] of Object.entries(item)) checkValue(v, k, problems);
  return problems;
}

function checkValue(av, path, problems) {
  if (!av || typeof av !== 'object' || Array.isArray(av)) {
    problems.push(`${path}: expected an attribute value such as {"S": "text"}, got ${shortJson(av)}`);
    return;
  }
  const keys = Object.keys(av);
  if (keys.length !== 1) {
    problems.push(`${path}: an attribute value has exactly one type key (${TYPES.join(', ')}); ` +
      `got ${keys.length ? keys.join(', ') : 'none'}`);
    return;
  }
  const [t] = keys;
  const v = av[t];
  const str = (x) => typeof x === 'string';
  const bad = (want) => problems.push(`${path}: ${t} takes ${want}, got ${shortJson(v)}`);
  switch (t) {
    case 'S': case 'N': case 'B': if (!str(v)) bad('a string'); break;
    case 'BOOL': if (typeof v !== 'boolean') bad('true or false'); break;
    case 'NULL': if (v !== true) bad('true'); break;
    case 'SS': case 'NS': case 'BS':
      if (!Array.isArray(v) || !v.every(str)) bad('an array of strings');
      break;
    case 'L':
      if (!Array.isArray(v)) bad('an array of attribute values');
      else v.forEach((x, j) => checkValue(x, `${path}[${j}]`, problems));
      break;
    case 'M':
      if (!v || typeof v !== 'object' || Array.isArray(v)) bad('an object of attribute values');
      else for (const [k, x] of Object.entries(v)) checkValue(x, `${path}.${k}`, problems);
      break;
    default:
      problems.push(`${path}: unknown type "${t}" (one of ${TYPES.join(', ')})`);
  }
}

function shortJson(v) {
  const s = v instanceof Num ? v.text : JSON.stringify(v);
  return s === undefined ? String(v) : s.length > 40 ? s.slice(0, 37) + '...' : s;
}

// ---- Display -------------------------------------------------------------------

// A one-line text of an attribute value for a grid cell or CSV (without its type).
export function displayValue(av) {
  const t = typeOf(av);
  if (!t) return '';
  const v = av[t];
  switch (t) {
    case 'S': case 'N': case 'B': return v;
    case 'BOOL': return v ? 'true' : 'false';
    case 'NULL': return 'null';
    case 'SS': case 'BS': return JSON.stringify(v);
    case 'NS': return '[' + v.join(', ') + ']';
    default: return stringifyExact(toPlain(av), 0);
  }
}

// The key of an item (its key attributes only), and a string identifying it.
export function keyOf(item, keyNames) {
  const key = {};
  for (const k of keyNames) if (item[k] !== undefined) key[k] = item[k];
  return key;
}
export const keyId = (item, keyNames) => JSON.stringify(keyNames.map((k) => item[k] ?? null));
