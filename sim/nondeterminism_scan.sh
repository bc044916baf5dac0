#!/usr/bin/env bash
# Fails when code that a run's outcome depends on can see the host: a wall clock, OS randomness,
# a thread, a real sleep, or a hash-ordered container (whose iteration order may reach a trace, a
# digest or a report). Scans impl/, sim/, scenario/ and trace/, tests included. A line may opt out
# with the comment `nondeterminism-ok: <reason>`; the reason is required.
# usage: nondeterminism_scan.sh SOURCE_ROOT
set -euo pipefail
root="${1:?usage: nondeterminism_scan.sh SOURCE_ROOT}"
pattern='system_clock|steady_clock|high_resolution_clock|random_device|\brand\(|\bsrand\(|std::thread|std::jthread|std::async|sleep_for|sleep_until|\busleep\(|\bnanosleep\(|gettimeofday|clock_gettime|\btime\((NULL|nullptr|0)\)|unordered_(map|set|multimap|multiset)'
hits=$(cd "$root" && grep -rnE "$pattern" impl sim scenario trace --include='*.h' --include='*.cc' \
  | grep -vE 'nondeterminism-ok: [^ ]' || true)
if [[ -n "$hits" ]]; then
  echo "nondeterminism_scan: host-dependent code in the simulated world (add" \
    "'nondeterminism-ok: <reason>' only where it cannot reach a run):" >&2
  echo "$hits" >&2
  exit 1
fi
# Prove the scan itself can fail: the pattern must match a line that uses a wall clock.
if ! echo 'auto t = std::chrono::system_clock::now();' | grep -qE "$pattern"; then
  echo "nondeterminism_scan: the pattern no longer matches a wall clock" >&2
  exit 1
fi
echo "nondeterminism_scan: impl/ sim/ scenario/ trace/ clean"
