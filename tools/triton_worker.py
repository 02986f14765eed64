"""Run Triton calls in a long-lived worker subprocess that may die.

Triton aborts the whole process (``LLVM ERROR: ...`` or a C ``assert``,
SIGABRT; sometimes SIGSEGV) on bad input instead of raising.  The golden
generators therefore run every case in a worker subprocess (the generator
script itself, started with ``--worker``) that reads one JSON request per line
on stdin and answers one JSON line on stdout.  When the worker dies mid-case,
the case is recorded as an error carrying the first relevant stderr line, and
a fresh worker is started for the next case.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import threading

_ASSERT_PREFIX = re.compile(r"^[^\s:/]+: (?=/)")


def serve(run_case):
    """Worker side: answer ``{"op", "args"}`` requests with ``run_case(op, args)``.

    Keeps a private copy of stdout for the protocol; anything Triton/LLVM
    prints on fd 1 goes to stderr instead.
    """
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        try:
            out = {"ok": run_case(req["op"], req["args"])}
        except Exception as e:  # Python-level errors (TypeError, ValueError, ...)
            out = {"error": "%s: %s" % (type(e).__name__, e)}
        proto.write(json.dumps(out) + "\n")
        proto.flush()


def extract_error(text, rc):
    lines = [ln.rstrip() for ln in text.splitlines()]
    for ln in lines:
        if "LLVM ERROR:" in ln:
            return ln[ln.index("LLVM ERROR:"):]
    for ln in lines:
        if "Assertion" in ln:
            return _ASSERT_PREFIX.sub("", ln)
    for ln in lines:
        if "Fatal Python error" in ln:
            return ln.strip()
    nonempty = [ln for ln in lines if ln.strip() and "leaked" not in ln and not ln.startswith(" - ")]
    if nonempty:
        return nonempty[-1]
    return "worker died (exit status %s)" % rc


class Worker:
    """Parent side: send requests to ``python script --worker``, restart it when it dies."""

    TIMEOUT_S = 120

    def __init__(self, python, script):
        self.python = python
        self.script = os.path.abspath(script)
        self.proc = None
        self.errf = None
        self.restarts = 0

    def _start(self):
        self.errf = tempfile.TemporaryFile(mode="w+b")
        self.proc = subprocess.Popen(
            [self.python, self.script, "--worker"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errf,
            bufsize=0)
        self.stdout = self.proc.stdout

    def run(self, op, args):
        if self.proc is None:
            self._start()
        self.errf.seek(0, os.SEEK_END)
        err_pos = self.errf.tell()
        req = (json.dumps({"op": op, "args": args}) + "\n").encode()
        timer = threading.Timer(self.TIMEOUT_S, self.proc.kill)
        timer.start()
        try:
            try:
                self.proc.stdin.write(req)
                self.proc.stdin.flush()
                line = self.stdout.readline()
            except BrokenPipeError:
                line = b""
        finally:
            timer.cancel()
        if line:
            return json.loads(line)
        rc = self.proc.wait()
        self.errf.seek(err_pos)
        text = self.errf.read().decode("utf-8", "replace")
        self.errf.close()
        self.proc = None
        self.restarts += 1
        return {"error": extract_error(text, rc)}

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()
            self.errf.close()
            self.proc = None
