// SPDX-License-Identifier: GPL-2.0

//! GFW boot as the always-on PGC6 registers report it: the GPU firmware (devinit, then FWSEC)
//! that silicon runs from the VBIOS after every reset, before any driver probes.
//!
//! - `NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_PRIV_LEVEL_MASK` (0x118128): bit 0 once FWSEC let
//!   the CPU read scratch group 05.
//! - `NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT` (0x118234): the progress in bits 7:0,
//!   0xff once complete.
//!
//! By default GFW boot is complete from power-on, as on a board the firmware booted long
//! before. `--gfw-delay MS` completes it MS milliseconds after the first read of these
//! registers (a driver probing while GFW boot still runs, as right after a reset: the clock
//! starts at the driver's first look, so that the guest's own boot time does not matter);
//! `--gfw-fault` lies: `locked` (the mask is never lowered) or `stuck`
//! (the progress stops at 0x42). Both registers are read-only.

use std::cell::Cell;
use std::time::{
    Duration,
    Instant, //
};

use crate::lie::lies;

/// The privilege level mask of scratch group 05.
pub const NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_PRIV_LEVEL_MASK: u64 = 0x118128;

/// Scratch group 05, register 0: the GFW boot progress.
pub const NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT: u64 = 0x118234;

/// The progress while GFW boot runs, and where a stuck one stays.
const PROGRESS_RUNNING: u32 = 0x42;

/// The progress once complete.
const PROGRESS_DONE: u32 = 0xff;

lies! {
    /// How GFW boot lies.
    pub enum GfwLie ("GFW") {
        /// FWSEC never lowers the privilege level: the progress cannot be read.
        Locked = "locked" => "GFW boot never completes",
        /// The progress stops short of complete.
        Stuck = "stuck" => "GFW boot never completes",
    }
}

/// GFW boot of one emulated GPU.
pub struct Gfw {
    /// How long after the first read it completes.
    delay: Duration,
    /// When it completes (or would, without a lie): set at the first read.
    done_at: Cell<Option<Instant>>,
    lie: Option<GfwLie>,
}

impl Gfw {
    /// GFW boot that completes `delay` after its registers are first read, or lies.
    pub fn new(delay: Duration, lie: Option<GfwLie>) -> Self {
        Gfw {
            delay,
            done_at: Cell::new(None),
            lie,
        }
    }

    /// The value of one of its registers, or `None` for other offsets.
    pub fn read(&self, offset: u64) -> Option<u32> {
        if !Self::contains(offset) {
            return None;
        }
        let done = self.done();
        match offset {
            NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_PRIV_LEVEL_MASK => {
                Some(u32::from(done && self.lie != Some(GfwLie::Locked)))
            }
            NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT => Some(if done && self.lie.is_none() {
                PROGRESS_DONE
            } else {
                PROGRESS_RUNNING
            }),
            _ => None,
        }
    }

    /// Whether the delay has passed since the first look (which starts the clock).
    fn done(&self) -> bool {
        let now = Instant::now();
        let done_at = self.done_at.get().unwrap_or(now + self.delay);
        self.done_at.set(Some(done_at));
        now >= done_at
    }

    /// Whether GFW boot completed, as the FSP's boot status on Hopper and later says it: the
    /// first look starts the clock as for the registers, and a lie keeps it from ever
    /// completing.
    pub fn complete(&self) -> bool {
        self.done() && self.lie.is_none()
    }

    /// Whether `offset` is one of its registers (writes to them are ignored).
    pub fn contains(offset: u64) -> bool {
        matches!(
            offset,
            NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_PRIV_LEVEL_MASK
                | NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MASK: u64 = NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_PRIV_LEVEL_MASK;
    const BOOT: u64 = NV_PGC6_AON_SECURE_SCRATCH_GROUP_05_0_GFW_BOOT;

    #[test]
    fn complete_from_power_on_by_default() {
        let gfw = Gfw::new(Duration::ZERO, None);
        assert_eq!((gfw.read(MASK), gfw.read(BOOT)), (Some(1), Some(0xff)));
        assert_eq!(gfw.read(0x118000), None);
    }

    #[test]
    fn a_delay_keeps_it_locked_and_running_until_it_passes() {
        let gfw = Gfw::new(Duration::from_millis(50), None);
        assert_eq!((gfw.read(MASK), gfw.read(BOOT)), (Some(0), Some(0x42)));
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!((gfw.read(MASK), gfw.read(BOOT)), (Some(1), Some(0xff)));
    }

    #[test]
    fn lies_never_complete() {
        let locked = Gfw::new(Duration::ZERO, Some(GfwLie::Locked));
        assert_eq!(
            (locked.read(MASK), locked.read(BOOT)),
            (Some(0), Some(0x42))
        );
        let stuck = Gfw::new(Duration::ZERO, Some(GfwLie::Stuck));
        assert_eq!((stuck.read(MASK), stuck.read(BOOT)), (Some(1), Some(0x42)));
        assert_eq!("stuck".parse::<GfwLie>(), Ok(GfwLie::Stuck));
        assert!("x"
            .parse::<GfwLie>()
            .unwrap_err()
            .to_string()
            .contains("locked, stuck"));
    }
}
