# Sourced by scripts/bench and scripts/ab: one timed run of a command.

# timed ERRFILE CMD...: runs CMD once, its output discarded and its stderr
# in ERRFILE, and prints "WALL_S USER_S SYS_S MAXRSS_KB": the wall time from
# the shell's nanosecond clock (/usr/bin/time rounds it to 10 ms, too
# coarse for wc -l), the rest from /usr/bin/time. Returns CMD's status,
# printing nothing when it fails.
timed() {
  local err=$1; shift
  local out t0 t1
  out=$(mktemp)
  t0=$(date +%s%N)
  if ! /usr/bin/time -f "%U %S %M" -o "$out" "$@" >/dev/null 2>"$err"; then
    rm -f "$out"
    return 1
  fi
  t1=$(date +%s%N)
  echo "$(awk -v d=$((t1 - t0)) 'BEGIN { printf "%.4f", d / 1e9 }') $(tail -1 "$out")"
  rm -f "$out"
}
