"""Summarises a log of bench/ab_prefill.py (one or more runs appended, each after a
`===== label` line, as bench/runs/common.sh's `ab` writes them): for every build after the first,
the range of its time ratio against the first build (+ = faster), per section, per kind of row
(dense, nothing skipped, ~50 %, 65-70 %, 75-92 % skipped) and per length class (8K, 16K and
longer). These are the ranges bench/RESULTS.md quotes for an A/B.
Example: python3 bench/ab_summary.py bench/runs/session30/run193-ab.log"""
import collections
import re
import sys

ROW = re.compile(r"S=(\d+) c=(\d) (.*?)\s+(\S+)\s+[\d.]+ ms x[\d.]+ \|")
KINDS = ("dense", "nothing skipped", "~50 %", "65-70 %", "75-92 %")


def kind(label):
    if label.startswith("dense"):
        return "dense"
    if "nothing" in label:
        return "nothing skipped"
    pct = int(re.search(r"(\d+)%", label).group(1))
    return "~50 %" if pct < 55 else "65-70 %" if pct <= 70 else "75-92 %"


def summarise(lines):
    """{(section, build name, length class, kind): [ratio - 1, ...]} of every A/B row."""
    out = collections.defaultdict(list)
    section = "(first)"
    for line in lines:
        if line.startswith("====="):
            section = line.strip("= \n")
            continue
        m = ROW.match(line)
        if not m or "speedup" in line:
            continue
        length, _causal, label, _first = m.groups()
        cells = [c.strip() for c in line[m.end(3):].split("|")]
        for cell in cells[1:]:
            name, ratio = re.match(r"(\S+)\s+[\d.]+ ms x([\d.]+)", cell).groups()
            cls = "8K" if int(length) <= 8192 else "16K+"
            for c in (cls, "all"):
                out[(section, name, c, kind(label))].append(float(ratio) - 1.0)
    return out


def main(path):
    with open(path) as f:
        ranges = summarise(f)
    keys = sorted({k[:3] for k in ranges}, key=lambda k: (k[0], k[1], k[2] != "all", k[2]))
    for section, name, cls in keys:
        cells = []
        for kd in KINDS:
            v = ranges.get((section, name, cls, kd))
            cells.append(f"{kd} {min(v) * 100:+.1f}..{max(v) * 100:+.1f} %" if v else f"{kd} -")
        print(f"{section} | {name} | {cls:>4} | " + " | ".join(cells))


if __name__ == "__main__":
    main(sys.argv[1])
