// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's resource manager: the object tree the driver builds with `GSP_RM_ALLOC` and takes
//! down with `FREE`, under the rules OpenRM's resource server enforces, answered with the codes it
//! returns. The GSP side of these calls is not published; the rules are those of the resserv and
//! rmapi code GSP-RM is built from (`docs/rm-api.md`, section 3, has every file and line), in the
//! compatibility mode its open build uses. Where the model decides something no reference shows,
//! the comment says it is the model's assumption.
//!
//! Classes known: `NV01_ROOT` (a client), `NV01_DEVICE_0` under a client, `NV20_SUBDEVICE_0`
//! and `FERMI_VASPACE_A` under a device (the VA space's parameters and controls:
//! [`super::vaspace`]). Anything else is refused by name.

use std::collections::BTreeMap;

use super::vaspace::{self, VaSpace, FERMI_VASPACE_A};
use super::wire::{get_u32, put_u32, Version};

/// `rpc_gsp_rm_alloc_v03_00` (OpenRM `g_rpc-structures.h`, the same in both versions): its
/// fixed part, then `paramsSize` bytes of parameters.
pub mod alloc {
    pub const H_CLIENT: usize = 0;
    pub const H_PARENT: usize = 4;
    pub const H_OBJECT: usize = 8;
    pub const H_CLASS: usize = 12;
    pub const STATUS: usize = 16;
    pub const PARAMS_SIZE: usize = 20;
    pub const SIZE_OF: usize = 32;
}

/// `rpc_free_v03_00`: `NVOS00_PARAMETERS_v03_00` (OpenRM `g_sdk-structures.h`).
pub mod free {
    pub const H_ROOT: usize = 0;
    pub const H_OBJECT_OLD: usize = 8;
    pub const STATUS: usize = 12;
    pub const SIZE_OF: usize = 16;
}

/// `rpc_gsp_rm_control_v03_00` (OpenRM `g_rpc-structures.h`, the same in both versions): its
/// fixed part, then `paramsSize` bytes of parameters, answered in place.
pub mod control {
    pub const H_CLIENT: usize = 0;
    pub const H_OBJECT: usize = 4;
    pub const CMD: usize = 8;
    pub const STATUS: usize = 12;
    pub const PARAMS_SIZE: usize = 16;
    pub const SIZE_OF: usize = 24;
}

/// The classes the model knows (OpenRM `class/cl0000.h`, `cl0080.h`, `cl2080.h`).
pub const NV01_ROOT: u32 = 0x0;
pub const NV01_DEVICE_0: u32 = 0x80;
pub const NV20_SUBDEVICE_0: u32 = 0x2080;

/// The `NV_ERR_*` codes the tree answers with (OpenRM `nvstatuscodes.h`).
pub const NV_ERR_INSERT_DUPLICATE_NAME: u32 = 0x19;
pub const NV_ERR_INSUFFICIENT_RESOURCES: u32 = 0x1a;
pub const NV_ERR_INVALID_ARGUMENT: u32 = 0x1f;
pub const NV_ERR_INVALID_CLASS: u32 = 0x22;
pub const NV_ERR_INVALID_CLIENT: u32 = 0x23;
pub const NV_ERR_INVALID_PARAM_STRUCT: u32 = 0x3a;
pub const NV_ERR_INVALID_STATE: u32 = 0x40;
pub const NV_ERR_NOT_SUPPORTED: u32 = 0x56;
pub const NV_ERR_INVALID_OBJECT_HANDLE: u32 = 0x33;
pub const NV_ERR_INVALID_OBJECT_PARENT: u32 = 0x36;
pub const NV_ERR_OBJECT_NOT_FOUND: u32 = 0x57;

/// GSP-RM's own client, device and subdevice, which the static information names
/// (`hInternalClient`, `hInternalDevice`, `hInternalSubdevice`) and nouveau sends controls to:
/// RM allocates them itself (`_gpuAllocateInternalObjects`, gpu.c), the client from the
/// internal clients' base 0xc1e00000, the others from the generated handles' base 0xcaf00000
/// (resserv.h, rs_client.c; docs/rm-api.md, section 2).
pub const INTERNAL: [u32; 3] = [0xc1e0_0000, 0xcaf0_0000, 0xcaf0_0001];

