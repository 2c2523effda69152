// What the query builder built, as the same request elsewhere: an AWS CLI
// command, a boto3 call and a PartiQL statement (ExecuteStatement), each
// aimed at this endpoint and namespace (unsigned for the shared namespace:
// --no-sign-request, botocore.UNSIGNED). renderEquivalents shows them as
// tabs, each with a Copy button.
//
//   const { cli, boto3, partiql } = equivalents('Query', request, { endpoint, namespace });
import { h, copyButton, newId } from './dom.js';
import { typeOf } from './dynamo_json.js';

// Shell single-quoting.
const sq = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
const shellWord = (s) => (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : sq(s));

const CLI_FLAGS = [
  ['TableName', 'table-name'], ['IndexName', 'index-name'], ['KeyConditionExpression', 'key-condition-expression'],
  ['FilterExpression', 'filter-expression'], ['ProjectionExpression', 'projection-expression'],
  ['ExpressionAttributeNames', 'expression-attribute-names'], ['ExpressionAttributeValues', 'expression-attribute-values'],
  ['Limit', 'limit'],
];

export function cliCommand(operation, req, { endpoint, namespace = {}, requireAuth = false }) {
  const lines = [];
  const prefix = [];
  const op = operation.replace(/[A-Z]/g, (c, i) => (i ? '-' : '') + c.toLowerCase());
  if (namespace.accessKey) {
    prefix.push(`AWS_ACCESS_KEY_ID=${shellWord(namespace.accessKey)}`);
    if (!requireAuth) prefix.push('AWS_SECRET_ACCESS_KEY=x');
  }
  lines.push(`${prefix.length ? prefix.join(' ') + ' ' : ''}aws dynamodb ${op}`);
  for (const [member, flag] of CLI_FLAGS) {
    if (req[member] === undefined) continue;
    const v = req[member];
    lines.push(`--${flag} ${typeof v === 'object' ? sq(JSON.stringify(v)) : shellWord(String(v))}`);
  }
  if (req.ScanIndexForward === false) lines.push('--no-scan-index-forward');
  if (req.ConsistentRead) lines.push('--consistent-read');
  if (!namespace.accessKey) lines.push('--no-sign-request');
  lines.push(`--region ${shellWord(namespace.region || 'us-east-1')}`);
  lines.push(`--endpoint-url ${shellWord(endpoint)}`);
  const notes = [];
  if (requireAuth && namespace.accessKey) notes.push(`# Set AWS_SECRET_ACCESS_KEY to the secret of ${namespace.accessKey} first.`);
  notes.push(req.Limit ? '# --limit returns one page, as the console does.' : '# Without --limit the CLI follows LastEvaluatedKey to the end.');
  return [...notes, lines.join(' \\\n  ')].join('\n');
}

// A JSON value as a Python literal.
export function py(v, indent = 4, depth = 1) {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return JSON.stringify(v);
  // Binary values: boto3 takes bytes, not the base64 text of DynamoDB JSON.
  const keys = Object.keys(v);
  if (keys.length === 1 && keys[0] === 'B' && typeof v.B === 'string') return `{"B": base64.b64decode(${JSON.stringify(v.B)})}`;
  if (keys.length === 1 && keys[0] === 'BS' && Array.isArray(v.BS)) return `{"BS": [${v.BS.map((b) => `base64.b64decode(${JSON.stringify(b)})`).join(', ')}]}`;
  const pad = ' '.repeat(indent * depth);
  const end = ' '.repeat(indent * (depth - 1));
  if (Array.isArray(v)) return v.length ? `[${v.map((x) => py(x, 0)).join(', ')}]` : '[]';
  const entries = Object.entries(v);
  if (!entries.length) return '{}';
  if (!indent) return `{${entries.map(([k, x]) => `${JSON.stringify(k)}: ${py(x, 0)}`).join(', ')}}`;
  return `{\n${entries.map(([k, x]) => `${pad}${JSON.stringify(k)}: ${py(x, 0)},`).join('\n')}\n${end}}`;
}

