// The graph view's drawing: a Cytoscape.js instance showing one neighbourhood
// (the reply of /_dynarock/graph/neighbourhood), nodes coloured by type and
// placed in rings by their depth from the centre, edges in the edge set drawn
// solid and those outside it (types opted out) dashed, a tooltip of
// attributes on hover, and callbacks for taps. No data fetching here.
//
//   const canvas = createGraphCanvas(div, { onNodeTap, onEdgeTap });
//   canvas.show(reply, centreId); canvas.focus(id); canvas.destroy();

import cytoscape from '../vendor/cytoscape.esm.mjs';
import { el, itemRows } from './attribute_display.js';

// Node colours by type: distinguishable on light and dark backgrounds.
const PALETTE = ['#4e79a7', '#f28e2b', '#59a14f', '#b07aa1', '#e15759', '#47a3a0', '#d4a21a', '#d9669b'];

// The colour of a node type: the palette's colours in the order types are
// first drawn, so that the types of one table differ; the same for a type
// while the page is open.
const typeColours = new Map();
export function typeColour(type) {
  const key = String(type);
  if (!typeColours.has(key)) typeColours.set(key, PALETTE[typeColours.size % PALETTE.length]);
  return typeColours.get(key);
}

export const edgeKey = (e) => `${e.source}\u0001${e.type}\u0001${e.target}`;

function cssVar(elem, name, fallback) {
  const v = getComputedStyle(elem).getPropertyValue(name).trim();
  return v || fallback;
}

function styles(container) {
  const text = cssVar(container, '--dv-graph-text', getComputedStyle(container).color || '#222');
  const bg = cssVar(container, '--dv-graph-bg', '#ffffff');
  const inSet = cssVar(container, '--dv-edge-in-set', '#2f6fdb');
  const outSet = cssVar(container, '--dv-edge-outside-set', '#c2410c');
  const focus = cssVar(container, '--dv-focus', '#f59e0b');
  return [
    { selector: 'node', style: {
      'background-color': 'data(colour)', label: 'data(label)', color: text, 'font-size': 11,
      'text-valign': 'bottom', 'text-margin-y': 4, width: 26, height: 26,
      'text-wrap': 'ellipsis', 'text-max-width': '140px', 'border-width': 1, 'border-color': bg,
      'text-background-color': bg, 'text-background-opacity': 0.75, 'text-background-padding': '1px',
    } },
    { selector: 'node[?missing]', style: { 'background-opacity': 0.35, 'border-style': 'dashed',
      'border-width': 2, 'border-color': 'data(colour)' } },
    { selector: 'node[?centre]', style: { width: 40, height: 40, 'border-width': 4, 'border-color': text,
      'font-weight': 'bold', 'font-size': 12 } },
    { selector: 'edge', style: {
      width: 2, 'curve-style': 'bezier', 'target-arrow-shape': 'triangle', 'arrow-scale': 1.1,
      'line-color': inSet, 'target-arrow-color': inSet, label: 'data(label)', 'font-size': 9, color: text,
      'text-rotation': 'autorotate', 'text-background-color': bg, 'text-background-opacity': 0.85,
      'text-background-padding': '2px', 'loop-direction': '-45deg', 'loop-sweep': '-60deg',
      'min-zoomed-font-size': 7,
    } },
    { selector: 'edge[!inSet]', style: { 'line-style': 'dashed', 'line-dash-pattern': [6, 4],
      'line-color': outSet, 'target-arrow-color': outSet, 'target-arrow-shape': 'vee' } },
    { selector: '.dv-hover, :selected', style: { 'overlay-color': focus, 'overlay-opacity': 0.25,
      'overlay-padding': 6 } },
    { selector: 'edge.dv-hover, edge:selected', style: { width: 4 } },
  ];
}