/// The size of a class's allocation parameters in `version`: `NV0000_ALLOC_PARAMETERS` grew
/// `pOsPidInfo` in 570.144 (108 to 120 bytes); `NV0080_ALLOC_PARAMETERS` (56) and
/// `NV2080_ALLOC_PARAMETERS` (4) are the same in both.
fn params_size(version: Version, class: u32) -> Option<usize> {
    match (class, version) {
        (NV01_ROOT, Version::R535_113_01) => Some(108),
        (NV01_ROOT, Version::R570_144) => Some(120),
        (NV01_DEVICE_0, _) => Some(56),
        (NV20_SUBDEVICE_0, _) => Some(4),
        (FERMI_VASPACE_A, _) => Some(vaspace::ALLOC_PARAMS_SIZE),
        _ => None,
    }
}

/// The name of a class the model knows, for the log.
pub fn class_name(class: u32) -> &'static str {
    match class {
        NV01_ROOT => "NV01_ROOT",
        NV01_DEVICE_0 => "NV01_DEVICE_0",
        NV20_SUBDEVICE_0 => "NV20_SUBDEVICE_0",
        FERMI_VASPACE_A => "FERMI_VASPACE_A",
        _ => "an unknown class",
    }
}

/// One object of a client.
#[derive(Debug, Clone, Copy)]
struct Object {
    parent: u32,
    class: u32,
    /// The device's `deviceId` or the subdevice's `subDeviceId`.
    instance: u32,
    /// A VA space's state.
    vaspace: Option<VaSpace>,
}

/// The most objects the model holds in one run, all clients together (the model's bound: a
/// guest that allocates without end gets NV_ERR_INSUFFICIENT_RESOURCES, as RM's tables fill up).
const MAX_OBJECTS: usize = 1 << 16;

/// What the tree saw over one GSP-RM run, for the counts file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct RmSummary {
    /// Objects allocated (clients included).
    pub allocated: u32,
    /// Objects freed, by a free of their own or of an ancestor.
    pub freed: u32,
    /// Allocations and frees refused.
    pub refused: u32,
    /// Calls that named a handle freed before in its client (a use after free; a second free
    /// included).
    pub after_free: u32,
    /// Objects still allocated when GSP-RM stopped (set then).
    pub live: u32,
    /// Controls answered (refused ones are counted as refused).
    pub controls: u32,
}

/// The object tree of one GSP-RM run: its clients, each with its objects by handle (the client
/// itself is an object of its own, its handle its client's). It starts with GSP-RM's internal
/// objects ([`INTERNAL`]), which are not the driver's: not counted, not the driver's to free.
#[derive(Debug)]
pub struct Tree {
    clients: BTreeMap<u32, BTreeMap<u32, Object>>,
    /// Handles freed in each client (clients freed too, under their own handle).
    freed: BTreeMap<u32, Vec<u32>>,
    summary: RmSummary,
    /// Where the usable video memory ends, where it is modelled.
    vram_end: Option<u64>,
}

/// What a call answered: its status and a line for the log.
pub struct Answer {
    pub status: u32,
    pub line: String,
}

impl Answer {
    fn ok(line: String) -> Answer {
        Answer { status: 0, line }
    }

    fn refused(status: u32, line: String) -> Answer {
        Answer { status, line }
    }

    /// A request shorter than its call's fixed part: refused as an invalid argument (the
    /// model's assumption; nothing can be read of it).
    fn short(call: &str, structure: &str, len: usize, size: usize) -> Answer {
        Answer::refused(
            NV_ERR_INVALID_ARGUMENT,
            format!("{call} refused: {len} bytes, shorter than {structure} ({size})"),
        )
    }
}

impl Default for Tree {
    fn default() -> Self {
        let [client, device, subdevice] = INTERNAL;
        let object = |parent, class| Object {
            parent,
            class,
            instance: 0,
            vaspace: None,
        };
        let internal = BTreeMap::from([
            (client, object(client, NV01_ROOT)),
            (device, object(client, NV01_DEVICE_0)),
            (subdevice, object(device, NV20_SUBDEVICE_0)),
        ]);
        Tree {
            clients: BTreeMap::from([(client, internal)]),
            freed: BTreeMap::new(),
            summary: RmSummary::default(),
            vram_end: None,
        }
    }
}

