// SPDX-License-Identifier: GPL-2.0

//! Entry points into the RM API's validators (`gsp/rm/calls.rs`, `gsp/rm/controls.rs`): the
//! `GSP_RM_ALLOC`, `FREE` and `GSP_RM_CONTROL` replies, and the requests the driver builds.
//! Each checks the validator's promises on whatever it accepted.

use zerocopy::IntoBytes;

use crate::{
    gsp::rm::{
        calls::{
            self,
            Allocated,
            Class,
            ControlCall,
            Controlled,
            Freed,
            Object,
            ALLOC_HEADER,
            FREE_SIZE, //
        },
        controls::{
            self,
            CeFaultMethodBufferSize,
            Control,
            GpcInfo,
            IntrKernelTable,
            TpcInfo, //
        },
        fifo::{self, DeviceInfoTable},
        memsys::{
            self,
            MemsysStaticConfig, //
        },
    },
    untrusted::Untrusted,
};

/// The objects the driver allocates at probe, with nouveau's handles and 570.144's parameter
/// sizes (the client's is 108 bytes in 535.113.01; the tests take both).
pub const PROBE_OBJECTS: [(u32, u32, u32, u32, u32); 3] = [
    (0xc1d0_0000, 0xc1d0_0000, 0xc1d0_0000, 0x0, 120),
    (0xc1d0_0000, 0xc1d0_0000, 0xde1d_0000, 0x80, 56),
    (0xc1d0_0000, 0xde1d_0000, 0x5d1d_0000, 0x2080, 4),
];

fn object(client: u32, parent: u32, handle: u32, class: u32) -> Option<Object> {
    let class = [Class::Root, Class::Device, Class::Subdevice]
        .into_iter()
        .find(|c| c.number() == class)?;
    Some(Object {
        client,
        parent,
        handle,
        class,
    })
}

/// The fixed part of the `GSP_RM_ALLOC` the driver sends for this object.
pub fn alloc_request(client: u32, parent: u32, handle: u32, class: u32, params: u32) -> Vec<u8> {
    let o = object(client, parent, handle, class).expect("a class the driver allocates");
    o.alloc_header(params).as_bytes().to_vec()
}

/// The `FREE` the driver sends for this object.
pub fn free_request(client: u32, parent: u32, handle: u32, class: u32) -> Vec<u8> {
    let o = object(client, parent, handle, class).expect("a class the driver allocates");
    o.free_request().as_bytes().to_vec()
}

/// A `GSP_RM_ALLOC` reply for the object, validated; the error as the log line says it.
pub fn alloc_reply(
    reply: &[u8],
    (client, parent, handle, class, params): (u32, u32, u32, u32, u32),
) -> Result<(), String> {
    let o = object(client, parent, handle, class).expect("a class the driver allocates");
    let accepted = Untrusted::new_untrusted_ref(reply)
        .validate_ref_against::<Allocated, _>((&o, params))
        .map(|_| ())
        .map_err(|e| e.to_string());
    if accepted.is_ok() {
        // Accepted: as long as the request, naming the object, with status NV_OK.
        assert!(reply.len() >= ALLOC_HEADER + params as usize);
        assert_eq!(
            &reply[..16],
            &alloc_request(client, parent, handle, class, params)[..16]
        );
        assert_eq!(&reply[16..20], &[0; 4]);
    }
    accepted
}

/// A `FREE` reply for the object, validated.
pub fn free_reply(
    reply: &[u8],
    (client, parent, handle, class): (u32, u32, u32, u32),
) -> Result<(), String> {
    let o = object(client, parent, handle, class).expect("a class the driver allocates");
    let accepted = Untrusted::new_untrusted_ref(reply)
        .validate_ref_against::<Freed, _>(&o)
        .map(|_| ())
        .map_err(|e| e.to_string());
    if accepted.is_ok() {
        assert!(reply.len() >= FREE_SIZE);
        assert_eq!(&reply[12..16], &[0; 4]);
    }
    accepted
}

