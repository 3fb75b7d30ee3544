// SPDX-License-Identifier: GPL-2.0

//! Command-line parsing: clap turns the arguments into [`Cli`], every value checked by the
//! parsers of [`values`] and every option that makes no sense with another refused; [`parse`]
//! then says what to do (serve, write the synthetic VBIOS, list the chipsets or the GSP's
//! lies). `--help` and the errors are clap's: help on stdout with exit status 0, an error on
//! stderr with exit status 2 ([`clap::Error::exit`]).

mod values;

use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::{
    error::ErrorKind,
    CommandFactory,
    Parser, //
};

use crate::boot_chain::BootLie;
use crate::chipset::{
    Chipset,
    Revision, //
};
use crate::device::DeviceConfig;
use crate::falcon::fwsec::FwsecLie;
use crate::fb::FbLie;
use crate::fsp::FspLie;
use crate::gfw::GfwLie;
use crate::gsp::{
    fault::Fault,
    wire::Version,
    GspConfig, //
};
use crate::prom::Dump;
use crate::vbios::fault::VbiosLie;

/// The synopsis of `--help` and of the errors: the ways to run the emulator.
const USAGE: &str = "\
nova-emu --socket PATH [OPTIONS]
       nova-emu [--chipset NAME] --write-vbios FILE
       nova-emu --list-chipsets
       nova-emu --list-gsp-faults
       nova-emu --help";

