// SPDX-License-Identifier: GPL-2.0

//! Entry points into the validators of the FSP chain (Hopper and Blackwell): the FSP's reply
//! and queue pointers, GSP-FMC's lockdown registers, the framebuffer sizes GSP-FMC is given.
//! Each checks the validator's promises on whatever it accepted.

use crate::{
    chip::Chipset,
    falcon::state::LockdownRegs,
    fb::sizes::{
        FmcNeeds,
        FmcSizes, //
    },
    fsp::protocol::{
        Cot,
        CotAccepted,
        Lockdown,
        Pending,
        QueuePointers,
        COT_MESSAGE_SIZE,
        MAX_REPLY_SIZE,
        NVDM_TYPE_COT,
        REPLY_SIZE, //
    },
    gsp::wpr,
    untrusted::Untrusted,
};

/// The FSP's reply to the chain of trust: accepted only when it is 20 bytes, one packet, a
/// response to the COT message, with error code 0.
pub fn cot_reply(data: &[u8]) -> Result<(), String> {
    let r = Untrusted::new_untrusted_ref(data)
        .validate_ref_against::<CotAccepted, _>(NVDM_TYPE_COT)
        .map(|_| ())
        .map_err(|e| e.to_string());
    if r.is_ok() {
        assert_eq!(data.len(), REPLY_SIZE);
        assert_eq!(&data[16..20], &[0; 4]);
        assert_eq!(&data[4..8], &0x1510_de7eu32.to_le_bytes());
    }
    r
}

/// The message queue's pointers: a reply is whole dwords within EMEM.
pub fn queue_pointers(head: u32, tail: u32) -> Result<usize, String> {
    let r = Untrusted::new_untrusted(QueuePointers { head, tail })
        .validate::<Pending>()
        .map(|p| p.len)
        .map_err(|e| e.to_string());
    if let Ok(len) = r {
        assert!((4..=MAX_REPLY_SIZE).contains(&len) && len % 4 == 0);
        assert!(tail >= head);
    }
    r
}

/// GSP-FMC's registers against the boot parameters' address: released only with mailbox 0
/// clear and the lockdown bit clear on a readable HWCFG2.
pub fn lockdown(hwcfg2: u32, mailbox0: u32, mailbox1: u32, boot_params: u64) -> String {
    let r = Untrusted::new_untrusted(LockdownRegs {
        hwcfg2,
        // HWCFG2's RISCV_BR_PRIV_LOCKDOWN, bit 13, as the driver's register declaration
        // decodes it.
        lockdown: hwcfg2 & (1 << 13) != 0,
        mailbox0,
        mailbox1,
    })
    .validate_ref_against::<Lockdown, _>(boot_params);
    if r == Ok(Lockdown::Released) {
        assert_eq!(mailbox0, 0);
        assert_eq!(hwcfg2 & (1 << 13), 0);
        assert!(hwcfg2 != 0 && hwcfg2 != u32::MAX && hwcfg2 & !0xff != 0xbadf_4100);
    }
    match r {
        Ok(l) => format!("{l:?}"),
        Err(e) => format!("failed {:#x}", e.0),
    }
}

/// The COT message of a chip's family with recognisable fields, as the driver writes it.
pub fn cot_message(chip: &str, key: usize, signature: usize) -> Result<Vec<u8>, String> {
    let chipset = chipset(chip)?;
    let hal = chipset
        .family()
        .fsp()
        .ok_or_else(|| format!("{chip} has no FSP"))?;
    let (hash, k, s) = ([0x11u8; 48], vec![0x22u8; key], vec![0x33u8; signature]);
    let mut out = [0u8; COT_MESSAGE_SIZE];
    Cot {
        version: hal.cot_version,
        fmc: 0x1234_5000,
        frts_vidmem_offset: 0x20_0000,
        frts_vidmem_size: 0x10_0000,
        hash: &hash,
        public_key: &k,
        signature: &s,
        boot_params: 0x6789_a000,
    }
    .write(&mut out)
    .map_err(|e| e.to_string())?;
    Ok(out.to_vec())
}

fn chipset(chip: &str) -> Result<Chipset, String> {
    Chipset::ALL
        .iter()
        .copied()
        .find(|c| c.name() == chip)
        .ok_or_else(|| format!("no chip {chip}"))
}

/// What the sizes validator gave, for the tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FmcFacts {
    pub frts_offset: u64,
    pub heap: u64,
    pub non_wpr_heap: u64,
    pub pmu_reserved: u32,
}

/// The sizes GSP-FMC is given on `chip` for a size register of `fb_mib`: every region fits
/// video memory, FRTS's offset is 2 MiB-aligned.
pub fn fmc_sizes(chip: &str, fb_mib: u32) -> Result<FmcFacts, String> {
    let chipset = chipset(chip)?;
    let needs = FmcNeeds {
        hal: chipset
            .family()
            .fsp()
            .ok_or_else(|| format!("{chip} has no FSP"))?,
        heap: wpr::versioned::r570_144::heap_params_fsp(),
    };
    let r = Untrusted::new_untrusted(fb_mib)
        .validate_ref_against::<FmcSizes, _>(needs)
        .map_err(|e| e.to_string());
    if let Ok(s) = &r {
        assert_eq!(s.fb_size, u64::from(fb_mib) << 20);
        assert_eq!(s.frts_offset % (2 << 20), 0);
        assert!(s.frts_offset + s.frts_size + s.heap + s.non_wpr_heap <= s.fb_size);
    }
    r.map(|s| FmcFacts {
        frts_offset: s.frts_offset,
        heap: s.heap,
        non_wpr_heap: s.non_wpr_heap,
        pmu_reserved: s.pmu_reserved,
    })
}
