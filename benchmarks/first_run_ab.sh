#!/usr/bin/env bash
# The shipped generic x86-64 cpu kernels (backends/cpu/prebuilt) against the JIT they replace on a first run, as
# interleaved A/B pairs for a busy machine: PAIRS (default 3) times, benchmarks/first_run.sh with WARM_RUNS (default
# 1) later runs, once with the shipped kernels (CUZK_CPU_PREBUILT=1) and once without them (=0: numba compiles, the
# warm-up processes beside the command), the order alternating. Prints every run, then per command and run the
# median wall time of each side and the median of the pairs' ratios (shipped / JIT).
set -euo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for k in $(seq "${PAIRS:-3}"); do
  order=("1 0")
  ((k % 2)) || order=("0 1")
  for side in ${order[0]}; do
    WARM_RUNS=${WARM_RUNS:-1} CUZK_CPU_PREBUILT=$side bash "$(dirname "$0")/first_run.sh" |
      grep wall | sed "s/^/pair $k prebuilt=$side: /" | tee -a "$log"
  done
done
python3 - "$log" <<'PY'
import re, statistics, sys
from collections import defaultdict

runs = defaultdict(dict)  # (command and run, side) -> {pair: wall seconds}
for line in open(sys.argv[1]):
    m = re.match(r"pair (\d+) prebuilt=(\d): (.*?): ([\d.]+) s wall", line)
    if m:
        runs[m[3], m[2]][int(m[1])] = float(m[4])
for label in dict.fromkeys(label for label, _ in runs):
    shipped, jit = runs[label, "1"], runs[label, "0"]
    ratios = [shipped[p] / jit[p] for p in shipped if p in jit]
    print(f"{label}: shipped {statistics.median(shipped.values()):.2f} s, JIT {statistics.median(jit.values()):.2f} s,"
          f" ratio {statistics.median(ratios):.3f} (median of {len(ratios)} pairs)")
PY
