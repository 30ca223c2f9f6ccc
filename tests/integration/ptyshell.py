# SPDX-License-Identifier: MIT
"""An interactive bash on a pseudo-terminal, for the job-control tests of t-run-signals.sh.

    sh = Shell(timeout_s)       # bash -i, prompt "PROMPT$ ", ready for a command
    sh.cmd("jobs -l")           # type a line (the output seen so far is forgotten)
    sh.until(b"Stopped", 5)     # wait for output, at most t seconds: True if it came
    sh.write(b"\\x04")           # raw bytes (^D)
    sh.close()

A hang of the test is a failure: SIGALRM after timeout_s ends the script.
"""
import os
import pty
import select
import signal
import time

PROMPT = b"PROMPT$ "


class Shell:
    def __init__(self, timeout_s):
        signal.alarm(timeout_s)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["PS1"] = PROMPT.decode()
            os.execv("/bin/bash", ["bash", "--norc", "--noprofile", "-i"])
        self.buf = b""
        self.until(PROMPT)

    def until(self, pat, t=10):
        end = time.time() + t
        while pat not in self.buf and time.time() < end:
            r, _, _ = select.select([self.fd], [], [], 0.2)
            if r:
                try:
                    self.buf += os.read(self.fd, 4096)
                except OSError:
                    break
        return pat in self.buf

    def write(self, data):
        os.write(self.fd, data)

    def cmd(self, line):
        self.buf = b""
        os.write(self.fd, line.encode() + b"\n")

    def close(self):
        self.cmd("exit")
        time.sleep(0.5)
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
