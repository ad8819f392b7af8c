"""Plots `blasst calibrate --csv` output: measured (lambda * L, sparsity) points and the fitted
curve lambda * L = a * exp(b * S).  Usage: plot_calibration.py points.csv out.png"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

rows = list(csv.DictReader(open(sys.argv[1])))
fig, ax = plt.subplots(figsize=(6, 4))
for L in sorted({int(r["L"]) for r in rows}):
    pts = [(float(r["sparsity"]), float(r["lambda"]) * L) for r in rows if int(r["L"]) == L]
    ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=12, label=f"L = {L}")
fit = [(float(r["sparsity"]), float(r["fitted_lambda"]) * int(r["L"])) for r in rows]
# The fitted curve is the same for every L: lambda * L = a * exp(b * S).
(s1, y1), (s2, y2) = min(fit), max(fit)
b = (math.log(y2) - math.log(y1)) / (s2 - s1) if s2 > s1 else 0.0
a = y1 / math.exp(b * s1)
xs = [0.1 + 0.8 * i / 100 for i in range(101)]
ax.plot(xs, [a * math.exp(b * x) for x in xs], "k--", label=f"fit {a:.0f} exp({b:.2f} S)")
ax.axvspan(0.1, 0.9, color="0.9", zorder=-1)
ax.set_yscale("log")
ax.set_xlabel("measured sparsity S (skipped tiles)")
ax.set_ylabel("lambda * L")
ax.legend(fontsize=7)
ax.grid(alpha=0.3)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
