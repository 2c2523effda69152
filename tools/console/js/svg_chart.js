// Small line charts drawn as SVG, for the metrics view: one or more series
// over the same points (oldest first, null for a gap), scaled from 0 to a
// round maximum, stretched to the width they are given. The text (title,
// current values, the scale) is HTML beside the SVG, so it never stretches.
//
//   const chart = lineChart({ title: 'Requests/s', series: [{ name: 'all', className: 'dv-s1' }],
//                             format: formatRate, compact: false });
//   parent.append(chart.element);
//   chart.update([[1, 2, 3]]);   // one array of values per series

const SVG = 'http://www.w3.org/2000/svg';
const HEIGHT = 100;  // the viewBox's height; the CSS sets the drawn height

// A round number at least v: 1, 2, 2.5 or 5 times a power of ten.
export function niceMax(v) {
  if (!(v > 0) || !Number.isFinite(v)) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 2.5, 5, 10]) if (v <= m * p * (1 + 1e-9)) return m * p;
  return 10 * p;
}

// The "x,y x,y" runs of a series (split where values are null), x in points.
export function polylines(values, max, height = HEIGHT) {
  const runs = [];
  let run = [];
  values.forEach((v, i) => {
    if (v === null || v === undefined || Number.isNaN(v)) {
      if (run.length) runs.push(run);
      run = [];
      return;
    }
    const y = height - (Math.min(v, max) / max) * (height - 2) - 1;
    run.push(`${i},${y.toFixed(2)}`);
  });
  if (run.length) runs.push(run);
  // A lone point gets a short flat segment so that it shows.
  return runs.map((r) => {
    if (r.length > 1) return r.join(' ');
    const [x, y] = r[0].split(',');
    return `${Number(x) > 0 ? Number(x) - 0.6 : 0},${y} ${Number(x) > 0 ? x : 0.6},${y}`;
  });
}

function svgEl(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

// A chart: { element, update(valuesPerSeries) }. The x axis spans the
// samples given, at least `minPoints` and at most `points` (older ones scroll
// off the left); the newest sample is at the right edge. `area` shades under
// a single series.
export function lineChart({ title, series, format = String, compact = false, points = 90, minPoints = 30,
  area = series.length === 1, describe = '' }) {
  const figure = document.createElement('figure');
  figure.className = `dv-chart${compact ? ' dv-chart-compact' : ''}`;
  const caption = document.createElement('figcaption');
  const titleEl = document.createElement('span');
  titleEl.className = 'dv-chart-title';
  titleEl.textContent = title ?? '';
  const values = document.createElement('span');
  values.className = 'dv-chart-values';
  caption.append(titleEl, values);
  const scale = document.createElement('span');
  scale.className = 'dv-chart-scale';
  const svg = svgEl('svg', { preserveAspectRatio: 'none', role: 'img', focusable: 'false' });
  const grid = svgEl('line', { x1: 0, y1: 1, y2: 1, class: 'dv-chart-grid', 'vector-effect': 'non-scaling-stroke' });
  const base = svgEl('line', { x1: 0, y1: HEIGHT - 0.5, y2: HEIGHT - 0.5, class: 'dv-chart-base',
    'vector-effect': 'non-scaling-stroke' });
  svg.append(grid, base);
  const groups = series.map((s) => {
    const g = svgEl('g', { class: `dv-series ${s.className ?? ''}` });
    svg.append(g);
    return g;
  });
  const plot = document.createElement('div');
  plot.className = 'dv-chart-plot';
  plot.append(scale, svg);
  if (compact) figure.append(plot, caption);
  else figure.append(caption, plot);

  function update(valuesPerSeries) {
    const span = Math.max(minPoints, Math.min(points, Math.max(0, ...valuesPerSeries.map((v) => v.length))));
    svg.setAttribute('viewBox', `0 0 ${span - 1} ${HEIGHT}`);
    grid.setAttribute('x2', span - 1);
    base.setAttribute('x2', span - 1);
    const all = valuesPerSeries.flat().filter((v) => v !== null && v !== undefined && !Number.isNaN(v));
    const max = niceMax(Math.max(0, ...all));
    scale.textContent = all.length ? format(max) : '';
    valuesPerSeries.forEach((vals, i) => {
      const shown = vals.slice(-span);
      const offset = span - shown.length;  // newest at the right edge
      const lines = polylines([...new Array(offset).fill(null), ...shown], max);
      const shapes = [];
      for (const pts of lines) {
        if (area) {
          const xs = pts.split(' ').map((p) => p.split(',')[0]);
          shapes.push(svgEl('polygon', { class: 'dv-area',
            points: `${xs[0]},${HEIGHT} ${pts} ${xs[xs.length - 1]},${HEIGHT}` }));
        }
        shapes.push(svgEl('polyline', { points: pts, 'vector-effect': 'non-scaling-stroke', fill: 'none' }));
      }
      groups[i].replaceChildren(...shapes);
    });
    // The latest value of each series, as text.
    const latest = valuesPerSeries.map((vals) => {
      for (let j = vals.length - 1; j >= 0; j--) if (vals[j] !== null && vals[j] !== undefined) return vals[j];
      return null;
    });
    values.replaceChildren(...series.map((s, i) => {
      const span = document.createElement('span');
      span.className = `dv-chart-value ${s.className ?? ''}`;
      span.textContent = (series.length > 1 || s.name ? `${s.name} ` : '') + (latest[i] === null ? '—' : format(latest[i]));
      return span;
    }));
    const summary = series.map((s, i) => `${s.name || title} ${latest[i] === null ? 'no data' : format(latest[i])}`)
      .join(', ');
    svg.setAttribute('aria-label', `${title}${describe ? ` ${describe}` : ''}: now ${summary}; scale up to ${format(max)}`);
    figure.dataset.latest = JSON.stringify(latest);
  }
  update(series.map(() => []));
  return { element: figure, update };
}
