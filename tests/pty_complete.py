#!/usr/bin/env python3
"""gpuimg tests: drive an interactive shell through a pseudo-terminal, typing TAB, as a person does.

    pty_complete.py CASES -- SHELL ARGS...

SHELL ARGS starts an interactive shell whose start-up file loads the completion, sets the prompt
to 'pty$ ', emacs keys and no bracketed paste, and binds C-x C-p to print '{{buf:' BUFFER ':fub}}'
(the line being edited). Each line of CASES (blank and '#' lines aside) is

    insert|TEXT|LINE|    TEXT, then TAB: the line must read LINE (a trailing blank counts)
    list|TEXT|WORDS|     TEXT, then TAB TAB: the words listed must be WORDS (space-separated, any
                         order); for a TEXT where TAB inserts nothing, as the shells list on the TAB
                         after one that inserted nothing

Prints a line for each failed case; exits 0 when all pass, 1 when one fails, 2 when the shell does
not answer (every wait has a deadline: no hang, no fixed sleeps).
"""
import os
import pty
import re
import select
import signal
import struct
import sys
import time
import fcntl
import termios

WAIT = float(os.environ.get("PTY_COMPLETE_WAIT", "10"))   # seconds for one answer of the shell
SHOW = b"\x18\x10"   # C-x C-p: the start-up file's key that prints the line
CLEAR = b"\x01\x0b"   # C-a C-k: empties the line for the next case
PROMPT = "pty$ "
ANSI = re.compile(r"\x1b(\[[0-9;?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>]|.)")


class Shell:
    def __init__(self, argv):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            try:
                os.environ["TERM"] = "dumb"   # lines as lines: no cursor addressing to undo
                os.execvp(argv[0], argv)
            finally:
                os._exit(127)
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", 50, 250, 0, 0))
        self.out = b""

    def send(self, data):
        os.write(self.fd, data)

    def wait_for(self, pattern, since):
        """Reads until pattern (a regex on bytes) matches the output after offset since."""
        end = time.monotonic() + WAIT
        rx = re.compile(pattern, re.S)
        while True:
            m = rx.search(self.out, since)
            if m:
                return m
            left = end - time.monotonic()
            if left <= 0:
                return None
            r, _, _ = select.select([self.fd], [], [], left)
            if r:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    return None
                self.out += data

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def plain(b):
    return ANSI.sub("", b.decode("utf-8", "replace")).replace("\r", "").replace("\x07", "")


def main():
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    cases = []
    for line in open(sys.argv[1]):
        line = line.rstrip("\n")
        if line.strip() and not line.startswith("#"):
            kind, text, want, _ = line.split("|")
            cases.append((kind, text, want))
    sh = Shell(sys.argv[3:])
    try:
        mark = len(sh.out)
        sh.send(b"echo ready-$((6*7))\r")
        if not sh.wait_for(rb"ready-42", mark):
            print("the shell did not start: %r" % plain(sh.out)[-500:])
            return 2
        failed = 0
        for n, (kind, text, want) in enumerate(cases):
            mark = len(sh.out)
            sh.send(text.encode() + (b"\t\t" if kind == "list" else b"\t") + SHOW)
            m = sh.wait_for(rb"\{\{buf:(.*?):fub\}\}", mark)
            if not m:
                print("%s '%s': no answer from the shell: %r" % (kind, text, plain(sh.out[mark:])[-500:]))
                return 2
            buf = m.group(1).decode("utf-8", "replace")
            if kind == "insert":
                if buf != want:
                    failed += 1
                    print("'%s' TAB: the line reads '%s', want '%s'" % (text, buf, want))
            else:
                # the listing: the lines after the typed one, but the prompt's (a redrawn line)
                lines = plain(sh.out[mark:m.start()]).split("\n")[1:]
                got = sorted(set(w for l in lines if PROMPT not in l for w in l.split()))
                if got != sorted(set(want.split())):
                    failed += 1
                    print("'%s' TAB TAB: lists '%s', want '%s'" % (text, " ".join(got), want))
            sh.send(CLEAR)
            # the line is empty again before the next case: the prompt's text after the cleared line
            mark = len(sh.out)
            sh.send(b"echo case-%d-$((1+1))\r" % n)
            if not sh.wait_for(rb"case-%d-2" % n, mark):
                print("the shell stopped answering after '%s': %r" % (text, plain(sh.out[mark:])[-500:]))
                return 2
        return 1 if failed else 0
    finally:
        sh.close()


if __name__ == "__main__":
    sys.exit(main())
