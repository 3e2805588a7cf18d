#!/usr/bin/env bash
# `cuzk groth16 prove` timed as a user runs it, on the inputs of make_inputs.py (DIR/<curve>-2^k/): for each input,
# a first process with every kernel cache empty (CuPy's and numba's, fresh folders), then WARM_RUNS (default 2)
# processes with them filled; whole-process wall time (spans_s: when its last timed span ended, the rest being the
# process's exit), the phase table (--timings) of the last run
# in $OUT/<input>.timings.txt. With SNARKJS (the path of a snarkjs executable) the same key and witness are proven
# by `snarkjs groth16 prove` in the same run (SNARKJS_MAX_LOG, default 16, the largest size given to it), and one
# proof per curve is checked by `snarkjs groth16 verify`. With KEEP (a folder), each input's last proof.json,
# public.json and its key's vk.json are kept in KEEP/<input>/, for `snarkjs groth16 verify` on another machine.
# BACKEND (default cuda), OUT (default ./out).
#     bash benchmarks/e2e/run.sh DIR
set -uo pipefail
dir=$1 OUT=${OUT:-out} backend=${BACKEND:-cuda}
mkdir -p "$OUT"
source "$(dirname "$0")/../bytecode.sh"
seconds_since() { local ns=$(($(date +%s%N) - $1)); printf "%d.%02d" $((ns / 1000000000)) $((ns % 1000000000 / 10000000)); }
printf "%-16s %-10s %10s %10s %10s %10s\n" input run wall_s spans_s proof_ms snarkjs_s | tee "$OUT/e2e.txt"
for input in "$dir"/*-2^*; do
  name=$(basename "$input") caches=$(mktemp -d) log=${name##*^}
  for run in $(seq 0 "${WARM_RUNS:-2}"); do
    label=$([[ $run == 0 ]] && echo first || echo "warm$run")
    start=$(date +%s%N)
    CUPY_CACHE_DIR=$caches/cupy NUMBA_CACHE_DIR=$caches/numba python3 -m cuzk.cli groth16 prove --backend "$backend" \
      --timings "$input/circuit.zkey" "$input/witness.wtns" "$caches/proof.json" "$caches/public.json" \
      > "$OUT/$name.timings.txt" 2>&1 || { echo "$name $label: FAILED"; tail -3 "$OUT/$name.timings.txt"; continue 2; }
    wall=$(seconds_since "$start")
    proof=$(awk '$1 == "prove" && NF >= 2 {print $2; exit}' "$OUT/$name.timings.txt")
    spans=$(awk '$1 == "spans" && $2 == "end" {printf "%.2f", $3 / 1000; exit}' "$OUT/$name.timings.txt")
    snark=-
    if [[ -n ${SNARKJS:-} && $run == 1 && $log -le ${SNARKJS_MAX_LOG:-16} ]]; then
      s0=$(date +%s%N)
      "$SNARKJS" groth16 prove "$input/circuit.zkey" "$input/witness.wtns" "$caches/sproof.json" "$caches/spublic.json"
      snark=$(seconds_since "$s0")
    fi
    printf "%-16s %-10s %10.2f %10s %10s %10s\n" "$name" "$label" "$wall" "${spans:--}" "$proof" "$snark" | tee -a "$OUT/e2e.txt"
  done
  if [[ -n ${KEEP:-} ]]; then
    mkdir -p "$KEEP/$name" && cp "$caches/proof.json" "$caches/public.json" "$KEEP/$name/"
    python3 -m cuzk.cli zkey export verificationkey "$input/circuit.zkey" "$KEEP/$name/vk.json" >/dev/null
  fi
  if [[ -n ${SNARKJS:-} ]]; then
    "$SNARKJS" zkey export verificationkey "$input/circuit.zkey" "$caches/vk.json" >/dev/null
    echo "$name: snarkjs groth16 verify of cuzk's proof: $("$SNARKJS" groth16 verify "$caches/vk.json" \
      "$caches/public.json" "$caches/proof.json" | tail -1)" | tee -a "$OUT/e2e.txt"
  fi
  rm -rf "$caches"
done
