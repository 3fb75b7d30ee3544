// SPDX-License-Identifier: GPL-2.0

//! The RM API's calls (`gsp/rm/calls.rs`) on the host: the requests byte for byte as nouveau
//! builds them, and the replies GSP-RM may send, accepted or refused with the line the log
//! shows.

use nova_core_parse::check_rm::{
    alloc_reply, alloc_request, free_reply, free_request, rm_replies, PROBE_OBJECTS,
};

fn words(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// nouveau's `r535_gsp_rpc_rm_alloc_get` (`rm/r535/alloc.c`, used for 570.144 too): hClient,
/// hParent, hObject, hClass, status 0, paramsSize, then zeroed flags and reserved.
#[test]
fn alloc_requests_are_nouveaus_byte_for_byte() {
    for params in [108, 120] {
        assert_eq!(
            alloc_request(0xc1d0_0000, 0xc1d0_0000, 0xc1d0_0000, 0, params),
            words(&[0xc1d0_0000, 0xc1d0_0000, 0xc1d0_0000, 0, 0, params, 0, 0])
        );
    }
    assert_eq!(
        alloc_request(0xc1d0_0000, 0xc1d0_0000, 0xde1d_0000, 0x80, 56),
        words(&[0xc1d0_0000, 0xc1d0_0000, 0xde1d_0000, 0x80, 0, 56, 0, 0])
    );
    assert_eq!(
        alloc_request(0xc1d0_0000, 0xde1d_0000, 0x5d1d_0000, 0x2080, 4),
        words(&[0xc1d0_0000, 0xde1d_0000, 0x5d1d_0000, 0x2080, 0, 4, 0, 0])
    );
}

/// nouveau's `r535_gsp_rpc_rm_free`: hRoot the client, hObjectParent 0, hObjectOld the object.
#[test]
fn free_requests_are_nouveaus_byte_for_byte() {
    assert_eq!(
        free_request(0xc1d0_0000, 0xde1d_0000, 0x5d1d_0000, 0x2080),
        words(&[0xc1d0_0000, 0, 0x5d1d_0000, 0])
    );
    assert_eq!(
        free_request(0xc1d0_0000, 0xc1d0_0000, 0xc1d0_0000, 0),
        words(&[0xc1d0_0000, 0, 0xc1d0_0000, 0])
    );
}

/// The reply GSP-RM sends: the request, answered in place, with its parameters.
fn echo(o: (u32, u32, u32, u32, u32), status: u32) -> Vec<u8> {
    let mut b = alloc_request(o.0, o.1, o.2, o.3, o.4);
    b[16..20].copy_from_slice(&status.to_le_bytes());
    b.resize(b.len() + o.4 as usize, 0);
    b
}

#[test]
fn an_alloc_reply_must_answer_the_request_with_nv_ok() {
    for o in PROBE_OBJECTS {
        assert_eq!(alloc_reply(&echo(o, 0), o), Ok(()));
        assert_eq!(
            alloc_reply(&echo(o, 0x1f), o),
            Err("NV_ERR_INVALID_ARGUMENT (0x1f)".into())
        );
        let full = echo(o, 0);
        let want = 32 + o.4 as usize;
        assert_eq!(
            alloc_reply(&full[..want - 1], o),
            Err(format!("{} bytes, shorter than the {want} sent", want - 1))
        );
        // Another object, class or size than asked.
        for (at, field) in [
            (0, "hClient"),
            (4, "hParent"),
            (8, "hObject"),
            (12, "hClass"),
            (20, "paramsSize"),
        ] {
            let mut b = full.clone();
            b[at] ^= 1;
            let got = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
            let want = u32::from_le_bytes(full[at..at + 4].try_into().unwrap());
            assert_eq!(
                alloc_reply(&b, o),
                Err(format!("{field} {got:#x}, not the {want:#x} asked for")),
                "{field}"
            );
        }
    }
}

#[test]
fn a_free_reply_must_name_the_object_freed_with_nv_ok() {
    let (c, p, h, class, _) = PROBE_OBJECTS[2];
    let o = (c, p, h, class);
    let ok = free_request(c, p, h, class);
    assert_eq!(free_reply(&ok, o), Ok(()));
    assert_eq!(
        free_reply(&ok[..15], o),
        Err("15 bytes, shorter than the 16 sent".into())
    );
    let mut other = ok.clone();
    other[8] = 1;
    assert_eq!(
        free_reply(&other, o),
        Err("hObjectOld 0x5d1d0001, not the 0x5d1d0000 asked for".into())
    );
    let mut failed = ok.clone();
    failed[12] = 0x33;
    assert_eq!(
        free_reply(&failed, o),
        Err("NV_ERR_INVALID_OBJECT_HANDLE (0x33)".into())
    );
}

#[test]
fn arbitrary_bytes_are_judged_without_panicking() {
    let mut accepted = 0;
    for len in 0..200usize {
        let data: Vec<u8> = (0..len).map(|i| (i * 37 + len) as u8).collect();
        accepted += rm_replies(&data);
    }
    // Noise answers nothing; a real reply is accepted for its own object only.
    assert_eq!(accepted, 0);
    let o = PROBE_OBJECTS[1];
    assert_eq!(rm_replies(&echo(o, 0)), 1);
}
