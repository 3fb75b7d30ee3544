// SPDX-License-Identifier: GPL-2.0

//! PTIMER: the GPU's free-running nanosecond counter, which nouveau times every wait with
//! (`nvkm/subdev/timer/nv04.c`, used by every GSP chip's `gk20a_timer`): it reads
//! NV_PTIMER_TIME_1, NV_PTIMER_TIME_0, then TIME_1 again until the high word holds still, and
//! at init sets the counter to the host's clock (TIME_1, then TIME_0). A wait that sees the
//! counter hold still for 17 reads is reported as "stalled" and ends, so a GPU without PTIMER
//! fails every nouveau wait.
//!
//! The counter runs on the emulator's wall clock, as silicon's runs whatever the driver
//! does. TIME_0's bits 4:0 read 0 (its NSEC field is 31:5: a 32 ns step, as OpenRM's
//! `NV_PTIMER_TIME_0_NSEC` says). A TIME_1 write is held until TIME_0 is written, which sets
//! the counter to both. The alarm (ALARM_0, INTR_EN_0, INTR_0) keeps what is written; INTR_0
//! bit 0 is worked out when INTR_0 is read: set (and kept until written 1 or the alarm is
//! written again) if the alarm is enabled and the counter's low word has passed it, within the
//! 2.1 s a signed 32-bit comparison sees. The interrupt line itself is not modelled (no driver
//! here takes it yet), nor a reset of the counter by a device reset.

use std::time::Instant;

pub const NV_PTIMER_INTR_0: u64 = 0x009100;
pub const NV_PTIMER_INTR_EN_0: u64 = 0x009140;
pub const NV_PTIMER_TIME_0: u64 = 0x009400;
pub const NV_PTIMER_TIME_1: u64 = 0x009410;
pub const NV_PTIMER_ALARM_0: u64 = 0x009420;

/// TIME_0's bits below its NSEC field.
const SUB_STEP: u32 = 0x1f;

/// The counter and its alarm.
pub struct Ptimer {
    /// Wall-clock instant at which the counter read `base`.
    epoch: Instant,
    base: u64,
    /// A TIME_1 write waiting for its TIME_0.
    pending_hi: Option<u32>,
    alarm: u32,
    intr_en: u32,
    /// INTR_0 bit 0, latched once the alarm passed.
    alarm_fired: bool,
}

impl Default for Ptimer {
    fn default() -> Self {
        Self::new()
    }
}

impl Ptimer {
    /// A counter at 0 now.
    pub fn new() -> Self {
        Ptimer {
            epoch: Instant::now(),
            base: 0,
            pending_hi: None,
            alarm: 0,
            intr_en: 0,
            alarm_fired: false,
        }
    }

    /// Whether `offset` is one of PTIMER's modelled registers.
    pub fn contains(offset: u64) -> bool {
        matches!(
            offset,
            NV_PTIMER_INTR_0
                | NV_PTIMER_INTR_EN_0
                | NV_PTIMER_TIME_0
                | NV_PTIMER_TIME_1
                | NV_PTIMER_ALARM_0
        )
    }

    /// The counter now, in nanoseconds.
    pub fn now(&self) -> u64 {
        let elapsed = u64::try_from(self.epoch.elapsed().as_nanos()).unwrap_or(u64::MAX);
        self.base.wrapping_add(elapsed)
    }

    fn set(&mut self, value: u64) {
        self.epoch = Instant::now();
        self.base = value;
    }

    /// Latches the alarm interrupt if the counter's low word reached the alarm (a 32-bit
    /// comparison, wrapping as the hardware's).
    fn update_alarm(&mut self) {
        if self.intr_en & 1 != 0 && (self.now() as u32).wrapping_sub(self.alarm) as i32 >= 0 {
            self.alarm_fired = true;
        }
    }

    /// A read of one of its registers, `None` for any other offset.
    pub fn read(&mut self, offset: u64) -> Option<u32> {
        if offset == NV_PTIMER_INTR_0 {
            self.update_alarm();
        }
        self.peek(offset)
    }

