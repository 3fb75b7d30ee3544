// SPDX-License-Identifier: GPL-2.0

//! One place per GPU family: every fact the driver needs that differs between families, in one
//! constant [`Family`] per family (`family/<family>.rs`). The chip table (`chip.rs`) maps each
//! chip to its family once; nothing else in the driver asks which chip or architecture it runs
//! on to decide how to drive it.
//!
//! The families are nouveau's GSP-RM families (`nvkm/subdev/gsp/rm/{tu1xx,ga100,ga1xx,ad10x,
//! gh100,gb10x,gb20x}.c`), which upstream nova-core's HALs split the same way. [`Family`] has no
//! default: a new family's file that leaves a fact out does not compile, and the compiler's
//! list of missing fields is the list of what the family must say (`docs/architecture.md`,
//! "A new family").
//!
//! Part of the parsing core (see [`crate::untrusted`]): constants only, no kernel types, and
//! nothing of the driver's other modules, so that every module may use it. The facts' types are
//! defined here; the code behind each kind of fact stays with its subsystem (`falcon/hal.rs`,
//! `fb/layout.rs`, `firmware/booter.rs`, `fsp.rs`, `intr.rs`): a family only names which kind
//! it has.

#[path = "family/ad10x.rs"]
mod ad10x;
#[path = "family/ga100.rs"]
mod ga100;
#[path = "family/ga1xx.rs"]
mod ga1xx;
#[path = "family/gb10x.rs"]
mod gb10x;
#[path = "family/gb20x.rs"]
mod gb20x;
#[path = "family/gh100.rs"]
mod gh100;
#[path = "family/tu1xx.rs"]
mod tu1xx;

pub(crate) use ad10x::AD10X;
pub(crate) use ga100::GA100;
pub(crate) use ga1xx::GA1XX;
pub(crate) use gb10x::GB10X;
pub(crate) use gb20x::GB20X;
pub(crate) use gh100::GH100;
pub(crate) use tu1xx::TU1XX;

/// Every fact that differs between GPU families. No field has a default.
#[derive(Debug)]
pub(crate) struct Family {
    /// The family's name, for the log and debugfs.
    pub(crate) name: &'static str,
    /// The architecture its chips' ids belong to (what the identification line prints).
    pub(crate) arch: Architecture,
    /// `NV_PMC_BOOT_0` still names the chip, and must agree with `NV_PMC_BOOT_42` (Turing to
    /// Ada; from Hopper on it no longer does).
    pub(crate) boot0_names_chip: bool,
    /// Where the GPU mirrors its PCI configuration space in BAR0.
    pub(crate) pci_config_mirror: ConfigMirror,
    /// How many address bits the GPU's DMA engines drive.
    pub(crate) dma_address_bits: u32,
    /// How GSP-RM is started, with the facts of that start.
    pub(crate) boot: Boot,
    /// How the falcons are reset, scrubbed and started (`falcon/hal.rs`).
    pub(crate) falcon: FalconHal,
    /// The falcons have `INTR_RETRIGGER` (nouveau's `ga100_flcn_intr_retrigger`: GA100 on,
    /// which the falcon HAL's split does not follow).
    pub(crate) falcon_intr_retrigger: bool,
    /// How MSI is re-armed once an interrupt was taken (`intr.rs`).
    pub(crate) msi_rearm: MsiRearm,
    /// The interrupt tree's leaves GSP-RM places vectors in (32 vectors each): 8 up to Ada
    /// (`dev_vm.h`, `NV_VIRTUAL_FUNCTION_PRIV_CPU_INTR_LEAF__SIZE_1`), 12 from Hopper on, whose
    /// stall subtrees run to 5 (OpenRM `intrGetNumLeaves_GH100`; the tree has 16 leaves).
    pub(crate) intr_leaves: u32,
    /// The GPU MMU's page-table format.
    pub(crate) mmu: MmuFormat,
    /// The classes the driver's channels and copies are made of.
    pub(crate) classes: Classes,
}

impl Family {
    /// The FSP's facts, where the family boots through the FSP.
    pub(crate) const fn fsp(&'static self) -> Option<&'static FspHal> {
        match &self.boot {
            Boot::Fsp(hal) => Some(hal),
            Boot::Booter(_) => None,
        }
    }

    /// The booter's facts, where the family boots through FWSEC and the booter.
    pub(crate) const fn booter(&'static self) -> Option<&'static BooterFacts> {
        match &self.boot {
            Boot::Booter(facts) => Some(facts),
            Boot::Fsp(_) => None,
        }
    }
}

/// GPU architecture, numbered as in the identification registers.
#[derive(Debug, Copy, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Architecture {
    Turing = 0x16,
    Ampere = 0x17,
    Hopper = 0x18,
    Ada = 0x19,
    BlackwellGB10x = 0x1a,
    BlackwellGB20x = 0x1b,
}

impl Architecture {
    /// Name as printed in the identification line.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Architecture::Turing => "Turing",
            Architecture::Ampere => "Ampere",
            Architecture::Hopper => "Hopper",
            Architecture::Ada => "Ada",
            Architecture::BlackwellGB10x | Architecture::BlackwellGB20x => "Blackwell",
        }
    }
}

/// Where the PCI configuration space is mirrored in BAR0.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ConfigMirror {
    pub(crate) base: u32,
    pub(crate) size: u32,
}

/// How a family's GSP-RM is started.
#[derive(Debug)]
pub(crate) enum Boot {
    /// Turing to Ada: FWSEC-FRTS from the VBIOS carves WPR2, then the booter on SEC2 starts
    /// GSP-RM (`docs/boot-chain.md`).
    Booter(BooterFacts),
    /// Hopper on: the FSP is sent the chain of trust and starts GSP-FMC (`docs/fsp-chain.md`).
    Fsp(FspHal),
}