// Cytoscape elements for a neighbourhood reply.
export function toElements(reply, centreId) {
  const nodes = new Map();
  for (const n of reply.nodes ?? []) nodes.set(n.id, n);
  // An edge may name a node the reply does not carry (an edge outside the edge
  // set whose source item does not exist): drawn as a hollow node.
  for (const e of reply.edges ?? []) {
    for (const id of [e.source, e.target]) {
      if (!nodes.has(id)) nodes.set(id, { id, type: '', depth: null, attributes: null, missing: true });
    }
  }
  const out = [];
  for (const n of nodes.values()) {
    const type = n.type || String(n.id).split(/[#\-]/)[0];
    out.push({ group: 'nodes', data: {
      id: n.id, label: n.id, type, depth: n.depth ?? 99, colour: typeColour(type),
      centre: n.id === centreId, missing: Boolean(n.missing || n.exists === false || !n.attributes), node: n,
    } });
  }
  for (const e of reply.edges ?? []) {
    out.push({ group: 'edges', data: {
      id: edgeKey(e), source: e.source, target: e.target, type: e.type,
      label: e.type,
      inSet: e.in_edge_set !== false, edge: e,
    } });
  }
  return out;
}

const LAYOUTS = {
  // Rings by depth: the centre in the middle, its neighbours around it.
  rings: (maxDepth, centre, narrow) => ({ name: 'concentric',
    concentric: (n) => maxDepth + 1 - Math.min(n.data('depth'), maxDepth + 1), levelWidth: () => 1,
    minNodeSpacing: narrow ? 24 : 40, spacingFactor: narrow ? 1.2 : 1.9, padding: 30, animate: false, avoidOverlap: true }),
  tree: (maxDepth, centre) => ({ name: 'breadthfirst', roots: centre ? [centre] : undefined, directed: false,
    spacingFactor: 1.4, padding: 30, animate: false }),
  force: () => ({ name: 'cose', animate: false, padding: 30, nodeRepulsion: () => 12000, idealEdgeLength: () => 140,
    randomize: false }),
};
const MAX_FIT_ZOOM = 1.25;
const NARROW_PX = 560;
export const LAYOUT_NAMES = { rings: 'Rings by depth', tree: 'Tree', force: 'Force-directed' };

// The text lines of a tooltip for a node or an edge.
function tooltipContent(data, isNode) {
  const rows = [];
  if (isNode) {
    const n = data.node;
    rows.push(el('strong', {}, n.id));
    rows.push(el('div', { class: 'muted' }, `${data.type || 'node'}${n.depth !== null && n.depth !== undefined
      ? ` · depth ${n.depth}` : ''}${data.missing ? ' · no item' : ''}`));
    rows.push(attributeLines(n.attributes));
  } else {
    const e = data.edge;
    rows.push(el('strong', {}, e.type));
    rows.push(el('div', {}, `${e.source} → ${e.target}`));
    rows.push(el('div', { class: 'muted' }, `${e.in_edge_set === false ? 'outside the edge set' : 'in the edge set'}` +
      (e.rank !== undefined && e.rank !== null ? ` · rank ${e.rank}` : '')));
    rows.push(attributeLines(e.attributes));
  }
  return rows;
}

function attributeLines(attributes) {
  const rows = itemRows(attributes ?? {}, { max: 60 });
  const shown = rows.slice(0, 8);
  return el('dl', { class: 'dv-tip-attrs' },
    shown.map((r) => [el('dt', {}, r.name), el('dd', {}, `${r.text} `, el('span', { class: 'dv-type' }, r.type))]),
    rows.length > shown.length ? el('dd', { class: 'muted' }, `… ${rows.length - shown.length} more`) : null);
}

// Creates the drawing in `container` (which must have a size).
export function createGraphCanvas(container, { onNodeTap, onEdgeTap } = {}) {
  const surface = el('div', { class: 'dv-graph-surface' });
  const tip = el('div', { class: 'dv-tooltip', role: 'tooltip', hidden: true });
  container.append(surface, tip);
  const cy = cytoscape({
    container: surface, style: styles(container), elements: [], minZoom: 0.2, maxZoom: 3,
    boxSelectionEnabled: false, selectionType: 'single',
  });
  let layoutName = 'rings';
  let centreId = null;

  function showTip(ele) {
    const isNode = ele.isNode();
    tip.replaceChildren(...tooltipContent(ele.data(), isNode));
    tip.hidden = false;
    const pos = isNode ? ele.renderedPosition() : ele.renderedMidpoint();
    const w = surface.clientWidth;
    const h = surface.clientHeight;
    const tw = tip.offsetWidth;
    const th = tip.offsetHeight;
    let x = pos.x + 16;
    let y = pos.y + 12;
    if (x + tw > w) x = Math.max(4, pos.x - tw - 16);
    if (y + th > h) y = Math.max(4, h - th - 4);
    tip.style.left = `${x}px`;
    tip.style.top = `${y}px`;
  }
  function hideTip() {
    tip.hidden = true;
    cy.elements('.dv-hover').removeClass('dv-hover');
  }
  cy.on('mouseover', 'node, edge', (evt) => {
    cy.elements('.dv-hover').removeClass('dv-hover');
    evt.target.addClass('dv-hover');
    showTip(evt.target);
  });
  cy.on('mouseout', 'node, edge', hideTip);
  cy.on('pan zoom', hideTip);
  cy.on('tap', 'node', (evt) => { hideTip(); onNodeTap?.(evt.target.id()); });
  cy.on('tap', 'edge', (evt) => { hideTip(); onEdgeTap?.(evt.target.data('edge')); });

  function runLayout() {
    const maxDepth = Math.max(0, ...cy.nodes().map((n) => (n.data('depth') === 99 ? 0 : n.data('depth'))));
    const centre = centreId ? cy.getElementById(centreId) : null;
    const narrow = surface.clientWidth < NARROW_PX;  // a phone: rings closer together
    cy.layout(LAYOUTS[layoutName](maxDepth, centre && centre.nonempty() ? centre : null, narrow)).run();
    fit();
  }
  // Fits the drawing, but a small graph is not blown up past MAX_FIT_ZOOM.
  function fit() {
    cy.fit(undefined, 30);
    if (cy.zoom() > MAX_FIT_ZOOM) {
      cy.zoom(MAX_FIT_ZOOM);
      cy.center();
    }
  }

  // A resized container (a rotated phone, a narrower window) refits the
  // drawing unless the user has zoomed or panned it.
  let userMoved = false;
  cy.on('scrollzoom pinchzoom dragpan', () => { userMoved = true; });
  let wasNarrow = null;
  const onResize = new ResizeObserver(() => {
    cy.resize();
    const narrow = surface.clientWidth < NARROW_PX;
    if (!userMoved && cy.elements().nonempty()) {
      if (wasNarrow !== null && narrow !== wasNarrow) runLayout();
      else fit();
    }
    wasNarrow = narrow;
  });
  onResize.observe(surface);

  return {
    cy,
    // Draws a neighbourhood reply, `centre` highlighted.
    show(reply, centre) {
      centreId = centre;
      userMoved = false;
      hideTip();
      cy.elements().remove();
      cy.add(toElements(reply, centre));
      runLayout();
    },
    setLayout(name) {
      if (!LAYOUTS[name]) return;
      layoutName = name;
      if (cy.elements().nonempty()) runLayout();
    },
    // Highlights an element (by node id or edge key) and shows its tooltip,
    // the keyboard's equivalent of hovering over it; null clears.
    focus(id) {
      hideTip();
      if (id === null || id === undefined) return;
      const ele = cy.getElementById(id);
      if (ele.empty()) return;
      ele.addClass('dv-hover');
      showTip(ele);
    },
    fit,
    zoomBy(factor) {
      cy.zoom({ level: cy.zoom() * factor, renderedPosition: { x: surface.clientWidth / 2, y: surface.clientHeight / 2 } });
    },
    // The visible text of what is drawn, for a screen reader summary.
    summary() {
      return `${cy.nodes().length} nodes, ${cy.edges().length} edges`;
    },
    destroy() {
      onResize.disconnect();
      cy.destroy();
      surface.remove();
      tip.remove();
    },
  };
}
