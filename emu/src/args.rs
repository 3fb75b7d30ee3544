// SPDX-License-Identifier: GPL-2.0

//! Command-line parsing: turns the arguments into what to do (serve, list the
//! chipsets, print help) with every value checked, or into an error message
//! naming the offending argument.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::chipset::{self, Chipset, Revision};
use crate::device::DeviceConfig;
use crate::gsp::GspConfig;
use crate::prom::Dump;

pub const USAGE: &str = "\
usage: nova-emu --socket PATH [--chipset NAME] [--revision MAJOR.MINOR]
                [--boot0 VALUE] [--boot42 VALUE] [--counts FILE] [--log FILE]
                [--bar0-size BYTES] [--bar1-size BYTES]
                [--device-id ID] [--gsp-version VERSION] [--fb-size BYTES]
                [--firmware-root DIR] [--gsp-fault LIE[@N]] [--record DIR]
                [--no-gsp] [--vbios FILE | --vbios-fault LIE]
                [--gfw-delay MS] [--gfw-fault LIE] [--fb-fault LIE]
                [--fwsec-fault LIE] [--boot-fault LIE] [--trace FILE]
       nova-emu [--chipset NAME] --write-vbios FILE
       nova-emu --list-chipsets
       nova-emu --list-gsp-faults
       nova-emu --help

Serves an emulated NVIDIA GPU's PCI function to QEMU over vfio-user.

  --socket PATH          Unix socket to listen on (a stale socket is removed)
  --chipset NAME         chipset to emulate (default ga102; see --list-chipsets)
  --revision MAJOR.MINOR chip revision, one hex digit each (default a.1)
  --boot0 VALUE          raw NV_PMC_BOOT_0 value (0x hex or decimal)
  --boot42 VALUE         raw NV_PMC_BOOT_42 value (0x hex or decimal)
  --counts FILE          write access counts as JSON to FILE when the
                         connection ends or on SIGTERM/SIGINT
  --log FILE             write the log to FILE instead of stderr
  --trace FILE           write every BAR access (offset, value, direction) to
                         FILE, one line each (src/trace.rs)
  --bar0-size BYTES      BAR0 size, a power of two from 4 KiB to 2 GiB, or 0
                         for no BAR0 (default 16 MiB; K, M and G suffixes
                         allowed)
  --bar1-size BYTES      BAR1 size, a power of two from 4 KiB to 1 TiB, or 0
                         for no BAR1 (default 256 MiB)
  --device-id ID         PCI device id to announce instead of the chip's
                         (identity lies: the registers still say the chip)
  --gsp-version VERSION  make the emulated GSP speak 535.113.01 or 570.144
                         whatever firmware the driver loaded (mismatch tests)
  --fb-size BYTES        video memory size, as the FB registers say it (whole
                         MiB; Turing and GA100 round down to what their
                         register holds) and the GSP reports (default 24G)
  --firmware-root DIR    where nvidia/<chip>/gsp/gsp-<version>.bin are
                         looked for (default /usr/lib/firmware)
  --gsp-fault LIE[@N]    make the GSP lie in message N of the conversation
                         (default 3; see --list-gsp-faults and
                         src/gsp/fault.rs)
  --record DIR           write every status queue message the GSP posts to
                         DIR/status-<n>.bin (seeds for the fuzzers)
  --no-gsp               stand in for a real GPU: NVIDIA subsystem ids
                         (10de:0001) and no GSP registers
  --vbios FILE           serve this flash dump (whole, IFR header included,
                         1 byte to 1 MiB) in the PROM window instead of the
                         chip's synthetic VBIOS
  --gfw-delay MS          GFW boot (devinit, FWSEC) completes MS milliseconds
                         after the start (default 0: before any probe)
  --gfw-fault LIE        GFW boot never completes: locked (the CPU may not
                         read its progress) or stuck (progress stops at 0x42)
  --fb-fault LIE         the FB registers lie: no-memory, huge, vga-past-end
                         or wpr2-preset (src/fb.rs)
  --fwsec-fault LIE      FWSEC-FRTS lies: error-mailbox, scratch-error, no-wpr2,
                         no-halt or fuse-unsigned (src/falcon/fwsec.rs)
  --boot-fault LIE       the boot chain after FWSEC-FRTS lies: booter-error,
                         wpr-meta-rejected, riscv-never-active, seq-outside-bar0,
                         seq-huge-count, seq-unknown-opcode or seq-endless-poll
                         (src/boot_chain.rs)
  --vbios-fault LIE      the synthetic VBIOS lies: rom-signature, image-length,
                         bit-pointer, desc-version, no-fwsec or
                         fwsec-signature
  --write-vbios FILE     write the chip's synthetic VBIOS (the flash the PROM
                         window shows, IFR header included) to FILE and exit
  --list-chipsets        print the chipset table and exit
  --list-gsp-faults      print the GSP's lies and exit
  --help                 print this text and exit
