# SPDX-License-Identifier: GPL-2.0
"""How checks are counted and told: one `ok`/`FAIL`/`SKIP`/`n/a` line per check, the summary.

`Results` is handed to every check; its `summary()` is the last line of every command,
`N passed, N failed[, N skipped]`, after `not_applicable_line()`, which says how many checks
were not applicable. A check is not applicable where its condition cannot be false (a row
that never reaches what it looks at): it is told with its reason and never counted as passed.
"""

import threading
import traceback
from dataclasses import dataclass, field


_LOG_LOCK = threading.Lock()


def log(msg):
    with _LOG_LOCK:
        print(f"[nova] {msg}", flush=True)


@dataclass
class Results:
    """The checks counted so far. A `held` Results (one filled by a thread that runs beside
    others) keeps its lines until another Results takes it in (`add`), so that every
    part's lines stay together."""
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    # Checks that could not be false where they were asked (`not_applicable`): told, with their
    # reason, and counted apart from the passed.
    na: int = 0
    failures: list = field(default_factory=list)
    held: bool = False
    lines: list = field(default_factory=list)
    # The names of the checks counted one by one, and how many of the counts are the host
    # crates' own tests (counted from `cargo test`'s summaries): what `N passed` is made of.
    names: list = field(default_factory=list)
    host_tests: int = 0
    # The names of the checks that were not applicable.
    na_names: list = field(default_factory=list)

    def say(self, line):
        """One line of output: printed now, or kept with the results when held."""
        if self.held:
            self.lines.append(line)
        else:
            with _LOG_LOCK:
                print(line, flush=True)

    def check(self, name, ok, detail=""):
        self.names.append(name)
        if ok:
            self.passed += 1
            self.say(f"ok   {name}")
        else:
            self.failed += 1
            self.failures.append(name)
            self.say(f"FAIL {name}" + (f": {detail}" if detail else ""))

    def skip(self, name, why):
        self.skipped += 1
        self.say(f"SKIP {name}: {why}")

    def not_applicable(self, name, why):
        """A check whose condition cannot be false here (`why` says what the row lacks): told
        and counted apart, never as passed."""
        self.na += 1
        self.na_names.append(name)
        self.say(f"n/a  {name}: {why}")

    def check_where(self, name, applicable, ok, detail="", why=""):
        """`check(name, ok, detail)` where `applicable`, else `not_applicable(name, why)`; `ok`
        may be a function of no argument, called only where the check applies."""
        if not applicable:
            self.not_applicable(name, why)
            return
        self.check(name, ok() if callable(ok) else ok, detail() if callable(detail) else detail)

    def add(self, other):
        """Counts another Results' checks as this one's, and prints its held lines."""
        self.passed += other.passed
        self.failed += other.failed
        self.skipped += other.skipped
        self.na += other.na
        self.failures += other.failures
        self.names += other.names
        self.na_names += other.na_names
        self.host_tests += other.host_tests
        for line in other.lines:
            self.say(line)
        other.lines.clear()

    def breakdown(self, rows):
        """What the checks counted are: the host crates' tests, the KUnit cases, the checks of
        the table's rows (`rows`: their names), and the rest (the gates and the boots' own)."""
        kunit = sum(1 for n in self.names if n.startswith("kunit: "))
        of_rows = sum(1 for n in self.names if n.split(":", 1)[0] in rows)
        checked = len({n.split(":", 1)[0] for n in self.names} & set(rows))
        rest = len(self.names) - kunit - of_rows
        na_rows = sum(1 for n in self.na_names if n.split(":", 1)[0] in rows)
        return (f"host crates' tests {self.host_tests}, KUnit cases {kunit}, checks of "
                f"{checked} table rows {of_rows}, gates' and other boots' checks {rest}; "
                f"not applicable (not counted) {self.na}, of them of table rows "
                f"{na_rows}")

    def not_applicable_line(self):
        """The line before the summary: how many checks were not applicable (counted in none
        of the summary's numbers)."""
        return f"{self.na} not applicable (not counted as passed)"

    def summary(self):
        s = f"{self.passed} passed, {self.failed} failed"
        if self.skipped:
            s += f", {self.skipped} skipped"
        return s


def run_beside(parts):
    """Runs each `(name, function)` of `parts` in a thread of its own, each with a held
    Results, and returns those Results in order once all have ended. A part that raises
    counts as one failed check carrying the traceback (the checks it did not reach are
    missing, and the failure says so), never as silence."""
    lanes = [Results(held=True) for _ in parts]

    def run(name, function, results):
        try:
            function(results)
        except BaseException:  # noqa: BLE001 - a lane's crash must reach the summary
            results.check(f"{name}: ran to its end", False, traceback.format_exc())

    threads = [threading.Thread(target=run, args=(name, function, results))
               for (name, function), results in zip(parts, lanes)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    return lanes
