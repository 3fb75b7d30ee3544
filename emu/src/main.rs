// SPDX-License-Identifier: GPL-2.0

//! nova-emu: an emulated NVIDIA GSP GPU served to QEMU over vfio-user, for
//! testing the nova_core driver without hardware.
//!
//! This file wires the parts together: it parses the command line (clap,
//! `src/args.rs`), opens the log (env_logger, `src/logger.rs`), listens on
//! the socket (announcing it on stderr), serves one QEMU connection, and
//! writes the access counts when the connection ends or when SIGTERM/SIGINT
//! arrives.
//!
//! Exit status: 0 after a connection that ended normally (or a signal), 1 on
//! a run-time error, 2 on a command-line error.

mod access;
mod args;
mod backend;
mod bar0;
mod boot_chain;
mod chipset;
mod config;
mod counts;
mod device;
mod falcon;
mod fb;
mod fsp;
mod gfw;
mod gsp;
mod guest_mem;
mod intr;
mod lie;
mod logger;
mod mmu;
mod pramin;
mod prom;
mod ptimer;
mod trace;
mod vbios;
mod vram;

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use crate::args::{Command, Options};
use crate::backend::Backend;
use crate::device::Device;
use crate::logger::{lock, Logger};

fn main() -> ExitCode {
    let command = match args::parse(std::env::args_os().skip(1)) {
        Ok(command) => command,
        // `--help` (on stdout, status 0) or a command-line error (on stderr, status 2).
        Err(e) => e.exit(),
    };
    match command {
        Command::ListChipsets => {
            let _ = io::stdout().write_all(chipset::listing().as_bytes());
            ExitCode::SUCCESS
        }
        Command::WriteVbios(chip, path) => {
            match fs::write(&path, vbios::Vbios::build(chip).flash()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    say(&format!(
                        "--write-vbios: cannot write '{}': {e}",
                        path.display()
                    ));
                    ExitCode::from(1)
                }
            }
        }
        Command::ListGspFaults => {
            let _ = io::stdout().write_all(gsp::fault::list().as_bytes());
            ExitCode::SUCCESS
        }
        Command::Serve(options) => match serve(*options) {
            Ok(()) => ExitCode::SUCCESS,
            Err(msg) => {
                say(&msg);
                ExitCode::from(1)
            }
        },
    }
}

/// Prints "nova-emu: MSG" on stderr. Unlike eprintln!, never panics when
/// stderr is closed.
fn say(msg: &str) {
    let _ = writeln!(io::stderr(), "nova-emu: {msg}");
}

/// Removes a stale socket left by an earlier run; refuses to remove anything
/// that is not a socket.
fn remove_stale_socket(path: &Path) -> Result<(), String> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_socket() => fs::remove_file(path)
            .map_err(|e| format!("cannot remove stale socket '{}': {e}", path.display())),
        Ok(_) => Err(format!(
            "'{}' exists and is not a socket; refusing to replace it",
            path.display()
        )),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(format!("cannot examine '{}': {e}", path.display())),
    }
}

/// Writes the counts file, if one was asked for.
fn write_counts(device: &Device, path: Option<&Path>, log: &Logger) -> Result<(), String> {
    let Some(path) = path else {
        return Ok(());
    };
    let text = device
        .counts_json()
        .map_err(|e| format!("cannot format the access counts: {e}"))?;
    counts::write_atomically(path, &text)
        .map_err(|e| format!("cannot write the counts file '{}': {e}", path.display()))?;
    log.line(&format!("access counts written to {}", path.display()));
    Ok(())
}

/// The signals that end the emulator with the counts written.
fn termination_signals() -> libc::sigset_t {
    // SAFETY: sigemptyset/sigaddset only write the set they are given, which
    // is a valid local; a zeroed sigset_t is a valid starting value.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTERM);
        libc::sigaddset(&mut set, libc::SIGINT);
        set
    }
}

/// Blocks SIGTERM and SIGINT in the calling thread (and so in every thread it
/// starts afterwards), so that only the signal thread's sigwait() sees them.
fn block_termination_signals() -> Result<(), String> {
    let set = termination_signals();
    // SAFETY: `set` is a valid signal set; a null old set is allowed.
    let rc = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
    if rc != 0 {
        return Err(format!(
            "cannot block SIGTERM/SIGINT: {}",
            io::Error::from_raw_os_error(rc)
        ));
    }
    Ok(())
}

