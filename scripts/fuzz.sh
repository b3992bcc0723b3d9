#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan; tests/fuzz) and runs each for SECONDS (default
# 60) on a corpus kept in ~/.cache/torchir/fuzz/<target>, seeded from the fixture zoo, with the
# target's dictionary. Prints one line per target: runs, coverage (edges), features, corpus size.
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
# Crashes land in ~/.cache/torchir/fuzz/artifacts; a crash worth keeping becomes tests/data/fuzz/<target>-*.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
shift || true
fixtures=$("$root/scripts/configure.sh" | sed -n 2p)
build=${TORCHIR_FUZZ_BUILD:-$root/build-fuzz}
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DTORCHIR_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" >/dev/null
cache=${TORCHIR_CACHE:-$HOME/.cache/torchir}/fuzz
mkdir -p "$cache/artifacts"
[ -f "$cache/.seeded" ] && [ -d "$cache/device_pairing" ] || { python3 "$root/tests/fuzz/seed_corpora.py" "$fixtures" "$cache" >/dev/null && touch "$cache/.seeded"; }
[ -d "$cache/program_cache" ] || "$build/tests/fuzz/make_program_cache_seeds" "$cache/model_json" "$cache/program_cache"
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(zip_archive pt2 model_json tensor_config ir_json safetensors unpickler state_dict
                                     inputs_file symbol_expr capture host_reply pte etdump etrecord device_pairing program_cache)
for t in "${targets[@]}"; do
  log="$cache/$t.log"
  start=$(date +%s)
  "$build/tests/fuzz/fuzz_$t" "$cache/$t" -dict="$root/tests/fuzz/dict/$t.dict" -max_total_time="$seconds" \
    -rss_limit_mb=2560 -timeout=20 -print_final_stats=1 -artifact_prefix="$cache/artifacts/$t-" >"$log" 2>&1 || true
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo '?')
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo '?')
  ft=$(grep -o 'ft: [0-9]*' <<<"$last" | grep -o '[0-9]*' || echo '?')
  corpus=$(ls "$cache/$t" | wc -l)
  crash=$(grep -c 'Test unit written' "$log" || true)
  echo "$t: ${runs} runs in $(( $(date +%s) - start )) s, ${cov} edges, ${ft} features, corpus ${corpus} files, crashes ${crash}"
done
