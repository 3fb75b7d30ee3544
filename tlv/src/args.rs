// SPDX-License-Identifier: GPL-2.0

//! The command line of `nova-tlv`: what to do, checked before anything is read.

use std::path::PathBuf;

use nova_tlv::chip::{
    self,
    Chip, //
};

/// What the command line asks for.
pub enum Command {
    /// Convert one chip's package files of one version.
    Convert {
        firmware_dir: PathBuf,
        chip: &'static Chip,
        version: String,
        out: PathBuf,
    },
    /// Show a TLV file.
    Dump(PathBuf),
    /// Print the help text.
    Help,
}

/// The help text.
pub fn help() -> String {
    let chips: Vec<&str> = chip::CHIPS.iter().map(|c| c.name).collect();
    format!(
        "\
nova-tlv: converts NVIDIA's GSP firmware package files (nvidia/<chip>/gsp/<name>-<version>.bin,
as linux-firmware ships them) into the TLV files Linux 7.3's nova-core requests.

Usage:
  nova-tlv --firmware-dir DIR --chip CHIP --version VERSION --out DIR
  nova-tlv --dump FILE.tlv
  nova-tlv --help

  --firmware-dir DIR  the folder holding nvidia/ (e.g. /usr/lib/firmware)
  --chip CHIP         the chip whose files to convert, one of:
                      {}
  --version VERSION   the GSP firmware version, e.g. 570.144 (`.fwversion` must agree)
  --out DIR           where to write the files (created if missing): the TLV files the chip
                      needs (gsp.tlv, gsp_bootloader.tlv, and booter_load.tlv,
                      booter_unload.tlv, gen_bootloader.tlv or fmc.tlv as its boot method
                      wants) and gsp.bin, the GSP-RM image gsp.tlv names
  --dump FILE.tlv     print a TLV file's tags, lengths and values

The generic bootloader (gen_bootloader.tlv) is made from gen_bootloader-{}.bin whatever
the version: NVIDIA ships it in that version only.

Exit status: 0 on success, 1 on a missing or invalid file, 2 on a usage error.
",
        chips.join(" "),
        nova_tlv::convert::GEN_BOOTLOADER_VERSION,
    )
}

/// Whether `v` can be a version: digits, letters, dots, dashes and underscores, as in file
/// names of the package.
fn valid_version(v: &str) -> bool {
    !v.is_empty()
        && v.bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'-' | b'_'))
        && v != "."
        && v != ".."
}

/// Parses the command line (without the program name).
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, String> {
    let mut firmware_dir = None;
    let mut chip = None;
    let mut version = None;
    let mut out = None;
    let mut dump = None;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        if arg == "--help" || arg == "-h" {
            return Ok(Command::Help);
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => (arg.clone(), None),
        };
        let slot = match name.as_str() {
            "--firmware-dir" => &mut firmware_dir,
            "--chip" => &mut chip,
            "--version" => &mut version,
            "--out" => &mut out,
            "--dump" => &mut dump,
            _ => return Err(format!("unknown argument '{arg}'")),
        };
        let value = match inline {
            Some(v) => v,
            None => args.next().ok_or_else(|| format!("{name} needs a value"))?,
        };
        if slot.replace(value).is_some() {
            return Err(format!("{name} given twice"));
        }
    }
    if let Some(file) = dump {
        if firmware_dir.is_some() || chip.is_some() || version.is_some() || out.is_some() {
            return Err("--dump takes no other option".into());
        }
        return Ok(Command::Dump(file.into()));
    }
    let need = |v: Option<String>, name: &str| v.ok_or_else(|| format!("{name} is missing"));
    let firmware_dir = need(firmware_dir, "--firmware-dir")?;
    let chip_name = need(chip, "--chip")?;
    let version = need(version, "--version")?;
    let out = need(out, "--out")?;
    let chip = chip::find(&chip_name).ok_or_else(|| format!("unknown chip '{chip_name}'"))?;
    if !valid_version(&version) {
        return Err(format!("'{version}' is not a firmware version"));
    }
    Ok(Command::Convert {
        firmware_dir: firmware_dir.into(),
        chip,
        version,
        out: out.into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Result<Command, String> {
        parse(s.split_whitespace().map(String::from))
    }

    #[test]
    fn takes_a_conversion() {
        let c = args("--firmware-dir /fw --chip ga102 --version=570.144 --out /o");
        assert!(matches!(
            c,
            Ok(Command::Convert { chip, ref version, .. })
                if chip.name == "ga102" && version == "570.144"
        ));
    }

    #[test]
    fn takes_help_and_dump() {
        assert!(matches!(args("--help"), Ok(Command::Help)));
        assert!(matches!(args("--dump x.tlv"), Ok(Command::Dump(_))));
    }

    #[test]
    fn rejects_bad_command_lines() {
        for (line, why) in [
            ("--chip ga102", "--firmware-dir is missing"),
            ("--bogus", "unknown argument '--bogus'"),
            ("--out", "--out needs a value"),
            ("--chip a --chip b", "--chip given twice"),
            ("--dump x --chip ga102", "--dump takes no other option"),
            (
                "--firmware-dir f --chip gv100 --version 1 --out o",
                "unknown chip 'gv100'",
            ),
            (
                "--firmware-dir f --chip ga102 --version ../x --out o",
                "'../x' is not a firmware version",
            ),
        ] {
            assert_eq!(args(line).err().as_deref(), Some(why), "{line}");
        }
    }
}
