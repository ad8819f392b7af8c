#!/usr/bin/env bash
# Run 317 (session 67): run 316's steps again after its A/B (PSMEM at 0.45-0.55x of the tree)
# found the one producer warp copying K_{t+1} only after V_t; in this run's tree (164ece6) warp 0
# copies Q and K, warp 1 V. (The steps are run 316's: tests and check_prefill with the switch, the
# A/B, racecheck and synccheck.)
exec bash bench/runs/session67/run316.sh
