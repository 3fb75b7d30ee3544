#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Checks what the compiler cannot about the driver's untrusted input.

Usage: audit-untrusted.py [DIR]   (default: the repository)

The compiler already refuses any read of an `Untrusted` outside a validation impl
(tests/opaque proves it). What it cannot know is whether every input point is
one: this audit holds the code and the input-point table of docs/untrusted.md
to each other.

- Every place the driver wraps data into `Untrusted` (`new_untrusted`,
  `new_untrusted_ref`) and every read of a raw source (a BAR0 register or word, a BAR
  length or PCI id the device reports, a firmware file's bytes, a copy out of
  DMA memory) is in a function the table's "wrapped in" column lists (file and
  function): input that is never wrapped cannot hide in another function.
  KUnit modules and untrusted.rs itself, which defines the wraps, aside.
- Every validation impl (`impl Validator<...> for T`) is listed in the
  "validation impl" column with its file, lives in the parsing core (a file
  the host crate fuzz/ includes), so that it is fuzzed and tested on the host,
  and is concrete: an impl with type parameters could pass any input (or a
  closure, as the expectation) through.
- Every wrap and impl the table lists exists.

Prints each finding and exits 1 if there is any.
"""

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WRAP = re.compile(r"\bnew_untrusted(?:_ref)?\(")
# Reads of what the device or a file says (kernel crate calls the driver uses).
SOURCE = re.compile(r"\.read\((?:\w+::)*NV_\w+|\.read\(regs::|\b(?:try_)?read(?:8|16|32|64)\(|\bresource_len\(|\b(?:subsystem_)?(?:vendor|device)_id\(\)"
                    r"|\brevision_id\(\)|\.data\(\)|\bcopy_to_slice\(|\bread_volatile\b|\bio_read!")
FN = re.compile(r"^\s*(?:pub(?:\([\w:]+\))?\s+)?(?:const\s+)?fn\s+(\w+)")
IMPL = re.compile(r"\bimpl\b.*?\bValidator<.*>\s+for\s+(\w+)")
SKIP = ("fuzz", "emu", "target", "tests", "scripts", "gsp/macros", "rustdoc")


def driver_files(root):
    for p in sorted(root.rglob("*.rs")):
        rel = p.relative_to(root).as_posix()
        if rel == "untrusted.rs" or any(rel == s or rel.startswith(s + "/") for s in SKIP):
            continue
        yield rel, p


def core_files(root):
    """The files the host crate includes (`#[path = ...]` in fuzz/src)."""
    core = set()
    for p in (root / "fuzz" / "src").rglob("*.rs"):
        for m in re.finditer(r'#\[path = "([^"]+)"\]', p.read_text()):
            core.add((p.parent / m.group(1)).resolve().relative_to(root.resolve()).as_posix())
    return core


def scan(path):
    """(wraps, impls) of one file outside its KUnit module: [(line, fn)], [(line, type,
    generic)]; a wrap is a call that wraps input or reads a raw source."""
    wraps, impls = [], []
    current = None
    lines = path.read_text().splitlines()
    i = 0
    while i < len(lines):
        code = lines[i].split("//", 1)[0]
        if re.match(r"^\s*mod tests\b", code):
            break
        m = FN.match(code)
        if m:
            current = m.group(1)
        if WRAP.search(code) or SOURCE.search(code):
            wraps.append((i + 1, current))
        if re.match(r"^\s*impl\b", code):
            header, j = code, i
            while "{" not in header and j + 1 < len(lines):
                j += 1
                header += " " + lines[j].split("//", 1)[0].strip()
            m = IMPL.search(header)
            if m:
                params = re.match(r"\s*impl\s*<([^>]*)>", header)
                generic = bool(params) and any(
                    p.strip() and not p.strip().startswith("'") for p in params.group(1).split(","))
                impls.append((i + 1, m.group(1), generic))
        i += 1
    return wraps, impls


def table(root):
    """The input-point table: {(file, fn)} wrapped in, {(file, type)} validation impls."""
    text = (root / "docs" / "untrusted.md").read_text()
    section = text.split("## Input points", 1)[-1].split("\n## ", 1)[0]
    wrapped, validated = set(), set()
    for row in section.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) < 3 or set(cells[0]) <= set("-: "):
            continue
        for col, out in ((cells[1], wrapped), (cells[2], validated)):
            ticks = re.findall(r"`([^`]+)`", col)
            where = None
            for t in ticks:
                if t.endswith(".rs"):
                    where = t
                elif where:
                    name = re.match(r"(\w+)", t.split("::")[-1] if out is wrapped else t)
                    if name:
                        out.add((where, name.group(1)))
    return wrapped, validated


def main():
    root = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT
    wrapped, validated = table(root)
    core = core_files(root)
    findings, seen_wraps, seen_impls = [], set(), set()
    for rel, path in driver_files(root):
        wraps, impls = scan(path)
        for line, fn in wraps:
            seen_wraps.add((rel, fn))
            if (rel, fn) not in wrapped:
                findings.append(f"{rel}:{line}: reads or wraps input in `{fn}`, which "
                                "docs/untrusted.md does not list as an input point")
        for line, ty, generic in impls:
            seen_impls.add((rel, ty))
            if generic:
                findings.append(f"{rel}:{line}: validation impl for `{ty}` has type parameters; "
                                "validation impls must be concrete")
            if (rel, ty) not in validated:
                findings.append(f"{rel}:{line}: validation impl for `{ty}` is not in "
                                "docs/untrusted.md's input-point table")
            if rel not in core:
                findings.append(f"{rel}:{line}: validation impl for `{ty}` lies outside the "
                                "parsing core (fuzz/ does not include this file)")
    for rel, fn in sorted(wrapped - seen_wraps):
        findings.append(f"docs/untrusted.md: lists `{rel}` `{fn}` as wrapping input; it does not")
    for rel, ty in sorted(validated - seen_impls):
        findings.append(f"docs/untrusted.md: lists a validation impl for `{ty}` in `{rel}`; "
                        "there is none")
    for f in findings:
        print(f)
    print(f"{len(seen_wraps)} input points wrapped, {len(seen_impls)} validation impls, "
          f"{len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