export function boto3Call(operation, req, { endpoint, namespace = {}, requireAuth = false }) {
  const method = operation.replace(/[A-Z]/g, (c, i) => (i ? '_' : '') + c.toLowerCase());
  const head = ['import boto3'];
  let client;
  if (namespace.accessKey) {
    const secret = requireAuth ? 'os.environ["AWS_SECRET_ACCESS_KEY"]' : '"x"';
    if (requireAuth) head.unshift('import os');
    client = `client = boto3.client(\n    "dynamodb",\n    endpoint_url=${JSON.stringify(endpoint)},\n    region_name=${JSON.stringify(namespace.region || 'us-east-1')},\n` +
      `    aws_access_key_id=${JSON.stringify(namespace.accessKey)},\n    aws_secret_access_key=${secret},\n)`;
  } else {
    head.push('from botocore import UNSIGNED', 'from botocore.config import Config');
    client = `client = boto3.client(\n    "dynamodb",\n    endpoint_url=${JSON.stringify(endpoint)},\n    region_name=${JSON.stringify(namespace.region || 'us-east-1')},\n` +
      '    config=Config(signature_version=UNSIGNED),  # the shared namespace\n)';
  }
  const args = Object.entries(req).map(([k, v]) => `    ${k}=${py(v, 4, 2)},`).join('\n');
  if (args.includes('base64.b64decode(')) head.unshift('import base64');
  return `${head.join('\n')}\n\n${client}\nresponse = client.${method}(\n${args}\n)\n` +
    'for item in response["Items"]:\n    print(item)\nprint(response.get("LastEvaluatedKey"))\n';
}

// ---- PartiQL ---------------------------------------------------------------------

const quoteIdent = (name) => `"${name.replace(/"/g, '""')}"`;

// A DynamoDB attribute value as a PartiQL literal (null when it has none: binary).
export function partiqlLiteral(av) {
  const t = typeOf(av);
  const v = av?.[t];
  switch (t) {
    case 'S': return `'${v.replace(/'/g, "''")}'`;
    case 'N': return v;
    case 'BOOL': return v ? 'true' : 'false';
    case 'NULL': return 'NULL';
    case 'L': { const xs = v.map(partiqlLiteral); return xs.includes(null) ? null : `[${xs.join(', ')}]`; }
    case 'M': {
      const xs = Object.entries(v).map(([k, x]) => [k, partiqlLiteral(x)]);
      return xs.some(([, x]) => x === null) ? null : `{${xs.map(([k, x]) => `'${k.replace(/'/g, "''")}': ${x}`).join(', ')}}`;
    }
    case 'SS': return `<<${v.map((s) => `'${s.replace(/'/g, "''")}'`).join(', ')}>>`;
    case 'NS': return `<<${v.join(', ')}>>`;
    default: return null;  // B, BS
  }
}

const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'BETWEEN', 'IN']);

