#!/usr/bin/env python3
"""Turns `perf script` output into an SVG flame graph.

    perf script -i perf.data | python3 bench/flamegraph.py -o graph.svg \
        --title "HTTP GetItem" [--min-percent 0.5] [--grep BM_PutItem] \
        [--comm dynarock] [--keep-comm] [--collapsed-out graph.folded]

Reads perf script's default text (a header line per sample, then one frame a
line, leaf first, then a blank line) from a file or stdin; folds each sample's
stack root first into "a;b;c" and counts identical stacks; draws one box per
frame and call path, as wide as its share of the samples, the root at the
bottom. Frame names lose their address, +0x offset and (dso); unknown frames
become [dso], inlined ones get " [inl]" (and paler boxes); long C++ names are
shortened (std::__cxx11:: and [abi:cxx11] dropped, std::string spelled so,
template arguments elided, then cut to --max-name characters).
--grep keeps only the stacks with a frame containing the text and, with
--trim, starts them at the outermost such frame (drops the harness beneath);
--exclude drops the stacks with a frame containing its text; --skip-unknown
and --skip-inlined drop the nameless [dso] and the inlined frames inside
stacks (template-heavy code such as Boost.Asio inlines dozens of levels).
Standard library only; the SVG is written by hand.
"""

import argparse
import colorsys
import os
import re
import sys
import zlib
from xml.sax.saxutils import escape

WIDTH, ROW, FONT = 1200, 16, 12
CHAR_W = FONT * 0.6          # monospace advance
PAD, TOP, BOTTOM = 10, 52, 12

HEADER = re.compile(r"^(.*?)\s+(\d+)(?:/\d+)?\s+(?:\[\d+\]\s+)?\d+\.\d+:")
OFFSET = re.compile(r"\+0x[0-9a-fA-F]+$")
STRING = "std::basic_string<char, std::char_traits<char>, std::allocator<char> >"
INLINED = " [inl]"            # marks frames perf found inlined in their caller
OPERATORS = re.compile(r"operator(<<=|>>=|<<|>>|<=>|<=|>=|->\*|->|<|>)")


