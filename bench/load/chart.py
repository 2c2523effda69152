#!/usr/bin/env python3
"""Draws the load benchmark's requests/s as an SVG bar chart.

    python3 bench/load/chart.py results.tsv -o chart.svg

Reads the tab-separated results `bench/load/run.sh --out FILE` writes (a
'# ...' line describing the run, a header line, one row per op, server and
server thread count) and draws one group of horizontal bars per op, a bar per
server (Dynarock once per thread count), labelled with its req/s. nginx, the
ceiling, is not a bar but a dashed line across its op's group. The axis is
logarithmic when the slowest bar is over 30 times slower than the fastest
(moto answers hundreds of requests a second where Dynarock answers tens of
thousands), linear otherwise; --log / --linear force one. Standard library
only; the SVG is written by hand.
"""

import argparse
import csv
import math
import sys
from xml.sax.saxutils import escape

CEILING = "nginx"
# Colours by server; Dynarock's rows in blues, the peers in warm colours.
COLORS = {
    "dynarock": ["#1f5fa8", "#4f8fd6", "#8dbbeb", "#0c3b70"],
    "dynarock-mem": ["#1b7f5a", "#3fb386", "#87d9b6", "#0b5038"],
    "moto": ["#c0392b"],
    "dynalite": ["#d98c1a"],
    "ddblocal": ["#8e44ad"],
}
OTHER_COLORS = ["#7f8c8d", "#b5651d", "#5d6d7e", "#a93226"]

FONT = "font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\""
# A white outline under a label keeps it legible where it crosses a line.
HALO = 'stroke="#ffffff" stroke-width="3" paint-order="stroke"'
WIDTH = 960
LEFT = 150          # series labels
RIGHT = 90          # value labels past the longest bar
TOP = 84
BAR = 16
BAR_GAP = 4
GROUP_HEAD = 22
GROUP_GAP = 14


def read_rows(path):
    subtitle = ""
    lines = []
    with open(path, newline="") as f:
        for line in f:
            if line.startswith("#"):
                subtitle = subtitle or line.lstrip("# ").strip()
            elif line.strip():
                lines.append(line)
    rows = list(csv.DictReader(lines, delimiter="\t"))
    for r in rows:
        r["rps"] = float(r["rps"])
        r["bad"] = int(r.get("non2xx") or 0) + int(r.get("errors") or 0) > 0
    return rows, subtitle


def series_name(row, multi_threads):
    if row["server"].startswith("dynarock") and row["server"] in multi_threads:
        return f"{row['server']} {row['threads']}t"
    return row["server"]


def fmt_rps(v):
    if v >= 1e4:
        return f"{v / 1e3:.1f}k"
    if v >= 1e3:
        return f"{v / 1e3:.2f}k"
    if v >= 10:
        return f"{v:.0f}"
    return f"{v:.1f}"


def nice_linear_max(v):
    if v <= 0:
        return 1.0
    mag = 10 ** math.floor(math.log10(v))
    for m in (1, 2, 2.5, 5, 10):
        if m * mag >= v:
            return m * mag
    return 10 * mag


def build_scale(values, mode):
    vmax = max(values)
    vmin = min(v for v in values if v > 0) if any(v > 0 for v in values) else 1.0
    log = mode == "log" or (mode == "auto" and vmax / vmin > 30)
    if log:
        lo = 10 ** math.floor(math.log10(vmin))
        hi = 10 ** math.ceil(math.log10(vmax * 1.0001))

        def pos(v):
            v = max(v, lo)
            return (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))

        ticks = []
        decade = lo
        while decade <= hi * 1.0001:
            ticks.append((decade, True))
            for m in (2, 5):
                if decade * m < hi:
                    ticks.append((decade * m, False))
            decade *= 10
        return pos, ticks, True
    hi = nice_linear_max(vmax)
    step = hi / 5

    def pos(v):
        return max(v, 0) / hi

    return pos, [(step * i, True) for i in range(6)], False


def tick_label(v):
    if v >= 1e6:
        return f"{v / 1e6:g}M"
    if v >= 1e3:
        return f"{v / 1e3:g}k"
    return f"{v:g}"


