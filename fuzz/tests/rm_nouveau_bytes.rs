// SPDX-License-Identifier: GPL-2.0

//! The RM API requests the driver builds, byte for byte as nouveau builds them, with nouveau's
//! headers compiled rather than its expectations copied: `tests/abi/rm_requests.c` fills each
//! request as nouveau's functions do and prints it; clang compiles it against the kernel tree's
//! nouveau headers, once per firmware version, and each request the driver builds must be the
//! bytes it printed.
//!
//! The kernel tree's `drivers/gpu/drm/nouveau` is named by `NOVA_NOUVEAU` (scripts/harness.sh
//! sets it from the unpacked kernel sources, `$NOVA_CACHE/linux-src`); without it every test
//! here fails. clang is the build root's.

use std::{
    collections::BTreeMap,
    env,
    fmt::{
        self,
        Write, //
    },
    path::{
        Path,
        PathBuf, //
    },
    process::Command,
    sync::OnceLock, //
};

use nova_core_parse::check_rm::{
    alloc_request,
    client_params,
    control_request_for,
    control_requests,
    device_params,
    free_request,
    subdevice_params,
    tpc_info_request,
    CONTROL_HEADER,
    INTERNAL_SUBDEVICE,
    PROBE_OBJECTS, //
};

/// The variable naming the kernel tree's nouveau folder.
const NOUVEAU_ENV: &str = "NOVA_NOUVEAU";

/// nouveau's RM code and headers, under its folder.
const RM: &str = "nvkm/subdev/gsp/rm";

/// The firmware versions nouveau has headers of (`rm/r535/nvrm`, `rm/r570/nvrm`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Version {
    R535,
    R570,
}

impl Version {
    const ALL: [Version; 2] = [Version::R535, Version::R570];

    fn r570(self) -> bool {
        self == Version::R570
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Version::R535 => "535.113.01",
            Version::R570 => "570.144",
        })
    }
}

/// Requests by name (`alloc.root`, `ctrl.tpc_info.3`, ...; see `tests/abi/rm_requests.c`).
type Requests = BTreeMap<String, Vec<u8>>;

/// The kernel tree's nouveau folder, checked to hold the RM headers.
fn nouveau_dir() -> PathBuf {
    let Some(dir) = env::var_os(NOUVEAU_ENV) else {
        panic!(
            "{NOUVEAU_ENV} is not set: it names the kernel tree's drivers/gpu/drm/nouveau, whose \
             RM headers these tests compile (scripts/harness.sh sets it to \
             $NOVA_CACHE/linux-src/drivers/gpu/drm/nouveau; by hand, in the build root: \
             {NOUVEAU_ENV}=/var/cache/nova-core/linux-src/drivers/gpu/drm/nouveau cargo test \
             --test rm_nouveau_bytes)"
        );
    };
    let dir = PathBuf::from(dir);
    for header in ["include/nvrm/nvtypes.h", "nvkm/subdev/gsp/rm/handles.h"] {
        assert!(
            dir.join(header).is_file(),
            "{NOUVEAU_ENV}={}: no {header} there, not a nouveau source folder",
            dir.display()
        );
    }
    dir
}

/// Runs `cmd`, which must succeed; its standard output.
fn run(what: &str, cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{what}: {cmd:?} failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap_or_else(|e| panic!("{what}: output not UTF-8: {e}"))
}

fn unhex(what: &str, hex: &str) -> Vec<u8> {
    assert!(hex.len() % 2 == 0, "{what}: odd hex length");
    (0..hex.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&hex[i..i + 2], 16)
                .unwrap_or_else(|e| panic!("{what}: not hex at {i}: {e}"))
        })
        .collect()
}