impl Tree {
    /// What the tree saw so far, with the driver's objects still allocated.
    pub fn summary(&self) -> RmSummary {
        RmSummary {
            live: self
                .clients
                .iter()
                .filter(|(&c, _)| c != INTERNAL[0])
                .map(|(_, objects)| objects.len() as u32)
                .sum(),
            ..self.summary
        }
    }

    fn was_freed(&self, client: u32, handle: u32) -> bool {
        self.freed.get(&client).is_some_and(|f| f.contains(&handle))
    }

    /// Counts a call naming a handle that was freed before.
    fn note_after_free(&mut self, client: u32, handles: &[u32]) {
        if handles.iter().any(|&h| self.was_freed(client, h)) {
            self.summary.after_free += 1;
        }
    }

    /// `GSP_RM_ALLOC`: the request is answered in place (its status field set) and sent back.
    pub fn alloc(&mut self, version: Version, request: &mut [u8]) -> Answer {
        let answer = self.try_alloc(version, request);
        self.answered(request, alloc::STATUS, answer, |s| s.allocated += 1)
    }

    /// Writes `answer`'s status at `status_at` of `request` (where the request has it) and counts
    /// the call: refused, or as `done` counts it.
    fn answered(
        &mut self,
        request: &mut [u8],
        status_at: usize,
        answer: Answer,
        done: fn(&mut RmSummary),
    ) -> Answer {
        if answer.status != 0 {
            self.summary.refused += 1;
        } else {
            done(&mut self.summary);
        }
        if request.len() >= status_at + 4 {
            put_u32(request, status_at, answer.status);
        }
        answer
    }

