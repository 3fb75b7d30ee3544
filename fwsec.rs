// SPDX-License-Identifier: GPL-2.0

//! FWSEC on the GSP falcon (Turing to Ada): the FWSEC ucode of the VBIOS, patched to run one
//! command ([`image`], parsing core), loaded by the family's way, started, and its outcome
//! checked ([`outcome`], parsing core). FWSEC-FRTS, at probe, makes WPR2 start at the FRTS
//! region of the framebuffer layout; FWSEC-SB, at teardown ([`prepare`]d at probe), puts the
//! GSP falcon back to its state before GSP-RM.
//!
//! - GA102 to Ada: the image in DMA memory, IMEM (secure) and DMEM copied by the falcon's DMA
//!   engine, the boot ROM given the signature's place, engine and ucode id; the signature is
//!   the one the GSP's fuses choose.
//! - Turing: the generic bootloader (`gsp/gen_bootloader-570.144.bin`, shipped once and used for
//!   every GSP version: it loads FWSEC, not GSP-RM; or, where a package has no 570.144 files,
//!   `acr/bl.bin`, the same code, which nouveau loads) written into IMEM by PIO under 64 KiB,
//!   its descriptor into DMEM, and it copies FWSEC from DMA memory through DMA index 4.
//! - GA100 has no FRTS region: nothing runs.
//!
//! The image's memory stays allocated until the falcon halted, or was reset after it did not;
//! a falcon that cannot be reset leaves it leaked rather than freed under it.

use kernel::{
    device::{
        Bound,
        Device, //
    },
    dma::{
        Coherent,
        CoherentBox, //
    },
    firmware::Firmware,
    io::{
        register::{
            Array,
            WithBase, //
        },
        Io, //
    },
    prelude::*,
    str::CString,
    time::{
        Delta,
        Instant,
        Monotonic, //
    },
};

use crate::{
    bar0::{
        Bar0,
        SharedBar0, //
    },
    chip::Chipset,
    falcon::{
        self,
        gsp::Gsp,
        Falcon,
        Mem, //
    },
    fb::layout::FbLayout,
    firmware::{
        needs_gen_bootloader,
        ACR_BOOTLOADER,
        GEN_BOOTLOADER,
        GEN_BOOTLOADER_VERSION, //
    },
    regs,
    untrusted::Untrusted,
    vbios::Vbios,
};

pub(crate) mod image;
pub(crate) mod outcome;

use crate::falcon::load::BLOCK;

use image::{
    BootloaderDesc,
    FuseEngine,
    FuseRegister,
    FwsecCommand,
    FwsecError,
    FwsecImage,
    GenBootloader,
    SignatureChoice, //
};
use outcome::{
    FrtsDone,
    FrtsRegs,
    SbDone,
    SbRegs, //
};

/// How long FWSEC may run on the GSP falcon before it halts (it takes milliseconds): nouveau's
/// bound (`nvkm/falcon/gm200.c`, `gm200_flcn_fw_boot`, 2 s), and nova-core's
/// (`nova-core/falcon.rs`, `wait_till_halted`).
const HALT_TIMEOUT: Delta = Delta::from_secs(2);

/// Reads the signature fuse register `reg`.
pub(crate) fn read_fuse(bar: &Bar0<'_>, reg: FuseRegister) -> Result<Untrusted<u32>> {
    let i = reg.index;
    let raw = match reg.engine {
        FuseEngine::Sec2 => bar
            .read(regs::NV_FUSE_OPT_FPF_SEC2_UCODE1_VERSION::try_at(i).ok_or(EINVAL)?)
            .into_raw(),
        FuseEngine::Nvdec => bar
            .read(regs::NV_FUSE_OPT_FPF_NVDEC_UCODE1_VERSION::try_at(i).ok_or(EINVAL)?)
            .into_raw(),
        FuseEngine::Gsp => bar
            .read(regs::NV_FUSE_OPT_FPF_GSP_UCODE1_VERSION::try_at(i).ok_or(EINVAL)?)
            .into_raw(),
    };
    Ok(Untrusted::new_untrusted(raw))
}