/// The requests nouveau builds with `version`: `tests/abi/rm_requests.c` compiled with its
/// headers and run, with GSP-RM's internal client and subdevice.
fn build_nouveaus(version: Version) -> Requests {
    let nouveau = nouveau_dir();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/abi/rm_requests.c");
    let exe = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("rm_requests-{version}"));
    let mut cc = Command::new("clang");
    cc.args(["-std=gnu11", "-Wall", "-Wextra", "-Werror"])
        .arg("-I")
        .arg(nouveau.join("include"))
        .arg("-I")
        .arg(nouveau.join(RM));
    if version.r570() {
        cc.arg("-DR570");
    }
    cc.arg(&src).arg("-o").arg(&exe);
    run(
        &format!("compiling nouveau's requests for {version}"),
        &mut cc,
    );

    let what = format!("nouveau's requests for {version}");
    let out = run(
        &what,
        Command::new(&exe)
            .arg(format!("{:#x}", INTERNAL_SUBDEVICE.0))
            .arg(format!("{:#x}", INTERNAL_SUBDEVICE.1)),
    );
    let mut requests = Requests::new();
    for line in out.lines() {
        let (name, hex) = line
            .split_once(' ')
            .unwrap_or_else(|| panic!("{what}: not `<name> <hex>`: {line}"));
        let bytes = unhex(&format!("{what}, {name}"), hex);
        assert!(
            requests.insert(name.to_string(), bytes).is_none(),
            "{what}: {name} twice"
        );
    }
    assert!(!requests.is_empty(), "{what}: none printed");
    requests
}

/// [`build_nouveaus`], once per version for all the tests.
fn nouveaus(version: Version) -> &'static Requests {
    static BUILT: [OnceLock<Requests>; 2] = [OnceLock::new(), OnceLock::new()];
    BUILT[version.r570() as usize].get_or_init(|| build_nouveaus(version))
}

/// The same requests as the driver builds them, by the same names.
fn drivers(version: Version) -> Requests {
    let mut r = Requests::new();
    let mut put = |name: &str, bytes: Vec<u8>| {
        r.insert(name.to_string(), bytes);
    };

    // The probe's objects, their parameters after the fixed part, and their frees.
    let [root, device, subdevice] = PROBE_OBJECTS;
    let objects = [
        ("root", root, client_params(version.r570(), root.2)),
        ("device", device, device_params(root.2)),
        ("subdevice", subdevice, subdevice_params()),
    ];
    for (name, (client, parent, handle, class, _), params) in objects {
        let size = u32::try_from(params.len()).expect("small parameters");
        let mut alloc = alloc_request(client, parent, handle, class, size);
        alloc.extend_from_slice(&params);
        put(&format!("alloc.{name}"), alloc);
        put(
            &format!("free.{name}"),
            free_request(client, parent, handle, class),
        );
    }

    // The controls, on GSP-RM's internal subdevice, as the driver sends them in `version`.
    let control = |name: &str| control_request_for(name, version.r570());
    let gpc = control("NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO");
    let tpc = [(0, tpc_info_request(0)), (3, tpc_info_request(3))];
    if version.r570() {
        put("ctrl.gpc_info", gpc);
        for (g, frame) in tpc {
            put(&format!("ctrl.tpc_info.{g}"), frame);
        }
    } else {
        // nouveau sends neither with 535.113.01: their parameters only.
        put("params.gpc_info", gpc[CONTROL_HEADER..].to_vec());
        for (g, frame) in tpc {
            put(
                &format!("params.tpc_info.{g}"),
                frame[CONTROL_HEADER..].to_vec(),
            );
        }
    }
    put(
        "ctrl.ce_fault_method_buffer_size",
        control("NV2080_CTRL_CMD_CE_GET_FAULT_METHOD_BUFFER_SIZE"),
    );
    put(
        "ctrl.intr_kernel_table",
        control("NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE"),
    );
    put(
        "ctrl.fifo_device_info_table",
        control("NV2080_CTRL_CMD_FIFO_GET_DEVICE_INFO_TABLE"),
    );
    if version.r570() {
        // nouveau asks it with 570.144 only (`rm/r570/gsp.c`), in 570.144's layout.
        put(
            "ctrl.memsys_static_config",
            control("NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG"),
        );
    }
    r
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        let _ = write!(s, "{x:02x}");
        s
    })
}

