// SPDX-License-Identifier: GPL-2.0

//! The RM API's calls on the wire: `GSP_RM_ALLOC` and `FREE`, whose payloads are the same in
//! every supported version (`rpc_gsp_rm_alloc_v03_00`, `rpc_free_v03_00`; OpenRM
//! `g_rpc-structures.h`), and the checks of their replies.
//!
//! GSP-RM answers a call in place: the reply is the request with its `status` set
//! (nouveau `rm/r535/alloc.c`, `r535_gsp_rpc_rm_alloc_push`; OpenRM `rpcGspRmAlloc` copies the
//! parameters back from it). A reply that names another object than the one asked for, or is
//! shorter than the request, is refused: the driver then does not know what GSP-RM holds.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::{
    fmt,
    mem::size_of, //
};

use zerocopy::FromBytes;

use crate::{
    gsp::{
        fw::common,
        rm::status::NvStatus, //
    },
    untrusted::{
        Untrusted,
        Validator, //
    },
};

/// The RM classes the driver allocates (OpenRM `class/cl0000.h`, `cl0080.h`, `cl2080.h`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// `NV01_ROOT`: a client, the root of its objects.
    Root,
    /// `NV01_DEVICE_0`: the GPU, under a client.
    Device,
    /// `NV20_SUBDEVICE_0`: the GPU's one subdevice, under a device.
    Subdevice,
}

impl Class {
    /// The class number.
    pub(crate) const fn number(self) -> u32 {
        match self {
            Class::Root => common::NV01_ROOT,
            Class::Device => common::NV01_DEVICE_0,
            Class::Subdevice => common::NV20_SUBDEVICE_0,
        }
    }

    /// The name in OpenRM's headers.
    pub(crate) const fn name(self) -> &'static str {
        match self {
            Class::Root => "NV01_ROOT",
            Class::Device => "NV01_DEVICE_0",
            Class::Subdevice => "NV20_SUBDEVICE_0",
        }
    }
}

/// An RM object: its client, its parent (a client is its own), its handle and its class.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Object {
    pub(crate) client: u32,
    pub(crate) parent: u32,
    pub(crate) handle: u32,
    pub(crate) class: Class,
}

impl fmt::Display for Object {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {:#010x} (parent {:#010x}, client {:#010x})",
            self.class.name(),
            self.handle,
            self.parent,
            self.client
        )
    }
}

/// Size of `GSP_RM_ALLOC`'s fixed part; the class's parameters follow it.
pub(crate) const ALLOC_HEADER: usize = size_of::<common::rpc_gsp_rm_alloc_v03_00>();
/// Size of `FREE`'s payload.
pub(crate) const FREE_SIZE: usize = size_of::<common::rpc_free_v03_00>();

impl Object {
    /// The fixed part of this object's `GSP_RM_ALLOC`, with `params_size` bytes of parameters
    /// after it (flags 0, as nouveau sends them).
    pub(crate) fn alloc_header(&self, params_size: u32) -> common::rpc_gsp_rm_alloc_v03_00 {
        common::rpc_gsp_rm_alloc_v03_00 {
            hClient: self.client,
            hParent: self.parent,
            hObject: self.handle,
            hClass: self.class.number(),
            paramsSize: params_size,
            ..Default::default()
        }
    }

    /// This object's `FREE`: the client, no parent (RM ignores it; OpenRM sends
    /// `NV01_NULL_OBJECT` there, nouveau 0), the object.
    pub(crate) fn free_request(&self) -> common::rpc_free_v03_00 {
        common::rpc_free_v03_00 {
            params: common::NVOS00_PARAMETERS_v03_00 {
                hRoot: self.client,
                hObjectParent: 0,
                hObjectOld: self.handle,
                status: 0,
            },
        }
    }
}

/// A device's `NV0080_ALLOC_PARAMETERS` under `client`, as nouveau fills them
/// (`rm/r535/device.c`): the client shares itself, all else 0.
pub(crate) fn device_params(client: u32) -> common::NV0080_ALLOC_PARAMETERS {
    common::NV0080_ALLOC_PARAMETERS {
        hClientShare: client,
        ..Default::default()
    }
}

/// A subdevice's `NV2080_ALLOC_PARAMETERS`, as nouveau fills them: subdevice 0.
pub(crate) fn subdevice_params() -> common::NV2080_ALLOC_PARAMETERS {
    common::NV2080_ALLOC_PARAMETERS::default()
}

/// Why an RM call's reply was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReplyError {
    /// Shorter than the request.
    Short { got: usize, want: usize },
    /// It names another object (or class, or parameter size) than the request.
    Mismatch {
        field: &'static str,
        got: u32,
        want: u32,
    },
    /// GSP-RM says the call failed.
    Failed(NvStatus),
}

impl fmt::Display for ReplyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            ReplyError::Short { got, want } => {
                write!(f, "{got} bytes, shorter than the {want} sent")
            }
            ReplyError::Mismatch { field, got, want } => {
                write!(f, "{field} {got:#x}, not the {want:#x} asked for")
            }
            ReplyError::Failed(status) => write!(f, "{status}"),
        }
    }
}

/// Checks that a reply field echoes the request's.
fn same(field: &'static str, got: u32, want: u32) -> Result<(), ReplyError> {
    if got == want {
        Ok(())
    } else {
        Err(ReplyError::Mismatch { field, got, want })
    }
}

