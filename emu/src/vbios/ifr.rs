// SPDX-License-Identifier: GPL-2.0

//! The Init-From-ROM (IFR) area in front of the PCI expansion ROM, and the
//! lookup of the PCI expansion ROM's offset through it.
//!
//! The fixed header is four dwords (Documentation/gpu/nova/core/vbios.rst,
//! OpenRM's NV_PBUS_IFR_FMT_FIXED0..3): FIXED0 the signature `NVGI`, FIXED1
//! bits 30:16 the fixed data size and bits 15:8 the software version, FIXED2
//! bits 19:0 the total data size. Versions 1 and 2 keep the PCI ROM offset
//! in the dword at fixed data size + 4; version 3, as on the real TU106 and
//! GA104 boards, keeps a flash status offset in the dword at the total data
//! size, and the ROM directory (`RFRD`) 4 KiB after that holds the PCI ROM
//! offset at +8.
//!
//! The synthetic area is version 3: the fixed header, an empty IFR data area
//! (no register writes) up to 0x400, the flash status offset there, an erased
//! flash status section at 0x1000 and the ROM directory at 0x2000. Only the
//! fields the drivers read are filled; the rest is erased flash (0xff).

/// FIXED0: the IFR signature.
const SIGNATURE: [u8; 4] = *b"NVGI";

/// The ROM directory's signature.
const ROM_DIRECTORY_SIGNATURE: [u8; 4] = *b"RFRD";

/// The software version of the synthetic header.
const VERSION: u8 = 3;

/// FIXED_DATA_SIZE of the synthetic header: the four fixed dwords.
const FIXED_DATA_SIZE: u16 = 0x10;

/// TOTAL_DATA_SIZE of the synthetic header: where the flash status offset
/// is.
const TOTAL_DATA_SIZE: u32 = 0x400;

/// Where the synthetic flash status section starts.
const FLASH_STATUS_OFFSET: u32 = 0x1000;

/// Size of the flash status section (upstream's RFW_FLASH_STATUS_SIZE).
const FLASH_STATUS_SIZE: usize = 0x1000;

/// Offset of the PCI ROM offset in the ROM directory.
const ROM_DIRECTORY_PCI_ROM: usize = 8;

/// Offset, in versions 1 and 2, of the PCI ROM offset after the fixed data.
const EXT_ROM_ADDR_OFFSET: usize = 4;

/// What erased flash reads.
const ERASED: u8 = 0xff;

/// The largest PCI ROM offset the PROM window can reach.
const WINDOW: usize = 0x10_0000;

/// The IFR area of a flash whose PCI expansion ROM starts at
/// `pci_rom_offset`: `pci_rom_offset` bytes.
pub fn area(pci_rom_offset: usize) -> Vec<u8> {
    let total = usize::try_from(TOTAL_DATA_SIZE).unwrap_or(usize::MAX);
    let status = usize::try_from(FLASH_STATUS_OFFSET).unwrap_or(usize::MAX);
    let directory = status + FLASH_STATUS_SIZE;

    let mut area = vec![ERASED; pci_rom_offset];
    area[..total].fill(0);
    let fixed1 = (u32::from(FIXED_DATA_SIZE) << 16) | (u32::from(VERSION) << 8);
    let words = [u32::from_le_bytes(SIGNATURE), fixed1, TOTAL_DATA_SIZE, 0];
    for (i, word) in words.iter().enumerate() {
        area[i * 4..i * 4 + 4].copy_from_slice(&word.to_le_bytes());
    }
    area[total..total + 4].copy_from_slice(&FLASH_STATUS_OFFSET.to_le_bytes());
    area[directory..directory + 4].copy_from_slice(&ROM_DIRECTORY_SIGNATURE);
    area[directory + 4..directory + 8].fill(0);
    let pci_rom = super::to_u32(pci_rom_offset);
    let at = directory + ROM_DIRECTORY_PCI_ROM;
    area[at..at + 4].copy_from_slice(&pci_rom.to_le_bytes());
    area
}

