// SPDX-License-Identifier: GPL-2.0

//! End-to-end tests of the nova-emu binary: command-line errors and exit
//! statuses, serving one connection of the vfio_user crate's client, and the
//! counts file written when the connection ends or on SIGTERM.

use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use serde_json::Value;
use vfio_bindings::bindings::vfio::{VFIO_PCI_BAR0_REGION_INDEX, VFIO_PCI_CONFIG_REGION_INDEX};
use vfio_user::Client;

const EMU: &str = env!("CARGO_BIN_EXE_nova-emu");

/// A fresh folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("nova-emu-cli-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).expect("create scratch folder");
    dir
}

/// Starts the emulator and waits for its "listening" line.
fn start(dir: &Path, extra: &[&str]) -> (Child, PathBuf, PathBuf) {
    let socket = dir.join("gpu.sock");
    let counts = dir.join("counts.json");
    let mut child = Command::new(EMU)
        .arg("--socket")
        .arg(&socket)
        .arg("--counts")
        .arg(&counts)
        .arg("--log")
        .arg(dir.join("emu.log"))
        .args(extra)
        .stderr(Stdio::piped())
        .spawn()
        .expect("start nova-emu");
    let stderr = child.stderr.take().expect("piped stderr");
    let mut lines = BufReader::new(stderr).lines();
    let want = format!("nova-emu: listening on {}", socket.display());
    loop {
        match lines.next() {
            Some(Ok(line)) if line == want => break,
            Some(Ok(_)) => continue,
            _ => panic!("nova-emu ended before listening: {:?}", child.wait()),
        }
    }
    assert!(socket.exists(), "socket created before the announcement");
    (child, socket, counts)
}

fn counts_of(path: &Path) -> Value {
    let text = fs::read_to_string(path).expect("counts file written");
    serde_json::from_str(&text).expect("counts file is JSON")
}

/// Total BAR accesses of one phase in a counts file.
fn accesses_in_phase(counts: &Value, phase: u64) -> Option<u64> {
    counts["phases"].as_array()?.iter().find_map(|p| {
        (p["phase"].as_u64() == Some(phase)).then(|| {
            p["accesses"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .map(|e| {
                            e["reads"].as_u64().unwrap_or(0) + e["writes"].as_u64().unwrap_or(0)
                        })
                        .sum()
                })
                .unwrap_or(0)
        })
    })
}

#[test]
fn unknown_chipset_exits_2_listing_valid_names() {
    let out = Command::new(EMU)
        .args(["--socket", "/nonexistent/x.sock", "--chipset", "nv50"])
        .output()
        .expect("run nova-emu");
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown chipset 'nv50'"), "{err}");
    assert!(err.contains("ga102") && err.contains("gb207"), "{err}");
}

#[test]
fn list_chipsets_prints_the_table_and_exits_0() {
    let out = Command::new(EMU)
        .arg("--list-chipsets")
        .output()
        .expect("run nova-emu");
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().count(), 25, "{text}");
    assert!(
        text.contains("ad104") && text.contains("GeForce RTX 4070 Ti"),
        "{text}"
    );
}

#[test]
fn serving_one_connection_writes_counts_per_phase_and_exits_0() {
    let dir = scratch("serve");
    let (mut child, socket, counts) = start(&dir, &["--chipset", "gh100"]);

    let mut client = Client::new(&socket).expect("connect");
    let mut id = [0u8; 4];
    client
        .region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0, &mut id)
        .expect("config read");
    assert_eq!(u32::from_le_bytes(id), 0x2330_10de);
    let mut boot0 = [0u8; 4];
    client
        .region_read(VFIO_PCI_BAR0_REGION_INDEX, 0, &mut boot0)
        .expect("BOOT_0 read");
    assert_eq!(u32::from_le_bytes(boot0), 0x180000a1);
    // Phase 1 through the config space alias, with no BAR access in it.
    client
        .region_write(VFIO_PCI_CONFIG_REGION_INDEX, 0xf0, &1u32.to_le_bytes())
        .expect("phase write");
    // Phase 2 through BAR0, then one access.
    client
        .region_write(VFIO_PCI_BAR0_REGION_INDEX, 0xff_fff0, &2u32.to_le_bytes())
        .expect("phase write");
    client
        .region_read(VFIO_PCI_BAR0_REGION_INDEX, 0xa00, &mut boot0)
        .expect("BOOT_42 read");
    client.shutdown().expect("shutdown");
    drop(client);

    let status = child.wait().expect("wait");
    assert!(status.success(), "{status:?}");
    assert!(!socket.exists(), "socket removed at exit");
    let c = counts_of(&counts);
    assert_eq!(c["chipset"], "gh100");
    assert_eq!(c["boot0"], "0x180000a1");
    assert_eq!(c["boot42"], "0x180a1000");
    assert_eq!(accesses_in_phase(&c, 0), Some(1));
    assert_eq!(accesses_in_phase(&c, 1), Some(0));
    assert_eq!(accesses_in_phase(&c, 2), Some(1));
    assert_eq!(c["config_reads"], 1);
    assert_eq!(c["config_writes"], 1);
    let log = fs::read_to_string(dir.join("emu.log")).expect("log written");
    assert!(log.contains("connection closed"), "{log}");
    assert_lines_are_timed(&log);
    let _ = fs::remove_dir_all(&dir);
}

