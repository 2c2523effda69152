// The console's shell: header, navigation, hash routing, the namespace picker
// and, when the server verifies signatures (serve --require-auth), the sign-in
// form. Each view is a module exporting mount(container, ctx) that returns
// { unmount() }; ctx = { call, control, navigate(hash), table, params,
// namespace }. Views are loaded when first shown (dynamic import), so the
// first screen costs only this file, api.js and dom.js.
//
// Routes: #/tables, #/items, #/table/<name>/items[?index=...], #/graph[/<table>],
// #/streams[/<table>], #/metrics.
import { call, control, setNamespace, getNamespace, endpoint } from './api.js';
import { h, clear, errorBox, openDialog, field, announce } from './dom.js';

const VIEWS = {
  tables: { title: 'Tables', load: () => import('./tables_view.js') },
  items: { title: 'Items / Query', load: () => import('./items_view.js') },
  graph: { title: 'Graph', load: () => import('./graph_view.js'), external: true },
  streams: { title: 'Streams', load: () => import('./streams_view.js'), external: true },
  metrics: { title: 'Metrics', load: () => import('./metrics_view.js'), external: true },
};

const NS_KEY = 'dynarock.console.namespace';     // localStorage: the chosen namespace (no secret)
const AUTH_KEY = 'dynarock.console.credentials'; // sessionStorage: the signed-in key and secret

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const session = document.getElementById('session');

const app = {
  info: { require_auth: false, shared_db: false, region: 'us-east-1', version: '' },
  namespaces: [],
  current: null,      // the mounted view
  seq: 0,             // route changes, so that a slow mount does not replace a newer one
  lastTable: null,    // the table last opened, for the Items link
  signedIn: null,     // { accessKey, secretKey, region } under --require-auth
};

// ---- Routing -------------------------------------------------------------------

// { view, table, params } of a location hash.
export function parseRoute(hash) {
  const raw = (hash || '').replace(/^#\/?/, '');
  const [path, query = ''] = raw.split('?');
  const parts = path.split('/').filter(Boolean).map((p) => {
    try { return decodeURIComponent(p); } catch { return p; }
  });
  const params = Object.fromEntries(new URLSearchParams(query));
  const [first = 'tables', second = null, third] = parts;
  if (first === 'table') return { view: third === 'items' || !third ? 'items' : third, table: second, params };
  return { view: first, table: second, params };
}

export function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function renderNav(active, table) {
  const t = table ?? app.lastTable;
  const enc = (x) => encodeURIComponent(x);
  const links = [
    ['tables', '#/tables'],
    ['items', t ? `#/table/${enc(t)}/items` : '#/items'],
    ['graph', table && active === 'graph' ? `#/graph/${enc(table)}` : '#/graph'],
    ['streams', table && active === 'streams' ? `#/streams/${enc(table)}` : '#/streams'],
    ['metrics', '#/metrics'],
  ];
  clear(nav, h('ul', {}, links.map(([v, href]) => h('li', {},
    h('a', { href, 'aria-current': v === active ? 'page' : null, 'data-view': v },
      v === 'items' ? ['Items', h('span', { class: 'nav-long' }, ' / Query')] : VIEWS[v].title)))));
}

async function route() {
  const seq = ++app.seq;
  const { view, table, params } = parseRoute(location.hash);
  if (table && view === 'items') app.lastTable = table;
  renderNav(view, table);
  if (app.current) {
    try { app.current.unmount?.(); } catch (e) { console.warn('unmount failed', e); }
    app.current = null;
  }
  if (app.info.require_auth && !app.signedIn) return showSignIn();
  const spec = VIEWS[view];
  document.title = `${spec ? spec.title : 'Not found'}${table ? ' · ' + table : ''} · Dynarock console`;
  if (!spec) {
    clear(main, h('section', { class: 'panel' }, h('h1', {}, 'Not found'),
      h('p', {}, 'There is no view ', h('code', {}, location.hash), '. ', h('a', { href: '#/tables' }, 'Go to the tables.'))));
    return;
  }
  clear(main, h('p', { class: 'loading' }, `Loading ${spec.title}…`));
  let mod;
  try {
    mod = await spec.load();
  } catch (e) {
    if (seq !== app.seq) return;
    const file = `js/${view}_view.js`;
    clear(main, h('section', { class: 'panel' }, h('h1', {}, spec.title),
      h('div', { class: 'error', role: 'alert' }, h('strong', {}, `The ${spec.title} view could not be loaded`),
        `: ${file} is ${spec.external ? 'missing from this build of the console or failed to load' : 'failed to load'} (${e.message}).`)));
    return;
  }
  if (seq !== app.seq) return;
  const container = h('div', { class: `view view-${view}` });
  clear(main, container);
  if (app.routed) announce(`${spec.title}${table ? `: ${table}` : ''}`);  // a screen reader hears the view change
  app.routed = true;
  const ctx = { call, control, navigate, table, params, namespace: getNamespace(), info: app.info };
  let mounted = null;
  try {
    mounted = (await mod.mount(container, ctx)) ?? null;
  } catch (e) {
    console.error(e);
    if (seq === app.seq) clear(main, h('section', { class: 'panel' }, h('h1', {}, spec.title), errorBox(e)));
  }
  // A newer route began while this view mounted: it is not shown; let it go.
  if (seq !== app.seq) mounted?.unmount?.();
  else app.current = mounted;
}

// ---- Namespaces ------------------------------------------------------------------

const nsValue = (n) => (n.access_key ? `${n.access_key}\u0000${n.region}` : '');

function namespaceLabel(n) {
  if (!n.access_key) return app.info.shared_db ? 'shared (--shared-db)' : 'shared (unsigned)';
  return `${n.access_key} · ${n.region}`;
}

async function loadNamespaces() {
  try {
    const r = await control('GET', 'namespaces');
    app.info.shared_db = r?.shared_db ?? app.info.shared_db;
    app.namespaces = (r?.namespaces ?? []).map((n) => ({ name: n.name, access_key: n.access_key ?? null, region: n.region ?? null }));
  } catch {
    app.namespaces = [];  // no route (older server) or not signed in yet
  }
}

// The namespace to use at start: the saved one if it still exists, else shared.
function initialNamespace() {
  if (app.signedIn) return { accessKey: app.signedIn.accessKey, region: app.signedIn.region, secretKey: app.signedIn.secretKey };
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(NS_KEY) ?? 'null'); } catch { /* ignore */ }
  if (saved?.accessKey && app.namespaces.some((n) => n.access_key === saved.accessKey && n.region === saved.region)) {
    return { accessKey: saved.accessKey, region: saved.region };
  }
  return { accessKey: null, region: app.info.region };
}

