// SPDX-License-Identifier: GPL-2.0

//! NV_PROM: the BAR0 window onto the board's flash, through which the
//! drivers read the VBIOS.
//!
//! NV_PROM_DATA(i) is BAR0 offset 0x300000 + i, a 1 MiB window
//! (`NV_PROM_DATA__SIZE_1`, and the limit nouveau's PROM reader and
//! upstream's BIOS_MAX_SCAN_LEN keep to). The flash behind it is the
//! synthetic VBIOS of the chip ([`crate::vbios`]) or a user's dump
//! (`--vbios`), IFR header included.
//!
//! How the window presents the flash follows silicon: the IFR microcode has
//! applied the PCI ROM offset, so the window starts at the PCI expansion ROM
//! and its first bytes are 0x55 0xAA; GA100 is the exception, its window
//! shows the flash from its start, `NVGI` header included, and the driver
//! must parse the IFR header itself (Documentation/gpu/nova/core/vbios.rst).
//! A flash without an `NVGI` header is shown from its start on every chip.
//!
//! Bytes past the end of the flash read 0xff: the window maps the flash
//! part, and erased flash cells read as ones (both real dumps end in 0xff
//! padding). nouveau's PROM code only stops at the end of the window and
//! gives no other value.
//!
//! The window is read-only; writes are logged once per offset and ignored.

use std::fmt;
use std::fs::File;
use std::io::Read;
use std::path::{
    Path,
    PathBuf, //
};
use std::sync::Arc;

use crate::chipset::{
    Chipset,
    CHIP_GA100, //
};
use crate::logger::{
    LogOnce,
    Logger, //
};
use crate::vbios;

/// NV_PROM_DATA(0): the window's first byte in BAR0.
pub const NV_PROM_DATA: u64 = 0x300000;

/// The window's size (NV_PROM_DATA__SIZE_1).
pub const NV_PROM_DATA_SIZE: u64 = 0x100000;

/// What a read past the end of the flash returns, byte by byte.
pub const ERASED: u8 = 0xff;

/// The largest flash a dump may hold: 16 MiB, the largest SPI flash part NVIDIA boards carry
/// (nvflash dumps of Ada boards are 2 MiB, an A/B pair). The window shows only its first MiB
/// from the PCI expansion ROM on, as on silicon.
pub const MAX_FLASH: u64 = 16 << 20;

/// How many distinct offsets of ignored writes are logged.
const WRITE_LOG_LIMIT: usize = 64;

/// A user's flash dump (`--vbios FILE`), whole, IFR header included.
#[derive(Clone)]
pub struct Dump {
    pub path: PathBuf,
    pub bytes: Arc<[u8]>,
}

impl fmt::Debug for Dump {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Dump({}, {} bytes)",
            self.path.display(),
            self.bytes.len()
        )
    }
}

impl Dump {
    /// Reads a dump, refusing an empty one and one larger than any flash part
    /// ([`MAX_FLASH`]). A dump larger than the window is taken whole: the window shows what
    /// silicon's shows of it ([`Prom::new`] says which part).
    pub fn load(path: &Path) -> Result<Self, String> {
        let shown = path.display();
        let limit = MAX_FLASH;
        let file = File::open(path).map_err(|e| format!("cannot open '{shown}': {e}"))?;
        let mut bytes = Vec::new();
        // One byte more than allowed tells a too large file apart, without
        // reading all of it.
        file.take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| format!("cannot read '{shown}': {e}"))?;
        if bytes.is_empty() {
            return Err(format!("'{shown}' is empty"));
        }
        if bytes.len() > usize::try_from(limit).unwrap_or(usize::MAX) {
            return Err(format!(
                "'{shown}' is larger than {limit:#x} bytes (16 MiB), more than any board's flash"
            ));
        }
        Ok(Dump {
            path: path.to_path_buf(),
            bytes: bytes.into(),
        })
    }
}

/// Whether the chip's PROM window starts at the PCI expansion ROM (the IFR
/// microcode applied the ROM offset): every chip but GA100.
fn skips_ifr(chip: &Chipset) -> bool {
    chip.chip_id != CHIP_GA100
}

/// The PROM window.
pub struct Prom {
    flash: Arc<[u8]>,
    /// The flash offset shown at NV_PROM_DATA(0).
    start: usize,
    writes: LogOnce,
    log: Logger,
}

