// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's status codes (`gsp/rm/status.rs`) on the host: every code OpenRM names is named,
//! by number, in the driver's log lines; a number it does not name is said to be unknown.

use nova_core_parse::check;

#[test]
fn every_name_is_openrms_and_the_table_is_sorted() {
    let names = check::nv_status_names();
    assert!(names.windows(2).all(|w| w[0].0 < w[1].0), "sorted, unique");
    for (code, name) in &names {
        let ok = *name == "NV_OK"
            || name.starts_with("NV_ERR_")
            || name.starts_with("NV_WARN_")
            || name.starts_with("NV_VGPU_MSG_RESULT_");
        assert!(ok, "{code:#x} {name}");
        assert!(name
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_'));
        assert_eq!(check::nv_status(*code), format!("{name} ({code:#x})"));
    }
    // The warnings are 0x10001 on, the RPC layer's codes 0xff000001 on.
    assert_eq!(
        names
            .iter()
            .filter(|(_, n)| n.starts_with("NV_WARN_"))
            .count(),
        8
    );
}

#[test]
fn a_status_is_named_with_its_number() {
    let cases = [
        (0, "NV_OK (0x0)"),
        (0x1f, "NV_ERR_INVALID_ARGUMENT (0x1f)"),
        (0x51, "NV_ERR_NO_MEMORY (0x51)"),
        (0x55, "NV_ERR_NOT_READY (0x55)"),
        (0x56, "NV_ERR_NOT_SUPPORTED (0x56)"),
        (0xffff, "NV_ERR_GENERIC (0xffff)"),
        (
            0xff10_0001,
            "NV_VGPU_MSG_RESULT_RPC_UNKNOWN_FUNCTION (0xff100001)",
        ),
        (0x7fff, "unknown status 0x7fff"),
        (0xffff_ffff, "unknown status 0xffffffff"),
    ];
    for (code, want) in cases {
        assert_eq!(check::nv_status(code), want);
    }
}
