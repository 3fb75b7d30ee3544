// SPDX-License-Identifier: GPL-2.0

//! The model's heap against the driver's: a probe program built on the driver's parsing core
//! for the host (`fuzz/`, the code the module runs; its own lock file, as its pinned
//! proc-macro crates cannot share this crate's) prints the layouts the driver computes, and
//! each heap must be the one the model accepts, on several chips, FB sizes and both versions.
//! It needs the bindings `make modules` generates; without them it fails, saying so, unless
//! `NOVA_EMU_SKIP_DRIVER` is set.

use std::path::{
    Path,
    PathBuf, //
};
use std::process::Command;

use super::{
    Around,
    ChipHeap,
    Expected, //
};
use crate::chipset::find;
use crate::gsp::wire::Version;

const MIB: u64 = 1 << 20;
/// The probe's `.fwimage` and bootloader sizes: 40 MiB and 24 KiB, about a real image's.
const ELF: u64 = 40 * MIB;
const BOOTLOADER: u64 = 0x6000;

const PROBE: &str = r#"
use nova_core_parse::check;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    for case in args.chunks(3) {
        let (chip, version, mib) = (&case[0], &case[1], case[2].parse::<u32>().unwrap());
        if version == "fsp" {
            let s = nova_core_parse::check_fsp::fmc_sizes(chip, mib).unwrap();
            println!("{} {}", s.heap, s.non_wpr_heap);
            continue;
        }
        let vga = ((u64::from(mib) - 1) << 20 >> 16 << 8 | 8) as u32;
        let tu = ((mib >> 10) << 4) | 10;
        let regs = match chip.as_str() {
            c if c.starts_with("tu") => (tu, 0, vga),
            "ga100" => (tu, 1, 0),
            _ => (mib, 0, vga),
        };
        let l = check::fb_layout(chip, version, regs.0, regs.1, regs.2, BOOTLOADER, ELF).unwrap();
        println!(
            "{} {} {} {}",
            l.heap.1 - l.heap.0,
            l.elf.0,
            l.non_wpr_heap.1 - l.non_wpr_heap.0,
            l.fb.1
        );
    }
}
"#;

/// Builds the probe next to this crate's target folder and runs it on `cases`; one line of
/// numbers per case.
fn probe(root: &Path, cases: &[(&str, &str, u32)]) -> Option<Vec<Vec<u64>>> {
    let bindings = root.join("gsp/fw/r570_144/bindings_generated.rs");
    if !bindings.exists() {
        assert!(
            std::env::var_os("NOVA_EMU_SKIP_DRIVER").is_some(),
            "{} is missing: run `make modules` first (or set NOVA_EMU_SKIP_DRIVER=1)",
            bindings.display()
        );
        return None;
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("emu/target"));
    let dir = target.join("driver-probe");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"driver-probe\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         [dependencies]\nnova-core-parse = {{ path = \"{}\" }}\n[workspace]\n",
        root.join("fuzz").display()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    let main = PROBE
        .replace("BOOTLOADER,", &format!("{BOOTLOADER},"))
        .replace("ELF)", &format!("{ELF})"));
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    std::fs::copy(root.join("fuzz/Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(&dir)
        .env("CARGO_TARGET_DIR", target.join("driver-probe-target"))
        // What `fuzz/.cargo/config.toml` gives the host build.
        .env("NOVA_CORE_OBJ", root)
        .env("RUSTFLAGS", "--cfg zerocopy_derive_union_into_bytes")
        .args(["run", "--quiet", "--offline", "--"]);
    for (chip, version, mib) in cases {
        cmd.args([chip.to_string(), version.to_string(), mib.to_string()]);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "the driver probe failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split(' ').map(|n| n.parse().unwrap()).collect())
            .collect(),
    )
}

#[test]
fn the_drivers_heap_is_the_one_the_model_computes() {
    // The checkout the test runs from (cargo sets the variable for the test's process too): a
    // binary built from another checkout, reused from a shared target folder, would carry
    // that checkout's path at compile time.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR")
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    let root = manifest.parent().unwrap();
    let mut cases = Vec::new();
    for chip in [
        "tu102", "tu117", "ga100", "ga102", "ga107", "ad102", "ad107",
    ] {
        for version in ["535.113.01", "570.144"] {
            for mib in [4096, 24 * 1024, 48 * 1024] {
                cases.push((chip, version, mib));
            }
        }
    }
    for chip in ["gh100", "gb100", "gb202"] {
        for mib in [24 * 1024, 80 * 1024, 192 * 1024] {
            cases.push((chip, "fsp", mib));
        }
    }
    let Some(lines) = probe(root, &cases) else {
        return;
    };
    assert_eq!(lines.len(), cases.len());
    for ((chip, version, mib), got) in cases.iter().zip(&lines) {
        let fb = u64::from(*mib) * MIB;
        let heap = ChipHeap::of(find(chip).unwrap());
        let (version, around) = match *version {
            "fsp" => (Version::R570_144, None),
            v => (
                *Version::ALL.iter().find(|x| x.name() == v).unwrap(),
                Some(Around {
                    above: got[3] - got[1],
                    non_wpr_heap: got[2],
                }),
            ),
        };
        let want = Expected::of(version, heap, fb, around);
        assert_eq!(
            got[0],
            want.computed,
            "{chip} {} {mib} MiB: the driver's heap",
            version.name()
        );
    }
}