/// Reads what FWSEC-FRTS left: mailbox 0 of the GSP falcon, the scratch error register, WPR2.
fn read_outcome(bar: &SharedBar0) -> Result<Untrusted<FrtsRegs>> {
    bar.with(|bar| {
        Untrusted::new_untrusted(FrtsRegs {
            mailbox0: bar
                .read(falcon::regs::NV_PFALCON_FALCON_MAILBOX0::of::<Gsp>())
                .into_raw(),
            frts_error: bar.read(regs::NV_PBUS_SW_SCRATCH_0E).frts_err_code().into(),
            wpr2: crate::fb::read_wpr2(bar),
        })
    })
}

/// Reads what FWSEC-SB left: mailbox 0 of the GSP falcon and its error code's scratch register.
fn read_sb_outcome(bar: &SharedBar0) -> Result<Untrusted<SbRegs>> {
    bar.with(|bar| {
        Untrusted::new_untrusted(SbRegs {
            mailbox0: bar
                .read(falcon::regs::NV_PFALCON_FALCON_MAILBOX0::of::<Gsp>())
                .into_raw(),
            sb_error: bar.read(regs::NV_PBUS_SW_SCRATCH_15).sb_err_code().into(),
        })
    })
}

/// The generic bootloader, requested and validated: its code padded to whole blocks, its start
/// tag and its IMEM destination. It is `gsp/gen_bootloader-570.144.bin`, or `acr/bl.bin` where
/// that is missing; neither there ends in one line naming both.
fn gen_bootloader(dev: &Device<Bound>, chipset: Chipset) -> Result<(KVec<u8>, u16, u16)> {
    let gsp = CString::try_from_fmt(fmt!(
        "nvidia/{}/gsp/{}-{}.bin",
        chipset.name(),
        GEN_BOOTLOADER,
        GEN_BOOTLOADER_VERSION.name()
    ))?;
    let acr = CString::try_from_fmt(fmt!("nvidia/{}/{}", chipset.name(), ACR_BOOTLOADER))?;
    let (fw, name) = match Firmware::request_nowarn(&gsp, dev) {
        Ok(fw) => (fw, &gsp),
        Err(e) if e != ENOENT => {
            dev_err!(
                dev,
                "{}: cannot load (error {})\n",
                gsp.to_str().unwrap_or("?"),
                e.to_errno()
            );
            return Err(e);
        }
        Err(_) => match Firmware::request_nowarn(&acr, dev) {
            Ok(fw) => {
                dev_dbg!(
                    dev,
                    "generic bootloader: {} (no {})\n",
                    acr.to_str().unwrap_or("?"),
                    gsp.to_str().unwrap_or("?")
                );
                (fw, &acr)
            }
            Err(e) => {
                dev_err!(
                    dev,
                    "generic bootloader: neither {} nor {} can be loaded (error {})\n",
                    gsp.to_str().unwrap_or("?"),
                    acr.to_str().unwrap_or("?"),
                    e.to_errno()
                );
                return Err(e);
            }
        },
    };
    let bl = Untrusted::new_untrusted_ref(fw.data())
        .validate_ref::<GenBootloader<'_>>()
        .map_err(|e| {
            dev_err!(dev, "{}: invalid: {}\n", name.to_str().unwrap_or("?"), e);
            EINVAL
        })?;
    let mut code = KVec::new();
    code.extend_from_slice(bl.code, GFP_KERNEL)?;
    code.resize(bl.code.len().next_multiple_of(BLOCK), 0, GFP_KERNEL)?;
    Ok((code, bl.start_tag, bl.imem_dst))
}

