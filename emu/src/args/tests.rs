// SPDX-License-Identifier: GPL-2.0

//! Tests of the command line: every option in both spellings, the value formats and ranges,
//! the options that exclude each other, the modes that need no socket. Wording that clap owns
//! (unknown, repeated or missing arguments, conflicts) is checked by the error's kind and the
//! option it names.

use std::fs;
use std::os::unix::ffi::OsStringExt;

use super::*;

fn parse_strs(args: &[&str]) -> Result<Command, clap::Error> {
    parse(args.iter().map(OsString::from))
}

fn serve(args: &[&str]) -> Options {
    match parse_strs(args) {
        Ok(Command::Serve(o)) => *o,
        other => panic!("{args:?} gave {other:?}"),
    }
}

/// The error of a command line that must fail: its kind and its text as printed.
fn error(args: &[&str]) -> (ErrorKind, String) {
    match parse_strs(args) {
        Err(e) => (e.kind(), e.to_string()),
        other => panic!("{args:?} should fail, gave {other:?}"),
    }
}

/// The text of an error of a value that its parser refused.
fn invalid_value(args: &[&str]) -> String {
    let (kind, msg) = error(args);
    assert_eq!(kind, ErrorKind::ValueValidation, "{args:?}: {msg}");
    msg
}

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nova-emu-args-{name}-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

#[test]
fn the_command_line_is_consistent() {
    Cli::command().debug_assert();
}

#[test]
fn help_names_every_option_and_the_ways_to_run() {
    let help = Cli::command().render_help().to_string();
    for option in [
        "--socket <PATH>",
        "--chipset <NAME>",
        "--revision <MAJOR.MINOR>",
        "--boot0 <VALUE>",
        "--boot42 <VALUE>",
        "--counts <FILE>",
        "--log <FILE>",
        "--trace <FILE>",
        "--bar0-size <BYTES>",
        "--bar1-size <BYTES>",
        "--device-id <ID>",
        "--gsp-version <VERSION>",
        "--fb-size <BYTES>",
        "--firmware-root <DIR>",
        "--gsp-fault <LIE[@N]>",
        "--record <DIR>",
        "--no-gsp",
        "--vbios <FILE>",
        "--gfw-delay <MS>",
        "--gfw-fault <LIE>",
        "--fb-fault <LIE>",
        "--fb-mmu-lock <BYTES>",
        "--fwsec-fault <LIE>",
        "--boot-fault <LIE>",
        "--vbios-fault <LIE>",
        "--write-vbios <FILE>",
        "--list-chipsets",
        "--list-gsp-faults",
        "--help",
    ] {
        assert!(help.contains(option), "{option} missing from:\n{help}");
    }
    assert!(
        help.contains("nova-emu [--chipset NAME] --write-vbios FILE"),
        "{help}"
    );
    assert!(help.contains("[default: ga102]"), "{help}");
}

#[test]
fn help_is_asked_for_with_either_spelling() {
    for spelling in ["--help", "-h"] {
        assert_eq!(error(&[spelling]).0, ErrorKind::DisplayHelp);
    }
    // clap answers the help as soon as it meets it, without looking further.
    assert_eq!(error(&["-h", "--bogus-later"]).0, ErrorKind::DisplayHelp);
    assert_eq!(error(&["--bogus", "-h"]).0, ErrorKind::UnknownArgument);
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
    assert_eq!(o.device.gfw_delay, Duration::ZERO);
    assert_eq!(o.device.fb_size, 24 << 30);
    assert!(o.counts.is_none() && o.log.is_none() && o.trace.is_none());
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
        "--trace",
        "/t.txt",
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
    assert_eq!(o.trace, Some(PathBuf::from("/t.txt")));
    assert_eq!(o.device.bar0_size, 32 << 20);
    assert_eq!(o.device.bar1_size, 1 << 30);
}

#[test]
fn unknown_chipset_error_lists_the_valid_names() {
    let msg = invalid_value(&["--socket", "/s", "--chipset", "gk110"]);
    assert!(msg.contains("unknown chipset 'gk110'"), "{msg}");
    assert!(
        msg.contains("tu102") && msg.contains("gb207") && msg.contains("gh100"),
        "{msg}"
    );
}