";

/// Default BAR0 size: 16 MiB.
pub const DEFAULT_BAR0_SIZE: u64 = 16 << 20;

/// Default BAR1 size: 256 MiB.
pub const DEFAULT_BAR1_SIZE: u64 = 256 << 20;

/// Smallest BAR0/BAR1 size.
const MIN_BAR_SIZE: u64 = 4096;

/// Largest BAR0 size: BAR0 is a 32-bit BAR.
const MAX_BAR0_SIZE: u64 = 2 << 30;

/// Largest BAR1 size accepted.
const MAX_BAR1_SIZE: u64 = 1 << 40;

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
    Help,
}

/// A command-line error, with a message naming what was wrong.
#[derive(Debug, PartialEq, Eq)]
pub struct ArgError(pub String);

impl fmt::Display for ArgError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Options that take a value.
const VALUE_OPTIONS: &[&str] = &[
    "--socket",
    "--chipset",
    "--revision",
    "--boot0",
    "--boot42",
    "--counts",
    "--log",
    "--trace",
    "--bar0-size",
    "--bar1-size",
    "--gsp-version",
    "--fb-size",
    "--firmware-root",
    "--device-id",
    "--gsp-fault",
    "--record",
    "--vbios",
    "--vbios-fault",
    "--gfw-delay",
    "--gfw-fault",
    "--fb-fault",
    "--fwsec-fault",
    "--boot-fault",
    "--write-vbios",
];

