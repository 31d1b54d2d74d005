#!/usr/bin/env python3
"""Draws one run of a Switchyard profile (a Chrome trace from `switchyard run/bench
--profile FILE`) as an SVG timeline, without a browser: one row per track (runs, copies,
each device), partitions as bars with their nodes drawn inside. For docs and for machines
without Perfetto; ui.perfetto.dev shows the same file interactively.

usage: trace_picture.py TRACE.json OUT.svg [--run N]
(default: the shortest run, the one least disturbed by whatever else the machine did)
"""
import argparse
import json
import sys
from xml.sax.saxutils import escape

COLOURS = {"run": "#bbbbbb", "copy": "#e31a1c", "partition": "#a6cee3", "node": "#1f78b4"}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trace")
    parser.add_argument("out")
    parser.add_argument("--run", type=int, default=None)
    args = parser.parse_args()
    with open(args.trace) as f:
        events = json.load(f)["traceEvents"]
    names = {e["tid"]: e["args"]["name"] for e in events
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    spans = [e for e in events if e.get("ph") == "X"]
    if not spans:
        sys.exit("no events in " + args.trace)
    runs = [e for e in spans if e["cat"] == "run"]
    if args.run is not None:
        run = args.run
    elif runs:
        run = min(runs, key=lambda e: e["dur"])["args"]["run"]
    else:
        run = max(e["args"]["run"] for e in spans)
    spans = [e for e in spans if e["args"]["run"] == run]
    if not spans:
        sys.exit(f"no run {run} in {args.trace}")
    start = min(e["ts"] for e in spans)
    end = max(e["ts"] + e["dur"] for e in spans)
    tracks = sorted({e["tid"] for e in spans})
    width, label_w, row_h, top = 1100, 170, 46, 30
    scale = (width - label_w - 20) / max(end - start, 1e-9)
    height = top + row_h * len(tracks) + 30
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="Helvetica,Arial,sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="10" y="18" font-size="13">run {run}: {end - start:.1f} us '
           f'({escape(args.trace.split("/")[-1])})</text>']
    for row, tid in enumerate(tracks):
        y = top + row * row_h
        out.append(f'<text x="10" y="{y + 26}">{escape(names.get(tid, str(tid)))}</text>')
        out.append(f'<line x1="{label_w}" y1="{y + row_h - 4}" x2="{width - 10}" '
                   f'y2="{y + row_h - 4}" stroke="#eeeeee"/>')
        for e in sorted((e for e in spans if e["tid"] == tid), key=lambda e: e["cat"] != "node"):
            x = label_w + (e["ts"] - start) * scale
            w = max(e["dur"] * scale, 1.0)
            inner = e["cat"] == "node"
            ey, eh = (y + 12, 22) if inner else (y + 6, 34)
            colour = COLOURS.get(e["cat"], "#999999")
            title = escape(f'{e["name"]} ({e["args"].get("op", e["cat"])}): {e["dur"]:.2f} us')
            out.append(f'<rect x="{x:.2f}" y="{ey}" width="{w:.2f}" height="{eh}" '
                       f'fill="{colour}" fill-opacity="{0.9 if inner else 0.5}" stroke="white" '
                       f'stroke-width="0.5"><title>{title}</title></rect>')
            label = e["args"].get("op", "") if inner else ""
            if label and w > 6.5 * len(label):
                out.append(f'<text x="{x + 2:.2f}" y="{ey + 15}" fill="white">{escape(label)}</text>')
    axis_y = top + row_h * len(tracks) + 14
    for k in range(6):
        t = (end - start) * k / 5
        x = label_w + t * scale
        out.append(f'<text x="{x:.1f}" y="{axis_y}" text-anchor="middle">{t:.0f} us</text>')
    out.append("</svg>")
    with open(args.out, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
