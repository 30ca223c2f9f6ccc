#!/bin/sh
# The terminal's settings are restored when a command that owned the terminal ends or is
# killed (issue 16): sandcap runs as the foreground job of a pseudo-terminal; the command
# turns echo off and is killed by the timeout, or exits normally.
. "$(dirname "$0")/libtest.sh"

if ! python3 -c 'import pty, termios' 2> /dev/null; then
	echo "ok 1 # SKIP python3 with pty and termios is needed"; echo "1..1"; exit 0
fi
# on_pty ARGS...: run ARGS as a session leader whose controlling terminal is a new pty;
# print "echo" or "noecho" (the pty's ECHO flag afterwards) and the exit status.
on_pty() {
	python3 - "$@" <<'PY'
import fcntl, os, pty, subprocess, sys, termios, threading
m, s = pty.openpty()
attrs = termios.tcgetattr(s)
attrs[3] |= termios.ECHO
termios.tcsetattr(s, termios.TCSANOW, attrs)
def pre():
    os.setsid()
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
p = subprocess.Popen(sys.argv[1:], stdin=s, stdout=s, stderr=s, preexec_fn=pre)
def drain():
    try:
        while os.read(m, 4096):
            pass
    except OSError:
        pass
threading.Thread(target=drain, daemon=True).start()
rc = p.wait()
print("echo" if termios.tcgetattr(s)[3] & termios.ECHO else "noecho", rc)
PY
}

eq "control: stty -echo without sandcap leaves echo off" "noecho 0" "$(on_pty sh -c 'stty -echo')"
eq "a command that turned echo off and exited: echo restored" "echo 0" \
	"$(on_pty "$SANDCAP" run -q -- sh -c 'stty -echo')"
eq "a command killed by the timeout with echo off: echo restored" "echo 124" \
	"$(on_pty "$SANDCAP" run -q --timeout 1 --grace 0 -- sh -c 'stty -echo; exec sleep 100.7713')"
expect "its process is gone" gone "sleep 100.7713"
# --output-limit to a terminal (splice where the kernel's tty takes it, else read/write).
eq "--output-limit on a terminal: exit 0" "echo 0" \
	"$(on_pty "$SANDCAP" run -q --output-limit 1M --report "$T/tty.json" -- echo hi)"
contains "... relayed by sandcap, one pipe (the terminal is stdout and stderr)" "sandcap (stdout and stderr, one pipe: " "$(json "$T/tty.json" '["enforcement"]["output"]')"
eq "... 3 bytes passed" 3 "$(json "$T/tty.json" '["usage"]["output_bytes"]')"
done_testing