/// Where the PCI expansion ROM starts in `flash`, from its IFR header, the
/// way upstream and nouveau find it: `Ok(None)` when the flash does not
/// start with `NVGI` (no IFR header: the ROM starts at 0), an error naming
/// what is wrong when the header, the ROM directory or the offset is not
/// usable.
pub fn pci_rom_offset(flash: &[u8]) -> Result<Option<usize>, String> {
    let dword = |at: usize| -> Result<u32, String> {
        at.checked_add(4)
            .and_then(|end| flash.get(at..end))
            .and_then(|b| b.try_into().ok())
            .map(u32::from_le_bytes)
            .ok_or_else(|| {
                format!(
                    "offset {at:#x} is beyond the flash's {:#x} bytes",
                    flash.len()
                )
            })
    };
    let to_usize = |v: u32| usize::try_from(v).unwrap_or(usize::MAX);

    if flash.get(..4) != Some(&SIGNATURE[..]) {
        return Ok(None);
    }
    let fixed1 = dword(4)?;
    let version = fixed1.to_le_bytes()[1];
    let offset = match version {
        1 | 2 => {
            let fixed_data_size = to_usize((fixed1 >> 16) & 0x7fff);
            dword(fixed_data_size + EXT_ROM_ADDR_OFFSET)?
        }
        3 => {
            let total_data_size = to_usize(dword(8)? & 0x000f_ffff);
            let status = to_usize(dword(total_data_size)?);
            let directory = status
                .checked_add(FLASH_STATUS_SIZE)
                .ok_or_else(|| format!("flash status offset {status:#x} overflows"))?;
            let signature = dword(directory)?;
            if signature.to_le_bytes() != ROM_DIRECTORY_SIGNATURE {
                return Err(format!(
                    "no ROM directory (RFRD) at {directory:#x}, found {signature:#010x}"
                ));
            }
            dword(directory + ROM_DIRECTORY_PCI_ROM)?
        }
        _ => return Err(format!("unsupported IFR header version {version}")),
    };
    let offset = to_usize(offset);
    if offset % 4 != 0 || offset >= WINDOW || offset >= flash.len() {
        return Err(format!(
            "PCI ROM offset {offset:#x} is unaligned or beyond the flash's {:#x} bytes",
            flash.len()
        ));
    }
    Ok(Some(offset))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_area_leads_to_its_pci_rom_offset() {
        let mut flash = area(0x4000);
        flash.extend_from_slice(&[0x55, 0xaa]);
        assert_eq!(pci_rom_offset(&flash), Ok(Some(0x4000)));
        assert_eq!(&flash[..4], b"NVGI");
        assert_eq!(flash[5], 3, "FIXED1 bits 15:8: version 3");
    }

    #[test]
    fn a_flash_without_nvgi_has_no_ifr_offset() {
        assert_eq!(pci_rom_offset(&[0x55, 0xaa, 0, 0]), Ok(None));
        assert_eq!(pci_rom_offset(&[]), Ok(None));
    }

    #[test]
    fn version_2_keeps_the_offset_after_the_fixed_data() {
        let mut flash = vec![0u8; 0x200];
        flash[..4].copy_from_slice(b"NVGI");
        flash[4..8].copy_from_slice(&((0x24u32 << 16) | (2 << 8)).to_le_bytes());
        flash[0x28..0x2c].copy_from_slice(&0x100u32.to_le_bytes());
        assert_eq!(pci_rom_offset(&flash), Ok(Some(0x100)));
    }

    #[test]
    fn broken_headers_are_errors_not_panics() {
        let good = area(0x4000);
        let mut bad_version = good.clone();
        bad_version[5] = 7;
        assert!(pci_rom_offset(&bad_version)
            .unwrap_err()
            .contains("version 7"));
        let mut no_directory = good.clone();
        no_directory[0x2000] = b'X';
        assert!(pci_rom_offset(&no_directory).unwrap_err().contains("RFRD"));
        let mut far = good.clone();
        far[0x400..0x404].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(pci_rom_offset(&far).is_err());
        assert!(pci_rom_offset(&good[..0x404]).is_err());
        // The offset points past the end of this truncated flash.
        assert!(pci_rom_offset(&good).is_err());
    }
}
