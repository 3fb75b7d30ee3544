// SPDX-License-Identifier: GPL-2.0

//! The RM object tree's rules and codes, both versions.

use super::*;
use crate::gsp::wire::put_u64;

const CLIENT: u32 = 0xc1d0_0000;
const DEVICE: u32 = 0xde1d_0000;
const SUBDEVICE: u32 = 0x5d1d_0000;

/// A `GSP_RM_ALLOC` request as nouveau builds it: the fixed part, then the class's parameters
/// of `version` (zero but for the client's handle and process id).
fn alloc_request(version: Version, client: u32, parent: u32, object: u32, class: u32) -> Vec<u8> {
    let size = params_size(version, class).unwrap_or(0);
    let mut b = vec![0u8; alloc::SIZE_OF + size];
    put_u32(&mut b, alloc::H_CLIENT, client);
    put_u32(&mut b, alloc::H_PARENT, parent);
    put_u32(&mut b, alloc::H_OBJECT, object);
    put_u32(&mut b, alloc::H_CLASS, class);
    put_u32(&mut b, alloc::PARAMS_SIZE, size as u32);
    if class == NV01_ROOT {
        put_u32(&mut b, alloc::SIZE_OF, client);
        put_u32(&mut b, alloc::SIZE_OF + 4, !0);
    }
    b
}

fn alloc(tree: &mut Tree, version: Version, parent: u32, object: u32, class: u32) -> u32 {
    let mut b = alloc_request(version, CLIENT, parent, object, class);
    let answer = tree.alloc(version, &mut b);
    assert_eq!(get_u32(&b, alloc::STATUS), answer.status, "{}", answer.line);
    answer.status
}

fn free(tree: &mut Tree, client: u32, object: u32) -> u32 {
    let mut b = vec![0u8; free::SIZE_OF];
    put_u32(&mut b, free::H_ROOT, client);
    put_u32(&mut b, free::H_OBJECT_OLD, object);
    let answer = tree.free(&mut b);
    assert_eq!(get_u32(&b, free::STATUS), answer.status, "{}", answer.line);
    answer.status
}

/// The client, its device and its subdevice, as nouveau allocates them at probe.
fn probe_tree(version: Version) -> Tree {
    let mut tree = Tree::default();
    assert_eq!(alloc(&mut tree, version, CLIENT, CLIENT, NV01_ROOT), 0);
    assert_eq!(alloc(&mut tree, version, CLIENT, DEVICE, NV01_DEVICE_0), 0);
    assert_eq!(
        alloc(&mut tree, version, DEVICE, SUBDEVICE, NV20_SUBDEVICE_0),
        0
    );
    tree
}

#[test]
fn nouveaus_probe_tree_is_allocated_and_freed_children_first_in_both_versions() {
    for version in Version::ALL {
        let mut tree = probe_tree(version);
        assert_eq!(tree.summary().live, 3);
        for h in [SUBDEVICE, DEVICE, CLIENT] {
            assert_eq!(free(&mut tree, CLIENT, h), 0);
        }
        assert_eq!(
            tree.summary(),
            RmSummary {
                allocated: 3,
                freed: 3,
                refused: 0,
                after_free: 0,
                live: 0,
                controls: 0,
            }
        );
    }
}

#[test]
fn the_client_parameters_are_the_versions_size() {
    // 108 bytes in 535.113.01, 120 in 570.144: the other version's size is refused.
    let mut tree = Tree::default();
    let mut b = alloc_request(Version::R535_113_01, CLIENT, CLIENT, CLIENT, NV01_ROOT);
    let answer = tree.alloc(Version::R570_144, &mut b);
    assert_eq!(answer.status, NV_ERR_INVALID_ARGUMENT, "{}", answer.line);
    assert!(answer.line.contains("paramsSize 108"), "{}", answer.line);
    let mut b = alloc_request(Version::R570_144, CLIENT, CLIENT, CLIENT, NV01_ROOT);
    assert_eq!(tree.alloc(Version::R570_144, &mut b).status, 0);
    // The handles must agree.
    let mut b = alloc_request(
        Version::R570_144,
        CLIENT + 1,
        CLIENT + 1,
        CLIENT + 1,
        NV01_ROOT,
    );
    put_u32(&mut b, alloc::SIZE_OF, CLIENT + 2);
    assert_eq!(
        tree.alloc(Version::R570_144, &mut b).status,
        NV_ERR_INVALID_ARGUMENT
    );
    assert_eq!(tree.summary().refused, 2);
}