/// Serves an emulated NVIDIA GPU's PCI function to QEMU over vfio-user.
#[derive(Debug, Parser)]
#[command(name = "nova-emu", override_usage = USAGE)]
struct Cli {
    /// Unix socket to listen on (a stale socket is removed).
    #[arg(
        long,
        value_name = "PATH",
        required_unless_present_any = ["list_chipsets", "list_gsp_faults", "write_vbios"]
    )]
    socket: Option<PathBuf>,
    /// Chipset to emulate (see --list-chipsets).
    #[arg(long, value_name = "NAME", value_parser = values::chipset,
          default_value = crate::chipset::DEFAULT_CHIPSET)]
    chipset: &'static Chipset,
    /// Chip revision, one hex digit each (default a.1).
    #[arg(long, value_name = "MAJOR.MINOR")]
    revision: Option<Revision>,
    /// Raw NV_PMC_BOOT_0 value (0x hex or decimal), replacing the computed one.
    #[arg(long, value_name = "VALUE", value_parser = values::register)]
    boot0: Option<u32>,
    /// Raw NV_PMC_BOOT_42 value (0x hex or decimal), replacing the computed one.
    #[arg(long, value_name = "VALUE", value_parser = values::register)]
    boot42: Option<u32>,
    /// Write the access counts as JSON to FILE when the connection ends or on SIGTERM/SIGINT.
    #[arg(long, value_name = "FILE")]
    counts: Option<PathBuf>,
    /// Append the log to FILE instead of writing it to stderr.
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// Write every BAR access (offset, value, direction) to FILE, one line each.
    #[arg(long, value_name = "FILE")]
    trace: Option<PathBuf>,
    /// BAR0 size, a power of two from 4 KiB to 2 GiB, or 0 for no BAR0 (K, M and G suffixes
    /// allowed; default 16M).
    #[arg(long, value_name = "BYTES", value_parser = values::bar0_size)]
    bar0_size: Option<u64>,
    /// BAR1 size, a power of two from 4 KiB to 1 TiB, or 0 for no BAR1 (default 256M).
    #[arg(long, value_name = "BYTES", value_parser = values::bar1_size)]
    bar1_size: Option<u64>,
    /// PCI device id to announce instead of the chip's (an identity lie: the registers still
    /// say the chip).
    #[arg(long, value_name = "ID", value_parser = values::device_id)]
    device_id: Option<u16>,
    /// Make the emulated GSP speak 535.113.01 or 570.144 whatever booter ran (mismatch
    /// tests).
    #[arg(long, value_name = "VERSION")]
    gsp_version: Option<Version>,
    /// Video memory size, as the FB registers say it (whole MiB; Turing and GA100 round down to
    /// what their register holds) and the GSP reports (default 24G).
    #[arg(long, value_name = "BYTES", value_parser = values::fb_size)]
    fb_size: Option<u64>,
    /// Where nvidia/<chip>/gsp/gsp-<version>.bin are looked for (default /usr/lib/firmware).
    #[arg(long, value_name = "DIR")]
    firmware_root: Option<PathBuf>,
    /// Make the GSP lie in message N of the conversation (default 1; see --list-gsp-faults).
    #[arg(long, value_name = "LIE[@N]")]
    gsp_fault: Option<Fault>,
    /// Write every status queue message the GSP posts to DIR/status-<n>.bin (seeds for the
    /// fuzzers).
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
    /// Stand in for a real GPU: NVIDIA subsystem ids (10de:0001) and no GSP registers, so none
    /// of the GSP's options.
    #[arg(long, conflicts_with_all = [
        "gsp_version", "fb_size", "firmware_root", "gsp_fault", "record", "boot_fault",
        "fsp_fault", "gsp_quiet",
    ])]
    no_gsp: bool,
    /// Serve this flash dump (whole, IFR header included, 1 byte to 16 MiB) in the PROM window
    /// instead of the chip's synthetic VBIOS; the window shows its first MiB from the PCI
    /// expansion ROM on, as on silicon.
    #[arg(long, value_name = "FILE", value_parser = values::vbios)]
    vbios: Option<Arc<Dump>>,
    /// GFW boot (devinit, FWSEC) completes MS milliseconds after the start (default 0: before
    /// any probe).
    #[arg(long, value_name = "MS", value_parser = values::gfw_delay)]
    gfw_delay: Option<Duration>,
    /// GFW boot never completes: locked (the CPU may not read its progress) or stuck (progress
    /// stops at 0x42).
    #[arg(long, value_name = "LIE")]
    gfw_fault: Option<GfwLie>,
    /// The FB registers lie: no-memory, huge, vga-past-end or wpr2-preset.
    #[arg(long, value_name = "LIE")]
    fb_fault: Option<FbLie>,
    /// GA100: the VBIOS locked video memory from BYTES (a 4 KiB page) to its end with the MMU
    /// lock, as on an A100 that reserves its top for the row remapper.
    #[arg(long, value_name = "BYTES", value_parser = values::address)]
    fb_mmu_lock: Option<u64>,
    /// FWSEC-FRTS lies: error-mailbox, scratch-error, no-wpr2, no-halt, fuse-unsigned,
    /// dma-stuck or reset-never-ready.
    #[arg(long, value_name = "LIE")]
    fwsec_fault: Option<FwsecLie>,
    /// The boot chain after FWSEC-FRTS lies: booter-error, wpr-meta-rejected,
    /// riscv-never-active, seq-outside-bar0, seq-huge-count, seq-buffer-full, seq-no-buffer,
    /// seq-unknown-opcode or seq-endless-poll.
    #[arg(long, value_name = "LIE")]
    boot_fault: Option<BootLie>,
    /// The FSP chain of Hopper and Blackwell lies: never-ready, no-reply, reply-short,
    /// reply-huge, reply-reversed, reply-not-eom, reply-wrong-type, reply-wrong-command,
    /// reply-error, lockdown-stuck, mailbox-stuck, fmc-error or never-halts.
    #[arg(long, value_name = "LIE")]
    fsp_fault: Option<FspLie>,
    /// No MSI capability in config space: the function offers INTx only.
    #[arg(long)]
    no_msi: bool,
    /// GSP-RM posts no event of its own (none at its boot, no LIBOS print every 100 ms while
    /// up): a GPU with nothing to say, to count an idle driver's wakeups.
    #[arg(long)]
    gsp_quiet: bool,
    /// The synthetic VBIOS lies: rom-signature, image-length, bit-pointer, desc-version,
    /// no-fwsec or fwsec-signature (not with --vbios: only the synthetic VBIOS lies).
    #[arg(long, value_name = "LIE", conflicts_with = "vbios")]
    vbios_fault: Option<VbiosLie>,
    /// Write the chip's synthetic VBIOS (the flash the PROM window shows, IFR header included)
    /// to FILE and exit.
    #[arg(long, value_name = "FILE")]
    write_vbios: Option<PathBuf>,
    /// Print the chipset table and exit.
    #[arg(long)]
    list_chipsets: bool,
    /// Print the GSP's lies and exit.
    #[arg(long)]
    list_gsp_faults: bool,
}

