# SPDX-License-Identifier: GPL-2.0
"""What chattering GPUs cost the others: the same quiet GPUs probed in two boots, one with
GPUs whose GSP-RM posts events without end beside them (probed first, so that they chatter
through the others' probes), one without; the quiet GPUs' probe times compared (issue 46: two
such GPUs among 24 once slowed every later probe from about 1 s to 20 to 86 s)."""

import re
import threading

from .boots import Job
from .guest import LIFECYCLE_STEPS
from .kernel_log import device_lines
from .report import log
from .table import Scenario


# The quiet GPUs: every boot chain, both firmware versions.
QUIET = (("ga102", "-", r"GSP 570\.144 up: "),
         ("tu117", "only=535.113.01", r"GSP 535\.113\.01 up: "),
         ("ga100", "-", r"GSP 570\.144 up: "),
         ("ad104", "-", r"GSP 570\.144 up: "),
         ("gh100", "-", r"GSP 570\.144 up: "),
         ("gb202", "-", r"GSP 570\.144 up: "))
# The chattering GPUs: an event before every message and one more at every tick of GSP-RM's own
# from GSP_INIT_DONE on (emu/src/gsp/fault.rs, `chatter`).
CHATTERING = (("ga104", "-", "chatter@0"), ("tu106", "only=535.113.01", "chatter@0"))
# How much slower the quiet GPUs' probes may be with the chattering ones beside them.
GOAL = 2.0

# A kernel log line's time stamp.
STAMP = re.compile(r"^\[\s*(\d+\.\d+)\]")


def probe_seconds(console, bdf, up):
    """The first bind's probe of one device, from its identification line to its `GSP ... up`
    line, in the kernel log's time; None where either line is missing."""
    prefix = f"nova_core {bdf}: "
    start = end = None
    for line in console.splitlines():
        if prefix not in line or line.startswith("KLOG "):
            continue
        m = STAMP.match(line)
        text = line.split(prefix, 1)[1]
        if m and start is None and text.startswith("NVIDIA (Chipset: "):
            start = float(m.group(1))
        elif m and start is not None and re.match(up, text):
            end = float(m.group(1))
            break
    return None if start is None or end is None else end - start


def neighbours_jobs():
    """The two boots; the second one whose checks run compares them."""
    seen = {}
    lock = threading.Lock()

    def rows(chatter):
        out = []
        if chatter:
            out += [Scenario(f"neighbours-chatter-{chip}", ["--chipset", chip, "--gsp-fault", lie],
                             fw, "", [r"GSP \S+ up: "], 0) for chip, fw, lie in CHATTERING]
        out += [Scenario(f"neighbours-{'beside' if chatter else 'alone'}-{chip}",
                         ["--chipset", chip], fw, "", [up], 0) for chip, fw, up in QUIET]
        return out

    def check_of(label):
        def check(job, outcome, results):
            _, console, emus, _, _ = outcome
            times = {}
            for sc, emu in zip(job.rows, emus):
                if "-chatter-" in sc.name:
                    lines = device_lines(console, emu.bdf)
                    results.check(f"{sc.name}: the chattering GPU's GSP-RM came up",
                                  any(re.match(r"GSP \S+ up: ", l) for l in lines),
                                  f"see {emu.log}")
                    continue
                t = probe_seconds(console, emu.bdf, sc.expect[0])
                results.check(f"{sc.name}: probed, and its time measured", t is not None,
                              f"see {emu.log}")
                if t is not None:
                    times[sc.name.rsplit("-", 1)[1]] = t
            with lock:
                seen[label] = times
                if len(seen) < 2:
                    return
                alone, beside = seen["alone"], seen["beside"]
            chips = sorted(set(alone) & set(beside))
            total_alone = sum(alone[c] for c in chips)
            total_beside = sum(beside[c] for c in chips)
            detail = ", ".join(f"{c} {alone[c]:.2f}s/{beside[c]:.2f}s" for c in chips)
            log(f"neighbours: quiet GPUs' probes {total_alone:.2f}s alone, {total_beside:.2f}s "
                f"beside two chattering GPUs ({detail})")
            results.check(f"neighbours: the quiet GPUs' probes with two chattering GPUs beside "
                          f"them take under {GOAL}x their time alone",
                          len(chips) == len(QUIET) and total_beside < GOAL * total_alone,
                          f"{total_beside:.2f}s beside, {total_alone:.2f}s alone "
                          f"({total_beside / max(total_alone, 1e-9):.2f}x): {detail}")
        return check

    return [Job(f"neighbours-{label}", rows(label == "beside"), LIFECYCLE_STEPS,
                check=check_of(label)) for label in ("alone", "beside")]
