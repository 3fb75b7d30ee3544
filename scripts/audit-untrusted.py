#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Lists every use of an Untrusted escape hatch outside a Validator impl.

Usage: audit-untrusted.py [DIR]   (default: the repository)

An escape hatch (`.untrusted()`, `.untrusted_mut()`, `.into_inner_untrusted()`) is
explained when it sits inside an `impl Validator for ...` block, or when its line
or the line above carries a `// UNTRUSTED: <why>` comment. untrusted.rs, which
defines and tests them, is not audited. Prints every use with its status and
exits 1 if any is unexplained.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HATCH = re.compile(r"\.(untrusted|untrusted_mut|into_inner_untrusted)\(\)")
IMPL_VALIDATOR = re.compile(r"^\s*impl\b.*\bValidator\s+for\b")


def audit(path):
    uses = []
    depth = 0
    validator_depth = None
    prev = ""
    for n, line in enumerate(path.read_text().splitlines(), 1):
        code = line.split("//", 1)[0]
        if validator_depth is None and IMPL_VALIDATOR.match(code):
            validator_depth = depth
        for m in HATCH.finditer(code):
            inside = validator_depth is not None and depth > validator_depth or (
                validator_depth is not None and "{" in code and IMPL_VALIDATOR.match(code))
            why = "UNTRUSTED:" in line or "UNTRUSTED:" in prev
            uses.append((n, m.group(0), inside or why,
                         "Validator impl" if inside else ("explained" if why else "UNEXPLAINED")))
        depth += code.count("{") - code.count("}")
        if validator_depth is not None and depth <= validator_depth and "}" in code:
            validator_depth = None
        prev = line
    return uses


def main():
    root = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT
    bad = 0
    files = sorted(p for p in root.rglob("*.rs")
                   if p.name != "untrusted.rs" and not any(
                       part in ("emu", "target", "scripts", "tests")
                       for part in p.relative_to(root).parts))
    total = 0
    for f in files:
        for n, what, ok, status in audit(f):
            total += 1
            print(f"{f.relative_to(root)}:{n}: {what} [{status}]")
            bad += not ok
    print(f"{total} escape-hatch uses, {bad} unexplained")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