/// Parses the arguments (without the program name).
pub fn parse<I: IntoIterator<Item = OsString>>(args: I) -> Result<Command, ArgError> {
    let mut values: HashMap<&'static str, String> = HashMap::new();
    let mut list = false;
    let mut list_faults = false;
    let mut help = false;
    let mut no_gsp = false;
    let mut args = args.into_iter();
    while let Some(raw) = args.next() {
        let arg = raw
            .into_string()
            .map_err(|raw| ArgError(format!("argument {raw:?} is not valid UTF-8")))?;
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        match name.as_str() {
            "--list-chipsets" | "--list-gsp-faults" | "--help" | "-h" | "--no-gsp"
                if inline.is_some() =>
            {
                return Err(ArgError(format!("option {name} takes no value")));
            }
            "--list-chipsets" => list = true,
            "--list-gsp-faults" => list_faults = true,
            "--help" | "-h" => help = true,
            "--no-gsp" if no_gsp => {
                return Err(ArgError("option --no-gsp given more than once".to_string()));
            }
            "--no-gsp" => no_gsp = true,
            _ => {
                let Some(&option) = VALUE_OPTIONS.iter().find(|&&o| o == name) else {
                    return Err(if name.starts_with('-') {
                        ArgError(format!("unknown option '{name}'"))
                    } else {
                        ArgError(format!("unexpected argument '{arg}'"))
                    });
                };
                let value = match inline {
                    Some(v) => v,
                    None => args
                        .next()
                        .ok_or_else(|| ArgError(format!("option {option} needs a value")))?
                        .into_string()
                        .map_err(|raw| {
                            ArgError(format!("value {raw:?} of {option} is not valid UTF-8"))
                        })?,
                };
                if values.insert(option, value).is_some() {
                    return Err(ArgError(format!("option {option} given more than once")));
                }
            }
        }
    }
    if help {
        return Ok(Command::Help);
    }
    if list_faults {
        return Ok(Command::ListGspFaults);
    }

    let chipset_name = values
        .get("--chipset")
        .map_or(chipset::DEFAULT_CHIPSET, String::as_str);
    let chipset = chipset::find(chipset_name).map_err(|e| ArgError(e.to_string()))?;
    if list {
        return Ok(Command::ListChipsets);
    }
    if let Some(path) = values.remove("--write-vbios") {
        if path.is_empty() {
            return Err(ArgError("--write-vbios needs a non-empty path".to_string()));
        }
        return Ok(Command::WriteVbios(chipset, PathBuf::from(path)));
    }
    let revision = match values.get("--revision") {
        Some(text) => text
            .parse::<Revision>()
            .map_err(|e| ArgError(format!("--revision: {e}")))?,
        None => Revision::default(),
    };
    let boot0 = values
        .get("--boot0")
        .map(|v| parse_u32("--boot0", v))
        .transpose()?;
    let boot42 = values
        .get("--boot42")
        .map(|v| parse_u32("--boot42", v))
        .transpose()?;
    let bar0_size = match values.get("--bar0-size") {
        Some(v) if parse_number(v, true) == Some(0) => 0,
        Some(v) => parse_bar_size("--bar0-size", v, MAX_BAR0_SIZE)?,
        None => DEFAULT_BAR0_SIZE,
    };
    let bar1_size = match values.get("--bar1-size") {
        Some(v) if parse_number(v, true) == Some(0) => 0,
        Some(v) => parse_bar_size("--bar1-size", v, MAX_BAR1_SIZE)?,
        None => DEFAULT_BAR1_SIZE,
    };
    let socket = values
        .remove("--socket")
        .ok_or_else(|| ArgError("--socket PATH is required".to_string()))?;
    if socket.is_empty() {
        return Err(ArgError("--socket needs a non-empty path".to_string()));
    }
    let path_of = |values: &mut HashMap<&'static str, String>, option| -> Result<_, ArgError> {
        match values.remove(option) {
            Some(p) if p.is_empty() => Err(ArgError(format!("{option} needs a non-empty path"))),
            Some(p) => Ok(Some(PathBuf::from(p))),
            None => Ok(None),
        }
    };
    let device_id = values
        .get("--device-id")
        .map(|v| {
            parse_number(v, false)
                .and_then(|n| u16::try_from(n).ok())
                .ok_or_else(|| ArgError(format!("--device-id: '{v}' is not a 16-bit number")))
        })
        .transpose()?;
    let gsp_fault = parsed(&values, "--gsp-fault")?;
    let gsp_version = parsed(&values, "--gsp-version")?;
    let boot_fault = parsed(&values, "--boot-fault")?;
    let fb_size = match values.get("--fb-size") {
        Some(v) => parse_number(v, true)
            .filter(|n| crate::fb::FB_SIZE_RANGE.contains(n))
            .ok_or_else(|| {
                ArgError(format!(
                    "--fb-size: '{v}' is not a size from 256M to 1024G (decimal or 0x hex, \
                     optional K/M/G)"
                ))
            })?,
        None => crate::gsp::DEFAULT_FB_SIZE,
    };
    let firmware_root = path_of(&mut values, "--firmware-root")?;
    let record = path_of(&mut values, "--record")?;
    let gsp = if no_gsp {
        let given = [
            ("--gsp-version", gsp_version.is_some()),
            ("--fb-size", values.contains_key("--fb-size")),
            ("--firmware-root", firmware_root.is_some()),
            ("--gsp-fault", gsp_fault.is_some()),
            ("--record", record.is_some()),
            ("--boot-fault", boot_fault.is_some()),
        ];
        if let Some((option, _)) = given.iter().find(|(_, given)| *given) {
            return Err(ArgError(format!("{option} makes no sense with --no-gsp")));
        }
        None
    } else {
        let mut g = GspConfig {
            forced_version: gsp_version,
            fb_size,
            fault: gsp_fault,
            record,
            boot_fault,
            ..GspConfig::default()
        };
        if let Some(root) = firmware_root {
            g.firmware_root = root;
        }
        Some(g)
    };
    let vbios = path_of(&mut values, "--vbios")?
        .map(|path| match Dump::load(&path) {
            Ok(dump) => Ok(Arc::new(dump)),
            Err(e) => Err(ArgError(format!("--vbios: {e}"))),
        })
        .transpose()?;
    let vbios_fault = parsed(&values, "--vbios-fault")?;
    if vbios.is_some() && vbios_fault.is_some() {
        return Err(ArgError(
            "--vbios-fault makes no sense with --vbios: only the synthetic VBIOS lies".to_string(),
        ));
    }
    let gfw_delay = match values.get("--gfw-delay") {
        Some(v) => std::time::Duration::from_millis(
            parse_number(v, false)
                .filter(|&ms| ms <= 60_000)
                .ok_or_else(|| ArgError(format!("--gfw-delay: '{v}' is not 0 to 60000 ms")))?,
        ),
        None => std::time::Duration::ZERO,
    };
    let gfw_fault = parsed(&values, "--gfw-fault")?;
    let fb_fault = parsed(&values, "--fb-fault")?;
    let fwsec_fault = parsed(&values, "--fwsec-fault")?;
    let counts = path_of(&mut values, "--counts")?;
    let log = path_of(&mut values, "--log")?;
    let trace = path_of(&mut values, "--trace")?;
    Ok(Command::Serve(Box::new(Options {
        socket: PathBuf::from(socket),
        device: DeviceConfig {
            chipset,
            revision,
            boot0,
            boot42,
            bar0_size,
            device_id,
            bar1_size,
            gsp,
            vbios,
            vbios_fault,
            gfw_delay,
            gfw_fault,
            fb_size,
            fb_fault,
            fwsec_fault,
        },
        counts,
        log,
        trace,
    })))
}