#[test]
fn missing_socket_is_an_error() {
    let (kind, msg) = error(&["--chipset", "ga102"]);
    assert_eq!(kind, ErrorKind::MissingRequiredArgument);
    assert!(msg.contains("--socket <PATH>"), "{msg}");
    let (kind, msg) = error(&["--socket"]);
    assert_eq!(kind, ErrorKind::InvalidValue);
    assert!(
        msg.contains("a value is required for '--socket <PATH>'"),
        "{msg}"
    );
    let (kind, msg) = error(&["--socket="]);
    assert_eq!(kind, ErrorKind::InvalidValue, "{msg}");
    assert!(msg.contains("--socket <PATH>"), "{msg}");
}

#[test]
fn bad_revision_is_an_error_naming_the_option() {
    let msg = invalid_value(&["--socket", "/s", "--revision", "a1"]);
    assert!(
        msg.contains("'--revision <MAJOR.MINOR>'")
            && msg.contains("revision 'a1' is not MAJOR.MINOR"),
        "{msg}"
    );
}

#[test]
fn refused_values_are_named_with_their_option_and_the_reason() {
    for (option, value, why) in [
        (
            "--boot0",
            "0x100000000",
            "is not a 32-bit number (decimal or 0x hex)",
        ),
        ("--boot42", "0x", "is not a 32-bit number"),
        (
            "--bar0-size",
            "3000",
            "0xbb8 is not a power of two of at least 4096 bytes",
        ),
        ("--bar1-size", "1000", "is not a power of two"),
        ("--device-id", "0x10000", "is not a 16-bit number"),
        ("--fb-size", "0", "is not a size from 256M to 1024G"),
        ("--gfw-delay", "99999", "is not 0 to 60000 ms"),
        (
            "--gsp-version",
            "550.1",
            "unknown GSP firmware version '550.1'",
        ),
    ] {
        let msg = invalid_value(&["--socket", "/s", option, value]);
        assert!(
            msg.contains(&format!("invalid value '{value}' for '{option} <")) && msg.contains(why),
            "{msg}"
        );
    }
    // A value that looks like an option is not taken as one.
    let (_, msg) = error(&["--socket", "/s", "--boot42", "-1"]);
    assert!(msg.contains("'-1'"), "{msg}");
}

#[test]
fn numbers_and_sizes_reach_the_device() {
    let o = serve(&[
        "--socket",
        "/s",
        "--bar0-size=0K",
        "--bar1-size",
        "64k",
        "--boot0",
        "0XABCD",
        "--fb-size",
        "0x10000000",
    ]);
    assert_eq!(o.device.bar0_size, 0);
    assert_eq!(o.device.bar1_size, 64 << 10);
    assert_eq!(o.device.boot0, Some(0xabcd));
    assert_eq!(o.device.fb_size, 256 << 20);
}

