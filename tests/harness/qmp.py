# SPDX-License-Identifier: GPL-2.0
"""A minimal client of QEMU's machine protocol (QMP) over a unix socket.

Plain Python standard library. Enough for the test harness: connect, leave
the capabilities negotiation mode, run commands and wait for events.

    qemu-system-x86_64 ... -qmp unix:/run/dir/qmp.sock,server=on,wait=off

    with QMP("/run/dir/qmp.sock", connect_timeout=10) as qmp:
        qmp.execute("device_del", id="gpu0")
        event = qmp.wait_event("DEVICE_DELETED", timeout=30,
                               match=lambda data: data.get("device") == "gpu0")

The protocol: the server greets with {"QMP": {...}}; the client must send
{"execute": "qmp_capabilities"} before anything else. Each command gets one
reply, {"return": ...} or {"error": {"class": ..., "desc": ...}}, carrying
the command's "id"; asynchronous {"event": NAME, "data": ..., "timestamp":
...} messages may arrive at any time, also between a command and its reply.
Every message is one JSON object on one line. Events read while waiting for
a reply are kept, so that wait_event() also finds events that came early.
"""

import json
import socket
import time


class QMPError(Exception):
    """A command answered with an error, or the protocol went wrong."""


class QMPTimeout(QMPError):
    """Nothing suitable arrived in time."""


class QMP:
    """One QMP connection. Not thread-safe: use it from one thread."""

    def __init__(self, path, connect_timeout=10.0, timeout=30.0):
        """Connects to the unix socket `path` and negotiates capabilities.

        Retries until `connect_timeout` seconds have passed, so that the
        caller may start QEMU and connect right away. `timeout` is the
        default time limit of execute().
        """
        self.path = str(path)
        self.timeout = timeout
        self.events = []
        self._buf = b""
        self._next_id = 0
        self._sock = self._connect(connect_timeout)
        try:
            greeting = self._read_message(time.monotonic() + connect_timeout)
            if "QMP" not in greeting:
                raise QMPError(f"not a QMP greeting: {greeting!r}")
            self.greeting = greeting["QMP"]
            self.execute("qmp_capabilities")
        except BaseException:
            self.close()
            raise

    def _connect(self, timeout):
        end = time.monotonic() + timeout
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.connect(self.path)
                return sock
            except (FileNotFoundError, ConnectionRefusedError) as err:
                sock.close()
                if time.monotonic() >= end:
                    raise QMPTimeout(f"cannot connect to {self.path} within {timeout}s: {err}")
                time.sleep(0.05)

    def close(self):
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _read_message(self, deadline):
        """The next JSON object from the socket; QMPTimeout after `deadline`
        (a time.monotonic() value), QMPError when QEMU closes the socket."""
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise QMPTimeout("no message from QEMU in time")
            self._sock.settimeout(left)
            try:
                chunk = self._sock.recv(65536)
            except socket.timeout:
                raise QMPTimeout("no message from QEMU in time") from None
            if not chunk:
                raise QMPError("QEMU closed the QMP connection")
            self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        line = line.strip()
        if not line:
            return self._read_message(deadline)
        try:
            return json.loads(line)
        except json.JSONDecodeError as err:
            raise QMPError(f"bad QMP message {line[:200]!r}: {err}") from None

    def execute(self, command, arguments=None, *, timeout=None, **kwargs):
        """Runs `command` and returns its "return" value.

        The arguments come as a dict, as keywords, or both (a dict for names
        that are no Python identifiers, e.g. {"command-line": "info pci"}).
        Raises QMPError with QEMU's description when the command fails,
        QMPTimeout when no reply comes within `timeout` seconds (default:
        the connection's). Events that arrive meanwhile are kept for
        wait_event().
        """
        arguments = dict(arguments or {}, **kwargs)
        self._next_id += 1
        ident = f"nova-{self._next_id}"
        msg = {"execute": command, "id": ident}
        if arguments:
            msg["arguments"] = arguments
        self._sock.sendall(json.dumps(msg).encode() + b"\n")
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            reply = self._read_message(deadline)
            if "event" in reply:
                self.events.append(reply)
                continue
            if reply.get("id") != ident:
                raise QMPError(f"reply to another command while waiting for {command}: {reply!r}")
            if "error" in reply:
                err = reply["error"]
                raise QMPError(f"{command}: {err.get('class', '?')}: {err.get('desc', err)}")
            return reply.get("return")

    def wait_event(self, name, timeout, match=None):
        """Returns the first event called `name` (whose "data" satisfies
        `match`, when given), removing it from the kept events; waits up to
        `timeout` seconds for it, then raises QMPTimeout."""
        deadline = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev.get("event") == name and (match is None or match(ev.get("data", {}))):
                    return self.events.pop(i)
            try:
                msg = self._read_message(deadline)
            except QMPTimeout:
                raise QMPTimeout(f"no {name} event within {timeout}s") from None
            if "event" in msg:
                self.events.append(msg)
            else:
                raise QMPError(f"unexpected message while waiting for {name}: {msg!r}")