impl Prom {
    /// The window onto `flash` of a `chip` board; `what` names the flash in
    /// the log.
    pub fn new(flash: Arc<[u8]>, chip: &Chipset, what: &str, log: Logger) -> Self {
        let (start, how) = if skips_ifr(chip) {
            match vbios::pci_rom_offset(&flash) {
                Ok(Some(offset)) => (offset, "the IFR header skipped, as on silicon"),
                Ok(None) => (0, "no IFR header"),
                Err(e) => {
                    log.line(&format!(
                        "PROM: the IFR header of {what} is not usable ({e}); the window shows \
                         the flash from its start"
                    ));
                    (0, "IFR header not usable")
                }
            }
        } else {
            (0, "IFR header shown, as on GA100")
        };
        log.line(&format!(
            "PROM: {what}, {:#x} bytes; NV_PROM_DATA(0) is flash offset {start:#x} ({how})",
            flash.len()
        ));
        let window = usize::try_from(NV_PROM_DATA_SIZE).unwrap_or(usize::MAX);
        if flash.len().saturating_sub(start) > window {
            log.line(&format!(
                "PROM: {what} is larger than the window: the window shows flash {start:#x}..{:#x}, \
                 as silicon's does; the rest ({:#x} bytes) cannot be read through it",
                start + window,
                flash.len() - start - window
            ));
        }
        Prom {
            flash,
            start,
            writes: LogOnce::new("PROM write", WRITE_LOG_LIMIT),
            log,
        }
    }

    /// Whether the 4-aligned BAR0 `offset` is in the window.
    pub fn contains(offset: u64) -> bool {
        (NV_PROM_DATA..NV_PROM_DATA + NV_PROM_DATA_SIZE).contains(&offset)
    }

    /// The flash offset shown at NV_PROM_DATA(0).
    #[cfg(test)]
    pub fn start(&self) -> usize {
        self.start
    }

    /// The flash as the window shows it: from its start on, at most the window's size.
    pub fn window(&self) -> &[u8] {
        let rest = self.flash.get(self.start..).unwrap_or(&[]);
        let size = usize::try_from(NV_PROM_DATA_SIZE).unwrap_or(usize::MAX);
        &rest[..rest.len().min(size)]
    }

    /// Byte `index` of the window.
    pub fn byte(&self, index: usize) -> u8 {
        self.window().get(index).copied().unwrap_or(ERASED)
    }

    /// The dword at the 4-aligned BAR0 `offset`, or None outside the
    /// window. Reading has no side effect.
    pub fn read(&self, offset: u64) -> Option<u32> {
        if !Self::contains(offset) {
            return None;
        }
        let index = usize::try_from(offset - NV_PROM_DATA).ok()?;
        let bytes = [0, 1, 2, 3].map(|i| self.byte(index + i));
        Some(u32::from_le_bytes(bytes))
    }