/// The value of option `name` parsed as `T`, if the option was given; an error names it.
fn parsed<T: std::str::FromStr>(
    values: &HashMap<&'static str, String>,
    name: &str,
) -> Result<Option<T>, ArgError>
where
    T::Err: std::fmt::Display,
{
    values
        .get(name)
        .map(|v| v.parse().map_err(|e| ArgError(format!("{name}: {e}"))))
        .transpose()
}

/// Parses a number: `0x` hex or decimal, with an optional binary K, M or G
/// suffix when `suffixes` is set.
fn parse_number(text: &str, suffixes: bool) -> Option<u64> {
    let (digits, scale) = match text.char_indices().last() {
        Some((i, c)) if suffixes && "kKmMgG".contains(c) => {
            let shift = match c.to_ascii_lowercase() {
                'k' => 10,
                'm' => 20,
                _ => 30,
            };
            (&text[..i], 1u64 << shift)
        }
        _ => (text, 1),
    };
    let value = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        if hex.is_empty() || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(hex, 16).ok()?
    } else {
        if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
            return None;
        }
        digits.parse::<u64>().ok()?
    };
    value.checked_mul(scale)
}

fn parse_u32(option: &str, text: &str) -> Result<u32, ArgError> {
    parse_number(text, false)
        .and_then(|v| u32::try_from(v).ok())
        .ok_or_else(|| {
            ArgError(format!(
                "{option}: '{text}' is not a 32-bit number (decimal or 0x hex)"
            ))
        })
}

