// SPDX-License-Identifier: GPL-2.0

//! BAR0 register definitions.
//!
//! Glossary:
//! - PMC: the GPU's master control block, where the identification registers live.
//! - BOOT_0: the first identification register; architecture, implementation and revision.
//! - PGSP: the GSP falcon's register block (mailboxes, CPU control, queue doorbell).
//! - BOOT_42: the extended identification register (Fermi and later); it names the chip on every
//!   generation, including those whose ids no longer fit BOOT_0's layout.

use kernel::{
    io::register,
    prelude::*, //
};

register! {
    /// Identification of the chip: architecture, implementation and revision.
    pub(crate) NV_PMC_BOOT_0(u32) @ 0x00000000 {
        /// Low five bits of the architecture.
        28:24   architecture_0;
        /// Implementation (chip) within the architecture.
        23:20   implementation;
        /// Sixth bit of the architecture.
        8:8     architecture_1;
        /// Major revision of the chip.
        7:4     major_revision;
        /// Minor revision of the chip.
        3:0     minor_revision;
    }

    /// Extended identification of the chip.
    pub(crate) NV_PMC_BOOT_42(u32) @ 0x00000a00 {
        /// Architecture.
        29:24   architecture;
        /// Implementation (chip) within the architecture.
        23:20   implementation;
        /// Major revision of the chip.
        19:16   major_revision;
        /// Minor revision of the chip.
        15:12   minor_revision;
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
        /// Starts the falcon's CPU.
        1:1     startcpu;
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
    fn boot0_fields_decode_ga102_a1() {
        let boot0 = NV_PMC_BOOT_0::from_raw(0x1720_00a1);
        assert_eq!(u32::from(boot0.architecture_0()), 0x17);
        assert_eq!(u32::from(boot0.implementation()), 0x2);
        assert_eq!(u32::from(boot0.architecture_1()), 0);
        assert_eq!(u32::from(boot0.major_revision()), 0xa);
        assert_eq!(u32::from(boot0.minor_revision()), 0x1);
    }

    #[test]
    fn boot42_fields_decode_gb202_a1() {
        let boot42 = NV_PMC_BOOT_42::from_raw(0x1b2a_1000);
        assert_eq!(u32::from(boot42.architecture()), 0x1b);
        assert_eq!(u32::from(boot42.implementation()), 0x2);
        assert_eq!(u32::from(boot42.major_revision()), 0xa);
        assert_eq!(u32::from(boot42.minor_revision()), 0x1);
    }
}
