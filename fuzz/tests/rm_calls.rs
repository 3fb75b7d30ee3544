// SPDX-License-Identifier: GPL-2.0

//! The RM API's calls (`gsp/rm/calls.rs`) on the host: the requests byte for byte as nouveau
//! builds them, and the replies GSP-RM may send, accepted or refused with the line the log
//! shows.

use nova_core_parse::check_rm::{
    alloc_reply, alloc_request, control, control_request_for, control_requests, device_info_next,
    free_reply, free_request, intr_table, rm_replies, PROBE_OBJECTS,
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

/// nouveau's `r535_gsp_rpc_rm_ctrl_get` (`rm/r535/ctrl.c`, for 570.144 too): hClient, hObject,
/// cmd, status 0, paramsSize, flags 0, then the parameters (zeroed but what the caller sets).
#[test]
fn control_requests_are_nouveaus_byte_for_byte() {
    // The device information's first request: from entry 0.
    let fifo = [0; 803];
    let want: [(&str, u32, &[u32]); 6] = [
        ("NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO", 0x2080_0137, &[0]),
        (
            "NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO",
            0x2080_0138,
            &[3, 0],
        ),
        (
            "NV2080_CTRL_CMD_CE_GET_FAULT_METHOD_BUFFER_SIZE",
            0x2080_2a08,
            &[0],
        ),
        (
            "NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE",
            0x2080_0a5c,
            &[0; 517],
        ),
        (
            "NV2080_CTRL_CMD_FIFO_GET_DEVICE_INFO_TABLE",
            0x2080_1112,
            &fifo,
        ),
        (
            "NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG",
            0x2080_0a1c,
            &[0; 10],
        ),
    ];
    let got = control_requests();
    assert_eq!(got.len(), want.len());
    for ((name, bytes), (want_name, cmd, params)) in got.into_iter().zip(want) {
        assert_eq!(name, want_name);
        let size = params.len() as u32 * 4;
        let mut w = words(&[0xc1e0_0000, 0xcaf0_0001, cmd, 0, size, 0]);
        w.extend(words(params));
        assert_eq!(bytes, w, "{name}");
    }
}

/// A reply: the request's frame, status, and the given parameters.
fn control_echo(name: &str, status: u32, params: &[u8]) -> Vec<u8> {
    control_echo_for(name, true, status, params)
}

/// A reply to the request sent with 570.144 (`r570`) or 535.113.01.
fn control_echo_for(name: &str, r570: bool, status: u32, params: &[u8]) -> Vec<u8> {
    let req = control_request_for(name, r570);
    let mut b = req[..24].to_vec();
    b[12..16].copy_from_slice(&status.to_le_bytes());
    b.extend_from_slice(params);
    b
}

#[test]
fn control_replies_are_checked_frame_then_parameters() {
    const GPC: &str = "NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO";
    const TPC: &str = "NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO";
    const CE: &str = "NV2080_CTRL_CMD_CE_GET_FAULT_METHOD_BUFFER_SIZE";
    assert_eq!(
        control(GPC, true, &control_echo(GPC, 0, &words(&[0x7f]))),
        Ok("127".into())
    );
    assert_eq!(
        control(GPC, true, &control_echo(GPC, 0, &words(&[0]))),
        Err("GPC mask 0: no GPC".into())
    );
    assert_eq!(
        control(GPC, true, &control_echo(GPC, 0x56, &words(&[0x7f]))),
        Err("NV_ERR_NOT_SUPPORTED (0x56)".into())
    );
    assert_eq!(
        control(GPC, true, &control_echo(GPC, 0, &[])),
        Err("24 bytes, shorter than the 28 sent".into())
    );
    let mut other = control_echo(GPC, 0, &words(&[0x7f]));
    other[8] = 0x38;
    assert_eq!(
        control(GPC, true, &other),
        Err("cmd 0x20800138, not the 0x20800137 asked for".into())
    );
    assert_eq!(
        control(TPC, true, &control_echo(TPC, 0, &words(&[3, 0x3f]))),
        Ok("63".into())
    );
    assert_eq!(
        control(TPC, true, &control_echo(TPC, 0, &words(&[2, 0x3f]))),
        Err("answer for GPC 2, not GPC 3".into())
    );
    assert_eq!(
        control(TPC, true, &control_echo(TPC, 0, &words(&[3, 0]))),
        Err("GPC 3 has no TPC".into())
    );
    assert_eq!(
        control(CE, true, &control_echo(CE, 0, &words(&[0x1000]))),
        Ok("4096".into())
    );
    for bad in [0, 0x10_0001] {
        assert!(control(CE, true, &control_echo(CE, 0, &words(&[bad])))
            .unwrap_err()
            .starts_with("fault method buffer size"));
    }
}

/// The interrupt table: its length within its array, each vector one the tree has or none,
/// and each version's engine numbers (the GSP is 49 in 535.113.01, 50 in 570.144).
#[test]
fn the_interrupt_table_is_read_with_each_versions_engine_numbers() {
    const INTR: &str = "NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE";
    let table = |len: u32, entries: &[(u16, u32, u32)]| {
        let mut p = vec![0u8; 2068];
        p[..4].copy_from_slice(&len.to_le_bytes());
        for (i, (idx, stall, nonstall)) in entries.iter().enumerate() {
            let at = 4 + 16 * i;
            p[at..at + 2].copy_from_slice(&idx.to_le_bytes());
            p[at + 8..at + 12].copy_from_slice(&stall.to_le_bytes());
            p[at + 12..at + 16].copy_from_slice(&nonstall.to_le_bytes());
        }
        control_echo(INTR, 0, &p)
    };
    let t = table(3, &[(50, 0, u32::MAX), (49, 1, u32::MAX), (15, 2, 130)]);
    // 570.144: 50 is the GSP, 49 NVLINK (not kept); 535.113.01: 50 is NVJPG0, 49 the GSP.
    assert_eq!(
        control(INTR, true, &t),
        Ok("3 entries: gsp Some(0) None; ce0 Some(2) Some(130);".into())
    );
    assert_eq!(
        control(INTR, false, &t),
        Ok("3 entries: nvjpg0 Some(0) None; gsp Some(1) None; ce0 Some(2) Some(130);".into())
    );
    assert_eq!(
        control(INTR, true, &table(129, &[])),
        Err("table length 129, past its 128 entries".into())
    );
    assert_eq!(
        control(INTR, true, &table(1, &[(50, 256, u32::MAX)])),
        Err("engine 50: vector 0x100 beyond the interrupt tree's 256".into())
    );
    // Entries past tableLen are not read.
    assert_eq!(
        control(INTR, true, &table(0, &[(50, 256, 0)])),
        Ok("0 entries:".into())
    );
    // Hopper on, GSP-RM uses twelve leaves: its runlist subtrees reach vector 383.
    let hopper = table(1, &[(50, 192, 383)]);
    assert_eq!(
        intr_table(true, 384, &hopper),
        Ok("1 entries: gsp Some(192) Some(383);".into())
    );
    assert_eq!(
        intr_table(true, 256, &hopper),
        Err("engine 50: vector 0x17f beyond the interrupt tree's 256".into())
    );
    assert_eq!(
        intr_table(true, 384, &table(1, &[(50, 384, u32::MAX)])),
        Err("engine 50: vector 0x180 beyond the interrupt tree's 384".into())
    );
}

/// The memory system's configuration is a version's own layout: 56 bytes in 535.113.01, 40 in
/// 570.144 (OpenRM `ctrl2080internal.h` at each tag), each read where its version keeps it.
#[test]
fn the_memory_systems_configuration_is_read_in_each_versions_layout() {
    const MEMSYS: &str = "NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG";
    let r535 = control_request_for(MEMSYS, false);
    assert_eq!(
        &r535[..24],
        &words(&[0xc1e0_0000, 0xcaf0_0001, 0x2080_0a1c, 0, 56, 0])[..]
    );
    assert_eq!(&r535[24..], &[0; 56][..]);
    // (field offset in 570.144, in 535.113.01, value)
    let fields = [
        (5, 5, 1u64, 1),       // bEnabledEccFBPA
        (8, 8, 6 << 20, 8),    // l2CacheSize
        (16, 17, 1, 1),        // bFbpaPresent
        (20, 20, 0x1_0000, 4), // comprPageSize
        (24, 24, 16, 4),       // comprPageShift
        (28, 32, 0x12, 4),     // ramType: GDDR6X
        (32, 36, 12, 4),       // ltcCount
        (36, 40, 4, 4),        // ltsPerLtcCount
    ];
    let params = |r570: bool, change: Option<(usize, u64)>| {
        let mut p = vec![0u8; if r570 { 40 } else { 56 }];
        for (i, &(at570, at535, value, width)) in fields.iter().enumerate() {
            let at = if r570 { at570 } else { at535 };
            let value = match change {
                Some((field, v)) if field == i => v,
                _ => value,
            };
            p[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
        }
        control_echo_for(MEMSYS, r570, 0, &p)
    };
    let want = "GDDR6X, L2 6144 KiB in 12 LTCs of 4 slices, compression page 0x10000, ECC";
    for r570 in [true, false] {
        assert_eq!(control(MEMSYS, r570, &params(r570, None)), Ok(want.into()));
        for (field, value, error) in [
            (1, 0, "L2 cache of 0x0 bytes: not in 1..=0x40000000"),
            (
                1,
                1 << 31,
                "L2 cache of 0x80000000 bytes: not in 1..=0x40000000",
            ),
            (6, 0, "0 LTCs: not in 1..=128"),
            (7, 17, "17 L2 slices per LTC: not in 1..=16"),
            (4, 15, "compression page 0x10000 is not 1 << 15"),
        ] {
            assert_eq!(
                control(MEMSYS, r570, &params(r570, Some((field, value)))),
                Err(error.into()),
                "r570 {r570} field {field}"
            );
        }
    }
    let ecc_at = 5;
    let mut p = params(true, Some((0, 2)));
    assert_eq!(p[24 + ecc_at], 2);
    assert_eq!(
        control(MEMSYS, true, &p),
        Err("NvBool at offset 5 is 0x2, not 0 or 1".into())
    );
    // No compression page: none shown.
    p = params(true, Some((3, 0)));
    assert_eq!(
        control(MEMSYS, true, &p),
        Ok("GDDR6X, L2 6144 KiB in 12 LTCs of 4 slices, ECC".into())
    );
    // 535.113.01's layout read as 570.144's: the frame's parameter size differs.
    assert_eq!(
        control(MEMSYS, true, &params(false, None)),
        Err("paramsSize 0x38, not the 0x28 asked for".into())
    );
}

/// The FIFO's device information: the entries asked (from 0 here), at most 32 of them, at most
/// 2 PBDMAs each, names NUL-terminated text, and each version's engine numbers; asked again 32
/// entries further while more follow, up to the table's 256.
#[test]
fn the_device_information_is_checked_entry_by_entry() {
    const FIFO: &str = "NV2080_CTRL_CMD_FIFO_GET_DEVICE_INFO_TABLE";
    // (RM_ENGINE_TYPE, runlist, runlist registers, PBDMAs, name)
    let table = |base: u32, count: u32, more: u8, entries: &[(u32, u32, u32, u32, &str)]| {
        let mut p = vec![0u8; 3212];
        p[..4].copy_from_slice(&base.to_le_bytes());
        p[4..8].copy_from_slice(&count.to_le_bytes());
        p[8] = more;
        for (i, &(rm, runlist, pri, pbdmas, name)) in entries.iter().enumerate() {
            let at = 12 + 100 * i;
            p[at + 8..at + 12].copy_from_slice(&rm.to_le_bytes());
            p[at + 12..at + 16].copy_from_slice(&runlist.to_le_bytes());
            p[at + 44..at + 48].copy_from_slice(&pri.to_le_bytes());
            p[at + 80..at + 84].copy_from_slice(&pbdmas.to_le_bytes());
            p[at + 84..at + 84 + name.len()].copy_from_slice(name.as_bytes());
        }
        control_echo(FIFO, 0, &p)
    };
    let t = table(
        0,
        3,
        1,
        &[
            (0x01, 0, 0x2000, 1, "GR0"),
            (0x2d, 3, 0, 1, "SW"),
            (0x31, 4, 0x6000, 1, "SEC2"),
        ],
    );
    // 570.144: 0x2d is SW and 0x31 SEC2; 535.113.01: 0x2d is TSEC (not named) and 0x31 HOST.
    assert_eq!(
        control(FIFO, true, &t),
        Ok(
            "3 entries, more true: gr: runlist 0 at 0x2000; sw: runlist 3; \
            sec2: runlist 4 at 0x6000;"
                .into()
        )
    );
    assert_eq!(
        control(FIFO, false, &t),
        Ok(
            "3 entries, more true: gr: runlist 0 at 0x2000; RM engine type 0x2d: runlist 3; \
            RM engine type 0x31: runlist 4 at 0x6000;"
                .into()
        )
    );
    assert_eq!(
        control(FIFO, true, &table(32, 0, 0, &[])),
        Err("entries from 32, not from 0".into())
    );
    assert_eq!(
        control(FIFO, true, &table(0, 33, 0, &[])),
        Err("33 entries, past the 32 an answer holds".into())
    );
    assert_eq!(
        control(FIFO, true, &table(0, 0, 2, &[])),
        Err("NvBool at offset 8 is 0x2, not 0 or 1".into())
    );
    assert_eq!(
        control(
            FIFO,
            true,
            &table(0, 2, 0, &[(1, 0, 0, 1, "GR0"), (9, 1, 0, 3, "CE0")])
        ),
        Err("entry 1: 3 PBDMAs, past its arrays' 2".into())
    );
    assert_eq!(
        control(
            FIFO,
            true,
            &table(0, 1, 0, &[(1, 0, 0, 1, "0123456789abcdef")])
        ),
        Err("entry 0: name not NUL-terminated text".into())
    );
    assert_eq!(
        control(FIFO, true, &table(0, 1, 0, &[(1, 0, 0, 1, "GR\n")])),
        Err("entry 0: name not NUL-terminated text".into())
    );
    // Entries past numEntries are not read.
    assert_eq!(
        control(FIFO, true, &table(0, 0, 0, &[(1, 0, 0, 3, "\n")])),
        Ok("0 entries, more false:".into())
    );
    // Where the next answer starts: 32 further while more follow, none past the 256th entry.
    let from = |base: u32, more: u8| device_info_next(&table(base, 0, more, &[]), base, true);
    assert_eq!(from(0, 0), Ok(None));
    assert_eq!(from(0, 1), Ok(Some(32)));
    assert_eq!(from(192, 1), Ok(Some(224)));
    assert_eq!(from(224, 0), Ok(None));
    assert_eq!(
        from(224, 1),
        Err("more entries than the table's 256".into())
    );
}
