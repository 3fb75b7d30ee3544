// SPDX-License-Identifier: GPL-2.0

//! Entry points into the RM API's validators (`gsp/rm/calls.rs`): the `GSP_RM_ALLOC` and `FREE`
//! replies, and the requests the driver builds. Each checks the validator's promises on whatever
//! it accepted.

use zerocopy::IntoBytes;

use crate::{
    gsp::rm::calls::{
        Allocated,
        Class,
        Freed,
        Object,
        ALLOC_HEADER,
        FREE_SIZE, //
    },
    untrusted::Untrusted,
};

/// The objects the driver allocates at probe, with nouveau's handles and each version's
/// parameter sizes (client: 108 bytes in 535.113.01, 120 in 570.144).
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

/// Every probe object's replies to `data`: what the fuzzer drives.
pub fn rm_replies(data: &[u8]) -> usize {
    let mut accepted = 0;
    for (c, p, h, class, params) in PROBE_OBJECTS {
        accepted += usize::from(alloc_reply(data, (c, p, h, class, params)).is_ok());
        accepted += usize::from(free_reply(data, (c, p, h, class)).is_ok());
    }
    accepted
}