/// Resets the falcon, loads FWSEC-FRTS from `buf` (or the generic bootloader `bl`, which
/// loads it), starts it and waits for its halt.
fn load_and_run(
    dev: &Device<Bound>,
    falcon: &Falcon<'_, Gsp>,
    image: &FwsecImage,
    buf: &Coherent<[u8]>,
    bl: Option<&(KVec<u8>, u16, u16)>,
    boot0: u32,
    name: &str,
) -> Result {
    falcon.reset(boot0)?;
    let bootvec = match bl {
        Some((code, start_tag, imem_dst)) => {
            let desc = BootloaderDesc::new(image, buf.dma_address()).map_err(|e| {
                dev_err!(dev, "{}\n", e);
                EINVAL
            })?;
            falcon.dma_to_sysmem(BootloaderDesc::CTX_DMA as usize)?;
            falcon.pio_imem(code, *imem_dst, false, *start_tag)?;
            falcon.pio_dmem(&desc.to_bytes(), 0)?;
            u32::from(*start_tag) << 8
        }
        None => {
            let deadline = Instant::<Monotonic>::now() + falcon::DMA_TIMEOUT;
            falcon.dma_to_sysmem(falcon::LOAD_DMA_INDEX)?;
            falcon.dma_load(buf, image.imem_sec, Mem::ImemSecure, deadline)?;
            falcon.dma_load(buf, image.dmem, Mem::Dmem, deadline)?;
            if let Some(brom) = &image.brom {
                falcon.program_brom(brom)?;
            }
            image.boot_addr
        }
    };
    falcon.start(bootvec, 0)?;
    falcon.wait_halted(name, HALT_TIMEOUT)
}

/// FWSEC made ready to run one command: its image in DMA memory and, on Turing, the generic
/// bootloader that loads it. Made at probe for teardown's FWSEC-SB, while the VBIOS and the
/// firmware files are at hand.
pub(crate) struct Prepared {
    image: FwsecImage,
    buf: Coherent<[u8]>,
    bl: Option<(KVec<u8>, u16, u16)>,
    /// The command's name, for the log.
    name: &'static str,
}

/// Makes FWSEC's image for `command` (the signature the fuses choose on GA102 and later) and
/// requests the generic bootloader where the family needs it.
pub(crate) fn prepare(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    chipset: Chipset,
    vbios: &Vbios<'_>,
    command: FwsecCommand,
) -> Result<Prepared> {
    let bad = |e: FwsecError| {
        dev_err!(dev, "{}\n", e);
        EINVAL
    };
    let fwsec = &vbios.fwsec;
    let bootloader = needs_gen_bootloader(chipset);
    let signature = match FwsecImage::fuse_register(fwsec).map_err(bad)? {
        Some(reg) => Some(
            bar.with(|bar| read_fuse(bar, reg))??
                .validate_ref_against::<SignatureChoice, _>(FwsecImage::signature_versions(fwsec))
                .map_err(bad)?,
        ),
        None => None,
    };
    let name = match command {
        FwsecCommand::Frts { .. } => "FWSEC-FRTS",
        FwsecCommand::Sb => "FWSEC-SB",
    };
    let image =
        FwsecImage::new(fwsec, if bootloader { 2 } else { 3 }, command, signature).map_err(bad)?;
    let mut buf =
        CoherentBox::<[u8]>::zeroed_slice(dev, image.len.next_multiple_of(BLOCK), GFP_KERNEL)?;
    image
        .write(fwsec, buf.get_mut(..image.len).ok_or(EINVAL)?)
        .map_err(bad)?;
    let bl = if bootloader {
        Some(gen_bootloader(dev, chipset)?)
    } else {
        None
    };
    if let Some(s) = image.signature {
        dev_dbg!(
            dev,
            "{}: signature {} (fuse version {})\n",
            name,
            s.index,
            s.fuse_version
        );
    }
    Ok(Prepared {
        image,
        buf: buf.into(),
        bl,
        name,
    })
}

/// Runs prepared FWSEC on the GSP falcon and returns what `outcome` reads once it halted; the
/// falcon is left reset, whatever the outcome. From the falcon's reset to its halt, every way
/// out leaves it stopped before the image it may be reading is freed; one that cannot be
/// stopped keeps the image.
fn run<T>(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    chipset: Chipset,
    boot0: u32,
    prepared: Prepared,
    outcome: impl FnOnce(&SharedBar0) -> Result<T>,
) -> Result<T> {
    let falcon = Falcon::<Gsp>::new(bar, chipset);
    let ran = load_and_run(
        dev,
        &falcon,
        &prepared.image,
        &prepared.buf,
        prepared.bl.as_ref(),
        boot0,
        prepared.name,
    );
    let outcome = ran.and_then(|()| outcome(bar));
    // Halted by its own word: reset before its image is freed all the same (a device that lies
    // about halting is stopped too), and for what follows.
    if falcon.reset(boot0).is_err() {
        dev_err!(
            dev,
            "GSP falcon cannot be reset: {}'s image stays allocated\n",
            prepared.name
        );
        core::mem::forget(prepared.buf);
        return Err(outcome.err().unwrap_or(EIO));
    }
    outcome
}