fn parse_bar_size(option: &str, text: &str, max: u64) -> Result<u64, ArgError> {
    let size = parse_number(text, true).ok_or_else(|| {
        ArgError(format!(
            "{option}: '{text}' is not a size in bytes (decimal or 0x hex, optional K/M/G)"
        ))
    })?;
    if !size.is_power_of_two() || size < MIN_BAR_SIZE {
        return Err(ArgError(format!(
            "{option}: {size:#x} is not a power of two of at least {MIN_BAR_SIZE} bytes"
        )));
    }
    if size > max {
        return Err(ArgError(format!(
            "{option}: {size:#x} is larger than the maximum {max:#x}"
        )));
    }
    Ok(size)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn parse_strs(args: &[&str]) -> Result<Command, ArgError> {
        parse(args.iter().map(OsString::from))
    }

    fn serve(args: &[&str]) -> Options {
        match parse_strs(args) {
            Ok(Command::Serve(o)) => *o,
            other => panic!("{args:?} gave {other:?}"),
        }
    }

    fn error(args: &[&str]) -> String {
        match parse_strs(args) {
            Err(ArgError(msg)) => msg,
            other => panic!("{args:?} should fail, gave {other:?}"),
        }
    }

    #[test]
    fn defaults_are_ga102_rev_a1_16_mib_and_256_mib() {
        let o = serve(&["--socket", "/x.sock"]);
        assert_eq!(o.socket, PathBuf::from("/x.sock"));
        assert_eq!(o.device.chipset.name, "ga102");
        assert_eq!(
            o.device.revision,
            Revision {
                major: 0xa,
                minor: 1
            }
        );
        assert_eq!(o.device.bar0_size, 0x100_0000);
        assert_eq!(o.device.bar1_size, 0x1000_0000);
        assert_eq!(o.device.boot0, None);
        assert!(o.counts.is_none() && o.log.is_none());
    }

    #[test]
    fn every_option_is_taken_in_both_spellings() {
        let o = serve(&[
            "--socket=/s",
            "--chipset",
            "tu117",
            "--revision=b.2",
            "--boot0",
            "0x12345678",
            "--boot42=305419896",
            "--counts",
            "/c.json",
            "--log=/l.txt",
            "--bar0-size",
            "0x2000000",
            "--bar1-size=1G",
        ]);
        assert_eq!(o.device.chipset.name, "tu117");
        assert_eq!(
            o.device.revision,
            Revision {
                major: 0xb,
                minor: 2
            }
        );
        assert_eq!(o.device.boot0, Some(0x1234_5678));
        assert_eq!(o.device.boot42, Some(0x1234_5678));
        assert_eq!(o.counts, Some(PathBuf::from("/c.json")));
        assert_eq!(o.log, Some(PathBuf::from("/l.txt")));
        assert_eq!(o.device.bar0_size, 32 << 20);
        assert_eq!(o.device.bar1_size, 1 << 30);
    }

    #[test]
    fn unknown_chipset_error_lists_the_valid_names() {
        let msg = error(&["--socket", "/s", "--chipset", "gk110"]);
        assert!(msg.contains("unknown chipset 'gk110'"), "{msg}");
        assert!(
            msg.contains("tu102") && msg.contains("gb207") && msg.contains("gh100"),
            "{msg}"
        );
    }

    #[test]
    fn missing_socket_is_an_error() {
        assert!(error(&["--chipset", "ga102"]).contains("--socket"));
        assert!(error(&["--socket"]).contains("needs a value"));
        assert!(error(&["--socket="]).contains("non-empty"));
    }

    #[test]
    fn bad_revision_is_an_error_naming_the_option() {
        let msg = error(&["--socket", "/s", "--revision", "a1"]);
        assert!(
            msg.starts_with("--revision:") && msg.contains("'a1'"),
            "{msg}"
        );
    }

    #[test]
    fn bad_boot_values_are_errors() {
        assert!(error(&["--socket", "/s", "--boot0", "0x1_0000_0000"]).contains("--boot0"));
        assert!(error(&["--socket", "/s", "--boot0", "0x100000000"]).contains("32-bit"));
        assert!(error(&["--socket", "/s", "--boot42", "-1"]).contains("--boot42"));
        assert!(error(&["--socket", "/s", "--boot42", "0x"]).contains("--boot42"));
        assert!(error(&["--socket", "/s", "--boot0", "12k"]).contains("--boot0"));
    }

    #[test]
    fn bar_sizes_must_be_powers_of_two_in_range() {
        for bad in ["3000", "2048", "0x1800000", "4G", "junk", "1T"] {
            let msg = error(&["--socket", "/s", "--bar0-size", bad]);
            assert!(msg.starts_with("--bar0-size:"), "{bad}: {msg}");
        }
        assert_eq!(
            serve(&["--socket", "/s", "--bar0-size", "4096"])
                .device
                .bar0_size,
            4096
        );
        assert_eq!(
            serve(&["--socket", "/s", "--bar0-size", "2G"])
                .device
                .bar0_size,
            2 << 30
        );
        assert_eq!(
            serve(&["--socket", "/s", "--bar1-size", "64G"])
                .device
                .bar1_size,
            64 << 30
        );
        assert!(error(&["--socket", "/s", "--bar1-size", "1000"]).starts_with("--bar1-size:"));
        assert_eq!(
            serve(&["--socket", "/s", "--bar1-size", "0"])
                .device
                .bar1_size,
            0
        );
    }

    #[test]
    fn bar0_size_0_means_no_bar0() {
        assert_eq!(
            serve(&["--socket", "/s", "--bar0-size", "0"])
                .device
                .bar0_size,
            0
        );
    }

    #[test]
    fn device_id_and_gsp_fault_options() {
        let o = serve(&[
            "--socket",
            "/s",
            "--device-id",
            "0x1e04",
            "--gsp-fault",
            "flood@2",
        ]);
        assert_eq!(o.device.device_id, Some(0x1e04));
        let fault = o.device.gsp.expect("gsp").fault.expect("fault");
        assert_eq!(fault.to_string(), "flood@2");
        assert!(error(&["--socket", "/s", "--device-id", "0x10000"]).contains("--device-id"));
        assert!(error(&["--socket", "/s", "--gsp-fault", "fib"]).contains("unknown GSP fault"));
        assert!(
            error(&["--socket", "/s", "--no-gsp", "--gsp-fault", "mute"])
                .contains("--gsp-fault makes no sense with --no-gsp")
        );
        assert!(matches!(
            parse_strs(&["--list-gsp-faults"]),
            Ok(Command::ListGspFaults)
        ));
    }

    #[test]
    fn unknown_repeated_and_stray_arguments_are_errors() {
        assert!(
            error(&["--socket", "/s", "--frobnicate"]).contains("unknown option '--frobnicate'")
        );
        assert!(error(&["--socket", "/s", "extra"]).contains("unexpected argument 'extra'"));
        assert!(error(&["--socket", "/s", "--socket", "/t"]).contains("more than once"));
        assert!(error(&["--list-chipsets=yes"]).contains("takes no value"));
    }

    #[test]
    fn gsp_options() {
        let o = serve(&["--socket", "/s"]);
        assert_eq!(o.device.gsp, Some(GspConfig::default()));
        assert_eq!(o.device.gsp.as_ref().map(|g| g.fb_size), Some(24 << 30));
        let o = serve(&[
            "--socket",
            "/s",
            "--gsp-version=570.144",
            "--fb-size",
            "8G",
            "--firmware-root",
            "/fw",
        ]);
        let g = o.device.gsp.expect("gsp");
        assert_eq!(g.forced_version, Some(crate::gsp::wire::Version::R570_144));
        assert_eq!(g.fb_size, 8 << 30);
        assert_eq!(g.firmware_root, PathBuf::from("/fw"));
        assert_eq!(serve(&["--socket", "/s", "--no-gsp"]).device.gsp, None);
        assert!(error(&["--socket", "/s", "--gsp-version", "550.1"]).starts_with("--gsp-version:"));
        assert!(error(&["--socket", "/s", "--fb-size", "0"]).starts_with("--fb-size:"));
        assert!(error(&["--socket", "/s", "--no-gsp", "--fb-size", "1G"]).contains("--no-gsp"));
        assert!(error(&["--socket", "/s", "--no-gsp", "--firmware-root=/x"]).contains("--no-gsp"));
        assert!(error(&["--socket", "/s", "--no-gsp", "--no-gsp"]).contains("more than once"));
        assert!(error(&["--socket", "/s", "--no-gsp=1"]).contains("takes no value"));
    }

    #[test]
    fn vbios_file_is_read_whole() {
        let dir = std::env::temp_dir().join(format!("nova-emu-args-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("scratch folder");
        let file = dir.join("board.rom");
        fs::write(&file, [0x55, 0xaa, 1, 2, 3]).expect("write");
        let path = file.to_str().expect("UTF-8 path");
        let o = serve(&["--socket", "/s", "--vbios", path]);
        let dump = o.device.vbios.expect("dump");
        assert_eq!(&dump.bytes[..], &[0x55, 0xaa, 1, 2, 3]);
        assert_eq!(dump.path, file);
        assert!(serve(&["--socket", "/s"]).device.vbios.is_none());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn bad_vbios_files_are_refused() {
        let dir = std::env::temp_dir().join(format!("nova-emu-args-bad-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("scratch folder");
        let empty = dir.join("empty.rom");
        let big = dir.join("big.rom");
        fs::write(&empty, b"").expect("write");
        fs::write(&big, vec![0xffu8; (1 << 20) + 1]).expect("write");
        let arg = |p: &PathBuf| p.to_str().expect("UTF-8 path").to_string();
        let msg = error(&["--socket", "/s", "--vbios", &arg(&empty)]);
        assert!(
            msg.starts_with("--vbios:") && msg.contains("is empty"),
            "{msg}"
        );
        let msg = error(&["--socket", "/s", "--vbios", &arg(&big)]);
        assert!(
            msg.starts_with("--vbios:") && msg.contains("larger than"),
            "{msg}"
        );
        let msg = error(&["--socket", "/s", "--vbios", &arg(&dir.join("none.rom"))]);
        assert!(
            msg.starts_with("--vbios:") && msg.contains("cannot open"),
            "{msg}"
        );
        let msg = error(&["--socket", "/s", "--vbios", &arg(&dir)]);
        assert!(msg.starts_with("--vbios:"), "{msg}");
        assert!(error(&["--socket", "/s", "--vbios="]).contains("non-empty"));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn write_vbios_needs_no_socket() {
        match parse_strs(&["--chipset", "tu106", "--write-vbios", "/tmp/x.rom"]) {
            Ok(Command::WriteVbios(chip, path)) => {
                assert_eq!(chip.name, "tu106");
                assert_eq!(path, PathBuf::from("/tmp/x.rom"));
            }
            other => panic!("{other:?}"),
        }
        assert!(error(&["--write-vbios="]).contains("non-empty"));
    }

    #[test]
    fn gfw_options() {
        use crate::gfw::GfwLie;
        let o = serve(&[
            "--socket",
            "/s",
            "--gfw-delay",
            "250",
            "--gfw-fault",
            "stuck",
        ]);
        assert_eq!(o.device.gfw_delay, std::time::Duration::from_millis(250));
        assert_eq!(o.device.gfw_fault, Some(GfwLie::Stuck));
        assert!(error(&["--socket", "/s", "--gfw-delay", "99999"]).contains("0 to 60000"));
        assert!(error(&["--socket", "/s", "--gfw-fault", "slow"]).contains("unknown GFW lie"));
    }

    #[test]
    fn vbios_fault_names_a_lie_of_the_synthetic_vbios() {
        use crate::vbios::fault::VbiosLie;
        let o = serve(&["--socket", "/s", "--vbios-fault", "desc-version"]);
        assert_eq!(o.device.vbios_fault, Some(VbiosLie::DescVersion));
        assert!(error(&["--socket", "/s", "--vbios-fault", "lie"]).contains("unknown VBIOS lie"));
        assert!(error(&[
            "--socket",
            "/s",
            "--vbios-fault",
            "--gfw-delay",
            "--gfw-fault",
            "no-fwsec",
            "--vbios",
            "/x"
        ])
        .starts_with("--vbios"));
    }

    #[test]
    fn list_chipsets_needs_no_socket() {
        assert!(matches!(
            parse_strs(&["--list-chipsets"]),
            Ok(Command::ListChipsets)
        ));
        assert!(matches!(parse_strs(&["--help"]), Ok(Command::Help)));
        assert!(parse_strs(&["-h", "--bogus-later"]).is_err());
    }
}