#[test]
fn values_that_look_like_options_are_refused() {
    let (kind, msg) = error(&["--socket", "/s", "--vbios-fault", "--gfw-delay", "10"]);
    assert_eq!(kind, ErrorKind::InvalidValue, "{msg}");
    assert!(
        msg.contains("a value is required for '--vbios-fault <LIE>'"),
        "{msg}"
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
    let msg = invalid_value(&["--socket", "/s", "--device-id", "0x10000"]);
    assert!(
        msg.contains("'--device-id <ID>'") && msg.contains("is not a 16-bit number"),
        "{msg}"
    );
    assert!(invalid_value(&["--socket", "/s", "--gsp-fault", "fib"]).contains("unknown GSP fault"));
    let (kind, msg) = error(&["--socket", "/s", "--no-gsp", "--gsp-fault", "mute"]);
    assert_eq!(kind, ErrorKind::ArgumentConflict);
    assert!(
        msg.contains("--no-gsp") && msg.contains("--gsp-fault"),
        "{msg}"
    );
    assert!(matches!(
        parse_strs(&["--list-gsp-faults"]),
        Ok(Command::ListGspFaults)
    ));
}

#[test]
fn unknown_repeated_and_stray_arguments_are_errors() {
    let (kind, msg) = error(&["--socket", "/s", "--frobnicate"]);
    assert_eq!(kind, ErrorKind::UnknownArgument);
    assert!(msg.contains("'--frobnicate'"), "{msg}");
    let (kind, msg) = error(&["--socket", "/s", "extra"]);
    assert_eq!(kind, ErrorKind::UnknownArgument);
    assert!(msg.contains("'extra'"), "{msg}");
    let (kind, msg) = error(&["--socket", "/s", "--socket", "/t"]);
    assert_eq!(kind, ErrorKind::ArgumentConflict);
    assert!(msg.contains("cannot be used multiple times"), "{msg}");
    let (kind, msg) = error(&["--list-chipsets=yes"]);
    assert_eq!(kind, ErrorKind::TooManyValues);
    assert!(msg.contains("--list-chipsets"), "{msg}");
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
        "--record",
        "/rec",
        "--boot-fault",
        "booter-error",
    ]);
    let g = o.device.gsp.expect("gsp");
    assert_eq!(g.forced_version, Some(Version::R570_144));
    assert_eq!(g.fb_size, 8 << 30);
    assert_eq!(o.device.fb_size, 8 << 30);
    assert_eq!(g.firmware_root, PathBuf::from("/fw"));
    assert_eq!(g.record, Some(PathBuf::from("/rec")));
    assert_eq!(g.boot_fault, Some(BootLie::BooterError));
    let o = serve(&["--socket", "/s", "--no-gsp"]);
    assert_eq!(o.device.gsp, None);
    assert_eq!(o.device.fb_size, 24 << 30);
    for gsp_option in [
        "--gsp-version=535.113.01",
        "--fb-size=1G",
        "--firmware-root=/x",
        "--gsp-fault=mute",
        "--record=/r",
        "--boot-fault=booter-error",
        "--fsp-fault=never-ready",
    ] {
        let (kind, msg) = error(&["--socket", "/s", "--no-gsp", gsp_option]);
        assert_eq!(kind, ErrorKind::ArgumentConflict, "{gsp_option}: {msg}");
        assert!(msg.contains("--no-gsp"), "{msg}");
    }
    let (kind, msg) = error(&["--socket", "/s", "--no-gsp", "--no-gsp"]);
    assert_eq!(kind, ErrorKind::ArgumentConflict);
    assert!(msg.contains("cannot be used multiple times"), "{msg}");
    let (kind, msg) = error(&["--socket", "/s", "--no-gsp=1"]);
    assert_eq!(kind, ErrorKind::TooManyValues);
    assert!(msg.contains("--no-gsp"), "{msg}");
}

