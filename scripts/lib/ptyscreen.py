"""Times the TUI's first screen in a pseudo-terminal, without tmux.

Run by scripts/first-screen with Debian's python3 and its python3-pyte (a
terminal emulator): ptyscreen.py BINARY FILE COLS ROWS HAS FOLDING COMPUTING
COUNT. It starts BINARY
FILE on a new pseudo-terminal of COLS x ROWS (TERM=xterm-256color, no TMUX,
as in a terminal emulator's window), answers the two queries a terminal
answers at start (OSC 11, the background colour, and DA1), feeds everything
the process writes to a pyte screen, and prints the milliseconds from just
before the fork to the arrival of the bytes that completed the screen, by
the test the tmux runs use (first-screen's complete): the screen has HAS
("State after #"), not FOLDING or COMPUTING, and matches the regular
expression COUNT (the status line's N/M). It prints "timeout" when no complete screen comes within 30 s, with the
last screen on stderr. The process is killed afterwards.

Unlike the tmux runs, nothing polls: the time is when the bytes were read,
so it is rewind's own first screen (its start, indexing, fold, rendering and
writing), without a tmux server's start or the capture-pane processes that
poll it (8-18 ms each on session 35's 2-CPU virtual machine, 5 ms of it CPU
taken from the process being timed).

With --tmux SOCKET first, BINARY runs in a new window of the tmux server
already running on SOCKET (tmux -L), as in a user's tmux session: TMUX is
set, tmux answers the queries, and the bytes BINARY writes are read as they
come through pipe-pane, so that nothing polls here either. The window's
shell waits on a FIFO until pipe-pane is attached; the time runs from the
write that lets it exec BINARY, so it leaves out tmux making the window and
starting its shell, as the pty's leaves out the terminal's.
"""

import os
import pty
import re
import select
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import fcntl
import time

import pyte

args = sys.argv[1:]
sock = None
if args[0] == "--tmux":
    sock, args = args[1], args[2:]
binary, path, cols, rows = args[0], args[1], int(args[2]), int(args[3])
has, folding, computing, count = args[4], args[5], args[6], re.compile(args[7])


def complete(text):
    return has in text and folding not in text and computing not in text and count.search(text)


# The queries a terminal answers at start, and the answers: a dark
# background, as xterm says it (OSC 11), and a VT220 with ANSI colour (DA1).
# Each is answered once, even when it comes split across two reads.
answers = {b"\x1b]11;?": b"\x1b]11;rgb:0000/0000/0000\x1b\\", b"\x1b[c": b"\x1b[?62;22c"}


def start_in_pty():
    """Starts BINARY on a new pseudo-terminal; returns the start time, the
    terminal's fd and a function that stops it."""
    env = dict(os.environ, TERM="xterm-256color")
    env.pop("TMUX", None)
    t0 = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        os.execve(binary, [binary, path], env)

    def stop():
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        os.close(fd)

    return t0, fd, stop


def start_in_tmux():
    """Starts BINARY in a new window of the tmux server on sock, its output
    read through pipe-pane; returns as start_in_pty does."""
    d = tempfile.mkdtemp()
    go, out = os.path.join(d, "go"), os.path.join(d, "out")
    os.mkfifo(go)
    os.mkfifo(out)
    tmux = ["tmux", "-L", sock]
    cmd = f"read -r _ < {shlex.quote(go)}; exec {shlex.quote(binary)} {shlex.quote(path)}"
    pane = subprocess.run(tmux + ["new-window", "-d", "-P", "-F", "#{pane_id}", cmd],
                          check=True, capture_output=True, text=True).stdout.strip()
    size = subprocess.run(tmux + ["display", "-p", "-t", pane, "#{pane_width}x#{pane_height}"],
                          check=True, capture_output=True, text=True).stdout.strip()
    if size != f"{cols}x{rows}":
        sys.exit(f"ptyscreen: the tmux pane is {size}, not {cols}x{rows}")
    subprocess.run(tmux + ["pipe-pane", "-t", pane, "-o", f"cat > {shlex.quote(out)}"], check=True)
    fd = os.open(out, os.O_RDONLY)  # once pipe-pane's cat has it open
    g = os.open(go, os.O_WRONLY)  # once the window's shell waits on it
    t0 = time.perf_counter()
    os.write(g, b"\n")
    os.close(g)

    def stop():
        subprocess.run(tmux + ["kill-pane", "-t", pane], check=False)
        os.close(fd)
        shutil.rmtree(d)

    return t0, fd, stop


screen = pyte.Screen(cols, rows)
stream = pyte.ByteStream(screen)
if sock is None:
    t0, fd, stop = start_in_pty()
else:
    # tmux answers the queries itself.
    t0, fd, stop = start_in_tmux()
    answers = {}
# Reading is kept apart from parsing, which is slow in Python: the chunks
# are read with their arrival times as they come, and fed to the screen
# once a second; the first screen comes within the first in most runs, so
# the parsing takes no CPU from the process before it.
chunks, fed = [], 0


def feed():
    """Feeds the chunks not fed yet to the screen, and returns the arrival
    time of the one that completed it, or None."""
    global fed
    for arrived, data in chunks[fed:]:
        fed += 1
        stream.feed(data)
        if complete("\n".join(screen.display)):
            return arrived
    return None


done = None
check = t0 + 1
try:
    while done is None and time.perf_counter() - t0 < 30:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                data = os.read(fd, 1 << 20)
            except OSError:
                break
            if not data:
                break
            chunks.append((time.perf_counter(), data))
            if answers:
                head = b"".join(c for _, c in chunks[-2:])
                for query in [q for q in answers if q in head]:
                    os.write(fd, answers.pop(query))
        if time.perf_counter() >= check:
            check += 1
            done = feed()
    if done is None:
        done = feed()  # what came since the last check, before the end or the process's exit
finally:
    stop()
if done is None:
    print("timeout")
    print("\n".join(screen.display), file=sys.stderr)
else:
    print(round((done - t0) * 1000))
