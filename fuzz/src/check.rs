// SPDX-License-Identifier: GPL-2.0

//! One entry point per Validator. Each takes any bytes, validates them as the driver does, and
//! asserts that what was accepted keeps the Validator's promise (ranges inside the input, a
//! chip both registers name, ...). A panic, from an assertion, an out-of-range index or an
//! overflow, is a finding.
//!
//! The entry points are grouped by what they validate: the firmware files ([`firmware`]), the
//! GSP conversation ([`gsp`]), the VBIOS and FWSEC ([`vbios`]), the framebuffer ([`fb`]); each
//! is re-exported here, beside the chip's identity, the PCI function, the benchmark's request,
//! the falcon conditions and GSP-RM's status names.

use crate::{
    chip::{
        Chipset,
        IdFields,
        IdRegs,
        Identified,
        SameGpu, //
    },
    falcon::state::{
        Cond,
        CondReg,
        Holds,
        NotYet, //
    },
    fb::layout::HeapParams,
    firmware::FwVersion,
    gsp::{
        bench_request::{
            Iterations,
            MAX_ITERATIONS, //
        },
        msgq,
        replies,
        wpr, //
    },
    pci::{
        Bar0Len,
        PciFunction,
        ReportedBar,
        SubsystemIds,
        SystemFacts, //
        BAR0_SIZE,
    },
    untrusted::Untrusted, //
};

mod fb;
mod firmware;
mod gsp;
mod vbios;

pub use fb::*;
pub use firmware::*;
pub use gsp::*;
pub use vbios::*;

/// A little-endian `u32` at `at`, 0 where the input is shorter.
fn u32_at(data: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    for (i, byte) in b.iter_mut().enumerate() {
        *byte = data.get(at + i).copied().unwrap_or(0);
    }
    u32::from_le_bytes(b)
}

/// The identification registers with their fields, decoded here as the hardware lays them out
/// (the module decodes them with the kernel's `register!`, in `regs.rs`, which the host cannot
/// build).
fn id_regs(boot0: u32, boot42: u32) -> IdRegs {
    let field = |v: u32, hi: u32, lo: u32| ((v >> lo) & ((1 << (hi - lo + 1)) - 1)) as u8;
    IdRegs {
        boot0,
        boot42,
        fields: IdFields {
            boot0_architecture_0: field(boot0, 28, 24),
            boot0_architecture_1: field(boot0, 8, 8),
            boot0_implementation: field(boot0, 23, 20),
            boot42_architecture: field(boot42, 29, 24),
            boot42_implementation: field(boot42, 23, 20),
            boot42_major_revision: field(boot42, 19, 16),
            boot42_minor_revision: field(boot42, 15, 12),
        },
    }
}

/// `NV_PMC_BOOT_0` and `NV_PMC_BOOT_42` from the first eight bytes: the chip the driver would
/// bind, if any. An identified chip is one BOOT_42 names.
pub fn identify(data: &[u8]) -> Option<&'static str> {
    let regs = id_regs(u32_at(data, 0), u32_at(data, 4));
    let identified = Untrusted::new_untrusted(regs)
        .validate::<Identified>()
        .ok()?;
    assert_eq!(
        identified.regs, regs,
        "the validated registers are the ones read"
    );
    let spec = identified.spec;
    assert_eq!(
        Untrusted::new_untrusted(regs).validate_ref_against::<SameGpu, _>(spec),
        Ok(SameGpu),
        "the registers name the GPU they identified"
    );
    let id = (((regs.boot42 >> 24) & 0x3f) << 4) | ((regs.boot42 >> 20) & 0xf);
    assert_eq!(
        spec.chipset.id(),
        id,
        "{regs:x?} identified as {}",
        spec.chipset
    );
    Some(spec.chipset.name())
}

/// A static-info validator of one version.
type DecodeStaticInfo =
    fn(&Untrusted<[u8]>) -> Result<replies::StaticInfo, replies::StaticInfoError>;