/// GSP-RM's internal client and subdevice, which the probe's controls go to.
pub const INTERNAL_SUBDEVICE: (u32, u32) = (0xc1e0_0000, 0xcaf0_0001);

/// The `GSP_RM_CONTROL` the driver sends for `control` on GSP-RM's internal subdevice: its
/// fixed part and its parameters.
fn control_request<C: Control>(control: &C) -> (ControlCall, Vec<u8>) {
    let size = control.params_size();
    let call = ControlCall {
        client: INTERNAL_SUBDEVICE.0,
        object: INTERNAL_SUBDEVICE.1,
        cmd: C::CMD,
        params_size: size as u32,
    };
    let mut params = vec![0u8; size];
    control.request(&mut params);
    let mut b = call.header().as_bytes().to_vec();
    b.extend_from_slice(&params);
    (call, b)
}

/// A reply to `control`, validated as the driver does it: the frame, then the parameters.
fn answered<C: Control>(control: &C, reply: &[u8]) -> Result<C::Reply, String> {
    let (call, _) = control_request(control);
    let raw = Untrusted::new_untrusted_ref(reply);
    let Controlled(range) = raw
        .validate_ref_against::<Controlled, _>(&call)
        .map_err(|e| e.to_string())?;
    let params = raw
        .subslice(range.start, range.len())
        .expect("the frame's check saw the parameters there");
    control.reply(params).map_err(|e| e.to_string())
}

/// A reply to `control`, validated; what it gave, as text, or the error as the log says it.
fn control_reply<C: Control>(control: &C, reply: &[u8]) -> Result<String, String>
where
    C::Reply: core::fmt::Debug,
{
    answered(control, reply).map(|r| format!("{r:?}"))
}

/// The memory system's configuration in 570.144's layout, or 535.113.01's.
fn memsys(r570: bool) -> MemsysStaticConfig {
    MemsysStaticConfig(if r570 {
        &memsys::versioned::r570_144::MEMSYS
    } else {
        &memsys::versioned::r535_113_01::MEMSYS
    })
}

/// The FIFO's device information from entry `base`, with 570.144's engine numbers or
/// 535.113.01's.
fn device_info(base: u32, r570: bool) -> DeviceInfoTable {
    DeviceInfoTable {
        base,
        rm_engine: if r570 {
            fifo::versioned::r570_144::rm_engine
        } else {
            fifo::versioned::r535_113_01::rm_engine
        },
    }
}

/// What the driver sends for the named control with 570.144 (`r570`) or 535.113.01, as
/// [`control_requests`] has it (the memory system's configuration has a layout per version).
pub fn control_request_for(name: &str, r570: bool) -> Vec<u8> {
    match name {
        MemsysStaticConfig::NAME => control_request(&memsys(r570)).1,
        _ => {
            control_requests()
                .into_iter()
                .find(|(n, _)| *n == name)
                .expect("a control of the probe")
                .1
        }
    }
}

/// Size of `GSP_RM_CONTROL`'s fixed part, which a control's parameters follow.
pub const CONTROL_HEADER: usize = calls::CONTROL_HEADER;

/// The `NV0000_ALLOC_PARAMETERS` the driver sends for client `handle`, in 570.144's layout
/// (`r570`) or 535.113.01's.
pub fn client_params(r570: bool, handle: u32) -> Vec<u8> {
    if r570 {
        calls::versioned::r570_144::client_params(handle)
            .as_bytes()
            .to_vec()
    } else {
        calls::versioned::r535_113_01::client_params(handle)
            .as_bytes()
            .to_vec()
    }
}

/// The `NV0080_ALLOC_PARAMETERS` the driver sends for the device under `client`.
pub fn device_params(client: u32) -> Vec<u8> {
    calls::device_params(client).as_bytes().to_vec()
}