    /// The value a read would return, without side effects (INTR_0 as last latched).
    pub fn peek(&self, offset: u64) -> Option<u32> {
        Some(match offset {
            NV_PTIMER_TIME_0 => self.now() as u32 & !SUB_STEP,
            NV_PTIMER_TIME_1 => (self.now() >> 32) as u32,
            NV_PTIMER_ALARM_0 => self.alarm,
            NV_PTIMER_INTR_EN_0 => self.intr_en,
            NV_PTIMER_INTR_0 => u32::from(self.alarm_fired),
            _ => return None,
        })
    }

    /// A write of one of its registers; false for any other offset.
    pub fn write(&mut self, offset: u64, value: u32) -> bool {
        match offset {
            NV_PTIMER_TIME_1 => self.pending_hi = Some(value),
            NV_PTIMER_TIME_0 => {
                let hi = self.pending_hi.take().unwrap_or((self.now() >> 32) as u32);
                self.set((u64::from(hi) << 32) | u64::from(value & !SUB_STEP));
            }
            NV_PTIMER_ALARM_0 => {
                self.alarm = value;
                self.alarm_fired = false;
            }
            NV_PTIMER_INTR_EN_0 => self.intr_en = value & 1,
            // Write 1 to clear.
            NV_PTIMER_INTR_0 => {
                if value & 1 != 0 {
                    self.alarm_fired = false;
                }
            }
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn read64(t: &mut Ptimer) -> u64 {
        // nouveau's nv04_timer_read.
        loop {
            let hi = t.read(NV_PTIMER_TIME_1).unwrap();
            let lo = t.read(NV_PTIMER_TIME_0).unwrap();
            if hi == t.read(NV_PTIMER_TIME_1).unwrap() {
                return (u64::from(hi) << 32) | u64::from(lo);
            }
        }
    }

    #[test]
    fn counts_nanoseconds_of_wall_time() {
        let mut t = Ptimer::new();
        let a = read64(&mut t);
        std::thread::sleep(Duration::from_millis(5));
        let b = read64(&mut t);
        assert!(b > a, "{a} then {b}");
        assert!(b - a >= 5_000_000, "{} ns for a 5 ms sleep", b - a);
        assert!(b - a < 5_000_000_000, "{} ns for a 5 ms sleep", b - a);
    }

    #[test]
    fn time_0_steps_by_32_ns() {
        let mut t = Ptimer::new();
        for _ in 0..100 {
            assert_eq!(t.read(NV_PTIMER_TIME_0).unwrap() & 0x1f, 0);
        }
    }

    #[test]
    fn set_as_nouveau_does_high_then_low() {
        let mut t = Ptimer::new();
        let when = 0x1234_5678_9abc_de00u64;
        assert!(t.write(NV_PTIMER_TIME_1, (when >> 32) as u32));
        // The high word alone does not move the counter.
        assert!(read64(&mut t) < 1 << 32);
        assert!(t.write(NV_PTIMER_TIME_0, when as u32));
        let now = read64(&mut t);
        assert!(now >= when && now - when < 1_000_000_000, "{now:#x}");
    }

    #[test]
    fn alarm_fires_once_passed_while_enabled_and_clears_by_writing_1() {
        let mut t = Ptimer::new();
        let soon = (t.now() as u32).wrapping_add(2_000_000);
        t.write(NV_PTIMER_ALARM_0, soon);
        assert_eq!(t.read(NV_PTIMER_INTR_0), Some(0));
        std::thread::sleep(Duration::from_millis(3));
        assert_eq!(t.read(NV_PTIMER_INTR_0), Some(0), "not enabled");
        t.write(NV_PTIMER_INTR_EN_0, 1);
        assert_eq!(t.read(NV_PTIMER_INTR_0), Some(1));
        t.write(NV_PTIMER_INTR_0, 1);
        t.write(
            NV_PTIMER_ALARM_0,
            (t.now() as u32).wrapping_add(1_000_000_000),
        );
        assert_eq!(t.read(NV_PTIMER_INTR_0), Some(0));
    }

    #[test]
    fn other_offsets_are_not_its() {
        let mut t = Ptimer::new();
        assert_eq!(t.read(0x9200), None);
        assert!(!t.write(0x9210, 1));
        assert!(!Ptimer::contains(0x9404));
    }
}
