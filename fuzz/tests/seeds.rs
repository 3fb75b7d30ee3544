// SPDX-License-Identifier: GPL-2.0

//! The fuzzers start from valid inputs: the seeds `seeds.py` makes from the real firmware
//! files (small copies of the ELF images, the binary files whole) pass the validators.

use std::path::PathBuf;
use std::process::Command;

use nova_core_parse::check;

#[test]
fn seeds_of_real_firmware_are_valid_inputs() {
    let fw_root = std::env::var("NOVA_FW_ROOT").unwrap_or_else(|_| "/usr/lib/firmware".into());
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("seeds");
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new("python3")
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/seeds.py"))
        .args([fw_root.as_str(), "/nonexistent", out.to_str().unwrap()])
        .status()
        .expect("python3 seeds.py");
    assert!(status.success());
    let read = |target: &str| -> Vec<Vec<u8>> {
        std::fs::read_dir(out.join(target))
            .unwrap_or_else(|e| panic!("{target}: {e}"))
            .map(|e| std::fs::read(e.unwrap().path()).unwrap())
            .collect()
    };
    let elf = read("elf_sections");
    assert!(elf.len() >= 5, "{} ELF seeds", elf.len());
    for s in &elf {
        let n = check::elf_sections(s).expect("a small copy of a real image is a valid ELF file");
        assert!(n >= 3);
    }
    let bin = read("bin_file");
    for s in &bin {
        check::bin_file(s).expect("a real binary firmware file is valid");
    }
    // The booter files among them validate for their layout (Turing's or GA102's).
    assert!(bin.iter().filter(|s| check::booter_file(s) >= 1).count() >= 8);
    // The emulated GSP's sequence and one command of each opcode: valid sequences.
    let sequences = read("sequencer");
    assert_eq!(sequences.len(), 7);
    for s in &sequences {
        assert!(check::any_sequence(s) >= 1);
    }
    let ids = read("identify");
    assert_eq!(
        ids.iter().filter(|s| check::identify(s).is_some()).count(),
        24
    );
    // The emulated GPU's PCI function is accepted, the same without BAR1 is not.
    let functions = read("pci_function");
    assert_eq!(functions.len(), 2);
    assert_eq!(
        functions.iter().filter(|s| check::pci_function(s)).count(),
        1
    );
}
