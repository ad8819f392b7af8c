"""Summarises an Nsight Compute source page (per-instruction warp-stall samples) exported as CSV:
    ncu --section SourceCounters --section WarpStateStats -k regex:NAME -o rep python3 ...
    ncu -i rep.ncu-rep --page source --csv --print-source sass > src.csv
    python3 bench/ncu_stalls.py src.csv [top]
Prints the kernel's stall reasons in total, then the `top` instructions by samples (address,
SASS, executions, the three largest reasons)."""
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
top = int(sys.argv[2]) if len(sys.argv) > 2 else 40
i = 0
while i < len(rows):
    if rows[i] and rows[i][0] == "Kernel Name":
        name, hdr = rows[i][1], rows[i + 1]
        i += 2
        body = []
        while i < len(rows) and rows[i] and rows[i][0] != "Kernel Name":
            body.append(dict(zip(hdr, rows[i])))
            i += 1
        reasons = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
        num = lambda r, k: float((r.get(k) or "0").replace(",", "") or 0)  # noqa: E731
        total = sum(num(r, "Warp Stall Sampling (All Samples)") for r in body)
        by = sorted(((sum(num(r, k) for r in body), k) for k in reasons), reverse=True)
        print(f"===== {name}: {total:.0f} samples, {len(body)} instructions")
        print("  " + ", ".join(f"{k[6:]} {v / total:.0%}" for v, k in by[:10]))
        body.sort(key=lambda r: -num(r, "Warp Stall Sampling (All Samples)"))
        for r in body[:top]:
            s = num(r, "Warp Stall Sampling (All Samples)")
            rs = sorted(((num(r, k), k[6:]) for k in reasons), reverse=True)[:3]
            print(f"{s:7.0f} {s / total:5.1%} {r['Address'][-5:]} {r['Source'][:58]:58} x{num(r, 'Instructions Executed'):<9.0f} "
                  + " ".join(f"{k}:{v:.0f}" for v, k in rs if v))
    else:
        i += 1