    /// A write into the window: ignored, logged once per offset.
    pub fn write(&mut self, offset: u64, value: u32) {
        self.writes.log(&self.log, offset, || {
            format!(
                "write of {value:#010x} to NV_PROM_DATA at BAR0+{offset:#08x} (read-only; ignored)"
            )
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chipset::find;

    fn prom(flash: Vec<u8>, chip: &str) -> (Prom, crate::logger::MemoryLog) {
        let (log, text) = Logger::memory();
        let chip = find(chip).expect("chip in table");
        (Prom::new(flash.into(), chip, "test flash", log), text)
    }

    fn ifr_flash() -> Vec<u8> {
        vbios::Vbios::build(find("ga102").expect("ga102")).into_flash()
    }

    #[test]
    fn window_is_1_mib_at_0x300000() {
        assert!(!Prom::contains(0x2ffffc));
        assert!(Prom::contains(0x300000));
        assert!(Prom::contains(0x3ffffc));
        assert!(!Prom::contains(0x400000));
    }

    #[test]
    fn window_skips_the_ifr_header_except_on_ga100() {
        let flash = ifr_flash();
        let rom = vbios::pci_rom_offset(&flash)
            .expect("valid")
            .expect("has an IFR header");
        let (ga102, text) = prom(flash.clone(), "ga102");
        assert_eq!(ga102.start(), rom);
        assert_eq!(ga102.read(NV_PROM_DATA).map(|v| v & 0xffff), Some(0xaa55));
        assert!(
            text.contents().contains("IFR header skipped"),
            "{}",
            text.contents()
        );
        let (ga100, _) = prom(flash.clone(), "ga100");
        assert_eq!(ga100.start(), 0);
        assert_eq!(ga100.read(NV_PROM_DATA), Some(u32::from_le_bytes(*b"NVGI")));
    }

    #[test]
    fn reads_past_the_flash_return_erased_bytes() {
        let (p, _) = prom(vec![1, 2, 3, 4, 5, 6], "tu102");
        assert_eq!(p.read(NV_PROM_DATA), Some(0x0403_0201));
        assert_eq!(p.read(NV_PROM_DATA + 4), Some(0xffff_0605));
        assert_eq!(p.read(NV_PROM_DATA + 8), Some(0xffff_ffff));
        assert_eq!(
            p.read(NV_PROM_DATA + NV_PROM_DATA_SIZE - 4),
            Some(0xffff_ffff)
        );
        assert_eq!(p.read(NV_PROM_DATA + NV_PROM_DATA_SIZE), None);
        assert_eq!(p.read(0), None);
    }

    #[test]
    fn an_unusable_ifr_header_is_logged_and_shown_from_the_start() {
        let mut flash = ifr_flash();
        flash[0x2000] = b'X'; // Breaks the ROM directory's signature.
        let (p, text) = prom(flash, "ga104");
        assert_eq!(p.start(), 0);
        assert!(
            text.contents().contains("not usable"),
            "{}",
            text.contents()
        );
    }

    #[test]
    fn writes_are_ignored_and_logged_once() {
        let (mut p, text) = prom(ifr_flash(), "ga102");
        let before = p.read(NV_PROM_DATA);
        p.write(NV_PROM_DATA, 0);
        p.write(NV_PROM_DATA, 1);
        assert_eq!(p.read(NV_PROM_DATA), before);
        assert_eq!(
            text.contents()
                .matches("NV_PROM_DATA at BAR0+0x300000")
                .count(),
            1
        );
    }

    #[test]
    fn dumps_must_be_between_1_byte_and_the_largest_flash() {
        let dir = std::env::temp_dir().join(format!("nova-emu-prom-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch folder");
        let empty = dir.join("empty.rom");
        let big = dir.join("big.rom");
        let full = dir.join("full.rom");
        std::fs::write(&empty, b"").expect("write");
        std::fs::write(&big, vec![0u8; MAX_FLASH as usize + 1]).expect("write");
        std::fs::write(&full, vec![0x55u8; MAX_FLASH as usize]).expect("write");
        assert!(Dump::load(&empty).unwrap_err().contains("is empty"));
        assert!(Dump::load(&big).unwrap_err().contains("larger than"));
        assert!(Dump::load(&dir.join("missing.rom"))
            .unwrap_err()
            .contains("cannot open"));
        assert!(Dump::load(&dir).unwrap_err().contains("cannot read"));
        let dump = Dump::load(&full).expect("the largest flash is allowed");
        assert_eq!(dump.bytes.len(), MAX_FLASH as usize);
        assert!(format!("{dump:?}").contains(&format!("{MAX_FLASH} bytes")));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_flash_larger_than_the_window_shows_its_first_mib_from_the_rom() {
        // An nvflash dump of an Ada board: 2 MiB, the second half a copy of the first (A/B).
        let mut flash = ifr_flash();
        let rom = vbios::pci_rom_offset(&flash)
            .expect("valid")
            .expect("has an IFR header");
        flash.resize(NV_PROM_DATA_SIZE as usize, ERASED);
        let copy = flash.clone();
        flash.extend_from_slice(&copy);
        let (p, text) = prom(flash.clone(), "ad102");
        assert_eq!(p.window().len(), NV_PROM_DATA_SIZE as usize);
        assert_eq!(p.window(), &flash[rom..rom + NV_PROM_DATA_SIZE as usize]);
        let last = NV_PROM_DATA + NV_PROM_DATA_SIZE - 4;
        let at = rom + NV_PROM_DATA_SIZE as usize - 4;
        assert_eq!(
            p.read(last),
            Some(u32::from_le_bytes(
                flash[at..at + 4].try_into().expect("4 bytes")
            ))
        );
        assert!(
            text.contents().contains("the window shows flash 0x"),
            "{}",
            text.contents()
        );
        // A flash that fits says nothing of the sort.
        let (_, text) = prom(ifr_flash(), "ad102");
        assert!(!text.contents().contains("the window shows flash 0x"));
    }
}
