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
