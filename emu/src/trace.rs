// SPDX-License-Identifier: GPL-2.0

//! `--trace FILE`: every access to a BAR (BAR0 with the PROM window, and the unbacked BARs),
//! one line each, in the order they happen, to compare what two drivers do to the same chip:
//!
//! ```text
//! <n> <phase> <R|W> <BAR> <offset> <size> <value>
//! 17 0 R BAR0 0x000a00 4 0x172a1000
//! ```
//!
//! `n` counts from 1; `phase` is the harness's phase marker at the time; offsets and values
//! are hex, values little-endian as the access carried them (what a read returned, what a
//! write wrote), at most 8 bytes. Each line is written as it happens (the file is line
//! buffered), so a trace cut short by a crash still holds everything up to it.
//!
//! Each command GSP-RM takes from the command queue (whole, after its continuation records)
//! is a line too, numbered with the accesses, when GSP-RM takes it:
//!
//! ```text
//! <n> <phase> RPC <function> <name> <length> <payload>
//! 2113 0 RPC 73 SET_REGISTRY 52 0x34000000...
//! ```
//!
//! The payload is in hex, byte by byte in memory order (`-` when empty), with `..` for each
//! byte the model masks: what depends on where the guest placed the function (BAR addresses,
//! the bus number), which differs between two boots of the same chip.

use std::fs::File;
use std::io::{
    LineWriter,
    Write, //
};
use std::path::Path;

/// Which way an access went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    Read,
    Write,
}

/// The trace file.
pub struct Trace {
    out: LineWriter<File>,
    n: u64,
    failed: bool,
}

impl Trace {
    /// Creates (or truncates) the trace file.
    pub fn create(path: &Path) -> std::io::Result<Trace> {
        Ok(Trace {
            out: LineWriter::new(File::create(path)?),
            n: 0,
            failed: false,
        })
    }

    /// Records a command GSP-RM took: `masked` is the byte range of `payload` shown as `..`.
    pub fn record_command(
        &mut self,
        phase: u32,
        function: u32,
        name: &str,
        payload: &[u8],
        masked: Option<std::ops::Range<usize>>,
    ) -> Option<String> {
        let mut hex = String::with_capacity(2 + 2 * payload.len());
        if payload.is_empty() {
            hex.push('-');
        } else {
            hex.push_str("0x");
            for (i, b) in payload.iter().enumerate() {
                if masked.as_ref().is_some_and(|r| r.contains(&i)) {
                    hex.push_str("..");
                } else {
                    hex.push_str(&format!("{b:02x}"));
                }
            }
        }
        self.write(|n| {
            format!(
                "{n} {phase} RPC {function} {name} {} {hex}\n",
                payload.len()
            )
        })
    }

    /// Records one access; a write error stops the trace (once) rather than the device.
    pub fn record(
        &mut self,
        phase: u32,
        dir: Dir,
        bar: &str,
        offset: u64,
        data: &[u8],
    ) -> Option<String> {
        let mut value = [0u8; 8];
        let len = data.len().min(8);
        value[..len].copy_from_slice(&data[..len]);
        self.write(|n| {
            format!(
                "{n} {phase} {} {bar} {offset:#08x} {} {:#x}\n",
                match dir {
                    Dir::Read => 'R',
                    Dir::Write => 'W',
                },
                data.len(),
                u64::from_le_bytes(value)
            )
        })
    }

    /// Writes the next line, `line(n)` for its number `n`; a write error stops the trace
    /// (once) rather than the device, and is returned for the log.
    fn write(&mut self, line: impl FnOnce(u64) -> String) -> Option<String> {
        if self.failed {
            return None;
        }
        self.n += 1;
        match self.out.write_all(line(self.n).as_bytes()) {
            Ok(()) => None,
            Err(e) => {
                self.failed = true;
                Some(format!("trace: cannot write ({e}); tracing stopped"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_access_as_it_happens() {
        let dir = std::env::temp_dir().join(format!("nova-emu-trace-{}", std::process::id()));
        let mut t = Trace::create(&dir).unwrap();
        t.record(0, Dir::Read, "BAR0", 0xa00, &0x172a_1000u32.to_le_bytes());
        t.record(3, Dir::Write, "BAR0", 0x110040, &[0x78, 0x56, 0x34, 0x12]);
        t.record(3, Dir::Read, "BAR0", 0x300000, &[0x55, 0xaa]);
        t.record_command(
            3,
            72,
            "GSP_SET_SYSTEM_INFO",
            &[1, 2, 3, 4, 0xab],
            Some(1..3),
        );
        t.record_command(3, 65, "GET_GSP_STATIC_INFO", &[], None);
        // Line buffered: on disk before the trace is dropped.
        let text = std::fs::read_to_string(&dir).unwrap();
        assert_eq!(
            text,
            "1 0 R BAR0 0x000a00 4 0x172a1000\n2 3 W BAR0 0x110040 4 0x12345678\n3 3 R BAR0 0x300000 2 0xaa55\n\
             4 3 RPC 72 GSP_SET_SYSTEM_INFO 5 0x01....04ab\n5 3 RPC 65 GET_GSP_STATIC_INFO 0 -\n"
        );
        drop(t);
        std::fs::remove_file(&dir).unwrap();
    }
}
