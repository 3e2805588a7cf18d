#!/usr/bin/env bash
# `cuzk serve --ray` with a GPU actor on the lent GPU machine, which has no package registry and takes at most
# 64 MiB of working tree a call: Ray's wheel (about 80 MB for CPython 3.12) travels in two parts, over two calls
# on the same warm machine (the second within its idle window), and is put back together there.
#
# Here, once (the folders are git-ignored through .git/info/exclude):
#     STEP=split bash benchmarks/serve/ray_h200.sh     # needs /tmp/whl/ray-*-cp312-*.whl and its missing needs
#                                                      # (jsonschema, jsonschema-specifications, referencing, rpds-py)
# Then on the GPU machine, carry [".wp1"], then at once carry [".wp2"]:
#     STEP=stash bash benchmarks/serve/ray_h200.sh     # the first part kept in /tmp/wp
#     STEP=run bash benchmarks/serve/ray_h200.sh       # joined, installed in /tmp/site, ray_load.py on cuda
# RAY_ARGS overrides the benchmark's arguments (default: one cuda actor, the bn fixture, 1 and 4 clients).
set -euo pipefail
OUT=${OUT:-out}; mkdir -p "$OUT"
case ${STEP:-run} in
  split)
    wheel=$(ls /tmp/whl/ray-*-cp312-*.whl)
    for folder in .wp1 .wp2; do
      grep -qx "/$folder/" .git/info/exclude 2>/dev/null || echo "/$folder/" >> .git/info/exclude
      rm -rf "$folder" && mkdir "$folder"
    done
    half=$(( ($(stat -c %s "$wheel") + 1) / 2 ))
    split -b "$half" -d "$wheel" /tmp/raypart.
    mv /tmp/raypart.00 .wp1/ && mv /tmp/raypart.01 .wp2/
    cp /tmp/whl2/*.whl .wp2/ 2>/dev/null || echo "no /tmp/whl2/*.whl: Ray's missing needs are not carried"
    basename "$wheel" > .wp2/name
    md5sum "$wheel" | cut -d' ' -f1 > .wp2/md5
    du -sh .wp1 .wp2
    ;;
  stash)
    mkdir -p /tmp/wp && cp .wp1/raypart.00 /tmp/wp/ && ls -la /tmp/wp
    ;;
  run)
    export PYTHONUNBUFFERED=1
    python3 -c "import cuzk.cli" 2>/dev/null || python3 -m pip install -q --no-deps --no-build-isolation -e . >/dev/null
    wheel=/tmp/$(cat .wp2/name)
    cat /tmp/wp/raypart.00 .wp2/raypart.01 > "$wheel"
    [[ $(md5sum "$wheel" | cut -d' ' -f1) == $(cat .wp2/md5) ]] || { echo "the joined wheel differs"; exit 1; }
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site "$wheel" \
      $(ls .wp2/*.whl 2>/dev/null)
    export PYTHONPATH=/tmp/site
    # shellcheck disable=SC2086
    python3 benchmarks/serve/ray_load.py ${RAY_ARGS:---backend cuda --ray-workers 1 --curve bn --clients 1 4 --requests 60} \
      2>&1 | tee "$OUT/ray.txt"
    ;;
  *) echo "STEP is split, stash or run"; exit 2 ;;
esac
