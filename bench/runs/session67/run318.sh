#!/usr/bin/env bash
# Run 318 (session 67): run 316's steps on PSMEM as reworked after run 317 (dense 0.64-0.81x,
# Skip-Softmax 0.82-0.97x of the tree); this run's tree (5e9337e): V in a ring of three (K two),
# one P buffer per warpgroup retired mid-visit (P V_{t-1} its own commit group before S_{t+1}), P
# stored as the exponentials come, the float maxima.
exec bash bench/runs/session67/run316.sh