def draw(rows, subtitle, mode, title):
    threads = {}
    for r in rows:
        threads.setdefault(r["server"], set()).add(r["threads"])
    multi = {s for s, t in threads.items() if len(t) > 1}

    ops = []
    for r in rows:
        if r["op"] not in ops:
            ops.append(r["op"])
    series = []
    for r in rows:
        if r["server"] == CEILING:
            continue
        name = series_name(r, multi)
        if name not in series:
            series.append(name)
    color = {}
    used = {}
    for name in series:
        server = name.split(" ")[0]
        palette = COLORS.get(server, OTHER_COLORS)
        i = used.get(server, 0)
        used[server] = i + 1
        color[name] = palette[i % len(palette)]

    by_op = {op: [r for r in rows if r["op"] == op and r["server"] != CEILING] for op in ops}
    ceiling = {r["op"]: r["rps"] for r in rows if r["server"] == CEILING}
    values = [r["rps"] for r in rows if r["rps"] > 0] or [1.0]
    pos, ticks, log = build_scale(values, mode)

    plot_w = WIDTH - LEFT - RIGHT
    x = lambda v: LEFT + pos(v) * plot_w  # noqa: E731

    height = TOP
    for op in ops:
        height += GROUP_HEAD + len(by_op[op]) * (BAR + BAR_GAP) + GROUP_GAP
    plot_bottom = height
    height += 56

    out = []
    w = out.append
    w(f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
      f'viewBox="0 0 {WIDTH} {height}" {FONT} font-size="12">')
    w(f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>')
    w(f'<text x="{LEFT}" y="26" font-size="17" font-weight="bold" fill="#222">{escape(title)}</text>')
    if subtitle:
        w(f'<text x="{LEFT}" y="46" font-size="12" fill="#555">{escape(subtitle)}</text>')

    # Grid and axis labels (top and bottom).
    for v, major in ticks:
        gx = x(v)
        w(f'<line x1="{gx:.1f}" y1="{TOP - 8}" x2="{gx:.1f}" y2="{plot_bottom}" '
          f'stroke="{"#d0d0d0" if major else "#ececec"}" stroke-width="1"/>')
        if major or not log:
            for ty in (TOP - 13, plot_bottom + 16):
                w(f'<text x="{gx:.1f}" y="{ty}" text-anchor="middle" font-size="11" '
                  f'fill="#555">{tick_label(v)}</text>')
        elif log and v / 10 ** math.floor(math.log10(v)) in (2, 5):
            w(f'<text x="{gx:.1f}" y="{plot_bottom + 16}" text-anchor="middle" font-size="9" '
              f'fill="#999">{tick_label(v)}</text>')

    y = TOP
    for op in ops:
        group_top = y
        w(f'<text x="8" y="{y + 15}" font-size="13" font-weight="bold" fill="#222">{escape(op)}</text>')
        y += GROUP_HEAD
        for r in by_op[op]:
            name = series_name(r, multi)
            bx = x(r["rps"])
            w(f'<text x="{LEFT - 8}" y="{y + BAR - 4}" text-anchor="end" fill="#333">{escape(name)}</text>')
            w(f'<rect x="{LEFT}" y="{y}" width="{max(bx - LEFT, 1):.1f}" height="{BAR}" '
              f'fill="{color[name]}"><title>{escape(op)} {escape(name)}: '
              f'{r["rps"]:.1f} req/s</title></rect>')
            label = fmt_rps(r["rps"]) + (" (errors!)" if r["bad"] else "")
            w(f'<text x="{bx + 5:.1f}" y="{y + BAR - 4}" {HALO} '
              f'fill="{"#c0392b" if r["bad"] else "#222"}">'
              f'{escape(label)}</text>')
            y += BAR + BAR_GAP
        if op in ceiling and by_op[op]:
            cx = x(ceiling[op])
            w(f'<line x1="{cx:.1f}" y1="{group_top + 4}" x2="{cx:.1f}" y2="{y - BAR_GAP + 3}" '
              f'stroke="#222" stroke-width="1.5" stroke-dasharray="5,3"/>')
            w(f'<text x="{cx - 4:.1f}" y="{group_top + 15}" text-anchor="end" font-size="11" '
              f'{HALO} fill="#222">nginx ceiling {fmt_rps(ceiling[op])}</text>')
        y += GROUP_GAP

    scale = "logarithmic scale" if log else "linear scale"
    note = f"requests/s, {scale}; higher is better"
    if ceiling:
        note += "; dashed line: nginx answering a static reply (the ceiling)"
    w(f'<text x="{LEFT}" y="{plot_bottom + 40}" font-size="12" fill="#444">{escape(note)}</text>')
    w("</svg>")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="tab-separated results of run.sh --out")
    ap.add_argument("-o", "--output", required=True, help="the SVG file to write")
    ap.add_argument("--title", default="Dynarock HTTP load benchmark: requests/s by operation")
    scale = ap.add_mutually_exclusive_group()
    scale.add_argument("--log", dest="mode", action="store_const", const="log")
    scale.add_argument("--linear", dest="mode", action="store_const", const="linear")
    args = ap.parse_args()
    rows, subtitle = read_rows(args.results)
    if not rows:
        sys.exit(f"chart.py: no rows in {args.results}")
    svg = draw(rows, subtitle, args.mode or "auto", args.title)
    with open(args.output, "w") as f:
        f.write(svg)


if __name__ == "__main__":
    main()
