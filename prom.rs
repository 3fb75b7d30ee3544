// SPDX-License-Identifier: GPL-2.0

//! The PROM window: the VBIOS as BAR0 shows it from `NV_PROM_DATA` (0x300000) on, read out
//! as far as its image chain reaches and validated by [`crate::vbios`].
//!
//! The window is 1 MiB, and every word of it is one MMIO read (slow on silicon, slower on the
//! emulated GPU), while the ROMs are far shorter: 30 to 33 KiB for the emulated GPU's, 480 KiB
//! and 640 KiB for the two real boards the tests read. So the reader reads a first part,
//! validates it, and reads on only while the validator says the bytes end too early, and only
//! as far as it says the walk needs ([`VbiosError::rom_needed`]), never past the window.

use kernel::{
    io::Io,
    prelude::*, //
};

use crate::{
    bar0::{
        Bar0,
        SharedBar0, //
    },
    untrusted::Untrusted,
    vbios::{
        read_on,
        Vbios,
        VbiosError,
        PROM_SIZE, //
    },
};

/// `NV_PROM_DATA(0)`: the window's first byte in BAR0.
const NV_PROM_DATA: usize = 0x300000;

/// What the reader reads first: the first image's header and more.
const FIRST_READ: usize = 0x1000;

/// Bytes read per step: one revocable BAR0 section each (see [`SharedBar0`]), into a buffer on
/// the stack, then appended to the ROM outside it (appending allocates, which may sleep).
const CHUNK: usize = 0x400;

/// Why no VBIOS came out of the window.
pub(crate) enum RomError {
    /// The ROM lies: the validator's reason.
    Invalid(VbiosError),
    /// The window could not be read (the BAR is too small for it, or memory ran out).
    Read(Error),
}

impl From<Error> for RomError {
    fn from(e: Error) -> Self {
        RomError::Read(e)
    }
}

/// The bytes of the window, as far as the VBIOS in it needed them: untrusted until validated.
pub(crate) struct Rom(Untrusted<KVec<u8>>);

impl Rom {
    /// Reads the window until the VBIOS in it validates, fails for a reason more bytes cannot
    /// cure, or the window ends; returns the bytes read and how the VBIOS in them validated.
    pub(crate) fn read(bar: &SharedBar0) -> Result<Rom, RomError> {
        let mut rom = Untrusted::new_untrusted(KVec::new());
        let mut want = FIRST_READ;
        loop {
            read_window(bar, &mut rom, want)?;
            let bytes: &Untrusted<[u8]> = &rom;
            match bytes.validate_ref::<Vbios<'_>>() {
                Ok(_) => return Ok(Rom(rom)),
                Err(e) => match read_on(rom.len(), &e, CHUNK) {
                    Some(next) => want = next,
                    None => return Err(RomError::Invalid(e)),
                },
            }
        }
    }

    /// The validated VBIOS (validated again: it borrows the bytes).
    pub(crate) fn vbios(&self) -> Result<Vbios<'_>, VbiosError> {
        let bytes: &Untrusted<[u8]> = &self.0;
        bytes.validate_ref::<Vbios<'_>>()
    }

    /// How many bytes of the window were read.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }
}

/// Appends the window's bytes from what `rom` holds up to `want` (at most the window).
fn read_window(bar: &SharedBar0, rom: &mut Untrusted<KVec<u8>>, want: usize) -> Result {
    let mut chunk = [0u8; CHUNK];
    let end = want.min(PROM_SIZE);
    let mut at = rom.len();
    while at < end {
        let n = CHUNK.min(end - at);
        let raw = chunk.get_mut(..n).ok_or(EINVAL)?;
        bar.with(|bar| read_chunk(bar, at, raw))??;
        rom.extend_from_untrusted(Untrusted::new_untrusted_ref(&*raw), GFP_KERNEL)?;
        at += n;
    }
    Ok(())
}

/// Reads the window's bytes from `at` into `raw`, word by word: the raw device data, wrapped
/// by the caller as soon as it is read.
fn read_chunk(bar: &Bar0<'_>, at: usize, raw: &mut [u8]) -> Result {
    for (i, word) in raw.chunks_exact_mut(4).enumerate() {
        let value = bar.try_read32(NV_PROM_DATA + at + i * 4)?;
        word.copy_from_slice(&value.to_le_bytes());
    }
    Ok(())
}
