# SPDX-License-Identifier: GPL-2.0
"""The scenario table (tests/scenarios.table): its rows and its firmware column."""

import re
from dataclasses import dataclass

from .settings import TABLE, VBIOS_DIR


@dataclass
class Scenario:
    name: str
    emu_args: list
    firmware: str
    params: str
    expect: list
    line: int
    # Why the row cannot run here (its emulator options name the real VBIOS dumps, and this
    # machine has none), or None.
    missing: str = None

    def emu_option(self, name, default=None):
        """The value of a nova-emu option of this row."""
        args = self.emu_args
        for i, a in enumerate(args[:-1]):
            if a == name:
                return args[i + 1]
        return default

    @property
    def gsp_fault(self):
        return self.emu_option("--gsp-fault")

    @property
    def chipset(self):
        return self.emu_option("--chipset", "ga102")


def runnable(rows, results):
    """The rows that can run here; each of the others is counted as skipped, with its reason."""
    for sc in rows:
        if sc.missing:
            results.skip(sc.name, sc.missing)
    return [sc for sc in rows if not sc.missing]


def read_table(path=TABLE):
    """Reads the scenario table (see its header for the columns)."""
    scenarios = []
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        cols = [c.strip() for c in line.split("|")]
        if len(cols) != 5:
            raise SystemExit(f"{path}:{n}: expected 5 columns separated by '|', got {len(cols)}")
        name, emu, firmware, params, expect = cols
        try:
            parse_firmware_spec(firmware)
        except ValueError as err:
            raise SystemExit(f"{path}:{n}: bad firmware column {firmware!r}: {err}")
        if any(s.name == name for s in scenarios):
            raise SystemExit(f"{path}:{n}: duplicate scenario name {name!r}")
        expects = [e.strip() for e in expect.split("&&") if e.strip()]
        for e in expects:
            try:
                re.compile(e.removeprefix("!"))
            except re.error as err:
                raise SystemExit(f"{path}:{n}: bad regular expression {e!r}: {err}")
        params = "" if params == "-" else params
        # `$NOVA_VBIOS_DIR` in the emulator's options: the folder of real VBIOS dumps.
        missing = None
        if "$NOVA_VBIOS_DIR" in emu:
            if VBIOS_DIR:
                emu = emu.replace("$NOVA_VBIOS_DIR", str(VBIOS_DIR))
            else:
                missing = "no folder of real VBIOS dumps (NOVA_VBIOS_DIR)"
        scenarios.append(Scenario(name, emu.split(), firmware, params, expects, n, missing))
    return scenarios


def parse_firmware_spec(spec):
    """Parses the firmware column into a list of (op, file, argument).

    `-` means the chip's real files. Otherwise comma-separated operations on
    the chip's files (file = name-version.bin):
      none                   no firmware files at all for this chip
      only=VERSION           only the GSP files of VERSION (a package without the others,
                             e.g. Debian's stable firmware-nvidia-graphics, 535.113.01 only)
      drop=FILE              leave FILE out (also acr/bl.bin, the generic bootloader's
                             older name, which the guest carries where the package has it)
      zero=FILE              FILE is empty
      truncate=FILE:BYTES    FILE cut to BYTES bytes
      flip=FILE:OFFSET       the byte at OFFSET inverted
      version=FILE:TEXT      the .fwversion section's bytes replaced by TEXT
                             (same length; the terminating NUL is kept)
      shoff=FILE:VALUE       the ELF section header offset set to VALUE
    """
    if spec == "-":
        return []
    ops = []
    for part in spec.split(","):
        op, _, rest = part.partition("=")
        if op == "none" and not rest:
            ops.append(("none", None, None))
            continue
        if op == "only":
            if not re.fullmatch(r"[0-9]+\.[0-9]+(\.[0-9]+)?", rest):
                raise ValueError(f"bad version {rest!r}")
            ops.append(("only", None, rest))
            continue
        if op not in ("drop", "zero", "truncate", "flip", "version", "shoff"):
            raise ValueError(f"unknown operation {op!r}")
        file, _, arg = rest.partition(":")
        if not (re.fullmatch(r"[a-z_]+-[0-9.]+\.bin", file) or
                (op == "drop" and file == "acr/bl.bin")):
            raise ValueError(f"bad file name {file!r}")
        if op in ("truncate", "flip", "shoff"):
            int(arg, 0)
        if op == "version" and not arg:
            raise ValueError("version needs a text")
        ops.append((op, file, arg))
    return ops
