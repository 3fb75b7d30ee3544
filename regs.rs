// SPDX-License-Identifier: GPL-2.0

//! BAR0 register definitions.
//!
//! Glossary:
//! - PMC: the GPU's master control block, where the identification registers live.
//! - BOOT_0: the first identification register; architecture, implementation and revision.
//! - PGSP: the GSP falcon's register block (mailboxes, CPU control, engine reset, queue
//!   doorbell).
//! - BOOT_42: the extended identification register (Fermi and later); it names the chip on every
//!   generation, including those whose ids no longer fit BOOT_0's layout.

use kernel::{
    io::register,
    prelude::*, //
};

register! {
    /// Identification of the chip: architecture, implementation and revision (fields decoded
    /// by `gpu.rs`, the parsing core).
    pub(crate) NV_PMC_BOOT_0(u32) @ 0x00000000 {
        31:0    value;
    }

    /// Extended identification of the chip (fields decoded by `gpu.rs`).
    pub(crate) NV_PMC_BOOT_42(u32) @ 0x00000a00 {
        31:0    value;
    }
}

register! {
    /// GSP falcon mailbox 0: the reduced boot's LIBOS arguments address (low half) from the
    /// driver; 0 or an error code from the GSP.
    pub(crate) NV_PGSP_FALCON_MAILBOX0(u32) @ 0x00110040 {
        31:0    value;
    }

    /// GSP falcon mailbox 1: the LIBOS arguments address (high half).
    pub(crate) NV_PGSP_FALCON_MAILBOX1(u32) @ 0x00110044 {
        31:0    value;
    }

    /// GSP falcon CPU control.
    pub(crate) NV_PGSP_FALCON_CPUCTL(u32) @ 0x00110100 {
        /// The falcon's CPU is halted (or was never started).
        4:4     halted => bool;
        /// Starts the falcon's CPU.
        1:1     startcpu;
    }

    /// GSP falcon engine control.
    pub(crate) NV_PGSP_FALCON_ENGINE(u32) @ 0x001103c0 {
        /// Holds the falcon in reset while set; the GSP stops at once.
        0:0     reset => bool;
    }

    /// Command queue doorbell: written after the command queue's write pointer moved.
    pub(crate) NV_PGSP_QUEUE_HEAD(u32) @ 0x00110c00 {
        31:0    address;
    }
}

#[kunit_tests(nova_core_regs)]
mod tests {
    use super::*;

    #[test]
    fn cpuctl_startcpu_is_bit_1() {
        let v = NV_PGSP_FALCON_CPUCTL::zeroed().with_const_startcpu::<1>();
        assert_eq!(v.into_raw(), 2);
    }
}