    fn try_alloc(&mut self, version: Version, request: &[u8]) -> Answer {
        if request.len() < alloc::SIZE_OF {
            return Answer::short(
                "GSP_RM_ALLOC",
                "rpc_gsp_rm_alloc_v03_00",
                request.len(),
                alloc::SIZE_OF,
            );
        }
        if self.clients.values().map(BTreeMap::len).sum::<usize>() >= MAX_OBJECTS {
            return Answer::refused(
                NV_ERR_INSUFFICIENT_RESOURCES,
                format!("GSP_RM_ALLOC refused: {MAX_OBJECTS} objects held already"),
            );
        }
        let client = get_u32(request, alloc::H_CLIENT);
        let parent = get_u32(request, alloc::H_PARENT);
        let object = get_u32(request, alloc::H_OBJECT);
        let class = get_u32(request, alloc::H_CLASS);
        let size = get_u32(request, alloc::PARAMS_SIZE) as usize;
        let what = format!(
            "GSP_RM_ALLOC of {} {object:#010x} under {parent:#010x} in client {client:#010x}",
            class_name(class)
        );
        if class != NV01_ROOT {
            // A freed handle may be taken again; a freed parent is a use after free.
            self.note_after_free(client, &[parent]);
        }
        // Resource server order (serverAllocResourceUnderLock): the class first.
        let Some(want) = params_size(version, class) else {
            return Answer::refused(
                NV_ERR_INVALID_CLASS,
                format!("{what} refused: class {class:#x} unknown: NV_ERR_INVALID_CLASS"),
            );
        };
        // The model's assumption (the GSP side is not published): parameters of another size
        // than the class's structure in this version are refused, as 570.144's control path
        // refuses them (rmapi/control.c).
        let params = &request[alloc::SIZE_OF..];
        if size != want || params.len() < size {
            return Answer::refused(
                NV_ERR_INVALID_ARGUMENT,
                format!(
                    "{what} refused: paramsSize {size} ({} bytes sent), but {} of {version} \
                     has {want}: NV_ERR_INVALID_ARGUMENT",
                    params.len(),
                    class_name(class)
                ),
            );
        }
        let params = &params[..size];
        if class == NV01_ROOT {
            return self.alloc_client(&what, client, parent, object, params);
        }
        let Some(objects) = self.clients.get(&client) else {
            return Answer::refused(
                NV_ERR_INVALID_OBJECT_HANDLE,
                format!("{what} refused: no client {client:#010x}: NV_ERR_INVALID_OBJECT_HANDLE"),
            );
        };
        if object == client {
            // 570.144 refuses it as a parent error; 535.113.01 goes on and refuses the handle
            // (docs/rm-api.md, section 3, step 3).
            let status = match version {
                Version::R570_144 => NV_ERR_INVALID_OBJECT_PARENT,
                Version::R535_113_01 => NV_ERR_INVALID_OBJECT_HANDLE,
            };
            return Answer::refused(
                status,
                format!("{what} refused: the handle is the client's"),
            );
        }
        let Some(parent_object) = objects.get(&parent).copied() else {
            return Answer::refused(
                NV_ERR_OBJECT_NOT_FOUND,
                format!("{what} refused: no parent {parent:#010x}: NV_ERR_OBJECT_NOT_FOUND"),
            );
        };
        let allowed_parent = match class {
            NV01_DEVICE_0 => NV01_ROOT,
            _ => NV01_DEVICE_0,
        };
        if parent_object.class != allowed_parent {
            return Answer::refused(
                NV_ERR_INVALID_OBJECT_PARENT,
                format!(
                    "{what} refused: its parent is {}, not {}: NV_ERR_INVALID_OBJECT_PARENT",
                    class_name(parent_object.class),
                    class_name(allowed_parent)
                ),
            );
        }
        if object == 0 {
            // RM would pick a handle and tell it only inside RM: no driver sends 0.
            return Answer::refused(
                NV_ERR_INVALID_OBJECT_HANDLE,
                format!("{what} refused: handle 0 (the model does not pick handles)"),
            );
        }
        if objects.contains_key(&object) {
            return Answer::refused(
                NV_ERR_INSERT_DUPLICATE_NAME,
                format!("{what} refused: the handle is taken: NV_ERR_INSERT_DUPLICATE_NAME"),
            );
        }
        let (instance, vaspace) = if class == FERMI_VASPACE_A {
            match vaspace::check_alloc(params) {
                Ok(v) => (0, Some(v)),
                Err(why) => {
                    return Answer::refused(
                        NV_ERR_INVALID_ARGUMENT,
                        format!("{what} refused: {why}: NV_ERR_INVALID_ARGUMENT"),
                    )
                }
            }
        } else {
            // deviceId (NV0080_ALLOC_PARAMETERS) or subDeviceId (NV2080_ALLOC_PARAMETERS),
            // both at offset 0: one GPU, so only instance 0; a second of one instance under one
            // parent is refused (gpu/device.c, subdevice/subdevice.c).
            let instance = get_u32(params, 0);
            if instance != 0 {
                return Answer::refused(
                    NV_ERR_INVALID_CLASS,
                    format!(
                        "{what} refused: instance {instance}, the GPU has only 0: \
                         NV_ERR_INVALID_CLASS"
                    ),
                );
            }
            if objects
                .values()
                .any(|o| o.class == class && o.parent == parent && o.instance == instance)
            {
                return Answer::refused(
                    NV_ERR_INSUFFICIENT_RESOURCES,
                    format!(
                        "{what} refused: instance {instance} already allocated under its \
                         parent: NV_ERR_INSUFFICIENT_RESOURCES"
                    ),
                );
            }
            (instance, None)
        };
        self.clients.get_mut(&client).expect("found").insert(
            object,
            Object {
                parent,
                class,
                instance,
                vaspace,
            },
        );
        if let Some(f) = self.freed.get_mut(&client) {
            f.retain(|&h| h != object);
        }
        Answer::ok(what)
    }