def split_frame(line):
    """'  7f12 name+0x1c (/lib/x.so)' -> ('name', '/lib/x.so')."""
    body = line.strip().split(None, 1)
    if len(body) < 2:
        return None, ""
    text, dso = body[1], ""
    if text.endswith(")"):          # the last balanced (...) is the dso
        depth = 0
        for i in range(len(text) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(text[i], 0)
            if depth == 0:
                text, dso = text[:i].rstrip(), text[i + 1:-1]
                break
    return OFFSET.sub("", text), dso


def elide_templates(name):
    """Replaces the contents of every outermost <...> with '...'."""
    ops = []
    name = OPERATORS.sub(lambda m: ops.append(m.group(0)) or "\0", name)
    out, depth = [], 0
    for ch in name:
        if ch == "<":
            depth += 1
            if depth == 1:
                out.append("<...")
        elif ch == ">" and depth:
            depth -= 1
            if depth == 0:
                out.append(">")
        elif depth == 0:
            out.append(ch)
    name = "".join(out)
    return re.sub("\0", lambda m: ops.pop(0), name)


def shorten(name, max_len):
    name = name.replace("std::__cxx11::", "std::").replace(STRING, "std::string")
    for noise in ("[abi:cxx11]", "(anonymous namespace)::"):
        name = name.replace(noise, "")
    if len(name) > max_len:
        name = elide_templates(name)
    if len(name) > max_len:
        name = name[:max_len - 3] + "..."
    return name


def frame_name(line, max_len):
    sym, dso = split_frame(line)
    if sym is None:
        return None
    if sym.startswith("[unknown]") or not sym:
        return "[%s]" % (os.path.basename(dso).strip("[]") or "unknown")
    return shorten(sym, max_len) + (INLINED if dso == "inlined" else "")


def read_stacks(lines, args):
    """Yields (comm, [root..leaf]) per sample."""
    comm, frames = None, []
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if comm is not None:
                yield comm, frames[::-1]
            comm, frames = None, []
        elif line[0] in " \t":
            if comm is not None:
                name = frame_name(line, args.max_name)
                if name:
                    frames.append(name)
        elif not line.startswith("#"):
            m = HEADER.match(line)
            comm, frames = (m.group(1).strip() if m else line.split()[0]), []
    if comm is not None:
        yield comm, frames[::-1]


def fold(stacks, args):
    counts = {}
    for comm, frames in stacks:
        if args.comm and comm != args.comm:
            continue
        if args.exclude and any(args.exclude in f for f in frames):
            continue
        if args.grep:
            hits = [i for i, f in enumerate(frames) if args.grep in f]
            if not hits:
                continue
            if args.trim:
                frames = frames[hits[0]:]
        if args.skip_unknown:                # keep an unknown leaf: its self time
            frames = [f for f in frames[:-1] if not f.startswith("[")] + frames[-1:]
        if args.skip_inlined:
            frames = [f for f in frames[:-1] if not f.endswith(INLINED)] + frames[-1:]
        if args.keep_comm:
            frames = [comm] + frames
        if frames:
            key = ";".join(frames)
            counts[key] = counts.get(key, 0) + 1
    return counts


class Node:
    def __init__(self, name):
        self.name, self.value, self.children = name, 0, {}


def build_tree(counts):
    root = Node("all")
    for stack, n in counts.items():
        node = root
        node.value += n
        for name in stack.split(";"):
            node = node.children.setdefault(name, Node(name))
            node.value += n
    return root


def color(name):
    """A warm colour (red to yellow) that depends on the name only."""
    h = zlib.crc32(name.encode())
    hue = (h & 0xff) / 255 * 0.13                 # 0 (red) .. 47 degrees
    light = 0.55 + ((h >> 8) & 0xff) / 255 * 0.15
    if name.endswith(INLINED):
        light += 0.12                             # inlined frames are paler
    sat = 0.75 + ((h >> 16) & 0xff) / 255 * 0.2
    r, g, b = colorsys.hls_to_rgb(hue, light, sat)
    return "rgb(%d,%d,%d)" % (r * 255, g * 255, b * 255)


def layout(root, min_value):
    """Yields (node, depth, x0 in samples) for every box worth drawing."""
    todo = [(root, 0, 0)]
    while todo:
        node, depth, x = todo.pop()
        yield node, depth, x
        for child in sorted(node.children.values(), key=lambda c: c.name):
            if child.value >= min_value:
                todo.append((child, depth + 1, x))
            x += child.value


def fit_label(name, fits):
    """The name, or its innermost qualified parts, or a cut, in fits chars."""
    if fits < 4:
        return ""
    if len(name) <= fits:
        return name
    parts, depth, start = [], 0, 0          # split at '::' outside <...>
    for i, ch in enumerate(name):
        depth += {"<": 1, ">": -1}.get(ch, 0)
        if depth <= 0 and name.startswith("::", i) and i > start:
            parts.append(name[start:i])
            start = i + 2
    parts.append(name[start:])
    for i in range(1, len(parts)):
        tail = "::".join(parts[i:])
        if len(tail) <= fits:
            return tail
    last = parts[-1].replace("<...>", "").replace(INLINED, "")
    return last if len(last) <= fits else last[:fits - 2] + ".."


def render(root, title, min_percent, out):
    total = root.value
    boxes = list(layout(root, total * min_percent / 100.0))
    depth = max(d for _, d, _ in boxes) + 1
    height = TOP + depth * ROW + BOTTOM
    scale = (WIDTH - 2 * PAD) / total
    w = out.write
    w('<?xml version="1.0" encoding="UTF-8"?>\n')
    w('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
      'viewBox="0 0 %d %d" font-family="DejaVu Sans Mono, Menlo, Consolas, '
      'monospace" font-size="%d">\n' % (WIDTH, height, WIDTH, height, FONT))
    w('<rect width="100%" height="100%" fill="#fdf8ef"/>\n')
    w('<text x="%d" y="22" font-size="16" font-weight="bold">%s</text>\n'
      % (PAD, escape(title)))
    w('<text x="%d" y="40" fill="#555">%s samples; boxes under %.2g%% '
      'left out; hover a box for its name and share</text>\n'
      % (PAD, format(total, ","), min_percent))
    for node, d, x in boxes:
        bx, bw = PAD + x * scale, node.value * scale
        by = height - BOTTOM - (d + 1) * ROW
        pct = 100.0 * node.value / total
        tip = "%s (%s samples, %.2f%%)" % (node.name, format(node.value, ","), pct)
        w('<g><title>%s</title><rect x="%.1f" y="%d" width="%.1f" height="%d" '
          'rx="2" fill="%s"/>' % (escape(tip), bx, by, max(bw - 0.5, 0.1),
                                  ROW - 1, color(node.name)))
        label = fit_label(node.name, int((bw - 6) // CHAR_W))
        if label:
            w('<text x="%.1f" y="%d">%s</text>' % (bx + 3, by + ROW - 4, escape(label)))
        w('</g>\n')
    w('</svg>\n')


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("input", nargs="?", help="perf script output (default stdin)")
    p.add_argument("-o", "--output", help="SVG file (default stdout)")
    p.add_argument("--title", default="Flame graph")
    p.add_argument("--min-percent", type=float, default=0.5,
                   help="leave out boxes under this share of the samples")
    p.add_argument("--comm", help="keep only the samples of this command name")
    p.add_argument("--keep-comm", action="store_true",
                   help="put the command name at the root of each stack")
    p.add_argument("--grep", help="keep only stacks with a frame containing this")
    p.add_argument("--exclude", help="drop stacks with a frame containing this")
    p.add_argument("--trim", action="store_true",
                   help="with --grep: start each stack at its first matching frame")
    p.add_argument("--skip-unknown", action="store_true",
                   help="drop the [dso] frames perf has no name for (but a leaf)")
    p.add_argument("--skip-inlined", action="store_true",
                   help="drop the inlined frames inside stacks (but a leaf)")
    p.add_argument("--max-name", type=int, default=100)
    p.add_argument("--collapsed-out", help="also write the folded stacks here")
    args = p.parse_args()

    src = open(args.input, errors="replace") if args.input else sys.stdin
    with src:
        counts = fold(read_stacks(src, args), args)
    if not counts:
        sys.exit("flamegraph.py: no samples left to draw")
    if args.collapsed_out:
        with open(args.collapsed_out, "w") as f:
            for stack in sorted(counts):
                f.write("%s %d\n" % (stack, counts[stack]))
    out = open(args.output, "w") if args.output else sys.stdout
    with out:
        render(build_tree(counts), args.title, args.min_percent, out)


if __name__ == "__main__":
    main()
