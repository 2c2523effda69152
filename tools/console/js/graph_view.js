// The graph view (#/graph/<table>): for a table the graph layer uses
// (docs/graph.md), pick a node and draw its neighbourhood, k hops out, in or
// both ways, filtered by edge type, with the edge set's edges drawn apart
// from the types opted out of it; attributes on hover and in a side panel;
// a click on a node re-centres on it. Data from the server's routes
// GET /_dynarock/graph/schema and GET /_dynarock/graph/neighbourhood; the
// node picker reads one Scan page of the items whose partition and sort key
// are equal (the nodes). Every request here follows a user's action (opening
// the view counts as asking for its schema and that one page).
//
//   mount(container, { call, control, navigate, table, params }) -> { unmount() }
//   params.node, params.hops, params.direction: draw that at once.

import { createGraphCanvas, edgeKey, LAYOUT_NAMES, typeColour } from './graph_canvas.js';
import { attributeTable, el, errorNodes } from './attribute_display.js';
import { ensureViewStyles, mountTablePicker } from './view_common.js';

// The schema fields the user may override; the neighbourhood route takes
// each under the same name.
const FIELDS = [
  ['pk', 'Partition key attribute'],
  ['sk', 'Sort key attribute'],
  ['separator', 'Type separator in ids'],
  ['inverted_index', 'Inverted index (GSI)'],
  ['rank_attribute', 'Rank attribute'],
  ['edge_set_attribute', 'Edge set attribute'],
  ['incoming_types_attribute', 'Incoming types attribute'],
  ['edge_pages_attribute', 'Edge pages attribute'],
];
const DEFAULT_SCHEMA = { pk: 'PK', sk: 'SK', separator: '#', inverted_index: 'inverted', rank_attribute: 'rank',
  edge_set_attribute: 'edges', incoming_types_attribute: 'inTypes', edge_pages_attribute: 'edgePages' };
const SCAN_LIMIT = 1000;  // items evaluated by one page of the node picker's Scan
const DIRECTIONS = { both: 'Both ways', out: 'Outgoing', in: 'Incoming' };

let uid = 0;