function chooseNamespace(ns, { remount = true } = {}) {
  setNamespace(ns);
  try { localStorage.setItem(NS_KEY, JSON.stringify({ accessKey: ns.accessKey, region: ns.region })); } catch { /* private mode */ }
  renderSession();
  if (remount) route();
}

function renderSession() {
  const ns = getNamespace();
  const items = [];
  let options = app.namespaces;
  if (app.signedIn) options = options.filter((n) => n.access_key === app.signedIn.accessKey);
  const currentValue = ns.accessKey ? `${ns.accessKey}\u0000${ns.region}` : '';
  if (!options.some((n) => nsValue(n) === currentValue)) {
    options = [...options, ns.accessKey ? { access_key: ns.accessKey, region: ns.region } : { access_key: null }];
  }
  const select = h('select', { id: 'namespace', 'aria-label': 'Namespace (access key and region)', title: 'Each access key and region has its own tables unless the server runs with --shared-db' },
    options.map((n) => h('option', { value: nsValue(n), selected: nsValue(n) === currentValue }, namespaceLabel(n))),
    app.signedIn ? null : h('option', { value: '\u0001other' }, 'Other access key…'));
  select.disabled = app.info.shared_db;
  select.addEventListener('change', async () => {
    if (select.value === '\u0001other') {
      const picked = await askAccessKey();
      if (picked) {
        if (!app.namespaces.some((n) => n.access_key === picked.accessKey && n.region === picked.region)) {
          app.namespaces.push({ access_key: picked.accessKey, region: picked.region });
        }
        chooseNamespace({ accessKey: picked.accessKey, region: picked.region });
      } else {
        renderSession();
      }
      return;
    }
    const [accessKey, region] = select.value ? select.value.split('\u0000') : [null, app.info.region];
    chooseNamespace({ accessKey, region, secretKey: app.signedIn?.secretKey });
  });
  // Namespaces made since the page loaded (another client's first request)
  // appear when the picker is opened, without reloading the page.
  select.addEventListener('focus', async () => {
    await loadNamespaces();
    const other = select.querySelector('option[value="\u0001other"]');
    for (const n of app.namespaces) {
      if (app.signedIn && n.access_key !== app.signedIn.accessKey) continue;
      if ([...select.options].some((o) => o.value === nsValue(n))) continue;
      select.insertBefore(h('option', { value: nsValue(n) }, namespaceLabel(n)), other);
    }
  });
  items.push(h('label', { class: 'ns-label', for: 'namespace' }, 'Namespace'), select);
  if (app.signedIn) {
    items.push(h('button', { type: 'button', class: 'small secondary', onclick: signOut }, `Sign out ${app.signedIn.accessKey}`));
  }
  clear(session, items);
}

