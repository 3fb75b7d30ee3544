// SPDX-License-Identifier: GPL-2.0

//! nova_core: core driver for NVIDIA GPUs built around the GPU System Processor (GSP).
//!
//! The data flows one way: the PCI probe ([`driver`]) maps BAR0, whose registers
//! ([`regs`]) identify the chip.

mod driver;
mod regs;

kernel::module_pci_driver! {
    type: driver::NovaCore,
    name: "nova_core",
    authors: ["The nova_core developers"],
    description: "Core driver for NVIDIA GSP-based GPUs (Turing and later)",
    license: "GPL v2",
}
