# Sourced by scripts/first-screen and scripts/key-time: polling a tmux pane
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

# wait_indexed SOCKET EVENTS WHO: polls the TUI in tmux server SOCKET until
# its status line says that every one of EVENTS events is indexed and
# folded: EVENTS/EVENTS selected, the pending checkpoints counted (known
# once the fold reaches the end) and no progress bar. After 120 s it prints
# the last status line and exits 1, as WHO.
wait_indexed() {
  local from=${EPOCHREALTIME/./}
  while :; do
    status_of "$(tmux -L "$1" capture-pane -p 2>/dev/null || true)"
    [[ " $status" == *" $2/$2 "* && $status =~ [0-9]+\ pending && $status != *indexing* ]] && return 0
    if (( (${EPOCHREALTIME/./} - from) / 1000 > 120000 )); then
      echo "$3: not all indexed within 120 s; last status line:" >&2
      echo "$status" >&2
      exit 1
    fi
    nap
  done
}