#[test]
fn alloc_rules_answer_with_openrms_codes() {
    for version in Version::ALL {
        let mut tree = probe_tree(version);
        // A handle taken, a client taken.
        assert_eq!(
            alloc(&mut tree, version, DEVICE, SUBDEVICE, NV20_SUBDEVICE_0),
            NV_ERR_INSERT_DUPLICATE_NAME
        );
        assert_eq!(
            alloc(&mut tree, version, CLIENT, CLIENT, NV01_ROOT),
            NV_ERR_INSERT_DUPLICATE_NAME
        );
        // A parent that does not exist, one of the wrong class.
        assert_eq!(
            alloc(&mut tree, version, 0x1234, 0x5d1d_0001, NV20_SUBDEVICE_0),
            NV_ERR_OBJECT_NOT_FOUND
        );
        assert_eq!(
            alloc(&mut tree, version, CLIENT, 0x5d1d_0001, NV20_SUBDEVICE_0),
            NV_ERR_INVALID_OBJECT_PARENT
        );
        assert_eq!(
            alloc(&mut tree, version, SUBDEVICE, 0xde1d_0001, NV01_DEVICE_0),
            NV_ERR_INVALID_OBJECT_PARENT
        );
        // A second subdevice 0 under the device; a second device 0 in the client.
        assert_eq!(
            alloc(&mut tree, version, DEVICE, 0x5d1d_0001, NV20_SUBDEVICE_0),
            NV_ERR_INSUFFICIENT_RESOURCES
        );
        assert_eq!(
            alloc(&mut tree, version, CLIENT, 0xde1d_0001, NV01_DEVICE_0),
            NV_ERR_INSUFFICIENT_RESOURCES
        );
        // A class the model does not know.
        assert_eq!(
            alloc(&mut tree, version, DEVICE, 0x9000_0000, 0x1234),
            NV_ERR_INVALID_CLASS
        );
        // The client's handle for another object: each version's code.
        let want = match version {
            Version::R570_144 => NV_ERR_INVALID_OBJECT_PARENT,
            Version::R535_113_01 => NV_ERR_INVALID_OBJECT_HANDLE,
        };
        assert_eq!(
            alloc(&mut tree, version, CLIENT, CLIENT, NV01_DEVICE_0),
            want
        );
        // A client that does not exist.
        let mut b = alloc_request(version, 0xc1d0_0007, CLIENT, 0xde1d_0002, NV01_DEVICE_0);
        assert_eq!(
            tree.alloc(version, &mut b).status,
            NV_ERR_INVALID_OBJECT_HANDLE
        );
        assert_eq!(tree.summary().live, 3, "nothing refused was allocated");
        assert_eq!(tree.summary().refused, 10);
    }
}

#[test]
fn a_free_takes_the_descendants_and_a_later_use_is_counted() {
    for version in Version::ALL {
        let mut tree = probe_tree(version);
        // The device takes its subdevice with it.
        assert_eq!(free(&mut tree, CLIENT, DEVICE), 0);
        assert_eq!(tree.summary().freed, 2);
        assert_eq!(tree.summary().live, 1);
        // A freed parent: not found, and counted.
        assert_eq!(
            alloc(&mut tree, version, DEVICE, SUBDEVICE, NV20_SUBDEVICE_0),
            NV_ERR_OBJECT_NOT_FOUND
        );
        assert_eq!(tree.summary().after_free, 1);
        // A second free: NV_OK in compatibility mode, and counted.
        assert_eq!(free(&mut tree, CLIENT, SUBDEVICE), 0);
        assert_eq!(tree.summary().after_free, 2);
        // The handle may be taken again, and that is no use after free.
        assert_eq!(alloc(&mut tree, version, CLIENT, DEVICE, NV01_DEVICE_0), 0);
        assert_eq!(tree.summary().after_free, 2);
        // The client's own handle frees the whole tree; then the client is gone.
        assert_eq!(free(&mut tree, CLIENT, CLIENT), 0);
        assert_eq!(tree.summary().live, 0);
        assert_eq!(
            free(&mut tree, CLIENT, DEVICE),
            NV_ERR_INVALID_OBJECT_HANDLE
        );
    }
}

#[test]
fn gsp_rms_own_objects_are_there_but_not_the_drivers() {
    let mut tree = Tree::default();
    assert_eq!(tree.summary(), RmSummary::default());
    let [client, device, _] = INTERNAL;
    assert_eq!(
        free(&mut tree, client, device),
        NV_ERR_INVALID_OBJECT_HANDLE
    );
    assert_eq!(tree.summary().freed, 0);
}

/// A control request of `size` parameter bytes (zero), for `cmd` on `object`.
fn control_request(client: u32, object: u32, cmd: u32, size: usize) -> Vec<u8> {
    let mut b = vec![0u8; control::SIZE_OF + size];
    put_u32(&mut b, control::H_CLIENT, client);
    put_u32(&mut b, control::H_OBJECT, object);
    put_u32(&mut b, control::CMD, cmd);
    put_u32(&mut b, control::PARAMS_SIZE, size as u32);
    b
}