export function mount(container, ctx) {
  ensureViewStyles();
  if (!ctx.table) {
    return mountTablePicker(container, ctx, { view: 'graph', title: 'Graph',
      intro: 'Pick a table that the graph layer uses (nodes and edges in one table, docs/graph.md) to draw a node’s neighbourhood.' });
  }
  const table = ctx.table;
  const params = ctx.params ?? {};
  const id = `dv-graph-${++uid}`;
  const s = {
    alive: true, drawSeq: 0, listSeq: 0, detected: null, schema: { ...DEFAULT_SCHEMA }, centre: null, reply: null,
    history: [], types: new Map(), sample: [], drawn: false, scanKey: null, nodes: [],
  };

  // ---- the page ---------------------------------------------------------------
  const errorBox = el('div', { class: 'error', role: 'alert', hidden: true });
  const schemaSummary = el('span', {}, 'Detecting the graph schema…');
  const schemaFields = {};
  const schemaForm = el('form', { class: 'dv-form dv-schema-form', onsubmit: (ev) => { ev.preventDefault(); applySchema(); } },
    FIELDS.map(([key, label]) => {
      const input = el('input', { id: `${id}-f-${key}`, name: key, autocomplete: 'off', spellcheck: 'false' });
      schemaFields[key] = input;
      return el('div', { class: 'field' }, el('label', { for: input.id }, label), input);
    }),
    el('div', { class: 'field dv-field-actions' },
      el('button', { type: 'submit' }, 'Use these'),
      el('button', { type: 'button', class: 'secondary', onclick: () => { fillSchema(s.detected?.schema ?? DEFAULT_SCHEMA); applySchema(); } },
        'Reset to detected')));
  const schemaReason = el('p', { class: 'muted', hidden: true });
  const schemaBox = el('details', { class: 'panel dv-schema' },
    el('summary', {}, schemaSummary), schemaReason, schemaForm);

  const nodeInput = el('input', { id: `${id}-node`, name: 'node', list: `${id}-nodes`, required: true,
    placeholder: 'USER#Frodo', autocomplete: 'off', spellcheck: 'false', 'aria-describedby': `${id}-node-help` });
  const datalist = el('datalist', { id: `${id}-nodes` });
  const hopsSelect = el('select', { id: `${id}-hops`, name: 'hops' },
    [1, 2, 3].map((k) => el('option', { value: k }, `${k} hop${k > 1 ? 's' : ''}`)));
  const dirSelect = el('select', { id: `${id}-dir`, name: 'direction' },
    Object.entries(DIRECTIONS).map(([v, t]) => el('option', { value: v }, t)));
  const maxInput = el('input', { id: `${id}-max`, name: 'max_nodes', type: 'number', min: 1, max: 1000, value: 200,
    inputmode: 'numeric' });
  const layoutSelect = el('select', { id: `${id}-layout`, name: 'layout',
    onchange: () => canvas.setLayout(layoutSelect.value) },
  Object.entries(LAYOUT_NAMES).map(([v, t]) => el('option', { value: v }, t)));
  const drawButton = el('button', { type: 'submit', class: 'primary' }, 'Draw');
  const backButton = el('button', { type: 'button', class: 'secondary', disabled: true, onclick: back,
    title: 'Back to the previous centre' }, '← Back');
  const controls = el('form', { class: 'dv-form dv-graph-controls', onsubmit: (ev) => { ev.preventDefault(); draw(); } },
    el('div', { class: 'field dv-field-wide' }, el('label', { for: nodeInput.id }, 'Node id'), nodeInput, datalist,
      el('small', { id: `${id}-node-help`, class: 'muted' }, 'Type an id or pick one below.')),
    el('div', { class: 'field' }, el('label', { for: hopsSelect.id }, 'Depth'), hopsSelect),
    el('div', { class: 'field' }, el('label', { for: dirSelect.id }, 'Direction'), dirSelect),
    el('div', { class: 'field dv-field-narrow' }, el('label', { for: maxInput.id }, 'Max nodes'), maxInput),
    el('div', { class: 'field' }, el('label', { for: layoutSelect.id }, 'Layout'), layoutSelect),
    el('div', { class: 'field dv-field-actions' }, drawButton, backButton));
  for (const sel of [hopsSelect, dirSelect]) sel.addEventListener('change', () => { if (s.centre) draw(s.centre); });

  const typesBox = el('fieldset', { class: 'dv-types', hidden: true },
    el('legend', {}, 'Edge types'));
  const typesList = el('div', { class: 'dv-checks' });
  typesBox.append(typesList,
    el('button', { type: 'button', class: 'link', onclick: () => setAllTypes(true) }, 'All'),
    el('button', { type: 'button', class: 'link', onclick: () => setAllTypes(false) }, 'None'));

  const pickerList = el('ul', { class: 'dv-chips', 'aria-label': 'Nodes' });
  const pickerMore = el('button', { type: 'button', class: 'secondary', hidden: true, onclick: () => listNodes(true) }, 'More nodes');
  const pickerStatus = el('span', { class: 'muted', role: 'status' });
  const picker = el('details', { class: 'panel dv-node-picker', open: true },
    el('summary', {}, 'Nodes in this table ', pickerStatus), pickerList,
    el('div', { class: 'dv-row' }, pickerMore,
      el('button', { type: 'button', class: 'secondary', onclick: () => listNodes(false),
        title: 'One Scan page of the items whose partition and sort key are equal' }, 'List nodes (Scan)')));

  const status = el('p', { class: 'dv-status', role: 'status', 'aria-live': 'polite' });
  const canvasBox = el('div', { class: 'dv-graph-canvas', role: 'img', 'aria-label': 'Graph drawing (empty)' });
  const zoom = el('div', { class: 'dv-graph-zoom' },
    el('button', { type: 'button', class: 'secondary small', 'aria-label': 'Zoom in', onclick: () => canvas.zoomBy(1.25) }, '+'),
    el('button', { type: 'button', class: 'secondary small', 'aria-label': 'Zoom out', onclick: () => canvas.zoomBy(0.8) }, '−'),
    el('button', { type: 'button', class: 'secondary small', 'aria-label': 'Fit the drawing', onclick: () => canvas.fit() }, 'Fit'));
  const legend = el('div', { class: 'dv-legend', 'aria-label': 'Legend' });
  const panel = el('aside', { class: 'panel dv-graph-panel', 'aria-label': 'Details', tabindex: '-1' },
    el('p', { class: 'muted' }, 'Hover over a node or an edge for its attributes; click one for details here.'));
  const nodeList = el('ul', { class: 'dv-element-list', 'aria-label': 'Nodes drawn' });
  const edgeList = el('ul', { class: 'dv-element-list', 'aria-label': 'Edges drawn' });
  const lists = el('details', { class: 'panel dv-graph-lists' },
    el('summary', {}, 'Nodes and edges as lists'),
    el('div', { class: 'dv-two-col' },
      el('section', {}, el('h3', {}, 'Nodes'), nodeList), el('section', {}, el('h3', {}, 'Edges'), edgeList)));

  const main = el('div', { class: 'dv-graph-main' },
    el('div', { class: 'dv-graph-stage' }, canvasBox, zoom, legend), el('div', { class: 'dv-graph-side' }, typesBox, panel));
  const root = el('section', { class: 'dv-view dv-graph', 'aria-labelledby': `${id}-h` },
    el('header', { class: 'view-head' }, el('h1', { id: `${id}-h` }, 'Graph · ', el('code', {}, table)),
      el('p', { class: 'muted' }, 'Nodes and edges of the graph layer (docs/graph.md); a node is the item whose sort key equals its partition key.')),
    errorBox, schemaBox, controls, picker, status, main, lists);
  container.append(root);

  const canvas = createGraphCanvas(canvasBox, {
    onNodeTap: (nodeId) => { showNode(nodeId); if (nodeId !== s.centre) draw(nodeId); },
    onEdgeTap: (edge) => showEdge(edge),
  });
  window.dynarockGraph = canvas.cy;  // for the browser tests

  // ---- helpers ----------------------------------------------------------------
  function showError(e, what) {
    errorBox.replaceChildren(...errorNodes(e, what));
    errorBox.hidden = false;
  }
  const clearError = () => { errorBox.hidden = true; errorBox.replaceChildren(); };

  function fillSchema(schema) {
    for (const [key] of FIELDS) schemaFields[key].value = schema[key] ?? DEFAULT_SCHEMA[key] ?? '';
  }
  function applySchema() {
    const next = { ...s.schema };
    for (const [key] of FIELDS) next[key] = schemaFields[key].value.trim();
    const keysChanged = next.pk !== s.schema.pk || next.sk !== s.schema.sk;
    s.schema = next;
    describeSchema();
    if (keysChanged) listNodes(false);
    if (s.centre) draw(s.centre);
  }
  // The overrides to send: the fields that differ from what the server detected
  // (all of them when it detected no graph).
  function overrides() {
    const out = {};
    const detected = s.detected?.graph ? s.detected.schema ?? {} : {};
    for (const [key] of FIELDS) {
      if (s.schema[key] && s.schema[key] !== detected[key]) out[key] = s.schema[key];
    }
    return out;
  }
  function describeSchema() {
    const sc = s.schema;
    const over = Object.keys(overrides()).length > 0;
    const head = s.detected?.graph ? 'Graph table' : s.detected ? 'Not detected as a graph table' : 'Graph schema';
    schemaSummary.replaceChildren(`${head}: keys `, el('code', {}, sc.pk), ' / ', el('code', {}, sc.sk),
      ', separator ', el('code', {}, sc.separator), ', inverted index ', el('code', {}, sc.inverted_index || '—'),
      ', edge set ', el('code', {}, sc.edge_set_attribute || '—'), over ? ' (your overrides)' : '');
  }

  // ---- the schema and the node picker -------------------------------------------
  async function loadSchema() {
    try {
      const r = await ctx.control('GET', 'graph/schema', { query: { table } });
      if (!s.alive) return;
      s.detected = r ?? { graph: false };
      s.sample = Array.isArray(r?.sample_nodes) ? r.sample_nodes.map(String) : [];
      s.schema = { ...DEFAULT_SCHEMA, ...(r?.schema ?? {}) };
      if (!r?.graph) {
        schemaReason.textContent = r?.reason ? `Why: ${r.reason}. Set the fields below if the graph layer uses other names.`
          : 'Set the fields below if the graph layer uses other names.';
        schemaReason.hidden = false;
        schemaBox.open = true;
      }
    } catch (e) {
      if (!s.alive) return;
      showError(e, 'Detecting the graph schema');
      schemaBox.open = true;
    }
    fillSchema(s.schema);
    describeSchema();
  }

  // One Scan page of nodes (items whose partition key equals their sort key).
  async function listNodes(more) {
    if (!more) { s.nodes = []; s.scanKey = null; }
    const seq = ++s.listSeq;
    pickerStatus.textContent = '(reading…)';
    pickerMore.disabled = true;
    try {
      const body = { TableName: table, FilterExpression: '#p = #s', ProjectionExpression: '#p, #s',
        ExpressionAttributeNames: { '#p': s.schema.pk, '#s': s.schema.sk }, Limit: SCAN_LIMIT };
      if (more && s.scanKey) body.ExclusiveStartKey = s.scanKey;
      const { data } = await ctx.call('Scan', body);
      if (!s.alive || seq !== s.listSeq) return;
      for (const item of data.Items ?? []) {
        const v = item[s.schema.pk];
        const nodeId = v?.S ?? v?.N ?? null;
        if (nodeId !== null && !s.nodes.includes(nodeId)) s.nodes.push(nodeId);
      }
      s.scanKey = data.LastEvaluatedKey ?? null;
      pickerStatus.textContent = `(${s.nodes.length} found in ${data.ScannedCount ?? 0} items read` +
        `${s.scanKey ? '; more remain' : ''})`;
    } catch (e) {
      if (!s.alive || seq !== s.listSeq) return;
      pickerStatus.textContent = '';
      showError(e, 'Listing nodes');
    } finally {
      if (s.alive && seq === s.listSeq) pickerMore.disabled = false;
    }
    renderPicker();
  }

  function renderPicker() {
    pickerMore.hidden = !s.scanKey;
    datalist.replaceChildren(...s.nodes.map((n) => el('option', { value: n })));
    if (s.nodes.length === 0) {
      pickerList.replaceChildren(el('li', { class: 'muted' }, 'No node found in the items read.'));
      return;
    }
    pickerList.replaceChildren(...s.nodes.map((n) => el('li', {},
      el('button', { type: 'button', class: 'dv-chip', 'aria-pressed': String(n === s.centre),
        style: `--dv-chip-colour: ${typeColour(nodeType(n))}`, onclick: () => draw(n) }, n))));
  }
  const nodeType = (nodeId) => String(nodeId).split(s.schema.separator || '#')[0];

  // ---- drawing ----------------------------------------------------------------
  function checkedTypes() {
    const all = [...s.types.keys()];
    const on = all.filter((t) => s.types.get(t));
    return { all, on, filtered: on.length < all.length };
  }

  async function draw(nodeId, { fromHistory = false } = {}) {
    const node = (nodeId ?? nodeInput.value).trim();
    if (!node) { nodeInput.focus(); return; }
    nodeInput.value = node;
    const { on, filtered } = checkedTypes();
    if (filtered && on.length === 0) {
      status.textContent = 'Check at least one edge type to draw.';
      return;
    }
    const query = { table, node, hops: hopsSelect.value, direction: dirSelect.value,
      max_nodes: String(Math.max(1, Math.min(1000, Number(maxInput.value) || 200))), ...overrides() };
    if (filtered) query.types = on.join(',');
    const seq = ++s.drawSeq;
    clearError();
    main.setAttribute('aria-busy', 'true');
    drawButton.disabled = true;
    status.textContent = `Reading the neighbourhood of ${node}…`;
    try {
      const reply = await ctx.control('GET', 'graph/neighbourhood', { query });
      if (!s.alive || seq !== s.drawSeq) return;
      if (!fromHistory && s.centre && s.centre !== node) s.history.push(s.centre);
      s.centre = node;
      s.reply = reply ?? { nodes: [], edges: [] };
      const seen = [...(s.reply.edge_types ?? []), ...(s.reply.edges ?? []).map((e) => e.type)];
      for (const t of seen) if (!s.types.has(t)) s.types.set(t, true);
      render(query);
    } catch (e) {
      if (!s.alive || seq !== s.drawSeq) return;
      status.textContent = '';
      showError(e, `Neighbourhood of ${node}`);
    } finally {
      if (s.alive && seq === s.drawSeq) {
        main.removeAttribute('aria-busy');
        drawButton.disabled = false;
      }
    }
  }

  function back() {
    const prev = s.history.pop();
    if (prev) draw(prev, { fromHistory: true });
    backButton.disabled = s.history.length === 0;
  }

  function render(query) {
    const r = s.reply;
    canvas.show(r, s.centre);
    canvas.setLayout(layoutSelect.value);
    const nodes = r.nodes ?? [];
    const edges = r.edges ?? [];
    const found = nodes.some((n) => n.id === s.centre);
    canvasBox.setAttribute('aria-label', `Graph drawing: ${canvas.summary()} around ${s.centre}`);
    const hops = Number(query.hops);
    status.replaceChildren(
      el('strong', {}, s.centre), `: ${nodes.length} node${nodes.length === 1 ? '' : 's'}, ${edges.length} edge` +
        `${edges.length === 1 ? '' : 's'} within ${hops} hop${hops > 1 ? 's' : ''} (${DIRECTIONS[query.direction].toLowerCase()})`,
      query.types ? `, types ${query.types.split(',').join(', ')}` : '',
      r.truncated ? el('span', { class: 'dv-warning' }, ` — truncated at ${query.max_nodes} nodes; raise “Max nodes” to see more`) : '',
      !found ? el('span', { class: 'dv-warning' }, ' — this node has no item in the table') : '');
    backButton.disabled = s.history.length === 0;
    if (!s.drawn) picker.open = false;  // the drawing gets the room; the list stays a click away
    s.drawn = true;
    renderTypes();
    renderLegend(nodes);
    renderLists(nodes, edges);
    renderPicker();
    const centre = nodes.find((n) => n.id === s.centre);
    if (centre) showNode(centre.id, { focusPanel: false });
  }

  function renderTypes() {
    const types = [...s.types.keys()].sort();
    typesBox.hidden = types.length === 0;
    typesList.replaceChildren(...types.map((t) => {
      const box = el('input', { type: 'checkbox', id: `${id}-t-${t}`, value: t, checked: s.types.get(t),
        onchange: () => { s.types.set(t, box.checked); if (s.centre) draw(s.centre); } });
      return el('label', { class: 'dv-check', for: box.id }, box, t);
    }));
  }
  function setAllTypes(on) {
    for (const t of s.types.keys()) s.types.set(t, on);
    renderTypes();
    if (on && s.centre) draw(s.centre);
    else status.textContent = 'Check the edge types to draw.';
  }

  function renderLegend(nodes) {
    const types = [...new Set(nodes.map((n) => n.type || nodeType(n.id)))].sort();
    legend.replaceChildren(
      el('span', { class: 'dv-legend-item' }, el('span', { class: 'dv-legend-line dv-in-set' }), 'in the edge set'),
      el('span', { class: 'dv-legend-item' }, el('span', { class: 'dv-legend-line dv-outside-set' }),
        'outside it (type opted out)'),
      ...types.map((t) => el('span', { class: 'dv-legend-item' },
        el('span', { class: 'dv-legend-dot', style: `background: ${typeColour(t)}` }), t)));
  }

  function renderLists(nodes, edges) {
    nodeList.replaceChildren(...nodes.map((n) => el('li', {},
      el('button', { type: 'button', class: 'dv-element', 'data-node': n.id,
        onfocus: () => canvas.focus(n.id), onmouseenter: () => canvas.focus(n.id), onblur: () => canvas.focus(null),
        onclick: () => { showNode(n.id); if (n.id !== s.centre) draw(n.id); } },
      el('span', { class: 'dv-legend-dot', style: `background: ${typeColour(n.type || nodeType(n.id))}` }),
      n.id, el('span', { class: 'muted' }, ` · depth ${n.depth}`)))));
    edgeList.replaceChildren(...edges.map((e) => el('li', {},
      el('button', { type: 'button', class: 'dv-element', 'data-edge': edgeKey(e),
        onfocus: () => canvas.focus(edgeKey(e)), onblur: () => canvas.focus(null), onclick: () => showEdge(e) },
      `${e.source} `, el('span', { class: e.in_edge_set === false ? 'dv-edge-type dv-outside-set' : 'dv-edge-type dv-in-set' },
        `—${e.type}→`), ` ${e.target}`))));
    if (nodes.length === 0) nodeList.replaceChildren(el('li', { class: 'muted' }, 'None.'));
    if (edges.length === 0) edgeList.replaceChildren(el('li', { class: 'muted' }, 'None.'));
  }

  // ---- the side panel -----------------------------------------------------------
  const keyNames = () => [s.schema.pk, s.schema.sk];
  function showNode(nodeId, { focusPanel = true } = {}) {
    const n = (s.reply?.nodes ?? []).find((x) => x.id === nodeId) ?? { id: nodeId, attributes: null };
    const out = (s.reply?.edges ?? []).filter((e) => e.source === nodeId).length;
    const inc = (s.reply?.edges ?? []).filter((e) => e.target === nodeId).length;
    panel.replaceChildren(...[
      el('h3', {}, 'Node ', el('code', {}, nodeId)),
      el('p', { class: 'muted' }, `type ${n.type || nodeType(nodeId)}`,
        n.depth !== undefined && n.depth !== null ? ` · depth ${n.depth}` : '', ` · ${out} out, ${inc} in (drawn)`),
      nodeId !== s.centre
        ? el('button', { type: 'button', class: 'secondary', onclick: () => draw(nodeId) }, 'Centre on this node') : null,
      n.attributes && n.exists !== false ? attributeTable(n.attributes, { first: keyNames() })
        : el('p', { class: 'muted' }, 'No item for this node (an edge names it).')].filter(Boolean));
    if (focusPanel) panel.focus({ preventScroll: true });
  }
  function showEdge(e) {
    const centreButton = (nodeId) => el('button', { type: 'button', class: 'link', onclick: () => draw(nodeId) }, nodeId);
    panel.replaceChildren(
      el('h3', {}, 'Edge ', el('code', {}, e.type)),
      el('p', {}, centreButton(e.source), ' → ', centreButton(e.target)),
      el('p', { class: 'muted' }, e.in_edge_set === false ? 'Outside the edge set (its type is opted out).'
        : 'In the source node’s edge set.', e.rank !== undefined && e.rank !== null ? ` Rank ${e.rank}.` : ''),
      attributeTable(e.attributes ?? {}, { first: keyNames() }));
    panel.focus({ preventScroll: true });
  }

  // ---- start ------------------------------------------------------------------
  hopsSelect.value = ['1', '2', '3'].includes(String(params.hops)) ? String(params.hops) : '1';
  dirSelect.value = DIRECTIONS[params.direction] ? params.direction : 'both';
  (async () => {
    await loadSchema();
    if (!s.alive) return;
    if (params.node) draw(String(params.node));
    // The server's sample of nodes when it sent one; else a Scan page.
    if (s.sample.length) {
      s.nodes = [...s.sample];
      pickerStatus.textContent = `(${s.nodes.length} sampled by the server; “List nodes” reads a Scan page)`;
      renderPicker();
    } else {
      listNodes(false);
    }
  })();

  return {
    unmount() {
      s.alive = false;
      canvas.destroy();
      if (window.dynarockGraph === canvas.cy) delete window.dynarockGraph;
      root.remove();
    },
  };
}