/// The `NV2080_ALLOC_PARAMETERS` the driver sends for the subdevice.
pub fn subdevice_params() -> Vec<u8> {
    calls::subdevice_params().as_bytes().to_vec()
}

/// The `GSP_RM_CONTROL` the driver sends for GPC `gpc`'s TPC mask.
pub fn tpc_info_request(gpc: u32) -> Vec<u8> {
    control_request(&TpcInfo(gpc)).1
}

/// The controls of the probe, by name: what the driver sends for each with 570.144 (the
/// device information's first, from entry 0).
pub fn control_requests() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        (GpcInfo::NAME, control_request(&GpcInfo).1),
        (TpcInfo::NAME, control_request(&TpcInfo(3)).1),
        (
            CeFaultMethodBufferSize::NAME,
            control_request(&CeFaultMethodBufferSize).1,
        ),
        (
            IntrKernelTable::NAME,
            control_request(&IntrKernelTable {
                engine: crate::gsp::rm::controls::versioned::r570_144::engine,
                vectors: 256,
            })
            .1,
        ),
        (
            DeviceInfoTable::NAME,
            control_request(&device_info(0, true)).1,
        ),
        (MemsysStaticConfig::NAME, control_request(&memsys(true)).1),
    ]
}

/// The interrupt table's reply, validated for a family whose GSP-RM uses `vectors` vectors.
pub fn intr_table(r570: bool, vectors: u32, reply: &[u8]) -> Result<String, String> {
    let engine = if r570 {
        controls::versioned::r570_144::engine
    } else {
        controls::versioned::r535_113_01::engine
    };
    answered(&IntrKernelTable { engine, vectors }, reply).map(|t| {
        let mut out = format!("{} entries:", t.len);
        for e in t.engines() {
            out += &format!(" {} {:?} {:?};", e.engine, e.stall, e.nonstall);
        }
        out
    })
}

/// A reply to the named control (`TpcInfo` asked for GPC 3, the device information from entry
/// 0; the interrupt table and the device information read with `r570` or 535.113.01's engine
/// numbers, the memory system's configuration in its layout), validated.
pub fn control(name: &str, r570: bool, reply: &[u8]) -> Result<String, String> {
    match name {
        GpcInfo::NAME => control_reply(&GpcInfo, reply),
        TpcInfo::NAME => control_reply(&TpcInfo(3), reply),
        CeFaultMethodBufferSize::NAME => control_reply(&CeFaultMethodBufferSize, reply),
        IntrKernelTable::NAME => intr_table(r570, 256, reply),
        DeviceInfoTable::NAME => answered(&device_info(0, r570), reply).map(|page| {
            let mut out = format!("{} entries, more {}:", page.engines().count(), page.more);
            for e in page.engines() {
                out += &format!(" {e};");
            }
            out
        }),
        MemsysStaticConfig::NAME => answered(&memsys(r570), reply).map(|m| m.to_string()),
        _ => panic!("no control {name}"),
    }
}

/// The device information's answer to a request from `base`, validated, and where the next
/// request starts (`None`: the table is complete).
pub fn device_info_next(reply: &[u8], base: u32, r570: bool) -> Result<Option<u32>, String> {
    answered(&device_info(base, r570), reply)
        .and_then(|page| page.next(base).map_err(|e| e.to_string()))
}

/// Every probe object's and control's replies to `data`: what the fuzzer drives.
pub fn rm_replies(data: &[u8]) -> usize {
    let mut accepted = 0;
    for (c, p, h, class, params) in PROBE_OBJECTS {
        accepted += usize::from(alloc_reply(data, (c, p, h, class, params)).is_ok());
        accepted += usize::from(free_reply(data, (c, p, h, class)).is_ok());
    }
    for (name, _) in control_requests() {
        for r570 in [false, true] {
            accepted += usize::from(control(name, r570, data).is_ok());
        }
    }
    accepted
}