/// What differs between the families the booter starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BooterFacts {
    /// How the framebuffer is laid out and sized (`fb/layout.rs`).
    pub(crate) fb: FbFamily,
    /// Where the booter is loaded (`firmware/booter.rs`).
    pub(crate) booter: BooterLayout,
    /// GSP-RM runs LIBOS 3 (GA102 on), which sizes its heap differently (`gsp/hal.rs`,
    /// `wpr_numbers`).
    pub(crate) libos3: bool,
    /// FWSEC is loaded through the generic bootloader (Turing and GA100; from GA102 on the
    /// falcon's DMA loads it).
    pub(crate) gen_bootloader: bool,
}

/// How a chip family lays the framebuffer out and names its registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FbFamily {
    /// Turing: size from `LOCAL_MEMORY_RANGE`, flush page address up to bit 39.
    Tu102,
    /// GA100: as Turing, but its FRTS region is empty (no display, no FWSEC-FRTS) and the
    /// flush page address has a high half.
    Ga100,
    /// GA102 to Ada: size from the scratch register devinit fills.
    Ga102,
}

/// Where a chip family loads the booter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BooterLayout {
    /// Turing and GA100: OS code non-secure at its IMEM offset, application 0's code secure at
    /// its own, boot at the OS code; no signature fuse.
    Tu102,
    /// GA102 and later: application 0's code secure at IMEM 0, the boot ROM's parameters, boot
    /// at application 0's image offset; the fuse selects the signature.
    Ga102,
}

/// Which register holds the FSP's boot status (NV_THERM_I2CS_SCRATCH of the family).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BootStatusReg {
    /// 0x000200bc: Hopper, GB10x.
    Therm,
    /// 0x00ad00bc: GB20x.
    ThermGb202,
}

/// Where the sysmem flush page is registered: pairs of (low, high) registers; the low one,
/// written last, takes the address's bits 31:0 (bits 7:0 ignored), the high one bits 51:32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlushRegs {
    /// FBHUB: 0x100a34 / 0x100a38 (Hopper).
    Fbhub,
    /// HSHUB0's two pairs (GB10x).
    Hshub,
    /// FBHUB0: 0x8a1d58 / 0x8a1d5c (GB20x).
    Fbhub0,
}

/// What differs between the families that boot through the FSP (`docs/fsp-chain.md`): where
/// the FSP says it is ready, the chain-of-trust payload's version, the FMC's key and signature
/// sizes, the framebuffer sizes GSP-FMC is given, and where the sysmem flush page is registered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FspHal {
    pub(crate) boot_status: BootStatusReg,
    /// The chain-of-trust payload's layout version.
    pub(crate) cot_version: u16,
    /// Exact sizes of the FMC's public key and signature.
    pub(crate) public_key_size: usize,
    pub(crate) signature_size: usize,
    /// Reserved at the end of video memory above FRTS (before the PMU's reservation).
    pub(crate) fb_end_reserved: u64,
    /// The non-WPR heap GSP-FMC places below WPR2.
    pub(crate) non_wpr_heap: u64,
    /// Video memory reserved for the PMU.
    pub(crate) pmu_reserved: u32,
    pub(crate) flush: FlushRegs,
}

const SZ_128K: u64 = 1 << 17;
const SZ_2M: u64 = 1 << 21;

/// The PMU's reservation on Blackwell: 8 MiB + 16 MiB + 4 KiB, in whole 128 KiB.
pub(crate) const PMU_RESERVED_BLACKWELL: u32 =
    (((8 << 20) + (16 << 20) + (4 << 10) + (128 << 10) - 1) / (128 << 10) * (128 << 10)) as u32;

/// Which of the falcon HALs drives a family's falcons (`falcon/hal.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FalconHal {
    /// Turing and GA100: a plain reset, scrubbing in `DMACTL`, no boot ROM registers.
    Tu102,
    /// GA102 on: reset readiness, scrubbing in `HWCFG2`, the core selection, the boot ROM.
    Ga102,
}

/// How MSI is re-armed after an interrupt.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MsiRearm {
    /// Turing to Ada: a write of `NV_XVE_CYA_2` through the configuration mirror (OpenRM
    /// `kbifRearmMSI_GM107`).
    ConfigMirror,
    /// Hopper on: the top enable's clear and set (nouveau `gh100_intr`'s re-arm).
    TopEnable,
}

/// The GPU MMU's page-table format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MmuFormat {
    /// Turing to Ada: five levels, 64 KiB big pages (nouveau `vmmgp100.c`, `vmmtu102.c`).
    Version2,
    /// Hopper and Blackwell: six levels (nouveau `vmmgh100.c`).
    Version3,
}

impl MmuFormat {
    /// The format's number, as OpenRM names its formats (`gmmu_fmt`).
    pub(crate) const fn number(self) -> u32 {
        match self {
            MmuFormat::Version2 => 2,
            MmuFormat::Version3 => 3,
        }
    }
}

/// The object classes of a family's channels and copy engines (nouveau's `nvkm_rm_gpu`:
/// `fifo.chan.class`, `ce.class`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Classes {
    /// The GPFIFO channel class (`*_CHANNEL_GPFIFO_*`).
    pub(crate) channel: u32,
    /// The copy engine's class (`*_DMA_COPY_*`).
    pub(crate) copy: u32,
}

/// Every family, for the tests.
#[cfg_attr(
    all(CONFIG_RUST, not(CONFIG_KUNIT)),
    expect(dead_code, reason = "the tests and the fuzzers walk every family")
)]
pub(crate) const ALL: [&Family; 7] = [&TU1XX, &GA100, &GA1XX, &AD10X, &GH100, &GB10X, &GB20X];
