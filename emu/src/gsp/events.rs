// SPDX-License-Identifier: GPL-2.0

//! The events GSP-RM sends unprompted, in normal operation, per firmware version.
//!
//! Which events arrive is known from the drivers that run on silicon: nouveau registers a
//! handler or a silencer for each event that reaches it (`nvkm/subdev/gsp/rm/r535/gsp.c`,
//! `r535_gsp_oneinit`; `rm/r570/gsp.c`, `r570_gsp_drop_post_nocat_record`, below its debug
//! level): it silences
//! `UCODE_LIBOS_PRINT` and `PERF_BRIDGELESS_INFO_UPDATE` in both versions,
//! `GSP_SEND_USER_SHARED_DATA` in 535.113.01, `GSP_POST_NOCAT_RECORD` and
//! `GSP_LOCKDOWN_NOTICE` in 570.144. *When* they arrive no reference says; Linux 7.3's
//! nova-core narrows it: its waits end on an event number it does not know
//! (`gsp/cmdq.rs`, `receive_msg`: an unknown function is `EINVAL`, the message left at the
//! queue's head), yet it boots silicon to the static information and unloads it. So what
//! arrives during its boot, its `GET_GSP_STATIC_INFO` and its unload is among the events it
//! knows (`gsp/fw.rs`: `GSP_LOCKDOWN_NOTICE`, `GSP_POST_NOCAT_RECORD`, `UCODE_LIBOS_PRINT`,
//! `OS_ERROR_LOG`, `MMU_FAULT_QUEUED`, `POST_EVENT`, `RC_TRIGGERED`), and
//! `PERF_BRIDGELESS_INFO_UPDATE`, which it does not know, does not come then: it comes with
//! what nouveau asks for after the boot (RM objects and controls the model does not serve
//! yet).
//!
//! The model's schedule, its assumption within those bounds:
//! - just before `GSP_INIT_DONE`: 570.144 posts `GSP_LOCKDOWN_NOTICE` (lockdown released) and a
//!   `GSP_POST_NOCAT_RECORD`, 535.113.01 `GSP_SEND_USER_SHARED_DATA`; both a `UCODE_LIBOS_PRINT`;
//! - while up, a `UCODE_LIBOS_PRINT` every [`PRINT_TICKS`] ticks of its own clock, whatever the
//!   driver does, where the status queue has room (a print that finds none is dropped). The
//!   rate is the model's choice, to keep a running GSP-RM touching memory on its own: nouveau
//!   says the PMU writes these "typically only ... when PMU encounters an error".
//!
//! No event spans continuation records: every event above fits one message (the largest,
//! `GSP_POST_NOCAT_RECORD`, is 1208 bytes; a message carries 65456), and OpenRM never
//! reassembles an event (`kernel_gsp.c`, `_kgspRpcDrainOneEvent` takes one element; only the
//! reply to a large RPC it split comes back in continuation records), so GSP-RM cannot send
//! one that does.

use super::wire::{put_u32, Version};

/// Event numbers (`NV_VGPU_MSG_EVENT_*`; the same in both versions below 0x101b).
pub mod number {
    pub const UCODE_LIBOS_PRINT: u32 = 0x100c;
    pub const PERF_BRIDGELESS_INFO_UPDATE: u32 = 0x100f;
    /// 535.113.01 only.
    pub const GSP_SEND_USER_SHARED_DATA_535: u32 = 0x101b;
    /// 0x101d in 535.113.01, 0x101c in 570.144.
    pub const GSP_LOCKDOWN_NOTICE_535: u32 = 0x101d;
    pub const GSP_LOCKDOWN_NOTICE_570: u32 = 0x101c;
    /// 570.144 only.
    pub const GSP_POST_NOCAT_RECORD_570: u32 = 0x1020;
}

/// How many ticks (milliseconds of the GSP's clock) between two LIBOS prints while up.
pub const PRINT_TICKS: u32 = 100;

