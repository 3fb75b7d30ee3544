// SPDX-License-Identifier: GPL-2.0

//! The booter on SEC2 (Turing to Ada): `booter_load` starts GSP-RM from the WPR meta, whose
//! address it gets in SEC2's mailboxes; `booter_unload` clears WPR2 once GSP-RM stopped. Both
//! are heavy-secure ucode from the firmware package ([`crate::firmware::booter`] validates
//! them for the chip), signed for the fuses: the signature [`BooterImage::signature_index`]
//! chooses is written at its place in the image before the load.
//!
//! - Turing and GA100: the OS code (non-secure) and application 0's code (secure) into IMEM,
//!   the OS data into DMEM, by PIO; boot at the OS code.
//! - GA102 to Ada: application 0's code (secure) and the OS data by the falcon's DMA engine
//!   from a copy of the signed image in DMA memory; the boot ROM's parameters; boot at
//!   application 0.
//!
//! Then the mailboxes, the start, one deadline for the halt, and mailbox 0 must be 0. A booter
//! that does not halt is stopped (SEC2 reset) before its DMA copy goes; a SEC2 that cannot be
//! reset keeps it, leaked rather than freed under it.

use kernel::{
    device::{
        Bound,
        Device, //
    },
    dma::{
        Coherent,
        CoherentBox, //
    },
    prelude::*,
    time::{
        Delta,
        Instant,
        Monotonic, //
    },
};

use crate::{
    bar0::SharedBar0,
    chip::Chipset,
    falcon::{
        self,
        sec2::Sec2,
        state::FuseVersion,
        Falcon,
        Mem, //
    },
    firmware::{
        booter::BooterImage,
        FwError, //
    },
    fwsec::{
        image::{
            FuseEngine,
            FuseRegister, //
        },
        read_fuse,
    },
    untrusted::Untrusted,
};

/// How long the booter may run on SEC2 before it halts (it copies GSP-RM into WPR2: milliseconds):
/// nouveau's bound (`nvkm/falcon/gm200.c`, `gm200_flcn_fw_boot`, 2 s), and nova-core's
/// (`nova-core/falcon.rs`, `wait_till_halted`, 2 s).
const HALT_TIMEOUT: Delta = Delta::from_secs(2);

/// The mailbox value `booter_unload` must overwrite (upstream's sentinel).
const UNLOAD_SENTINEL: u32 = 0xff;

/// A booter that ran: its DMA copy (GA102 on), which SEC2 read, kept as long as the caller
/// needs SEC2 undisturbed.
pub(crate) struct Loaded {
    _image: Option<Coherent<[u8]>>,
}

/// Validates `file` for `chipset`, signs it and loads it into SEC2 (reset first); returns the
/// boot address and the DMA copy (GA102 on).
fn load(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    sec2: &Falcon<'_, Sec2>,
    chipset: Chipset,
    boot0: u32,
    file: &Untrusted<KVVec<u8>>,
    name: &str,
) -> Result<(u32, Option<Coherent<[u8]>>)> {
    let bytes: &Untrusted<[u8]> = file;
    let booter = bytes
        .validate_ref_against::<BooterImage<'_>, _>(chipset)
        .map_err(|e| {
            dev_err!(dev, "{}: invalid: {}\n", name, e);
            EINVAL
        })?;
    let fuse = match booter.brom() {
        Some(_) => {
            let reg = FuseRegister {
                engine: FuseEngine::Sec2,
                index: usize::from(booter.ucode_id) - 1,
            };
            let Ok(FuseVersion(v)) = bar
                .with(|bar| read_fuse(bar, reg))??
                .validate_ref::<FuseVersion>();
            Some(v)
        }
        None => None,
    };
    let index = booter.signature_index(fuse).map_err(|e| {
        dev_err!(dev, "{}: {}\n", name, FwError::Booter(e));
        EINVAL
    })?;
    let signature = booter.signature(index).ok_or(EINVAL)?;
    let mut image = KVVec::new();
    image.extend_from_slice(booter.image, GFP_KERNEL)?;
    let at = usize::try_from(booter.patch_loc)?;
    image
        .get_mut(at..at.checked_add(signature.len()).ok_or(EINVAL)?)
        .ok_or(EINVAL)?
        .copy_from_slice(signature);
    dev_dbg!(
        dev,
        "{}: {:#x} bytes, signature {} of {}\n",
        name,
        booter.image.len(),
        index,
        booter.signature_count()
    );

    sec2.reset(boot0)?;
    sec2.dma_to_sysmem(falcon::LOAD_DMA_INDEX)?;
    let dmem = booter.dmem();
    let part = |s: &crate::falcon::load::Segment| -> Result<&[u8]> {
        let start = usize::try_from(s.src)?;
        let end = start.checked_add(usize::try_from(s.len)?).ok_or(EINVAL)?;
        image.get(start..end).ok_or(EINVAL)
    };
    match booter.brom() {
        None => {
            // PIO: whole words, the blocks of each part tagged with their IMEM offset.
            if let Some(ns) = booter.imem_ns() {
                let dst = u16::try_from(ns.dst)?;
                sec2.pio_imem(part(&ns)?, dst, false, dst >> 8)?;
            }
            let sec = booter.imem_sec();
            let dst = u16::try_from(sec.dst)?;
            sec2.pio_imem(part(&sec)?, dst, true, dst >> 8)?;
            sec2.pio_dmem(part(&dmem)?, u16::try_from(dmem.dst)?)?;
            Ok((booter.boot_addr(), None))
        }
        Some(brom) => {
            let mut buf = CoherentBox::<[u8]>::zeroed_slice(
                dev,
                image.len().next_multiple_of(crate::falcon::load::BLOCK),
                GFP_KERNEL,
            )?;
            buf.get_mut(..image.len())
                .ok_or(EINVAL)?
                .copy_from_slice(&image);
            let buf: Coherent<[u8]> = buf.into();
            let deadline = Instant::<Monotonic>::now() + falcon::DMA_TIMEOUT;
            let loaded = sec2
                .dma_load(&buf, booter.imem_sec(), Mem::ImemSecure, deadline)
                .and_then(|()| sec2.dma_load(&buf, dmem, Mem::Dmem, deadline))
                .and_then(|()| sec2.program_brom(&brom));
            if let Err(e) = loaded {
                stop_or_leak(dev, sec2, boot0, buf, name);
                return Err(e);
            }
            Ok((booter.boot_addr(), Some(buf)))
        }
    }
}