async function askAccessKey() {
  const key = h('input', { type: 'text', required: true, autocomplete: 'off', spellcheck: 'false' });
  const region = h('input', { type: 'text', value: app.info.region, autocomplete: 'off', spellcheck: 'false' });
  let out = null;
  await openDialog({
    title: 'Use another access key',
    body: [h('p', {}, 'Each access key and region has its own tables (created at its first request), as in DynamoDB Local.'),
      field('Access key', key), field('Region', region)],
    actions: [{ label: 'Use', primary: true }],
    onSubmit: () => {
      if (!key.value.trim()) throw new Error('Give an access key');
      out = { accessKey: key.value.trim(), region: region.value.trim() || app.info.region };
    },
  });
  return out;
}

// ---- Sign-in (serve --require-auth) ----------------------------------------------

function showSignIn(errorText) {
  clear(session);
  const key = h('input', { type: 'text', name: 'access-key', autocomplete: 'username', required: true, spellcheck: 'false' });
  const secret = h('input', { type: 'password', name: 'secret-key', autocomplete: 'current-password', required: true });
  const region = h('input', { type: 'text', name: 'region', value: app.info.region, spellcheck: 'false' });
  const err = h('div', { 'aria-live': 'assertive' }, errorText ? h('div', { class: 'error', role: 'alert' }, errorText) : null);
  const form = h('form', { class: 'panel signin', 'aria-labelledby': 'signin-title' },
    h('h1', { id: 'signin-title' }, 'Sign in'),
    h('p', {}, 'This server verifies AWS Signature V4 (serve --require-auth). Give one of its access keys and secret; ',
      'the secret stays in this tab (sessionStorage) and signs each request here, in the browser.'),
    field('Access key', key), field('Secret access key', secret), field('Region', region), err,
    h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary' }, 'Sign in')));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const creds = { accessKey: key.value.trim(), secretKey: secret.value, region: region.value.trim() || app.info.region };
    if (!creds.accessKey || !creds.secretKey) {
      clear(err, h('div', { class: 'error', role: 'alert' }, 'Give the access key and the secret access key.'));
      return;
    }
    setNamespace(creds);
    try {
      await call('ListTables', { Limit: 1 });
    } catch (ex) {
      setNamespace({ accessKey: null });
      clear(err, errorBox(ex));
      return;
    }
    app.signedIn = creds;
    sessionStorage.setItem(AUTH_KEY, JSON.stringify(creds));
    await loadNamespaces();
    chooseNamespace(creds, { remount: false });
    announce(`Signed in as ${creds.accessKey}`);
    route();
  });
  clear(main, form);
  key.focus();
}

function signOut() {
  sessionStorage.removeItem(AUTH_KEY);
  app.signedIn = null;
  setNamespace({ accessKey: null });
  if (app.current) { app.current.unmount?.(); app.current = null; }
  showSignIn();
}

// ---- Start -------------------------------------------------------------------------

const AUTH_ERRORS = /MissingAuthenticationToken|UnrecognizedClient|InvalidSignature|IncompleteSignature|AccessDenied/;

async function start() {
  // The first view's module loads while the server's info is asked for.
  VIEWS[parseRoute(location.hash).view]?.load().catch(() => { /* route() reports it */ });
  try {
    const info = await control('GET', 'console/info');
    if (info && typeof info === 'object') Object.assign(app.info, info);
  } catch (e) {
    if (AUTH_ERRORS.test(e.type) || e.status === 403) app.info.require_auth = true;
    // Otherwise an older server without the route: the defaults stand.
  }
  document.getElementById('version').textContent =
    `${app.info.version ? 'dynarock ' + app.info.version + ' · ' : ''}${endpoint.replace(/^https?:\/\//, '')}`;
  if (app.info.require_auth) {
    try { app.signedIn = JSON.parse(sessionStorage.getItem(AUTH_KEY) ?? 'null'); } catch { app.signedIn = null; }
  }
  if (app.info.require_auth && !app.signedIn) {
    renderNav(parseRoute(location.hash).view, null);
    showSignIn();
  } else {
    if (app.signedIn) setNamespace(app.signedIn);  // the list is signed too
    await loadNamespaces();
    if (!app.info.require_auth && !app.namespaces.some((n) => !n.access_key)) app.namespaces.unshift({ name: 'shared', access_key: null });
    chooseNamespace(initialNamespace(), { remount: false });
    route();
  }
  window.addEventListener('hashchange', route);
}

// The skip link moves focus to the content without touching the route.
document.querySelector('.skip-link')?.addEventListener('click', (e) => {
  e.preventDefault();
  main.focus();
});

start();