/// Everything needed to serve a device.
#[derive(Debug, Clone)]
pub struct Options {
    pub socket: PathBuf,
    pub device: DeviceConfig,
    pub counts: Option<PathBuf>,
    pub log: Option<PathBuf>,
    /// `--trace FILE`: every BAR access.
    pub trace: Option<PathBuf>,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Command {
    /// Boxed: the options are far larger than the other variants.
    Serve(Box<Options>),
    /// Write the chip's synthetic VBIOS flash to the file and exit.
    WriteVbios(&'static Chipset, PathBuf),
    ListChipsets,
    ListGspFaults,
}

/// Parses the arguments (without the program name). `--help` comes back as an error of kind
/// [`ErrorKind::DisplayHelp`], which prints the help.
pub fn parse<I: IntoIterator<Item = OsString>>(args: I) -> Result<Command, clap::Error> {
    let cli = Cli::try_parse_from(std::iter::once(OsString::from("nova-emu")).chain(args))?;
    if cli.list_gsp_faults {
        return Ok(Command::ListGspFaults);
    }
    if cli.list_chipsets {
        return Ok(Command::ListChipsets);
    }
    if let Some(path) = cli.write_vbios {
        return Ok(Command::WriteVbios(cli.chipset, path));
    }
    let Some(socket) = cli.socket else {
        // clap has already refused a serving command line without `--socket`.
        return Err(Cli::command().error(
            ErrorKind::MissingRequiredArgument,
            "--socket PATH is required",
        ));
    };
    let fb_size = cli.fb_size.unwrap_or(crate::gsp::DEFAULT_FB_SIZE);
    if let Some(start) = cli.fb_mmu_lock {
        // The FB unit says whether it can be locked there (the device takes it as checked).
        let fb = crate::fb::Fb::new(cli.chipset, fb_size, None);
        let refused = fb.map_or(
            Err("--fb-mmu-lock: only GA100 has the MMU lock".into()),
            |mut fb| fb.set_mmu_lock(start),
        );
        if let Err(e) = refused {
            return Err(Cli::command().error(ErrorKind::ArgumentConflict, e));
        }
    }
    let gsp = (!cli.no_gsp).then(|| {
        let defaults = GspConfig::default();
        GspConfig {
            forced_version: cli.gsp_version,
            fb_size,
            firmware_root: cli.firmware_root.unwrap_or(defaults.firmware_root),
            fault: cli.gsp_fault,
            record: cli.record,
            boot_fault: cli.boot_fault,
            events: defaults.events && !cli.gsp_quiet,
        }
    });
    Ok(Command::Serve(Box::new(Options {
        socket,
        device: DeviceConfig {
            chipset: cli.chipset,
            revision: cli.revision.unwrap_or_default(),
            boot0: cli.boot0,
            boot42: cli.boot42,
            bar0_size: cli.bar0_size.unwrap_or(values::DEFAULT_BAR0_SIZE),
            device_id: cli.device_id,
            bar1_size: cli.bar1_size.unwrap_or(values::DEFAULT_BAR1_SIZE),
            gsp,
            vbios: cli.vbios,
            vbios_fault: cli.vbios_fault,
            gfw_delay: cli.gfw_delay.unwrap_or(Duration::ZERO),
            gfw_fault: cli.gfw_fault,
            fb_size,
            fb_fault: cli.fb_fault,
            fb_mmu_lock: cli.fb_mmu_lock,
            fwsec_fault: cli.fwsec_fault,
            fsp_fault: cli.fsp_fault,
            no_msi: cli.no_msi,
        },
        counts: cli.counts,
        log: cli.log,
        trace: cli.trace,
    })))
}

#[cfg(test)]
mod tests;
