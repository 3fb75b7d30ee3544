# SPDX-License-Identifier: GPL-2.0
"""Reading the guest's kernel log: a device's lines (with levels) and fault reports."""

import re


# Reports that must never appear in a kernel log of ours.
KERNEL_FAULTS = re.compile(
    r"BUG:|WARNING:|Oops|KASAN|UBSAN|general protection fault|"
    r"Kernel panic|possible circular locking|possible recursive locking|"
    r"inconsistent lock state|suspicious RCU usage|kmemleak: \d+ new suspected|"
    r"rust_panic|panicked at"
)


def device_lines(console, bdf, driver="nova_core"):
    """The messages the driver logged for one device, without the prefix (as the console
    showed them, not the klog step's copy); `driver` is the name the lines carry (the kernel's
    own nova-core's are `nova-core`)."""
    prefix = f"{driver} {bdf}: "
    out = []
    for line in console.splitlines():
        i = line.find(prefix)
        if i >= 0 and not line.startswith("KLOG "):
            out.append(line[i + len(prefix):].rstrip())
    return out


def device_levels(console, bdf):
    """The messages the driver logged for one device with their levels (0 emergency to
    7 debug), from the copy the guest's klog step printed at the end of the boot."""
    rx = re.compile(rf"^KLOG <(\d+)>(?:\[[^\]]*\])?\s*nova_core {re.escape(bdf)}: (.*?)\r?$", re.M)
    return [(int(m.group(1)) & 7, m.group(2)) for m in rx.finditer(console)]


# An expected line may start with its level: `<4>text` (a line at warning level), or
# `!<3>text` (no line at error level matching text; `!<3>` alone: none at all).
LEVEL = re.compile(r"^(!?)<([0-7])>(.*)$")


def check_kernel_clean(console, results, label, known=()):
    """No fault report in the kernel log. `known` lists (regex, why) of WARNINGs a boot knows it
    causes for a stated reason: each that matches is taken out of the check and reported as
    skipped with its reason and count, never as passed."""
    bad = [l for l in console.splitlines() if KERNEL_FAULTS.search(l)]
    for regex, why in known:
        seen = [l for l in bad if l.lstrip("[0123456789. ]").startswith("WARNING:")
                and re.search(regex, l)]
        if seen:
            bad = [l for l in bad if l not in seen]
            results.skip(f"{label}: {len(seen)} WARNING(s) at /{regex}/", why)
    results.check(f"{label}: kernel log free of BUG/WARNING/Oops/KASAN/lockdep reports"
                  f"{' (but the known WARNINGs above)' if known else ''}",
                  not bad, "; ".join(bad[:5]))
