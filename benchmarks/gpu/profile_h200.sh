#!/usr/bin/env bash
# Where a warm `cuzk groth16 prove --backend cuda` process spends its seconds, on the GPU machine: the inputs of
# benchmarks/e2e/make_inputs.py (INPUT, default bn254-2^20, made there unless E2E already holds them), one process
# to fill the caches, then RUNS (default 2) timed processes with --timings and the seconds from main()'s return to
# the process's exit, one `python -X importtime` (the 25 slowest imports) and one cProfile (by cumulative and own
# time). Reports in $OUT; the summary last.
#     INPUT=bn254-2^20 bash benchmarks/gpu/profile_h200.sh
set -uo pipefail
OUT=${OUT:-out}; E2E=${E2E:-/tmp/e2e}; INPUT=${INPUT:-bn254-2^20}; mkdir -p "$OUT" "$E2E"
export PYTHONUNBUFFERED=1
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
source "$(dirname "$0")/../bytecode.sh"
if [[ ! -f $E2E/$INPUT/circuit.zkey ]]; then
  curve=${INPUT%-2^*} log=${INPUT##*^}
  python3 benchmarks/e2e/make_inputs.py "$E2E" --curves "$curve" --logs "$log" --setup-backend cuda 2>&1 | tail -1
fi
args=(groth16 prove --backend "${BACKEND:-cuda}" "$E2E/$INPUT/circuit.zkey" "$E2E/$INPUT/witness.wtns" /tmp/proof.json /tmp/public.json)
probe='import sys, time; from cuzk.cli import main
try: main(sys.argv[1:])
except SystemExit: pass
sys.stderr.write(f"main returned at {time.time():.3f}\n")'
python3 -m cuzk.cli "${args[@]}" > /dev/null 2>&1  # fill the caches
for run in $(seq 1 "${RUNS:-2}"); do
  start=$(date +%s.%N)
  python3 -c "$probe" "${args[@]}" --timings > "$OUT/run$run.txt" 2>&1
  end=$(date +%s.%N)
  returned=$(awk '/main returned at/ {print $4}' "$OUT/run$run.txt")
  python3 -c "import sys; s, e, r = map(float, sys.argv[1:]); print(f'run $run: wall {e - s:.2f} s, main() returned \
{r - s:.2f} s after the start, {e - r:.2f} s before the exit')" "$start" "$end" "$returned" | tee -a "$OUT/summary.txt"
done
python3 -X importtime -m cuzk.cli "${args[@]}" 2> "$OUT/importtime.txt" > /dev/null
sort -t'|' -k2 -n -r "$OUT/importtime.txt" | head -25 > "$OUT/imports_top.txt"
python3 -m cProfile -o /tmp/prove.prof -m cuzk.cli "${args[@]}" > /dev/null 2>&1
python3 -c "import pstats; s = pstats.Stats('/tmp/prove.prof'); s.sort_stats('cumtime').print_stats(70); \
s.sort_stats('tottime').print_stats(40)" > "$OUT/profile.txt" 2>&1
rm -f "$OUT/importtime.txt"
echo "--- summary"; cat "$OUT/summary.txt"; cat "$OUT/run${RUNS:-2}.txt"; cat "$OUT/imports_top.txt"