#[test]
fn vbios_file_is_read_whole() {
    let dir = scratch("vbios");
    let file = dir.join("board.rom");
    fs::write(&file, [0x55, 0xaa, 1, 2, 3]).expect("write");
    let path = file.to_str().expect("UTF-8 path");
    let o = serve(&["--socket", "/s", "--vbios", path]);
    let dump = o.device.vbios.expect("dump");
    assert_eq!(&dump.bytes[..], &[0x55, 0xaa, 1, 2, 3]);
    assert_eq!(dump.path, file);
    assert!(serve(&["--socket", "/s"]).device.vbios.is_none());
    // Only the synthetic VBIOS lies.
    let (kind, msg) = error(&[
        "--socket",
        "/s",
        "--vbios-fault",
        "no-fwsec",
        "--vbios",
        path,
    ]);
    assert_eq!(kind, ErrorKind::ArgumentConflict);
    assert!(
        msg.contains("--vbios <FILE>") && msg.contains("--vbios-fault"),
        "{msg}"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn bad_vbios_files_are_refused() {
    let dir = scratch("bad-vbios");
    let empty = dir.join("empty.rom");
    let big = dir.join("big.rom");
    fs::write(&empty, b"").expect("write");
    fs::write(&big, vec![0xffu8; (16 << 20) + 1]).expect("write");
    let arg = |p: &PathBuf| p.to_str().expect("UTF-8 path").to_string();
    for (file, why) in [
        (empty, "is empty"),
        (big, "larger than"),
        (dir.join("none.rom"), "cannot open"),
        (dir.clone(), "cannot read"),
    ] {
        let msg = invalid_value(&["--socket", "/s", "--vbios", &arg(&file)]);
        assert!(
            msg.contains("'--vbios <FILE>'") && msg.contains(why),
            "{msg}"
        );
    }
    assert!(invalid_value(&["--socket", "/s", "--vbios="]).contains("needs a non-empty path"));
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
    assert!(matches!(
        parse_strs(&["--write-vbios", "/x.rom"]),
        Ok(Command::WriteVbios(chip, _)) if chip.name == "ga102"
    ));
    let (kind, msg) = error(&["--write-vbios="]);
    assert_eq!(kind, ErrorKind::InvalidValue, "{msg}");
    assert!(msg.contains("--write-vbios <FILE>"), "{msg}");
}

#[test]
fn gfw_options() {
    let o = serve(&[
        "--socket",
        "/s",
        "--gfw-delay",
        "250",
        "--gfw-fault",
        "stuck",
    ]);
    assert_eq!(o.device.gfw_delay, Duration::from_millis(250));
    assert_eq!(o.device.gfw_fault, Some(GfwLie::Stuck));
    assert!(invalid_value(&["--socket", "/s", "--gfw-delay", "99999"]).contains("0 to 60000"));
    assert!(invalid_value(&["--socket", "/s", "--gfw-fault", "slow"]).contains("unknown GFW lie"));
}

#[test]
fn the_mmu_lock_is_ga100s_inside_its_memory_on_a_page() {
    let o = serve(&[
        "--socket",
        "/s",
        "--chipset",
        "ga100",
        "--fb-size",
        "40G",
        "--fb-mmu-lock",
        "0x9ff9f0000",
    ]);
    assert_eq!(o.device.fb_mmu_lock, Some(0x9_ff9f_0000));
    assert!(invalid_value(&["--socket", "/s", "--fb-mmu-lock", "x"]).contains("not an address"));
    for (args, why) in [
        (
            &["--chipset", "ga102", "--fb-mmu-lock", "1G"][..],
            "only GA100",
        ),
        (
            &["--chipset", "ga100", "--fb-mmu-lock", "24G"][..],
            "inside video memory",
        ),
        (
            &["--chipset", "ga100", "--fb-mmu-lock", "0x1001"][..],
            "4 KiB page",
        ),
        (
            &["--chipset", "ga100", "--fb-mmu-lock", "0"][..],
            "above page 0",
        ),
    ] {
        let (kind, msg) = error(&[&["--socket", "/s"][..], args].concat());
        assert_eq!(kind, ErrorKind::ArgumentConflict, "{args:?}: {msg}");
        assert!(msg.contains(why), "{msg}");
    }
}

#[test]
fn lies_of_the_units_are_taken_by_name() {
    let o = serve(&[
        "--socket",
        "/s",
        "--vbios-fault",
        "desc-version",
        "--fb-fault=huge",
        "--fwsec-fault",
        "dma-stuck",
        "--fsp-fault",
        "reply-huge",
    ]);
    assert_eq!(o.device.fsp_fault, Some(crate::fsp::FspLie::ReplyHuge));
    assert_eq!(o.device.vbios_fault, Some(VbiosLie::DescVersion));
    assert_eq!(o.device.fb_fault, Some(FbLie::Huge));
    assert_eq!(o.device.fwsec_fault, Some(FwsecLie::DmaStuck));
    for (option, what) in [
        ("--vbios-fault", "unknown VBIOS lie 'lie'"),
        ("--fb-fault", "unknown FB lie 'lie'"),
        ("--fwsec-fault", "unknown FWSEC lie 'lie'"),
        ("--boot-fault", "unknown boot chain lie 'lie'"),
        ("--fsp-fault", "unknown FSP lie 'lie'"),
    ] {
        let msg = invalid_value(&["--socket", "/s", option, "lie"]);
        assert!(msg.contains(what) && msg.contains("(lies: "), "{msg}");
    }
}

#[test]
fn list_modes_need_no_socket_but_a_known_chipset() {
    assert!(matches!(
        parse_strs(&["--list-chipsets"]),
        Ok(Command::ListChipsets)
    ));
    assert!(matches!(
        parse_strs(&["--list-chipsets", "--socket", "/s"]),
        Ok(Command::ListChipsets)
    ));
    assert!(invalid_value(&["--list-chipsets", "--chipset", "nv50"]).contains("unknown chipset"));
    assert!(matches!(
        parse_strs(&["--list-gsp-faults", "--list-chipsets"]),
        Ok(Command::ListGspFaults)
    ));
}

#[test]
fn paths_need_not_be_utf8_but_numbers_must() {
    let log = OsString::from_vec(b"/tmp/log-\xff".to_vec());
    let parsed = parse([
        OsString::from("--socket"),
        OsString::from("/s"),
        OsString::from("--log"),
        log.clone(),
    ]);
    match parsed {
        Ok(Command::Serve(o)) => assert_eq!(o.log, Some(PathBuf::from(log))),
        other => panic!("{other:?}"),
    }
    let parsed = parse([
        OsString::from("--socket=/s"),
        OsString::from("--boot0"),
        OsString::from_vec(b"0x\xff".to_vec()),
    ]);
    assert!(
        matches!(&parsed, Err(e) if e.kind() == ErrorKind::InvalidUtf8),
        "{parsed:?}"
    );
}
