// SPDX-License-Identifier: GPL-2.0

//! `GSP_FMC_BOOT_PARAMS` (r570, 80 bytes), what the COT's `gspBootArgsSysmemOffset` points
//! at, as GSP-FMC reads and checks it (`docs/fsp-chain.md` §5):
//!
//! | offset | member | must be |
//! |---|---|---|
//! | 0 | initParams.regkeys (u32, 4 bytes of padding) | 0 |
//! | 8 | bootGspRmParams.target | 1 (coherent system memory) |
//! | 12 | bootGspRmParams.gspRmDescSize | 256, the WPR meta's size |
//! | 16 | bootGspRmParams.gspRmDescOffset | the WPR meta's address, not 0 |
//! | 24 | bootGspRmParams.wprCarveoutOffset | 0 |
//! | 32 | bootGspRmParams.wprCarveoutSize | 0 |
//! | 36 | bootGspRmParams.bIsGspRmBoot (u8, 3 bytes of padding) | 1 |
//! | 40 | gspRmParams.target (u32, 4 bytes of padding) | 2 (non-coherent system memory) |
//! | 48 | gspRmParams.bootArgsOffset | the LIBOS arguments' address, not 0 |
//! | 56 | gspSpdmParams (target, payloadBufferOffset, payloadBufferSize: 24 bytes) | all 0 |

use crate::gsp::wire::{
    get_u32,
    get_u64, //
};
use crate::gsp::wpr_meta::{
    self,
    Refusal, //
};

/// The structure's size.
pub const SIZE: usize = 80;

/// Where GSP-FMC finds what it boots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BootParams {
    /// The WPR meta's address (`gspRmDescOffset`).
    pub wpr_meta: u64,
    /// The LIBOS arguments' address (`bootArgsOffset`).
    pub libos: u64,
}

/// Checks the parameters `p` (the structure's bytes).
pub fn check(p: &[u8]) -> Result<BootParams, Refusal> {
    let field = |name: &'static str, got: u64, want: u64| {
        if got == want {
            Ok(())
        } else {
            Err(Refusal::Field { name, got, want })
        }
    };
    let non_zero = |name: &str, got: u64| {
        if got != 0 {
            Ok(got)
        } else {
            Err(Refusal::Other(format!("{name}, non-zero vs 0x0")))
        }
    };
    field("initParams.regkeys", get_u64(p, 0), 0)?;
    field("bootGspRmParams.target", get_u32(p, 8).into(), 1)?;
    field(
        "bootGspRmParams.gspRmDescSize",
        get_u32(p, 12).into(),
        wpr_meta::SIZE as u64,
    )?;
    let wpr_meta = non_zero("bootGspRmParams.gspRmDescOffset", get_u64(p, 16))?;
    field("bootGspRmParams.wprCarveoutOffset", get_u64(p, 24), 0)?;
    field("bootGspRmParams.wprCarveoutSize", get_u32(p, 32).into(), 0)?;
    field("bootGspRmParams.bIsGspRmBoot", p[36].into(), 1)?;
    field("gspRmParams.target", get_u32(p, 40).into(), 2)?;
    let libos = non_zero("gspRmParams.bootArgsOffset", get_u64(p, 48))?;
    if let Some(at) = p[56..SIZE].iter().position(|&b| b != 0) {
        return Err(Refusal::Bytes {
            what: "gspSpdmParams".to_string(),
            at,
            got: p[56 + at],
            want: 0,
        });
    }
    Ok(BootParams { wpr_meta, libos })
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// The parameters both drivers write.
    pub fn good(wpr_meta: u64, libos: u64) -> Vec<u8> {
        let mut p = vec![0u8; SIZE];
        p[8..12].copy_from_slice(&1u32.to_le_bytes());
        p[12..16].copy_from_slice(&256u32.to_le_bytes());
        p[16..24].copy_from_slice(&wpr_meta.to_le_bytes());
        p[36] = 1;
        p[40..44].copy_from_slice(&2u32.to_le_bytes());
        p[48..56].copy_from_slice(&libos.to_le_bytes());
        p
    }

    #[test]
    fn every_member_made_wrong_is_named() {
        let ok = good(0x1000, 0x2000);
        assert_eq!(
            check(&ok),
            Ok(BootParams {
                wpr_meta: 0x1000,
                libos: 0x2000
            })
        );
        for (at, value, says) in [
            (0, 1, "initParams.regkeys, 0x0 vs 0x1"),
            (8, 2, "bootGspRmParams.target, 0x1 vs 0x2"),
            (13, 0, "bootGspRmParams.gspRmDescSize, 0x100 vs 0x0"),
            (16, 0, "bootGspRmParams.gspRmDescOffset, non-zero vs 0x0"),
            (24, 5, "bootGspRmParams.wprCarveoutOffset, 0x0 vs 0x5"),
            (32, 5, "bootGspRmParams.wprCarveoutSize, 0x0 vs 0x5"),
            (36, 0, "bootGspRmParams.bIsGspRmBoot, 0x1 vs 0x0"),
            (40, 1, "gspRmParams.target, 0x2 vs 0x1"),
            (48, 0, "gspRmParams.bootArgsOffset, non-zero vs 0x0"),
            (64, 9, "gspSpdmParams byte 0x8, 0x00 vs 0x09"),
        ] {
            let mut p = ok.clone();
            p[at] = value;
            if value == 0 && at == 16 || at == 48 {
                p[at + 1] = 0;
            }
            assert_eq!(check(&p).map_err(|e| e.fsp()), Err(says.to_string()));
        }
    }
}
