#!/usr/bin/env bash
# `cuzk groth16 setup` of a 2^20-domain circuit on the GPU machine, timed as a user runs it (whole process).
# A MiMC circuit of SETUP_CONSTRAINTS (default 1040000) constraints on BN254 is written as a .r1cs, then set up
# with --backend ${SETUP_BACKEND:-cuda} twice (the second run with NVRTC's cache warm), and the key checked by a
# proof that verifies (`cuzk groth16 prove` needs a witness: the circuit's own, written as a .wtns). CuPy's kernel
# cache comes from .devcache/cupy_cache.tgz when present (an earlier run's $OUT). SETUP_RUNS (default 2) setups;
# SETUP_PROFILE=1 runs them under cProfile (the 30 costliest calls by cumulative time); PROVE=0 skips the proof.
# Reports go to $OUT or ./out.
set -uo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT" /tmp/setup
export PYTHONUNBUFFERED=1 CUPY_CACHE_DIR=$PWD/.cupy_cache
[[ -f .devcache/cupy_cache.tgz ]] && tar xzf .devcache/cupy_cache.tgz && echo "CuPy cache: from .devcache"
python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null 2>&1 || exit 1
python3 - "${SETUP_CONSTRAINTS:-1040000}" <<'PY'
import sys, time
from cuzk.formats.r1cs import write_constraint_system
from cuzk.formats.wtns import write_wtns
from cuzk.reference.circuits import build
from cuzk.reference.curves import BN254
started = time.perf_counter()
cs = build("mimc", BN254.Fr, target_constraints=int(sys.argv[1]))
write_constraint_system("/tmp/setup/c.r1cs", cs)
write_wtns("/tmp/setup/c.wtns", BN254.r, [v.value for v in cs.full_assignment()])
print(f"circuit: {cs.num_constraints} constraints, written in {time.perf_counter() - started:.1f} s")
PY
profile=()
[[ ${SETUP_PROFILE:-0} == 1 ]] && profile=(-m cProfile -s cumtime)
for run in $(seq "${SETUP_RUNS:-2}"); do
  /usr/bin/time -f "setup run $run: %e s wall, %M KB peak" python3 "${profile[@]}" -m cuzk.cli groth16 setup \
    --backend "${SETUP_BACKEND:-cuda}" /tmp/setup/c.r1cs /tmp/setup/c.zkey 2>&1 | head -45 | tee -a "$OUT/setup.txt"
done
[[ ${PROVE:-1} == 1 ]] && /usr/bin/time -f "prove: %e s wall" python3 -m cuzk.cli groth16 prove \
  --backend "${SETUP_BACKEND:-cuda}" /tmp/setup/c.zkey /tmp/setup/c.wtns /tmp/setup/proof.json /tmp/setup/public.json \
  2>&1 | tee -a "$OUT/setup.txt"