#[test]
fn controls_are_checked_client_object_command_then_size() {
    const CMD: u32 = 0x2080_0137;
    let size = |cmd| (cmd == CMD).then_some(4);
    for version in Version::ALL {
        let mut tree = probe_tree(version);
        let mut call = |client, object, cmd, n| {
            let mut b = control_request(client, object, cmd, n);
            let a = tree.control(version, &mut b, size, |_, p| {
                p.copy_from_slice(&0x7fu32.to_le_bytes());
                Ok(())
            });
            assert_eq!(get_u32(&b, control::STATUS), a.status, "{}", a.line);
            (a.status, get_u32(&b, control::SIZE_OF.min(b.len() - 4)))
        };
        assert_eq!(call(CLIENT, SUBDEVICE, CMD, 4), (0, 0x7f));
        assert_eq!(
            call(0xc1d0_0009, SUBDEVICE, CMD, 4).0,
            NV_ERR_INVALID_CLIENT
        );
        assert_eq!(call(CLIENT, 0x1234, CMD, 4).0, NV_ERR_OBJECT_NOT_FOUND);
        // A subdevice control on the device; an unknown one.
        assert_eq!(call(CLIENT, DEVICE, CMD, 4).0, NV_ERR_NOT_SUPPORTED);
        assert_eq!(
            call(CLIENT, SUBDEVICE, 0x2080_0001, 4).0,
            NV_ERR_NOT_SUPPORTED
        );
        let want = match version {
            Version::R570_144 => NV_ERR_INVALID_ARGUMENT,
            Version::R535_113_01 => NV_ERR_INVALID_PARAM_STRUCT,
        };
        assert_eq!(call(CLIENT, SUBDEVICE, CMD, 8).0, want);
        let summary = tree.summary();
        assert_eq!((summary.controls, summary.refused), (1, 5));
        // GSP-RM's internal subdevice answers too.
        let [c, _, sd] = INTERNAL;
        let mut b = control_request(c, sd, CMD, 4);
        assert_eq!(tree.control(version, &mut b, size, |_, _| Ok(())).status, 0);
    }
}

/// A `GSP_RM_CONTROL` of `cmd` on `object` with `params`, answered by the tree (the stateless
/// controls refused: these tests are the VA space's).
fn vaspace_control(tree: &mut Tree, object: u32, cmd: u32, params: &[u8]) -> u32 {
    let mut b = vec![0u8; control::SIZE_OF + params.len()];
    put_u32(&mut b, control::H_CLIENT, CLIENT);
    put_u32(&mut b, control::H_OBJECT, object);
    put_u32(&mut b, control::CMD, cmd);
    put_u32(&mut b, control::PARAMS_SIZE, params.len() as u32);
    b[control::SIZE_OF..].copy_from_slice(params);
    let answer = tree.control(
        Version::R570_144,
        &mut b,
        |_| None,
        |_, _| Err((NV_ERR_NOT_SUPPORTED, "not this test's".into())),
    );
    assert_eq!(
        get_u32(&b, control::STATUS),
        answer.status,
        "{}",
        answer.line
    );
    answer.status
}

#[test]
fn a_vaspace_takes_its_directory_once_from_its_own_device_and_gives_it_back() {
    const VAS: u32 = 0x90f1_0000;
    let version = Version::R570_144;
    let mut tree = probe_tree(version);
    tree.set_vram_end(Some(0x5_0000_0000));
    // Externally owned, as nouveau's DRM client allocates it.
    let mut b = alloc_request(version, CLIENT, DEVICE, VAS, FERMI_VASPACE_A);
    put_u32(&mut b, alloc::SIZE_OF + 4, 1 << 3);
    assert_eq!(tree.alloc(version, &mut b).status, 0);
    // Sent to the subdevice, it is no control of its class.
    let mut set = vec![0u8; 32];
    put_u64(&mut set, 0, 0x1234_5000);
    put_u32(&mut set, 8, 4);
    put_u32(&mut set, 16, VAS);
    let cmd = vaspace::DMA_SET_PAGE_DIRECTORY;
    assert_eq!(
        vaspace_control(&mut tree, SUBDEVICE, cmd, &set),
        NV_ERR_NOT_SUPPORTED
    );
    assert_eq!(vaspace_control(&mut tree, DEVICE, cmd, &set), 0);
    assert_eq!(
        vaspace_control(&mut tree, DEVICE, cmd, &set),
        NV_ERR_INVALID_STATE
    );
    let mut unset = vec![0u8; 8];
    put_u32(&mut unset, 0, VAS);
    let cmd = vaspace::DMA_UNSET_PAGE_DIRECTORY;
    assert_eq!(vaspace_control(&mut tree, DEVICE, cmd, &unset), 0);
    assert_eq!(
        vaspace_control(&mut tree, DEVICE, cmd, &unset),
        NV_ERR_INVALID_STATE
    );
    // A second VA space under the same device is no second instance.
    let mut b = alloc_request(version, CLIENT, DEVICE, VAS + 1, FERMI_VASPACE_A);
    assert_eq!(tree.alloc(version, &mut b).status, 0);
    assert_eq!(free(&mut tree, CLIENT, CLIENT), 0);
    assert_eq!(tree.summary().live, 0);
}