/// Where two requests differ, shown from the 16-byte row of the first difference on.
fn difference(name: &str, version: Version, ours: &[u8], theirs: &[u8]) -> Option<String> {
    if ours == theirs {
        return None;
    }
    let at = ours
        .iter()
        .zip(theirs)
        .position(|(a, b)| a != b)
        .unwrap_or(ours.len().min(theirs.len()));
    let row = at / 16 * 16;
    let window = |b: &[u8]| hex(&b[row.min(b.len())..(row + 48).min(b.len())]);
    Some(format!(
        "{name} ({version}): the driver's {} bytes are not nouveau's {}, first at byte {at}; \
         from byte {row}:\n    driver:  {}\n    nouveau: {}",
        ours.len(),
        theirs.len(),
        window(ours),
        window(theirs)
    ))
}

/// Holds the driver's requests whose names start with `prefix` against nouveau's, in both
/// versions; every difference is reported.
fn compare(prefixes: &[&str]) {
    let mut bad = Vec::new();
    let mut compared = 0;
    for version in Version::ALL {
        let ours = drivers(version);
        for (name, theirs) in nouveaus(version) {
            if !prefixes.iter().any(|p| name.starts_with(p)) {
                continue;
            }
            let Some(mine) = ours.get(name) else {
                bad.push(format!(
                    "{name} ({version}): the driver builds no such request"
                ));
                continue;
            };
            compared += 1;
            bad.extend(difference(name, version, mine, theirs));
        }
    }
    assert!(compared > 0, "no request named {prefixes:?} compared");
    assert!(bad.is_empty(), "\n{}", bad.join("\n"));
}

/// `GSP_RM_ALLOC` of the client, device and subdevice: nouveau's `r535_gsp_rpc_rm_alloc_get`
/// (`rm/r535/alloc.c`) and the parameters of `rm/r535/client.c` or `rm/r570/client.c` and
/// `rm/r535/device.c`.
#[test]
fn allocations_are_nouveaus_byte_for_byte() {
    compare(&["alloc."]);
}

/// `FREE` of each: nouveau's `r535_gsp_rpc_rm_free`.
#[test]
fn frees_are_nouveaus_byte_for_byte() {
    compare(&["free."]);
}

/// `GSP_RM_CONTROL` of the GPC mask, the TPC masks of GPCs 0 and 3 (`rm/r570/gr.c`; with
/// 535.113.01 their parameters only), the copy engines' fault method buffer size
/// (`rm/r535/fifo.c`), the interrupt table (`rm/r535/gsp.c`), the FIFO's device information
/// (`rm/r535/fifo.c`) and, with 570.144, the memory system's configuration (`rm/r535/gsp.c`,
/// called from `rm/r570/gsp.c`): nouveau's `r535_gsp_rpc_rm_ctrl_get` (`rm/r535/ctrl.c`) and
/// the parameters its callers set.
#[test]
fn controls_are_nouveaus_byte_for_byte() {
    compare(&["ctrl.", "params."]);
}

/// Nothing nouveau's side prints goes unchecked, and the driver's side names nothing nouveau
/// does not build.
#[test]
fn every_request_is_compared() {
    for version in Version::ALL {
        let ours: Vec<_> = drivers(version).into_keys().collect();
        let theirs: Vec<_> = nouveaus(version).keys().cloned().collect();
        assert_eq!(ours, theirs, "{version}: the requests of each side");
    }
}

/// The TPC request for GPC 3 here is the one the fuzzer and `rm_calls.rs` take from
/// `check_rm::control_requests()`.
#[test]
fn the_tpc_request_is_check_rms() {
    let (_, frame) = control_requests()
        .into_iter()
        .find(|(name, _)| *name == "NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO")
        .expect("a TPC control");
    assert_eq!(tpc_info_request(3), frame);
}

/// `check_rm::PROBE_OBJECTS` (the fuzzer's and the reply tests' objects) carry 570.144's
/// parameter sizes, as nouveau sends them.
#[test]
fn probe_objects_have_nouveaus_parameter_sizes() {
    let theirs = nouveaus(Version::R570);
    for ((client, parent, handle, class, size), name) in
        PROBE_OBJECTS
            .into_iter()
            .zip(["root", "device", "subdevice"])
    {
        // Past the fixed part, as long as the driver's (compared whole above).
        let header = alloc_request(client, parent, handle, class, 0).len();
        let params = theirs[&format!("alloc.{name}")].len() - header;
        assert_eq!(size as usize, params, "{name}");
    }
}
