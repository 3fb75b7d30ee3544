// SPDX-License-Identifier: GPL-2.0

//! The PROM window: the VBIOS as BAR0 shows it from `NV_PROM_DATA` (0x300000) on, read out
//! as far as its image chain reaches and validated by [`crate::vbios`].
//!
//! The window is 1 MiB, and every word of it is one MMIO read, while the ROMs are far shorter
//! (321 KiB and 590 KiB for a TU106 and a GA104 board). So the driver reads a first part,
//! validates it, and reads on only while the validator says the bytes end too early, as far as
//! it says the walk needs, never past the window: [`vbios::read_in_parts`], which the host
//! tests run on files, drives this file's [`Window`] over BAR0.

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
        self,
        ReadError,
        Vbios,
        VbiosError,
        Window,
        PROM_SIZE, //
    },
};

/// `NV_PROM_DATA(0)`: the window's first byte in BAR0.
const NV_PROM_DATA: usize = 0x300000;

/// What the reader reads first: the first image's header and more.
const FIRST_READ: usize = 0x1000;

/// The parts the reader reads on in.
const PART: usize = 0x400;

/// Bytes read per revocable BAR0 section (see [`SharedBar0`]), into a buffer on the stack, then
/// appended to the ROM outside the section (appending allocates, which may sleep).
const CHUNK: usize = 0x100;

/// Why no VBIOS came out of the window.
pub(crate) type RomError = ReadError<Error>;

/// The bytes of the window, as far as the VBIOS in it needed them: untrusted until validated.
pub(crate) struct Rom(Untrusted<KVec<u8>>);

impl Rom {
    /// Reads the window until the VBIOS in it validates, fails for a reason more bytes cannot
    /// cure, or the window ends.
    pub(crate) fn read(bar: &SharedBar0) -> Result<Rom, RomError> {
        let mut window = Bar0Window {
            bar,
            rom: Untrusted::new_untrusted(KVec::new()),
        };
        vbios::read_in_parts(&mut window, FIRST_READ, PART)?;
        Ok(Rom(window.rom))
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

/// The window through BAR0, and what was read of it.
struct Bar0Window<'a> {
    bar: &'a SharedBar0,
    rom: Untrusted<KVec<u8>>,
}

impl Window for Bar0Window<'_> {
    type Err = Error;

    /// Appends the window's bytes from what is held up to `len` (at most the window).
    fn read_to(&mut self, len: usize) -> Result {
        let mut chunk = [0u8; CHUNK];
        let end = len.min(PROM_SIZE);
        let mut at = self.rom.len();
        while at < end {
            let n = CHUNK.min(end - at);
            let raw = chunk.get_mut(..n).ok_or(EINVAL)?;
            self.bar.with(|bar| read_chunk(bar, at, raw))??;
            self.rom
                .extend_from_untrusted(Untrusted::new_untrusted_ref(&*raw), GFP_KERNEL)?;
            at += n;
        }
        Ok(())
    }

    fn bytes(&self) -> &Untrusted<[u8]> {
        &self.rom
    }
}

/// Reads the window's bytes from `at` into `raw` (whole words), word by word: the raw device
/// data, wrapped by the caller as soon as it is read.
fn read_chunk(bar: &Bar0<'_>, at: usize, raw: &mut [u8]) -> Result {
    if raw.len() % 4 != 0 {
        return Err(EINVAL);
    }
    for (i, word) in raw.chunks_exact_mut(4).enumerate() {
        let value = bar.try_read32(NV_PROM_DATA + at + i * 4)?;
        word.copy_from_slice(&value.to_le_bytes());
    }
    Ok(())
}