/// Starts the thread that waits for SIGTERM/SIGINT, then writes the counts,
/// removes the socket and exits with status 0.
fn spawn_signal_thread(
    device: Arc<Mutex<Device>>,
    counts: Option<PathBuf>,
    socket: PathBuf,
    log: Logger,
) -> Result<(), String> {
    let set = termination_signals();
    std::thread::Builder::new()
        .name("signals".to_string())
        .spawn(move || loop {
            let mut signal: libc::c_int = 0;
            // SAFETY: `set` and `signal` are valid for the call.
            let rc = unsafe { libc::sigwait(&set, &mut signal) };
            if rc != 0 {
                continue;
            }
            let name = if signal == libc::SIGINT {
                "SIGINT"
            } else {
                "SIGTERM"
            };
            // Hold the device until exit so no access slips in after the
            // counts are taken.
            let dev = lock(&device);
            log.line(&format!("{name} received; exiting"));
            let status = match write_counts(&dev, counts.as_deref(), &log) {
                Ok(()) => 0,
                Err(msg) => {
                    say(&msg);
                    1
                }
            };
            let _ = fs::remove_file(&socket);
            std::process::exit(status);
        })
        .map(|_| ())
        .map_err(|e| format!("cannot start the signal thread: {e}"))
}

fn serve(options: Options) -> Result<(), String> {
    logger::init(options.log.as_deref())?;
    let log = Logger::default();
    block_termination_signals()?;

    let mut device = Device::new(options.device.clone(), log.clone());
    if let Some(path) = &options.trace {
        let trace = trace::Trace::create(path)
            .map_err(|e| format!("cannot open the trace file '{}': {e}", path.display()))?;
        device.set_trace(trace);
    }
    let identity = device.identity();
    remove_stale_socket(&options.socket)?;
    let server = backend::server(&options.socket, &device)
        .map_err(|e| format!("cannot listen on '{}': {e}", options.socket.display()))?;
    let device = Arc::new(Mutex::new(device));
    spawn_signal_thread(
        device.clone(),
        options.counts.clone(),
        options.socket.clone(),
        log.clone(),
    )?;

    let chip = options.device.chipset;
    log.line(&format!(
        "{} ({}, {}, device {:04x}) rev {}: NV_PMC_BOOT_0 {:#010x}, NV_PMC_BOOT_42 {:#010x}, \
         BAR0 {:#x} bytes, BAR1 {:#x} bytes",
        chip.name,
        chip.product,
        chip.architecture_name(),
        chip.device_id,
        options.device.revision,
        identity.boot0,
        identity.boot42,
        options.device.bar0_size,
        options.device.bar1_size,
    ));
    log.line(&match &options.device.gsp {
        Some(g) => format!(
            "emulated GSP: subsystem 1af4:4e56, firmware version {}, framebuffer {:#x} bytes, \
             firmware root {}",
            match (g.forced_version, fsp::family::Family::of(chip)) {
                (Some(v), _) => format!("forced to {v}"),
                // Hopper and Blackwell boot GSP-RM through the FSP and GSP-FMC, not a booter.
                (None, Some(_)) => format!(
                    "{} (the FSP chain's)",
                    fsp::package::FspPackage::VERSION.name()
                ),
                (None, None) => "the booter's".to_string(),
            },
            g.fb_size,
            g.firmware_root.display()
        ),
        None => "no GSP (--no-gsp): subsystem 10de:0001, no GSP registers".to_string(),
    });
    log.line(&format!(
        "listening on {}; waiting for the connection",
        options.socket.display()
    ));
    say(&format!("listening on {}", options.socket.display()));

    let gsp_thread = gsp::clock::spawn(device.clone())
        .map_err(|e| format!("cannot start the GSP thread: {e}"))?;
    let mut backend = Backend::new(device.clone());
    let served = server.run(&mut backend);
    lock(&device).kick().close();
    if gsp_thread.join().is_err() {
        log.line("the GSP thread panicked");
    }
    match &served {
        Ok(()) => log.line("connection closed by the client"),
        Err(e) => log.line(&format!("connection ended with an error: {e}")),
    }
    let written = write_counts(&lock(&device), options.counts.as_deref(), &log);
    drop(server);
    written?;
    served.map_err(|e| format!("serving '{}' failed: {e}", options.socket.display()))
}