    /// A client (`NV01_ROOT`). nouveau asks for the handle it picked in `hClient`, `hObject`
    /// and the parameters' `hClient` alike (`rm/r535/client.c`), which RM's compatibility mode
    /// takes verbatim. The model's assumption: the three must agree and be non-zero (RM would
    /// pick a handle for 0, and no reference shows which field GSP-RM reads).
    fn alloc_client(
        &mut self,
        what: &str,
        client: u32,
        parent: u32,
        object: u32,
        params: &[u8],
    ) -> Answer {
        let asked = get_u32(params, 0);
        if client == 0 || object != client || parent != client || asked != client {
            return Answer::refused(
                NV_ERR_INVALID_ARGUMENT,
                format!(
                    "{what} refused: hClient, hParent, hObject and the parameters' hClient \
                     ({asked:#010x}) must name one non-zero handle"
                ),
            );
        }
        if self.clients.contains_key(&client) {
            return Answer::refused(
                NV_ERR_INSERT_DUPLICATE_NAME,
                format!("{what} refused: the client exists: NV_ERR_INSERT_DUPLICATE_NAME"),
            );
        }
        self.clients.insert(
            client,
            BTreeMap::from([(
                client,
                Object {
                    parent: client,
                    class: NV01_ROOT,
                    instance: 0,
                    vaspace: None,
                },
            )]),
        );
        // A handle freed before is free again.
        if let Some(f) = self.freed.get_mut(&client) {
            f.retain(|&h| h != client);
        }
        Answer::ok(what.to_string())
    }

    /// `GSP_RM_CONTROL`: the request answered in place (its status and parameters) by `answer`
    /// for a command of known parameter size, once the tree's checks pass: the client, then the
    /// object (rmapi `_rmapiRmControl`, then `serverControl`), then the command for the object's
    /// class and the parameters' size (`resControlLookup`; 570.144 checks the size first, in
    /// `rmapi/control.c`, with another code).
    pub fn control(
        &mut self,
        version: Version,
        request: &mut [u8],
        params_size: impl Fn(u32) -> Option<usize>,
        answer: impl FnOnce(u32, &mut [u8]) -> Result<(), (u32, String)>,
    ) -> Answer {
        let answer = self.try_control(version, request, params_size, answer);
        self.answered(request, control::STATUS, answer, |s| s.controls += 1)
    }

    fn try_control(
        &mut self,
        version: Version,
        request: &mut [u8],
        params_size: impl Fn(u32) -> Option<usize>,
        answer: impl FnOnce(u32, &mut [u8]) -> Result<(), (u32, String)>,
    ) -> Answer {
        if request.len() < control::SIZE_OF {
            return Answer::short(
                "GSP_RM_CONTROL",
                "rpc_gsp_rm_control_v03_00",
                request.len(),
                control::SIZE_OF,
            );
        }
        let client = get_u32(request, control::H_CLIENT);
        let object = get_u32(request, control::H_OBJECT);
        let cmd = get_u32(request, control::CMD);
        let size = get_u32(request, control::PARAMS_SIZE) as usize;
        let what = format!(
            "GSP_RM_CONTROL {} ({cmd:#010x}) on {object:#010x} in client {client:#010x}",
            super::controls::name(cmd)
        );
        self.note_after_free(client, &[object]);
        let Some(objects) = self.clients.get(&client) else {
            return Answer::refused(
                NV_ERR_INVALID_CLIENT,
                format!("{what} refused: no client {client:#010x}: NV_ERR_INVALID_CLIENT"),
            );
        };
        let Some(target) = objects.get(&object) else {
            return Answer::refused(
                NV_ERR_OBJECT_NOT_FOUND,
                format!("{what} refused: no object {object:#010x}: NV_ERR_OBJECT_NOT_FOUND"),
            );
        };
        // A command's class is its top 16 bits (NV2080_CTRL_CMD_*: the subdevice's); the VA
        // space controls on a device are the tree's own.
        let stateful = vaspace::params_size(cmd).filter(|_| cmd >> 16 == target.class);
        let Some(want) =
            stateful.or_else(|| params_size(cmd).filter(|_| cmd >> 16 == target.class))
        else {
            return Answer::refused(
                NV_ERR_NOT_SUPPORTED,
                format!(
                    "{what} refused: not a control the model answers on {}: NV_ERR_NOT_SUPPORTED",
                    class_name(target.class)
                ),
            );
        };
        let sent = request.len() - control::SIZE_OF;
        if size != want || sent < size {
            let status = match version {
                Version::R570_144 => NV_ERR_INVALID_ARGUMENT,
                Version::R535_113_01 => NV_ERR_INVALID_PARAM_STRUCT,
            };
            return Answer::refused(
                status,
                format!("{what} refused: paramsSize {size} ({sent} bytes sent), not {want}"),
            );
        }
        let params = &mut request[control::SIZE_OF..control::SIZE_OF + size];
        let result = if stateful.is_some() {
            self.vaspace_control(client, object, cmd, params)
        } else {
            answer(cmd, params)
        };
        match result {
            Ok(()) => Answer::ok(what),
            Err((status, why)) => Answer::refused(status, format!("{what} refused: {why}")),
        }
    }