/// Every version's numbering of functions and events, and its static-info validator, in the
/// order of the version list.
macro_rules! versions_under_test {
    ([$(($v:ident, $V:ident, $($rest:tt)*)),* $(,)?]) => {
        const NUMBERINGS: &[&msgq::Numbering] = &[$(&msgq::versioned::$v::NUMBERING),*];
        const STATIC_INFO: &[DecodeStaticInfo] = &[$(replies::versioned::$v::decode_static_info),*];

        /// Version `version`'s heap sizing, on LIBOS 3 (`libos3`) or 2, and its WPR meta's size
        /// (the driver takes both through its `Interface`).
        fn wpr_numbers(version: FwVersion, libos3: bool) -> (HeapParams, u64) {
            match version {
                $(FwVersion::$V => (
                    wpr::versioned::$v::heap_params(libos3),
                    wpr::versioned::$v::WPR_META_SIZE,
                )),*
            }
        }
    };
}

gsp_version_table!(versions_under_test {});

/// A little-endian `u64` at `at`, 0 where the input is shorter.
fn u64_at(data: &[u8], at: usize) -> u64 {
    u64::from(u32_at(data, at)) | (u64::from(u32_at(data, at + 4)) << 32)
}

/// What the PCI function reports (three BARs of start and length, then the ids): BAR0's length
/// check, the emulator test and the facts the GSP is told. Accepted facts name only BARs that
/// exist, an NVIDIA function, and the function's own values.
pub fn pci_function(data: &[u8]) -> bool {
    let bar = |i: usize| ReportedBar {
        start: u64_at(data, 16 * i),
        len: u64_at(data, 16 * i + 8),
    };
    let ids = u64_at(data, 48);
    let function = PciFunction {
        bar0: bar(0),
        bar1: bar(1),
        bar3: bar(2),
        bus_device_function: u64::from(u32_at(data, 56)),
        vendor_id: ids as u16,
        device_id: (ids >> 16) as u16,
        subsystem: SubsystemIds {
            vendor: (ids >> 32) as u16,
            device: (ids >> 48) as u16,
        },
        revision_id: data.get(60).copied().unwrap_or(0),
    };
    let bar0 = Untrusted::new_untrusted(function.bar0.len).validate::<Bar0Len>();
    assert_eq!(bar0.is_ok(), function.bar0.len >= BAR0_SIZE as u64);
    let chip = Chipset::ALL[usize::from(data.get(61).copied().unwrap_or(0)) % Chipset::ALL.len()];
    let mirror = chip.family().pci_config_mirror;
    let Ok(facts) =
        Untrusted::new_untrusted(function).validate_ref_against::<SystemFacts, _>(mirror)
    else {
        return false;
    };
    assert!(function.bar0.len > 0 && function.bar1.len > 0 && function.bar3.len > 0);
    assert!(facts.bar1 != 0 && facts.bar3 != 0 && facts.vendor_id == 0x10de);
    assert_eq!(
        (
            facts.bar0,
            facts.bar1,
            facts.bar3,
            facts.device_id,
            facts.revision_id
        ),
        (
            function.bar0.start,
            function.bar1.start,
            function.bar3.start,
            function.device_id,
            function.revision_id
        )
    );
    assert_eq!(
        (facts.pci_config_mirror_base, facts.pci_config_mirror_size),
        (mirror.base, mirror.size)
    );
    true
}

/// A request written to the debugfs file `bench`: accepted exactly when the text, blanks around
/// it trimmed, is a decimal count the standard library parses to a value in
/// `1..=MAX_ITERATIONS` (without a sign), and then to that value.
pub fn bench_request(data: &[u8]) -> Option<u32> {
    let accepted = Untrusted::new_untrusted_ref(data)
        .validate_ref::<Iterations>()
        .ok()
        .map(|Iterations(n)| n);
    let oracle = core::str::from_utf8(data.trim_ascii())
        .ok()
        .filter(|t| t.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|t| t.parse::<u128>().ok())
        .filter(|n| (1..=u128::from(MAX_ITERATIONS)).contains(n))
        .and_then(|n| u32::try_from(n).ok());
    assert_eq!(accepted, oracle, "request {:?}", data);
    accepted
}

