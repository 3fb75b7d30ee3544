# SPDX-License-Identifier: GPL-2.0
"""How checks are counted and told: one `ok`/`FAIL`/`SKIP` line per check, the summary.

`Results` is handed to every check; its `summary()` is the last line of every command,
`N passed, N failed[, N skipped]`.
"""

from dataclasses import dataclass, field


_LOG_LOCK = __import__("threading").Lock()


def log(msg):
    with _LOG_LOCK:
        print(f"[nova] {msg}", flush=True)


@dataclass
class Results:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    failures: list = field(default_factory=list)

    def check(self, name, ok, detail=""):
        if ok:
            self.passed += 1
            print(f"ok   {name}")
        else:
            self.failed += 1
            self.failures.append(name)
            print(f"FAIL {name}" + (f": {detail}" if detail else ""))

    def skip(self, name, why):
        self.skipped += 1
        print(f"SKIP {name}: {why}")

    def add(self, other):
        """Counts another Results' checks as this one's."""
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped
        self.failures += other.failures

    def summary(self):
        s = f"{self.passed} passed, {self.failed} failed"
        if self.skipped:
            s += f", {self.skipped} skipped"
        return s