/// Resets SEC2 so that it no longer reads `buf`, which then goes; if SEC2 cannot be reset,
/// `buf` is leaked.
fn stop_or_leak(
    dev: &Device<Bound>,
    sec2: &Falcon<'_, Sec2>,
    boot0: u32,
    buf: Coherent<[u8]>,
    name: &str,
) {
    if sec2.reset(boot0).is_err() {
        dev_err!(
            dev,
            "SEC2 cannot be reset: {}'s image stays allocated\n",
            name
        );
        core::mem::forget(buf);
    }
}

/// Starts SEC2 at `bootvec` with `mailboxes` and waits for its halt; mailbox 0 must then be 0.
fn start_and_check(
    dev: &Device<Bound>,
    sec2: &Falcon<'_, Sec2>,
    bootvec: u32,
    mailboxes: (u32, u32),
    name: &str,
) -> Result {
    sec2.write_mailboxes(mailboxes.0, mailboxes.1)?;
    sec2.start(bootvec, mailboxes.0)?;
    sec2.wait_halted(name, HALT_TIMEOUT)?;
    sec2.mailbox0()?
        .validate_ref::<falcon::state::Succeeded>()
        .map_err(|e| {
            dev_err!(dev, "{} failed: {}\n", name, e);
            EIO
        })?;
    Ok(())
}

/// Why `booter_load` did not start GSP-RM, and whether SEC2 is known stopped.
pub(crate) enum LoadFailure {
    /// SEC2 was reset: it no longer reads the WPR meta or what it names.
    Stopped(Error),
    /// SEC2 could not be reset: it may still read the WPR meta and what it names, which must
    /// then be kept for good, never freed.
    StillRunning(Error),
}

impl From<Error> for LoadFailure {
    /// A failure before `booter_load` touched SEC2 (SEC2 runs nothing of ours).
    fn from(e: Error) -> LoadFailure {
        LoadFailure::Stopped(e)
    }
}

/// Runs `booter_load` with the WPR meta's address in SEC2's mailboxes. GSP-RM starts on the
/// GSP's RISC-V core if it succeeded. The returned copy must outlive GSP-RM's boot. On a
/// failure SEC2 is reset (it no longer reads the WPR meta or what it names), or the failure
/// says it could not be ([`LoadFailure::StillRunning`]).
pub(crate) fn run_load(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    chipset: Chipset,
    boot0: u32,
    file: &Untrusted<KVVec<u8>>,
    wpr_meta: (u32, u32),
) -> core::result::Result<Loaded, LoadFailure> {
    let name = "booter_load";
    let sec2 = Falcon::<Sec2>::new(bar, chipset);
    let ran = load(dev, bar, &sec2, chipset, boot0, file, name).and_then(|(bootvec, buf)| {
        match start_and_check(dev, &sec2, bootvec, wpr_meta, name) {
            Ok(()) => Ok(Loaded { _image: buf }),
            Err(e) => {
                if let Some(buf) = buf {
                    stop_or_leak(dev, &sec2, boot0, buf, name);
                }
                Err(e)
            }
        }
    });
    ran.map_err(|e| {
        // Whatever failed, SEC2 is stopped before the WPR meta and the image may go.
        if sec2.reset(boot0).is_err() {
            dev_err!(dev, "SEC2 cannot be reset after {} failed\n", name);
            return LoadFailure::StillRunning(e);
        }
        LoadFailure::Stopped(e)
    })
}

/// Runs `booter_unload` (GSP-RM stopped): it clears WPR2. SEC2 is reset afterwards, whatever
/// the outcome.
pub(crate) fn run_unload(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    chipset: Chipset,
    boot0: u32,
    file: &Untrusted<KVVec<u8>>,
) -> Result {
    let name = "booter_unload";
    let sec2 = Falcon::<Sec2>::new(bar, chipset);
    let (bootvec, buf) = load(dev, bar, &sec2, chipset, boot0, file, name)?;
    let ran = start_and_check(
        dev,
        &sec2,
        bootvec,
        (UNLOAD_SENTINEL, UNLOAD_SENTINEL),
        name,
    );
    match buf {
        Some(buf) => stop_or_leak(dev, &sec2, boot0, buf, name),
        None => {
            let _ = sec2.reset(boot0);
        }
    }
    ran
}