/// A `GSP_RM_ALLOC` reply for an object whose request carried `params_size` bytes of
/// parameters: as long as the request, naming the same object, class and size, with status
/// `NV_OK`. (nouveau reads the status and drops the rest, `r535_gsp_rpc_rm_alloc_push`.)
pub(crate) struct Allocated;

impl Validator<(&Untrusted<[u8]>, (&Object, u32))> for Allocated {
    type Err = ReplyError;

    fn validate((raw, (object, params_size)): (&[u8], (&Object, u32))) -> Result<Self, ReplyError> {
        let want = ALLOC_HEADER + params_size as usize;
        if raw.len() < want {
            return Err(ReplyError::Short {
                got: raw.len(),
                want,
            });
        }
        let (reply, _) = common::rpc_gsp_rm_alloc_v03_00::read_from_prefix(raw).map_err(|_| {
            ReplyError::Short {
                got: raw.len(),
                want,
            }
        })?;
        same("hClient", reply.hClient, object.client)?;
        same("hParent", reply.hParent, object.parent)?;
        same("hObject", reply.hObject, object.handle)?;
        same("hClass", reply.hClass, object.class.number())?;
        same("paramsSize", reply.paramsSize, params_size)?;
        match reply.status {
            0 => Ok(Allocated),
            status => Err(ReplyError::Failed(NvStatus(status))),
        }
    }
}

/// A `FREE` reply for an object: the request sent back, naming the same client and object, with
/// status `NV_OK`. (nouveau reads only the header's `rpc_result`.)
pub(crate) struct Freed;

impl Validator<(&Untrusted<[u8]>, &Object)> for Freed {
    type Err = ReplyError;

    fn validate((raw, object): (&[u8], &Object)) -> Result<Self, ReplyError> {
        let (reply, _) =
            common::rpc_free_v03_00::read_from_prefix(raw).map_err(|_| ReplyError::Short {
                got: raw.len(),
                want: FREE_SIZE,
            })?;
        same("hRoot", reply.params.hRoot, object.client)?;
        same("hObjectOld", reply.params.hObjectOld, object.handle)?;
        match reply.params.status {
            0 => Ok(Freed),
            status => Err(ReplyError::Failed(NvStatus(status))),
        }
    }
}

/// Size of `GSP_RM_CONTROL`'s fixed part; the control's parameters follow it.
pub(crate) const CONTROL_HEADER: usize = size_of::<common::rpc_gsp_rm_control_v03_00>();

/// An RM control's target and command: the client, the object it is sent to, the command, and
/// the size of its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ControlCall {
    pub(crate) client: u32,
    pub(crate) object: u32,
    pub(crate) cmd: u32,
    pub(crate) params_size: u32,
}

impl ControlCall {
    /// The fixed part of the `GSP_RM_CONTROL` (flags 0, as nouveau sends them).
    pub(crate) fn header(&self) -> common::rpc_gsp_rm_control_v03_00 {
        common::rpc_gsp_rm_control_v03_00 {
            hClient: self.client,
            hObject: self.object,
            cmd: self.cmd,
            paramsSize: self.params_size,
            ..Default::default()
        }
    }
}

/// A `GSP_RM_CONTROL` reply for `call`: at least as long as the request, naming the same client,
/// object, command and parameter size, with status `NV_OK` (nouveau `r535_gsp_rpc_rm_ctrl_push`
/// reads the status and the parameters answered in place). It holds where the parameters are.
pub(crate) struct Controlled(pub(crate) core::ops::Range<usize>);

impl Validator<(&Untrusted<[u8]>, &ControlCall)> for Controlled {
    type Err = ReplyError;

    fn validate((raw, call): (&[u8], &ControlCall)) -> Result<Self, ReplyError> {
        let want = CONTROL_HEADER + call.params_size as usize;
        if raw.len() < want {
            return Err(ReplyError::Short {
                got: raw.len(),
                want,
            });
        }
        let (reply, _) =
            common::rpc_gsp_rm_control_v03_00::read_from_prefix(raw).map_err(|_| {
                ReplyError::Short {
                    got: raw.len(),
                    want,
                }
            })?;
        same("hClient", reply.hClient, call.client)?;
        same("hObject", reply.hObject, call.object)?;
        same("cmd", reply.cmd, call.cmd)?;
        same("paramsSize", reply.paramsSize, call.params_size)?;
        match reply.status {
            0 => Ok(Controlled(CONTROL_HEADER..want)),
            status => Err(ReplyError::Failed(NvStatus(status))),
        }
    }
}

gsp_versioned! {
/// The client's allocation parameters, the one allocation layout that differs between versions
/// (570.144 added `pOsPidInfo`).
pub(crate) mod versioned {
    /// Size of this version's `NV0000_ALLOC_PARAMETERS`.
    pub(crate) const CLIENT_PARAMS_SIZE: usize = core::mem::size_of::<fw::NV0000_ALLOC_PARAMETERS>();

    /// The `NV0000_ALLOC_PARAMETERS` of client `handle`, as nouveau fills them
    /// (`rm/r535/client.c`, `rm/r570/client.c`): the handle, process id `~0`, no process name,
    /// no OS process information.
    pub(crate) fn client_params(handle: u32) -> fw::NV0000_ALLOC_PARAMETERS {
        fw::NV0000_ALLOC_PARAMETERS {
            hClient: handle,
            processID: !0,
            ..Default::default()
        }
    }
}
}