/// `rpc_gsp_post_nocat_record_v01_00`: an `NV2080CtrlNocatJournalInsertRecord`, 1208 bytes.
const NOCAT_RECORD_SIZE: usize = 1208;

/// Whether `function` is one of the events above (not part of the conversation the lies count).
pub fn is_unprompted(function: u32) -> bool {
    matches!(
        function,
        number::UCODE_LIBOS_PRINT
            | number::PERF_BRIDGELESS_INFO_UPDATE
            | number::GSP_SEND_USER_SHARED_DATA_535
            | number::GSP_LOCKDOWN_NOTICE_535
            | number::GSP_LOCKDOWN_NOTICE_570
            | number::GSP_POST_NOCAT_RECORD_570
    )
}

/// One event: its number and payload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub function: u32,
    pub payload: Vec<u8>,
}

impl Event {
    /// A name for the log.
    pub fn name(&self) -> &'static str {
        match self.function {
            number::UCODE_LIBOS_PRINT => "UCODE_LIBOS_PRINT",
            number::PERF_BRIDGELESS_INFO_UPDATE => "PERF_BRIDGELESS_INFO_UPDATE",
            number::GSP_SEND_USER_SHARED_DATA_535 => "GSP_SEND_USER_SHARED_DATA",
            number::GSP_LOCKDOWN_NOTICE_535 | number::GSP_LOCKDOWN_NOTICE_570 => {
                "GSP_LOCKDOWN_NOTICE"
            }
            number::GSP_POST_NOCAT_RECORD_570 => "GSP_POST_NOCAT_RECORD",
            _ => "event",
        }
    }
}

/// The PMU's class in `ucodeEngDesc` (bits 31:8): the only engine whose prints GSP-RM forwards
/// (nouveau `NV_GSP_MSG_EVENT_UCODE_LIBOS_CLASS_PMU`, `r535_gsp_msg_libos_print`).
const UCODE_LIBOS_CLASS_PMU: u32 = 0xf3d722;

/// `rpc_ucode_libos_print_v1E_08`: the engine (the PMU), the buffer's size, the buffer (LIBOS's
/// encoded log records; the model sends an empty record of 16 bytes).
pub fn libos_print() -> Event {
    let mut payload = vec![0u8; 8 + 16];
    put_u32(&mut payload, 0, UCODE_LIBOS_CLASS_PMU << 8);
    put_u32(&mut payload, 4, 16);
    Event {
        function: number::UCODE_LIBOS_PRINT,
        payload,
    }
}

/// What GSP-RM of `version` posts just before `GSP_INIT_DONE`.
pub fn at_boot(version: Version) -> Vec<Event> {
    let mut events = match version {
        Version::R535_113_01 => vec![Event {
            // `rpc_gsp_send_user_shared_data_v17_00`: `GspUserSharedData`, its assert count.
            function: number::GSP_SEND_USER_SHARED_DATA_535,
            payload: vec![0; 4],
        }],
        Version::R570_144 => vec![
            Event {
                // `rpc_gsp_lockdown_notice_v17_00`: `bLockdownEngaging`, false: released.
                function: number::GSP_LOCKDOWN_NOTICE_570,
                payload: vec![0],
            },
            Event {
                function: number::GSP_POST_NOCAT_RECORD_570,
                payload: vec![0; NOCAT_RECORD_SIZE],
            },
        ],
    };
    events.push(libos_print());
    events
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_version_sends_its_own_numbers() {
        let f = |v| at_boot(v).iter().map(|e| e.function).collect::<Vec<_>>();
        assert_eq!(f(Version::R535_113_01), [0x101b, 0x100c]);
        assert_eq!(f(Version::R570_144), [0x101c, 0x1020, 0x100c]);
        let names: Vec<_> = at_boot(Version::R570_144).iter().map(Event::name).collect();
        assert_eq!(
            names,
            [
                "GSP_LOCKDOWN_NOTICE",
                "GSP_POST_NOCAT_RECORD",
                "UCODE_LIBOS_PRINT"
            ]
        );
        assert_eq!(libos_print().payload.len(), 24);
    }
}
