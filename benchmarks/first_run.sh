#!/usr/bin/env bash
# The README's main command as a new user meets it: `cuzk prove` with numba's cache empty (the first run on a
# machine: it loads the cpu kernels shipped built for a generic x86-64 CPU, backends/cpu/prebuilt, where they were
# built for this Python, numba and sources, else compiles them; CUZK_CPU_PREBUILT=0 to compile them anyway,
# benchmarks/first_run_ab.sh compares the two), then WARM_RUNS (default 3) runs with that cache filled. Then
# the same for `cuzk groth16 prove` of the same circuit (a .zkey made by `cuzk groth16 setup` beforehand, with a
# cache of its own, so the proof's kernels are not compiled by the setup): a first run with an empty cache, then
# warm runs. Each cache is a fresh folder (NUMBA_CACHE_DIR), so the user's own cache is neither read nor cleared.
# Whole-process wall time, as /usr/bin/time reports it, with the CPU time of the process and the warm-up processes it
# waited for (the compile's core-seconds: steadier than wall time on a busy machine); ARGS overrides `cuzk prove`'s
# arguments (default: none, the README's), CONSTRAINTS the size of the groth16 circuit (default: the README's, 661
# constraints of MiMC). A first run that compiles leaves a background warm-up (the pairing of the proof's check, at
# the lowest priority) compiling for the later runs; the `cuzk` on the PATH is the one timed (put another
# installation's first to compare two).
set -euo pipefail
work=$(mktemp -d)
trap 'rm -rf "$work" 2>/dev/null || true' EXIT  # a background warm-up (the pairing) may still be writing there
export CUZK_BACKEND=${CUZK_BACKEND:-cpu}
source "$(dirname "$0")/bytecode.sh"
timed() {  # $1: the label, then the command
  local label=$1
  shift
  /usr/bin/time -f "$label: %e s wall, %U s user + %S s sys (its warm-up included), %M KB peak" "$@" 2>&1 |
    grep -E "wall|^  (setup|compile|prove) |load "
}

export NUMBA_CACHE_DIR=$work/cache-prove
timed "cuzk prove, first run (empty cache)" cuzk prove --quiet ${ARGS:-}
for k in $(seq "${WARM_RUNS:-3}"); do timed "cuzk prove, later run $k" cuzk prove --quiet ${ARGS:-}; done

# the groth16 files: a .r1cs and .wtns of the README's circuit, its .zkey by cuzk's one-party setup
NUMBA_CACHE_DIR=$work/cache-setup python - "$work" "${CONSTRAINTS:-600}" <<'EOF'
import sys
from pathlib import Path

from cuzk.formats.r1cs import write_constraint_system
from cuzk.formats.wtns import write_wtns
from cuzk.reference.circuits import build
from cuzk.reference.curves import BN254

work, constraints = Path(sys.argv[1]), int(sys.argv[2])
cs = build("mimc", BN254.Fr, target_constraints=constraints, seed=0)
write_constraint_system(work / "circuit.r1cs", cs)
write_wtns(work / "witness.wtns", BN254.r, [int(v) for v in cs.input_assignment + cs.aux_assignment])
print(f"groth16 circuit: {cs.num_constraints} constraints")
EOF
NUMBA_CACHE_DIR=$work/cache-setup cuzk groth16 setup "$work/circuit.r1cs" "$work/circuit.zkey" >/dev/null
export NUMBA_CACHE_DIR=$work/cache-groth16
args=("$work/circuit.zkey" "$work/witness.wtns" "$work/proof.json" "$work/public.json")
timed "cuzk groth16 prove, first run (empty cache)" cuzk groth16 prove "${args[@]}"
for k in $(seq "${WARM_RUNS:-3}"); do timed "cuzk groth16 prove, later run $k" cuzk groth16 prove "${args[@]}"; done
