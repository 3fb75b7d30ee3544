// SPDX-License-Identifier: GPL-2.0

//! nova_core: core driver for NVIDIA GPUs built around the GPU System Processor (GSP).
//!
//! One probe, top to bottom: the PCI binding ([`driver`]) builds the GPU ([`gpu::Gpu`]), which
//! maps BAR0; the identification registers ([`regs`]) are read as [`untrusted::Untrusted`]
//! values and validated into a trusted [`chip::Spec`]; the versioned GSP firmware for that chip
//! is requested and validated ([`firmware`]), the GSP interface implementation for that
//! firmware version is picked ([`gsp`]), and the family's way to GSP-RM starts it
//! ([`gsp::hal`]).

mod aux;
mod bar0;
mod booter;
mod chip;
mod debugfs;
mod devinit;
mod driver;
mod falcon;
mod family;
mod fb;
mod field;
mod firmware;
mod fsp;
mod fwsec;
mod gpu;
mod gsp;
mod intr;
mod pci;
mod prom;
mod regs;
mod untrusted;
mod vbios;

kernel::module_pci_driver! {
    type: driver::NovaCore,
    name: "nova_core",
    authors: ["The nova_core developers"],
    description: "Core driver for NVIDIA GSP-based GPUs (Turing and later)",
    license: "GPL v2",
    params: {
        gsp_version: u32 {
            default: 0,
            description: "Force a GSP firmware version: its number without dots (570144 for 570.144, 53511301 for 535.113.01) or its major number where that names one version (570, 535); 0 picks the newest the chip supports",
        },
    },
}

kernel::module_firmware!(firmware::ModInfoBuilder);

/// The parsing core formats with `core::fmt::Display` (it also compiles for the host, see
/// `fuzz/`); the kernel's `fmt!` wants its own `Display`, which these types get by forwarding.
macro_rules! kernel_display {
    ($($t:ty),* $(,)?) => {
        $(
            impl kernel::fmt::Display for $t {
                fn fmt(&self, f: &mut kernel::fmt::Formatter<'_>) -> kernel::fmt::Result {
                    core::fmt::Display::fmt(self, f)
                }
            }
        )*
    };
}

kernel_display!(
    aux::Shown,
    chip::Chipset,
    chip::Gone,
    chip::IdError,
    chip::IdRegs,
    chip::Revision,
    chip::Spec,
    devinit::gfw::GfwNotDone,
    falcon::state::NotYet,
    fb::layout::FbError,
    fb::layout::FbLayout,
    fb::sizes::FmcSizes,
    fsp::protocol::CotError,
    fsp::protocol::QueueError,
    fsp::protocol::ReplyError,
    firmware::FwVersion,
    firmware::FwError,
    firmware::error::BooterError,
    firmware::Validated<'_>,
    fwsec::image::FwsecError,
    fwsec::outcome::FrtsError,
    fwsec::outcome::SbError,
    falcon::state::Failed,
    gsp::sequencer::poll::PollMismatch,
    gsp::msgq::MsgError,
    gsp::replies::FbInfo,
    gsp::replies::InternalHandles,
    gsp::replies::StaticInfoError,
    gsp::rm::calls::Object,
    gsp::rm::controls::ControlError,
    gsp::rm::controls::GrInfo,
    gsp::rm::fifo::FifoEngine,
    gsp::rm::memsys::Memsys,
    gsp::rm::info::RmInfo,
    gsp::rm::calls::ReplyError,
    gsp::rm::objects::RmDevice,
    gsp::rm::status::NvStatus,
    gsp::sequencer::commands::SeqError,
    gsp::versions::VersionParamError,
    pci::BarError,
    pci::FactsError,
    vbios::Vbios<'_>,
    vbios::VbiosError,
);

#[cfg(CONFIG_NOVA_CORE_BENCH)]
kernel_display!(gsp::bench::request::BadRequest);