/// Checks that every line of a log starts as the harness reads it: `[`, the seconds since
/// start right-aligned in 12 characters with 6 decimals, `] `, then the message.
fn assert_lines_are_timed(log: &str) {
    assert!(!log.is_empty());
    for line in log.lines() {
        let stamp = line
            .strip_prefix('[')
            .and_then(|rest| rest.split_once("] "))
            .map(|(stamp, _)| stamp);
        let ok = stamp.is_some_and(|s| {
            let (whole, micros) = s.trim_start().split_once('.').unwrap_or(("", ""));
            s.len() == 12
                && !whole.is_empty()
                && whole.bytes().all(|b| b.is_ascii_digit())
                && micros.len() == 6
                && micros.bytes().all(|b| b.is_ascii_digit())
        });
        assert!(ok, "untimed line {line:?} in:\n{log}");
    }
}

#[test]
fn help_goes_to_stdout_and_exits_0() {
    for spelling in ["--help", "-h"] {
        let out = Command::new(EMU)
            .arg(spelling)
            .output()
            .expect("run nova-emu");
        assert_eq!(out.status.code(), Some(0));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("nova-emu --socket PATH") && text.contains("--list-gsp-faults"),
            "{text}"
        );
    }
}

#[test]
fn command_line_errors_exit_2_with_the_usage_on_stderr() {
    for args in [
        &["--socket", "/nonexistent/x.sock", "--frobnicate"][..],
        &["--chipset", "ga102"],
        &[
            "--socket",
            "/nonexistent/x.sock",
            "--no-gsp",
            "--gsp-fault",
            "mute",
        ],
        &[
            "--socket",
            "/nonexistent/x.sock",
            "--boot0",
            "0x1_0000_0000",
        ],
    ] {
        let out = Command::new(EMU).args(args).output().expect("run nova-emu");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        assert!(err.contains("--help"), "{args:?}: {err}");
    }
}

#[test]
fn sigterm_writes_counts_and_exits_0() {
    let dir = scratch("sigterm");
    let (mut child, socket, counts) = start(&dir, &[]);
    let pid = child.id() as libc::pid_t;
    // SAFETY: kill() with a valid signal number on our own child.
    assert_eq!(unsafe { libc::kill(pid, libc::SIGTERM) }, 0);
    let status = child.wait().expect("wait");
    assert_eq!(status.code(), Some(0));
    assert!(!socket.exists(), "socket removed on SIGTERM");
    let c = counts_of(&counts);
    assert_eq!(c["chipset"], "ga102");
    assert_eq!(accesses_in_phase(&c, 0), Some(0));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn stale_socket_is_replaced_but_other_files_are_not() {
    let dir = scratch("stale");
    let socket = dir.join("gpu.sock");
    drop(UnixListener::bind(&socket).expect("bind a socket that is left behind"));
    assert!(socket.exists());
    let (mut child, _, _) = start(&dir, &[]);
    // SAFETY: kill() with a valid signal number on our own child.
    assert_eq!(
        unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) },
        0
    );
    assert_eq!(child.wait().expect("wait").code(), Some(0));

    fs::write(&socket, "not a socket").expect("plain file");
    let out = Command::new(EMU)
        .arg("--socket")
        .arg(&socket)
        .output()
        .expect("run nova-emu");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not a socket"));
    assert_eq!(
        fs::read_to_string(&socket).expect("file kept"),
        "not a socket"
    );
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn bad_vbios_files_exit_2_before_listening() {
    let dir = scratch("bad-vbios");
    let empty = dir.join("empty.rom");
    let big = dir.join("big.rom");
    fs::write(&empty, b"").expect("write");
    fs::write(&big, vec![0xffu8; (16 << 20) + 1]).expect("write");
    for (file, why) in [(&empty, "is empty"), (&big, "larger than")] {
        let out = Command::new(EMU)
            .arg("--socket")
            .arg(dir.join("gpu.sock"))
            .arg("--vbios")
            .arg(file)
            .output()
            .expect("run nova-emu");
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8_lossy(&out.stderr);
        // clap names the option: "invalid value 'FILE' for '--vbios <FILE>': ...".
        assert!(
            err.contains("'--vbios <FILE>'") && err.contains(why),
            "{err}"
        );
        assert!(!dir.join("gpu.sock").exists());
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn prom_window_serves_a_vbios_file_over_the_socket() {
    let dir = scratch("vbios");
    // A flash without an IFR header: the window shows it from its start.
    let rom: Vec<u8> = (0..600u32)
        .map(|i| u8::try_from(i * 7 % 251).expect("below 251"))
        .collect();
    let file = dir.join("board.rom");
    fs::write(&file, &rom).expect("write");
    let file_arg = file.to_str().expect("UTF-8 path");
    let (mut child, _, counts) = start(&dir, &["--vbios", file_arg]);
    let mut client = Client::new(&dir.join("gpu.sock")).expect("connect");
    for at in [0usize, 4, 0x100, 596] {
        let mut word = [0u8; 4];
        client
            .region_read(VFIO_PCI_BAR0_REGION_INDEX, 0x300000 + at as u64, &mut word)
            .expect("PROM read");
        assert_eq!(word[..], rom[at..at + 4], "NV_PROM_DATA({at:#x})");
    }
    let mut beyond = [0u8; 4];
    client
        .region_read(VFIO_PCI_BAR0_REGION_INDEX, 0x300000 + 600, &mut beyond)
        .expect("PROM read past the flash");
    assert_eq!(beyond, [0xff; 4], "erased flash");
    client.shutdown().expect("shutdown");
    drop(client);
    assert!(child.wait().expect("wait").success());
    assert_eq!(accesses_in_phase(&counts_of(&counts), 0), Some(5));
    let log = fs::read_to_string(dir.join("emu.log")).expect("log written");
    assert!(log.contains("PROM: VBIOS from"), "{log}");
    let _ = fs::remove_dir_all(&dir);
}