/// The falcon conditions on a register word `raw` whose fields say `fields_hold` (the fields
/// are the driver's register declarations' to decode, in the kernel): each condition holds
/// exactly when the fields say so, unless the word is all ones (a device gone) or, for the
/// RISC-V core's halt, a read the PRIV target mask refused.
pub fn falcon_conditions(raw: u32, fields_hold: bool) -> Vec<Result<(), String>> {
    [
        Cond::Halted,
        Cond::AliasInUse,
        Cond::ScrubbedDmactl,
        Cond::ScrubbedHwcfg2,
        Cond::ResetReady,
        Cond::DmaIdle,
        Cond::FalconCore,
        Cond::RiscvHalted,
    ]
    .into_iter()
    .map(|c| {
        let r = Untrusted::new_untrusted(CondReg { raw, fields_hold })
            .validate_ref_against::<Holds, _>(c);
        let refused = c == Cond::RiscvHalted && raw & !0xff == 0xbadf_4100;
        assert_eq!(r.is_ok(), fields_hold && raw != u32::MAX && !refused);
        r.map(|_| ()).map_err(|e: NotYet| e.to_string())
    })
    .collect()
}

/// The interrupt tree's `TOP` and leaf words for vector `v`: `Ok(true)` pending, `Ok(false)`
/// another source's, `Err` a device gone (a word of all ones), or `None` for a vector past the
/// tree.
pub fn intr_pending(v: u32, top: u32, leaf: u32) -> Option<Result<bool, ()>> {
    intr_pending_in(v, 8, top, leaf)
}

/// [`intr_pending`] in a tree of `leaves` leaves.
pub fn intr_pending_in(v: u32, leaves: u32, top: u32, leaf: u32) -> Option<Result<bool, ()>> {
    use crate::intr::status::{
        NotPending,
        Pending,
        Place,
        TreeRegs, //
    };
    let place = Place::of(v, leaves)?;
    let r =
        Untrusted::new_untrusted(TreeRegs { top, leaf }).validate_ref_against::<Pending, _>(place);
    Some(match r {
        Ok(Pending) => Ok(true),
        Err(NotPending::Clear) => Ok(false),
        Err(NotPending::Gone) => Err(()),
    })
}

/// The GSP falcon's `IRQSTAT` and RISC-V `IRQMASK`: what it routes to the host, `SWGEN0` and
/// the other bits, or `None` for a device gone.
pub fn gsp_routed(stat: u32, mask: u32) -> Option<(bool, u32)> {
    use crate::intr::status::{
        FalconIrqRegs,
        Routed, //
    };
    let r = Untrusted::new_untrusted(FalconIrqRegs { stat, mask })
        .validate_ref::<Routed>()
        .ok()?;
    Some((r.swgen0, r.other))
}

/// A firmware's halt status in mailbox 0: success only for 0.
pub fn halt_status(mailbox0: u32) -> Result<(), String> {
    Untrusted::new_untrusted(mailbox0)
        .validate_ref::<crate::falcon::state::Succeeded>()
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// A `REG_POLL`'s register value against its mask and value.
pub fn poll_match(raw: u32, mask: u32, val: u32) -> Result<(), String> {
    Untrusted::new_untrusted(raw)
        .validate_ref_against::<crate::gsp::poll::PollMatch, _>((mask, val))
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// GSP-RM's status `code` as the driver's log lines name it.
pub fn nv_status(code: u32) -> String {
    crate::gsp::rm::status::NvStatus(code).to_string()
}

/// Every status code the driver names, by number.
pub fn nv_status_names() -> Vec<(u32, &'static str)> {
    crate::gsp::rm::status::NAMES.to_vec()
}
