// SPDX-License-Identifier: GPL-2.0

//! The PRAMIN window: BAR0's 1 MiB at 0x700000 (`NV_PRAMIN`, OpenRM `dev_ram.h`) onto video
//! memory, from the 64 KiB-aligned base `NV_PBUS_BAR0_WINDOW` (0x001700, OpenRM
//! `maxwell/gm107/dev_bus.h`: BASE 23:0 an address >> 16, TARGET 25:24) names. nouveau reaches
//! its instance memory through it before BAR2 is up (`nvkm/subdev/instmem/nv50.c`, which writes
//! the base as `addr >> 16` and leaves the target at video memory), and
//! `NV_UFLUSH_FB_FLUSH` (0x070000), which it writes 1 and polls until bit 1 clears
//! (`nvkm/subdev/bar/g84.c`), makes its writes visible.
//!
//! What silicon checks, the model refuses by name: a window onto system memory (TARGET 2 or 3:
//! not modelled) or the reserved TARGET 1, an access past the end of video memory, and one into WPR2, which only the
//! secure falcons may touch. A refused read returns 0, a refused write changes nothing. The
//! flush completes at once: the model's writes are visible when made.

use std::ops::Range;

use crate::logger::{LogOnce, Logger};
use crate::vram::Vram;

pub const NV_PBUS_BAR0_WINDOW: u64 = 0x001700;
pub const NV_UFLUSH_FB_FLUSH: u64 = 0x070000;
/// The window's place in BAR0 and its size.
pub const NV_PRAMIN: Range<u64> = 0x700000..0x800000;

/// BAR0_WINDOW's writable bits: BASE and TARGET.
const WINDOW_MASK: u32 = 0x03ff_ffff;
const TARGET_SHIFT: u32 = 24;

/// How many distinct refusals are logged.
const LOG_LIMIT: usize = 32;

/// The window's base register and the flush.
pub struct Pramin {
    window: u32,
    refusals: LogOnce,
}

impl Default for Pramin {
    fn default() -> Self {
        Self::new()
    }
}

impl Pramin {
    pub fn new() -> Self {
        Pramin {
            window: 0,
            refusals: LogOnce::new("PRAMIN refusal", LOG_LIMIT),
        }
    }

    /// Back to power-on: the window at video memory 0.
    pub fn reset(&mut self) {
        self.window = 0;
    }

    /// Whether `offset` is the window, its base or the flush.
    pub fn contains(offset: u64) -> bool {
        NV_PRAMIN.contains(&offset) || offset == NV_PBUS_BAR0_WINDOW || offset == NV_UFLUSH_FB_FLUSH
    }

    /// Where the window's `offset` lands in video memory, or why it lands nowhere.
    fn address(&self, offset: u64, vram: &Vram, wpr2: Option<&Range<u64>>) -> Result<u64, String> {
        match self.window >> TARGET_SHIFT {
            0 => {}
            1 => {
                return Err(format!(
                    "NV_PBUS_BAR0_WINDOW {:#010x} names TARGET 1, which is reserved",
                    self.window
                ))
            }
            target => {
                return Err(format!(
                    "the window targets system memory (NV_PBUS_BAR0_WINDOW {:#010x}, TARGET \
                     {target}), which the model does not serve",
                    self.window
                ))
            }
        }
        let addr = (u64::from(self.window & 0x00ff_ffff) << 16) + (offset - NV_PRAMIN.start);
        if addr + 4 > vram.size() {
            return Err(format!(
                "{addr:#x} is past the end of video memory ({:#x} bytes)",
                vram.size()
            ));
        }
        if let Some(w) = wpr2.filter(|w| w.contains(&addr)) {
            return Err(format!(
                "{addr:#x} is inside WPR2 ({:#x}..{:#x}), which only the secure falcons may touch",
                w.start, w.end
            ));
        }
        Ok(addr)
    }

    /// What a read of `offset` returns, with no refusal logged.
    pub fn peek(&self, offset: u64, vram: &Vram, wpr2: Option<&Range<u64>>) -> u32 {
        match offset {
            NV_PBUS_BAR0_WINDOW => self.window,
            NV_UFLUSH_FB_FLUSH => 0,
            _ => self
                .address(offset, vram, wpr2)
                .ok()
                .and_then(|addr| vram.read_u32(addr).ok())
                .unwrap_or(0),
        }
    }

