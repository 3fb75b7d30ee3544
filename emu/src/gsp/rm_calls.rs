// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's answers to the RM API's calls (`GSP_RM_ALLOC`, `GSP_RM_CONTROL`, `FREE`): each
//! carried out on the object tree ([`super::rm`]) or answered with the controls' figures
//! ([`super::controls`]), with the RM lies told where the fault asks for them.

use super::fault::{self, Lie};
use super::wire::{function, get_u32, put_u32, Version};
use super::{controls, rm, Gsp, Pending};

impl Gsp {
    /// Whether `lie`, an RM call's lie, is told to the reply of `function` about to be posted.
    pub(super) fn rm_lie_now(&self, function: u32, lie: Lie) -> bool {
        let rm_call = matches!(
            function,
            function::GSP_RM_ALLOC | function::FREE | function::GSP_RM_CONTROL
        );
        matches!(
            (self.config.fault, self.state.as_ref()),
            (Some(f), Some(s)) if rm_call && f.lie == lie && f.at == s.posted
        )
    }

    /// An RM call (`GSP_RM_ALLOC`, `GSP_RM_CONTROL`, `FREE`) carried out on the object tree: the `rpc_result`
    /// and the request answered in place (its status set), as GSP-RM sends it back. A refusal
    /// sets both: OpenRM's CPU side takes an allocation whose `rpc_result` is `NV_OK` as done
    /// without reading the status (`rpcGspRmAlloc_v03_00`, `vgpu/rpc.c` at 570.144), and reads
    /// the status only when `rpc_result` failed; nouveau reads both.
    pub(super) fn rm_call(&mut self, version: Version, p: &Pending) -> (u32, Vec<u8>) {
        let mut request = p.payload.clone();
        let index = self.state.as_ref().map_or(0, |s| s.posted);
        if self.rm_lie_now(p.function, Lie::RmStatus) {
            let at = match p.function {
                function::GSP_RM_ALLOC => rm::alloc::STATUS,
                function::FREE => rm::free::STATUS,
                _ => rm::control::STATUS,
            };
            if request.len() >= at + 4 {
                put_u32(&mut request, at, fault::RM_STATUS);
            }
            self.line(&format!(
                "fault rm-status at message {index}: {} not carried out, its status {:#x}",
                function::name(p.function),
                fault::RM_STATUS
            ));
            return (0, request);
        }
        let chip = self.chip;
        let s = self.state.as_mut().expect("running");
        let answer = match p.function {
            function::GSP_RM_ALLOC => s.rm.alloc(version, &mut request),
            function::FREE => s.rm.free(&mut request),
            _ => s.rm.control(
                version,
                &mut request,
                |cmd| controls::params_size(version, cmd),
                |cmd, params| controls::answer(chip, version, cmd, params),
            ),
        };
        self.line(&answer.line);
        let table = rm::control::SIZE_OF;
        // Only a table answered (so at least its length is there) lies: the interrupt table's
        // tableLen leads its parameters, the device information's numEntries follows baseIndex.
        if p.function == function::GSP_RM_CONTROL
            && answer.status == 0
            && self.rm_lie_now(p.function, Lie::RmTableLen)
        {
            let lie = match get_u32(&request, rm::control::CMD) {
                controls::INTR_GET_KERNEL_TABLE => Some((table, 129, "the interrupt table's")),
                controls::FIFO_GET_DEVICE_INFO_TABLE => {
                    Some((table + 4, 33, "the device information's"))
                }
                _ => None,
            };
            if let Some((at, len, what)) = lie {
                put_u32(&mut request, at, len);
                self.line(&format!(
                    "fault rm-table-len at message {index}: {what} length {len}"
                ));
            }
        }
        if self.rm_lie_now(p.function, Lie::RmOtherHandle) {
            let at = match p.function {
                function::GSP_RM_ALLOC => rm::alloc::H_OBJECT,
                function::FREE => rm::free::H_OBJECT_OLD,
                _ => rm::control::H_OBJECT,
            };
            if request.len() >= at + 4 {
                let handle = get_u32(&request, at);
                put_u32(&mut request, at, handle.wrapping_add(1));
                self.line(&format!(
                    "fault rm-other-handle at message {index}: the reply names {:#010x}, not \
                     {handle:#010x}",
                    handle.wrapping_add(1)
                ));
            }
        }
        (answer.status, request)
    }
}