/// Runs FWSEC-FRTS and checks that WPR2 now starts at the layout's FRTS region; the GSP falcon
/// is left reset, whatever the outcome. `boot0` is `NV_PMC_BOOT_0` as identified (the
/// falcon's RM register gets it after each reset).
pub(crate) fn run_frts(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    chipset: Chipset,
    boot0: u32,
    vbios: &Vbios<'_>,
    layout: &FbLayout,
) -> Result {
    if layout.frts.is_empty() {
        dev_dbg!(dev, "FWSEC-FRTS not run: the FRTS region is empty\n");
        return Ok(());
    }
    let command = FwsecCommand::Frts {
        start: layout.frts.start,
        len: layout.frts.end - layout.frts.start,
    };
    let prepared = prepare(dev, bar, chipset, vbios, command)?;
    let done = run(dev, bar, chipset, boot0, prepared, read_outcome)?
        .validate_ref_against::<FrtsDone, _>(layout.frts.clone())
        .map_err(|e| {
            dev_err!(dev, "{}\n", e);
            EIO
        })?;
    dev_dbg!(
        dev,
        "FWSEC-FRTS: WPR2 {:#x}..{:#x}\n",
        done.wpr2.start,
        done.wpr2.end
    );
    Ok(())
}

/// Runs FWSEC-SB (prepared at probe): the GSP falcon back to its state before GSP-RM, for
/// `booter_unload`; its status must be 0. The falcon is left reset.
pub(crate) fn run_sb(
    dev: &Device<Bound>,
    bar: &SharedBar0,
    chipset: Chipset,
    boot0: u32,
    prepared: Prepared,
) -> Result {
    run(dev, bar, chipset, boot0, prepared, read_sb_outcome)?
        .validate_ref::<SbDone>()
        .map_err(|e| {
            dev_err!(dev, "{}\n", e);
            EIO
        })?;
    dev_dbg!(dev, "FWSEC-SB done\n");
    Ok(())
}

#[kunit_tests(nova_core_fwsec)]
mod tests {
    use super::*;
    use crate::fb::layout::Wpr2Regs;
    use image::SignatureVersions;

    #[test]
    fn the_fuse_chooses_the_signature_by_rank() {
        let sigs = SignatureVersions {
            versions: 0b1011,
            count: 3,
        };
        let choose = |fuse: u32| {
            Untrusted::new_untrusted(fuse).validate_ref_against::<SignatureChoice, _>(sigs)
        };
        assert_eq!(choose(0b100).map(|c| (c.fuse_version, c.index)), Ok((3, 2)));
        assert_eq!(choose(0).map(|c| c.index), Ok(0));
        assert!(choose(0b10).is_err());
    }

    #[test]
    fn frts_is_done_only_with_wpr2_at_the_region() {
        let frts = 0x5_ffe0_0000..0x5_fff0_0000;
        let outcome = |mailbox0, lo: u64, hi: u64| {
            Untrusted::new_untrusted(FrtsRegs {
                mailbox0,
                frts_error: 0,
                wpr2: Wpr2Regs {
                    lo: (lo >> 12) as u32,
                    // The start of the last 128 KiB granule.
                    hi: ((hi - 0x20000) >> 12) as u32,
                },
            })
            .validate_ref_against::<FrtsDone, _>(frts.clone())
        };
        assert!(outcome(0, frts.start, frts.end).is_ok());
        assert!(outcome(1, frts.start, frts.end).is_err());
        assert!(outcome(0, 0, 0x20000).is_err());
        assert!(outcome(0, frts.start - 0x1000, frts.end).is_err());
    }
}
