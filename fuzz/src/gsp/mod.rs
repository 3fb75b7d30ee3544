// SPDX-License-Identifier: GPL-2.0

//! The driver's `gsp` module, without its kernel half (shared memory, RPCs, boot).

#[macro_use]
#[path = "../../../gsp/versions.rs"]
pub(crate) mod versions;

#[path = "../../../gsp/bench/request.rs"]
pub(crate) mod bench_request;
#[path = "../../../gsp/fw.rs"]
pub(crate) mod fw;
#[path = "../../../gsp/msgq.rs"]
pub(crate) mod msgq;
#[path = "../../../gsp/sequencer/poll.rs"]
pub(crate) mod poll;
#[path = "../../../gsp/replies.rs"]
pub(crate) mod replies;
#[path = "../../../gsp/rm/calls.rs"]
pub(crate) mod rm_calls;
#[path = "../../../gsp/rm/controls.rs"]
pub(crate) mod rm_controls;
#[path = "../../../gsp/rm/fifo.rs"]
pub(crate) mod rm_fifo;
#[path = "../../../gsp/rm/memsys.rs"]
pub(crate) mod rm_memsys;
#[path = "../../../gsp/rm/status.rs"]
pub(crate) mod rm_status;
/// The driver's `gsp::rm`, as far as the parsing core has it.
pub(crate) mod rm {
    pub(crate) use super::rm_calls as calls;
    pub(crate) use super::rm_controls as controls;
    pub(crate) use super::rm_fifo as fifo;
    pub(crate) use super::rm_memsys as memsys;
    pub(crate) use super::rm_status as status;
}
#[path = "../../../gsp/sequencer/commands.rs"]
pub(crate) mod sequencer;
#[path = "../../../gsp/wpr.rs"]
pub(crate) mod wpr;