    /// A read of the register or window dword at `offset`.
    pub fn read(
        &mut self,
        offset: u64,
        vram: &Vram,
        wpr2: Option<&Range<u64>>,
        log: &Logger,
    ) -> u32 {
        if !NV_PRAMIN.contains(&offset) {
            return self.peek(offset, vram, wpr2);
        }
        match self.address(offset, vram, wpr2) {
            Ok(addr) => vram.read_u32(addr).unwrap_or(0),
            Err(why) => {
                self.refuse(log, offset, "read", &why);
                0
            }
        }
    }

    /// A write of `value` (its `mask` bytes) to the register or window dword at `offset`.
    pub fn write(
        &mut self,
        offset: u64,
        value: u32,
        mask: u32,
        vram: &mut Vram,
        wpr2: Option<&Range<u64>>,
        log: &Logger,
    ) {
        match offset {
            NV_PBUS_BAR0_WINDOW => {
                self.window = (value & mask | self.window & !mask) & WINDOW_MASK;
            }
            NV_UFLUSH_FB_FLUSH => {}
            _ => match self.address(offset, vram, wpr2) {
                Ok(addr) => {
                    let old = vram.read_u32(addr).unwrap_or(0);
                    let merged = value & mask | old & !mask;
                    if let Err(e) = vram.write(addr, &merged.to_le_bytes()) {
                        self.refuse(log, offset, "write", &e.to_string());
                    }
                }
                Err(why) => self.refuse(log, offset, "write", &why),
            },
        }
    }

    fn refuse(&mut self, log: &Logger, offset: u64, what: &str, why: &str) {
        let key = (u64::from(self.window) << 24) | offset;
        self.refusals.log(log, key, || {
            format!("PRAMIN {what} at BAR0+{offset:#08x} refused: {why}")
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logger::MemoryLog;

    fn setup() -> (Pramin, Vram, Logger, MemoryLog) {
        let (log, mem) = Logger::memory();
        (Pramin::new(), Vram::new(1 << 30), log, mem)
    }

    #[test]
    fn the_window_reaches_video_memory_from_its_base() {
        let (mut p, mut v, log, mem) = setup();
        p.write(NV_PBUS_BAR0_WINDOW, 0x12, !0, &mut v, None, &log);
        assert_eq!(p.read(NV_PBUS_BAR0_WINDOW, &v, None, &log), 0x12);
        p.write(0x700010, 0xdead_beef, !0, &mut v, None, &log);
        assert_eq!(v.read_u32(0x12_0010).unwrap(), 0xdead_beef);
        // A byte write keeps the rest of the dword.
        p.write(0x700010, 0x55, 0xff, &mut v, None, &log);
        assert_eq!(p.read(0x700010, &v, None, &log), 0xdead_be55);
        assert!(mem.contents().is_empty());
    }

    #[test]
    fn system_memory_past_the_end_and_wpr2_are_refused_by_name() {
        let (mut p, mut v, log, mem) = setup();
        p.write(NV_PBUS_BAR0_WINDOW, 2 << 24, !0, &mut v, None, &log);
        p.write(0x700000, 1, !0, &mut v, None, &log);
        assert_eq!(v.pages(), 0);
        p.write(NV_PBUS_BAR0_WINDOW, (1 << 30) >> 16, !0, &mut v, None, &log);
        assert_eq!(p.read(0x700000, &v, None, &log), 0);
        let wpr2 = 0x1000_0000..0x1100_0000;
        p.write(NV_PBUS_BAR0_WINDOW, 0x1000, !0, &mut v, Some(&wpr2), &log);
        p.write(0x700100, 7, !0, &mut v, Some(&wpr2), &log);
        assert_eq!(v.pages(), 0);
        let contents = mem.contents();
        let lines: Vec<&str> = contents.lines().collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(lines[0].contains("refused: the window targets system memory"));
        assert!(lines[1].contains("refused: 0x40000000 is past the end of video memory"));
        assert!(lines[2].contains("refused: 0x10000100 is inside WPR2"));
    }
}
