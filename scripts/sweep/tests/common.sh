# Shared by the engine tests: the reference sweep every engine's merged result must equal.
# Sourced with IQSIM, SRC (the source root) and WORK (an empty scratch directory) set.
sweep_dir="$SRC/scripts/sweep"
file="$SRC/scenarios/templates/default.toml"
seeds=12
fail() { echo "FAIL: $*" >&2; exit 1; }
# reference [FILE]: FILE as the engine will name it (the summary keeps the path as given), run from
# the source root.
reference() {
  (cd "$SRC" && "$IQSIM" fuzz "${1:-$file}" --seeds "$seeds" --jobs 2 --json "$WORK/reference.json" >/dev/null 2>"$WORK/reference.err")
  local rc=$?
  [[ $rc -le 1 ]] || fail "the unsharded reference sweep exited $rc"
}
# ran CMD...: runs CMD; true when it ran the sweep through, whatever the campaign's verdict (exit 0
# no failure, 1 a seed failed); false on 2 (bad input, a shard that could not run) or worse. The
# engines are judged by their merged summary against the reference, not by what the seeds found.
ran() {
  "$@"
  local rc=$?
  [[ $rc -le 1 ]]
}

