# SPDX-License-Identifier: GPL-2.0
"""Builds the module's rustdoc with the flags kbuild compiled it with.

kbuild has a `rustdoc` target for the kernel's own crates but none for an
external module, so this takes the compiler line of the last module build
(`.nova_core.o.cmd`), keeps what rustdoc understands (edition, target, cfgs,
lints, externs, codegen and -Z options: the same ABI as the kernel's crates,
which rustdoc checks) and drops what only the compiler does (emit, out-dir,
objtool). Warnings are errors: `make rustdoc` is clean or it fails.

usage: rustdoc.py MODULE_DIR OUTPUT_DIR [SOURCE]
  SOURCE: another crate root to document with the module's flags (make test's
  fixture, which shows that a broken link fails the build).
"""

import os
import shlex
import subprocess
import sys
from pathlib import Path

COMPILERS = ("rustc", "clippy-driver")
# Compiler-only options (with their value when it is a separate word).
DROP_PREFIXES = ("--emit", "--out-dir", "-Zbinary_dep_depinfo", "--crate-type",
                 "-Dclippy::", "-Wclippy::", "-Aclippy::")
DROP_WITH_VALUE = ("--out-dir", "--crate-type")


def compiler_line(module_dir):
    """The rustc invocation of the last build: environment words, compiler, arguments."""
    cmd_file = module_dir / ".nova_core.o.cmd"
    if not cmd_file.exists():
        raise SystemExit(f"{cmd_file}: missing (build the module first: make modules)")
    for line in cmd_file.read_text().splitlines():
        if line.startswith("savedcmd_nova_core.o :="):
            # The compile is the first command; objtool follows after ';'.
            words = shlex.split(line.split(":=", 1)[1].split(";", 1)[0])
            break
    else:
        raise SystemExit(f"{cmd_file}: no savedcmd line (kbuild's format changed?)")
    for i, word in enumerate(words):
        if os.path.basename(word) in COMPILERS:
            return words[:i], words[i + 1:]
    raise SystemExit(f"{cmd_file}: no rustc or clippy-driver in the saved command")


def rustdoc_args(args, env):
    """The arguments rustdoc takes; `--env-set K=V` (which rustdoc does not know) goes into
    `env`, where `env!` finds it too."""
    out, skip, env_set = [], False, False
    for word in args:
        if skip:
            skip = False
            continue
        if env_set:
            env_set = False
            key, _, value = word.partition("=")
            env[key] = value
            continue
        if word == "--env-set":
            env_set = True
            continue
        if word in DROP_WITH_VALUE:
            skip = True
            continue
        if word.startswith(DROP_PREFIXES):
            continue
        out.append(word)
    if not out or not out[-1].endswith("nova_core.rs"):
        raise SystemExit(f"unexpected compiler line: the last argument is not nova_core.rs: {out[-1:]}")
    return out


def main():
    module_dir = Path(sys.argv[1]).resolve()
    output = Path(sys.argv[2]).resolve()
    source = str(Path(sys.argv[3]).resolve()) if len(sys.argv) > 3 else "nova_core.rs"
    env_words, args = compiler_line(module_dir)
    env = dict(os.environ)
    env.update(w.split("=", 1) for w in env_words)
    # As kbuild does: the kernel is built with unstable options on a stable toolchain.
    env["RUSTC_BOOTSTRAP"] = "1"
    # A module has no public API: its documentation is for its developers, so
    # private items are documented, and links to them are what they should be.
    cmd = ["rustdoc", *rustdoc_args(args, env)[:-1], "-Dwarnings", "--crate-name", "nova_core",
           "--document-private-items", "-Arustdoc::private_intra_doc_links",
           "-o", str(output), source]
    proc = subprocess.run(cmd, cwd=module_dir, env=env)
    if proc.returncode != 0:
        raise SystemExit(f"rustdoc failed (exit {proc.returncode})")
    print(f"[nova] rustdoc: {output / 'nova_core' / 'index.html'}")


if __name__ == "__main__":
    main()