    /// A VA space control on `device` of `client` carried out: the VA space it names must be
    /// one of that device's.
    fn vaspace_control(
        &mut self,
        client: u32,
        device: u32,
        cmd: u32,
        params: &[u8],
    ) -> Result<(), (u32, String)> {
        let objects = self.clients.get_mut(&client).expect("checked");
        let lookup = |h: u32| {
            objects
                .get(&h)
                .filter(|o| o.parent == device)
                .and_then(|o| o.vaspace)
        };
        let change = vaspace::check_control(cmd, params, lookup, self.vram_end)?;
        if let Some(v) = objects
            .get_mut(&change.vaspace)
            .and_then(|o| o.vaspace.as_mut())
        {
            v.directory = change.directory;
        }
        Ok(())
    }

    /// Where the usable video memory ends (the static information's region), for the checks
    /// of addresses the driver names.
    pub fn set_vram_end(&mut self, end: Option<u64>) {
        self.vram_end = end;
    }

    /// `FREE`: the request is answered in place and sent back. RM frees the object's
    /// descendants with it (children first), and the whole tree for the client's own handle; a
    /// handle the client does not hold is no error in compatibility mode
    /// (`serverFreeResourceTree`).
    pub fn free(&mut self, request: &mut [u8]) -> Answer {
        let answer = self.try_free(request);
        // What it freed was counted as it went.
        self.answered(request, free::STATUS, answer, |_| {})
    }

    fn try_free(&mut self, request: &[u8]) -> Answer {
        if request.len() < free::SIZE_OF {
            return Answer::short("FREE", "rpc_free_v03_00", request.len(), free::SIZE_OF);
        }
        let client = get_u32(request, free::H_ROOT);
        let object = get_u32(request, free::H_OBJECT_OLD);
        let what = format!("FREE of {object:#010x} in client {client:#010x}");
        self.note_after_free(client, &[object]);
        if client == INTERNAL[0] {
            // The model's assumption: GSP-RM's own objects are not the driver's to free (nouveau
            // never frees them; RM would refuse a client without the privilege).
            return Answer::refused(
                NV_ERR_INVALID_OBJECT_HANDLE,
                format!("{what} refused: GSP-RM's internal client is not the driver's"),
            );
        }
        let Some(objects) = self.clients.get(&client) else {
            return Answer::refused(
                NV_ERR_INVALID_OBJECT_HANDLE,
                format!("{what} refused: no client {client:#010x}: NV_ERR_INVALID_OBJECT_HANDLE"),
            );
        };
        if !objects.contains_key(&object) {
            return Answer::ok(format!("{what}: no such object, nothing freed (NV_OK)"));
        }
        // The object and its descendants.
        let mut gone = vec![object];
        let mut i = 0;
        while i < gone.len() {
            let h = gone[i];
            gone.extend(
                objects
                    .iter()
                    .filter(|(&c, o)| o.parent == h && c != h)
                    .map(|(&c, _)| c),
            );
            i += 1;
        }
        let objects = self.clients.get_mut(&client).expect("found");
        for h in &gone {
            objects.remove(h);
        }
        if objects.is_empty() {
            self.clients.remove(&client);
        }
        self.summary.freed += gone.len() as u32;
        let freed = self.freed.entry(client).or_default();
        freed.extend(&gone);
        // Only the latest frees are remembered (a use after an older free goes uncounted).
        if freed.len() > MAX_OBJECTS {
            freed.drain(..freed.len() - MAX_OBJECTS);
        }
        let also = match gone.len() - 1 {
            0 => String::new(),
            n => format!(" and {n} descendant(s)"),
        };
        Answer::ok(format!("{what}: freed{also}"))
    }
}

#[cfg(test)]
#[path = "rm_tests.rs"]
mod tests;
