#!/usr/bin/env bash
# The test suite under AddressSanitizer and UndefinedBehaviorSanitizer: a second build folder
# (build-asan) of the whole project and all its suites (UI included, under Xvfb), then the fuzz
# targets (build-fuzz, clang) over the inputs that once crashed them and the crafted files.
# Installs what it needs, as test.sh does. Usage: scripts/sanitize.sh [ctest arguments]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export TORCHIR_BUILD=${TORCHIR_ASAN_BUILD:-$root/build-asan}
build=$("$root/scripts/configure.sh" | sed -n 1p)
cmake -S "$root" -B "$build" -DTORCHIR_SANITIZE=ON -DTORCHIR_WERROR=OFF >/dev/null
cmake --build "$build"
# libtorch and Qt keep static registries for the life of the process; what they hold at exit is
# not a leak of ours (lsan.supp names them). Any other leak, and every ASan or UBSan report, fails.
# intercept_tls_get_addr=0: up to GCC 13 and LLVM 16 the runtime's __tls_get_addr interceptor takes
# a dynamic TLS block that happens to start 16 bytes past a page boundary for a pre-2.25 glibc
# block with a header, reads the two words before it as a range, and LeakSanitizer's exit-time
# tracer then dies on it ("Tracer caught signal 11") in a process whose tests all passed; which
# test that hits depends only on where malloc placed the block. glibc >= 2.25 keeps dynamic TLS in
# ordinary heap blocks reached from the thread's DTV, so leaks are still found without it.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:detect_stack_use_after_return=0:intercept_tls_get_addr=0
export LSAN_OPTIONS=suppressions=$root/scripts/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Should the tracer still die after every test of a suite passed, that suite runs once more: a
# real failure fails both times.
(cd "$build" && ctest --output-on-failure --timeout 900 --repeat until-pass:2 "$@")

fuzz=${TORCHIR_FUZZ_BUILD:-$root/build-fuzz}
cmake -S "$root" -B "$fuzz" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DTORCHIR_FUZZ=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$fuzz"
(cd "$fuzz" && ctest --output-on-failure --timeout 900)