// A DynamoDB condition expression in PartiQL: placeholders replaced by quoted
// names and literals, attribute_exists(p) -> p IS NOT MISSING,
// attribute_not_exists(p) -> p IS MISSING, IN (a, b) -> IN [a, b]. Values with
// no literal become ? and go to `params`.
export function conditionToPartiql(expr, names = {}, values = {}, params = []) {
  let i = 0;
  const out = [];
  const closers = [];  // what each open '(' becomes when closed
  let lastWord = '';
  const word = (re) => {
    re.lastIndex = i;
    const m = re.exec(expr);
    i += m ? m[0].length : 1;
    return m ? m[0] : expr[i - 1];
  };
  const NAME = /[#:][A-Za-z0-9_]+/y;
  const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y;
  while (i < expr.length) {
    const c = expr[i];
    if (c === '#') {
      const t = word(NAME);
      out.push(names[t] !== undefined ? quoteIdent(names[t]) : t);
      lastWord = '';
    } else if (c === ':') {
      const t = word(NAME);
      const lit = values[t] !== undefined ? partiqlLiteral(values[t]) : null;
      if (lit === null) params.push(values[t] ?? t);
      out.push(lit ?? '?');
      lastWord = '';
    } else if (/[A-Za-z_]/.test(c)) {
      const w = word(IDENT);
      const rest = expr.slice(i).trimStart();
      const fn = w.toLowerCase();
      if (rest.startsWith('(') && (fn === 'attribute_exists' || fn === 'attribute_not_exists')) {
        const open = i + expr.slice(i).indexOf('(');
        let depth = 0;
        let j = open;
        for (; j < expr.length; j++) {
          if (expr[j] === '(') depth++;
          else if (expr[j] === ')' && --depth === 0) break;
        }
        const inner = conditionToPartiql(expr.slice(open + 1, j), names, values, params);
        out.push(`${inner.trim()} IS ${fn === 'attribute_exists' ? 'NOT ' : ''}MISSING`);
        i = j + 1;
      } else if (KEYWORDS.has(w.toUpperCase())) {
        out.push(w.toUpperCase());
      } else if (rest.startsWith('(')) {
        out.push(fn);  // begins_with, contains, size, attribute_type
      } else {
        out.push(quoteIdent(w));
      }
      lastWord = w.toUpperCase();
      continue;
    } else if (c === '(') {
      const isIn = lastWord === 'IN';
      out.push(isIn ? '[' : '(');
      closers.push(isIn ? ']' : ')');
      i++;
      lastWord = '';
    } else if (c === ')') {
      out.push(closers.pop() ?? ')');
      i++;
    } else {
      out.push(c);
      i++;
      if (!/\s/.test(c)) lastWord = '';
    }
  }
  return out.join('');
}

// `sortKey`: the first sort attribute of the table or index read (for ORDER BY ... DESC).
export function partiqlStatement(operation, req, sortKey = null) {
  const names = req.ExpressionAttributeNames ?? {};
  const values = req.ExpressionAttributeValues ?? {};
  const params = [];
  const proj = req.ProjectionExpression
    ? req.ProjectionExpression.split(',').map((p) => conditionToPartiql(p.trim(), names, values, params)).join(', ')
    : '*';
  const from = quoteIdent(req.TableName) + (req.IndexName ? '.' + quoteIdent(req.IndexName) : '');
  const where = [];
  if (operation === 'Query' && req.KeyConditionExpression) where.push(conditionToPartiql(req.KeyConditionExpression, names, values, params));
  if (req.FilterExpression) where.push(`(${conditionToPartiql(req.FilterExpression, names, values, params)})`);
  let stmt = `SELECT ${proj} FROM ${from}`;
  if (where.length) stmt += `\nWHERE ${where.join('\n  AND ')}`;
  if (operation === 'Query' && req.ScanIndexForward === false && sortKey) stmt += `\nORDER BY ${quoteIdent(sortKey)} DESC`;
  const notes = [];
  if (req.Limit) notes.push(`-- ExecuteStatement's Limit: ${req.Limit}`);
  if (req.ConsistentRead) notes.push("-- ExecuteStatement's ConsistentRead: true");
  if (params.length) notes.push(`-- Parameters (no PartiQL literal for these values): ${JSON.stringify(params)}`);
  return [stmt, ...notes].join('\n');
}

export function equivalents(operation, req, opts) {
  const clean = { ...req };
  delete clean.ExclusiveStartKey;
  delete clean.ReturnConsumedCapacity;
  return { cli: cliCommand(operation, clean, opts), boto3: boto3Call(operation, clean, opts), partiql: partiqlStatement(operation, clean, opts.sortKey) };
}

// Tabs "AWS CLI | boto3 | PartiQL", each a <pre> and a Copy button; update(eq) refreshes.
export function renderEquivalents() {
  const tabs = [['cli', 'AWS CLI'], ['boto3', 'boto3'], ['partiql', 'PartiQL']];
  const texts = { cli: '', boto3: '', partiql: '' };
  let active = 'cli';
  const pre = h('pre', { class: 'code small', tabindex: '0', role: 'tabpanel' });
  const buttons = tabs.map(([k, label]) => h('button', {
    type: 'button', role: 'tab', class: 'tab', id: newId('tab'), 'data-tab': k,
    onclick: () => select(k),
  }, label));
  pre.setAttribute('aria-labelledby', buttons[0].id);
  const list = h('div', { role: 'tablist', 'aria-label': 'Equivalent request' }, buttons);
  list.addEventListener('keydown', (e) => {
    const i = tabs.findIndex(([k]) => k === active);
    const next = e.key === 'ArrowRight' ? (i + 1) % tabs.length : e.key === 'ArrowLeft' ? (i + tabs.length - 1) % tabs.length : -1;
    if (next >= 0) { e.preventDefault(); select(tabs[next][0]); buttons[next].focus(); }
  });
  function select(k) {
    active = k;
    buttons.forEach((b, i) => {
      const on = tabs[i][0] === k;
      b.setAttribute('aria-selected', String(on));
      b.tabIndex = on ? 0 : -1;
      if (on) pre.setAttribute('aria-labelledby', b.id);
    });
    pre.textContent = texts[k];
    pre.dataset.lang = k;
  }
  const el = h('div', { class: 'equivalents' },
    h('div', { class: 'tabs-row' }, list, copyButton(() => texts[active], 'Copy the equivalent request')), pre);
  select('cli');
  return {
    el,
    update(eq) { Object.assign(texts, eq); select(active); },
    error(message) { for (const k of Object.keys(texts)) texts[k] = `# ${message}`; select(active); },
  };
}

