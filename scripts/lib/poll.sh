# Sourced by scripts/first-screen, key-time and key-latency: polling a tmux pane
# with bash builtins only. A grep, date or sleep process per poll took 2-7 ms
# each on a 2-CPU machine (session 27's), 20 ms a poll, and a CPU from the
# rewind being timed; capture-pane alone takes about 5 ms.

# poll_setup DIR: makes the FIFO that nap waits on, in DIR.
poll_setup() {
  mkfifo "$1/never"
  exec 9<>"$1/never"
}

# nap waits 3 ms without a process: read times out on a FIFO nobody writes.
nap() { read -r -t 0.003 -u 9 || true; }

# The scripts read the clock as ${EPOCHREALTIME/./}: microseconds since
# the epoch, without a process (a $(...) would fork one).

# status_of SCREEN sets status to the TUI's status line in a captured
# screen (the row above the help line), "" when it has fewer rows.
status_of() {
  local rows
  mapfile -t rows <<<"$1"
  status=""
  ((${#rows[@]} >= 2)) && status=${rows[-2]}
  return 0
}

# wait_screen SOCKET LIMIT_MS WHO WHAT TEST: polls the pane of tmux server
# SOCKET until TEST (a function given the captured screen) holds, leaving
# the screen in $screen. After LIMIT_MS it prints the last screen and exits
# 1, as WHO, saying WHAT did not come.
wait_screen() {
  local from=${EPOCHREALTIME/./}
  while :; do
    screen=$(tmux -L "$1" capture-pane -p 2>/dev/null || true)
    "$5" "$screen" && return 0
    if (( (${EPOCHREALTIME/./} - from) / 1000 > $2 )); then
      echo "$3: $4 not within $2 ms; last screen:" >&2
      echo "$screen" >&2
      exit 1
    fi
    nap
  done
}

# summary LABEL UNIT VALUE...: prints "LABEL median UNIT (min–max) over N
# runs" for the integer values.
summary() {
  local label=$1 unit=$2
  shift 2
  printf '%s\n' "$@" | sort -n | awk -v label="$label" -v unit="$unit" '
    { v[NR] = $1 } END { printf "%s %d %s (%d–%d) over %d runs\n", label, v[int((NR + 1) / 2)], unit, v[1], v[NR], NR }'
}

# wait_indexed SOCKET EVENTS WHO: waits (wait_screen, up to 120 s) until
# the TUI's status line says that every one of EVENTS events is indexed
# and folded: EVENTS/EVENTS selected, the pending checkpoints counted
# (known once the fold reaches the end) and no progress bar.
wait_indexed() {
  all_events=$2
  wait_screen "$1" 120000 "$3" "every event indexed" all_indexed
}

# all_indexed SCREEN: see wait_indexed (the events in $all_events).
all_indexed() {
  status_of "$1"
  [[ " $status" == *" $all_events/$all_events "* && $status =~ [0-9]+\ pending && $status != *indexing* ]]
}
