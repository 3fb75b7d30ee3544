// SPDX-License-Identifier: GPL-2.0

//! `nova-drm-client`: a DRM client of the kernel's nova-drm, run in the test guest next to
//! `drm_info` and libdrm's tools, for what they do not know: nova-drm's own ioctls
//! (`include/uapi/drm/nova_drm.h`).
//!
//! - `nova-drm-client info NODE`: `DRM_IOCTL_VERSION` (the driver's name), then
//!   `NOVA_GETPARAM_VRAM_BAR_SIZE`, then a GEM object created (`DRM_IOCTL_NOVA_GEM_CREATE`) and
//!   its size read back (`DRM_IOCTL_NOVA_GEM_INFO`); one line each.
//! - `nova-drm-client hold NODE SECONDS`: opens NODE, says so, keeps it open SECONDS (while the
//!   guest unbinds the GPU under it), then makes the same ioctls again and says what each
//!   returned, and closes it.
//!
//! Every line starts with `nova-drm-client:`; a failed ioctl prints its errno. The exit status
//! is 0 when every step of `info` worked (for `hold`, when the node could be opened), 1
//! otherwise, 2 for a usage error.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::process::ExitCode;
use std::time::Duration;

/// `_IOWR('d', nr, size)`.
const fn drm_iowr(nr: u32, size: usize) -> u64 {
    ((3u64) << 30) | ((size as u64) << 16) | ((b'd' as u64) << 8) | nr as u64
}

/// `DRM_COMMAND_BASE`: the first driver-specific ioctl number.
const DRM_COMMAND_BASE: u32 = 0x40;

/// `struct drm_version`.
#[repr(C)]
#[derive(Default)]
struct DrmVersion {
    major: i32,
    minor: i32,
    patchlevel: i32,
    name_len: usize,
    name: usize,
    date_len: usize,
    date: usize,
    desc_len: usize,
    desc: usize,
}

/// `struct drm_nova_getparam`.
#[repr(C)]
#[derive(Default)]
struct NovaGetParam {
    param: u64,
    value: u64,
}

/// `struct drm_nova_gem_create` and `struct drm_nova_gem_info` (the same layout).
#[repr(C)]
#[derive(Default)]
struct NovaGem {
    handle: u32,
    pad: u32,
    size: u64,
}

const DRM_IOCTL_VERSION: u64 = drm_iowr(0x00, size_of::<DrmVersion>());
const DRM_IOCTL_NOVA_GETPARAM: u64 = drm_iowr(DRM_COMMAND_BASE, size_of::<NovaGetParam>());
const DRM_IOCTL_NOVA_GEM_CREATE: u64 = drm_iowr(DRM_COMMAND_BASE + 1, size_of::<NovaGem>());
const DRM_IOCTL_NOVA_GEM_INFO: u64 = drm_iowr(DRM_COMMAND_BASE + 2, size_of::<NovaGem>());

/// `NOVA_GETPARAM_VRAM_BAR_SIZE`.
const NOVA_GETPARAM_VRAM_BAR_SIZE: u64 = 1;

/// The size of the GEM object `info` creates: three pages.
const GEM_SIZE: u64 = 3 * 4096;

/// One ioctl on `file` with `arg` in and out; the errno on failure.
fn ioctl<T>(file: &File, request: u64, arg: &mut T) -> Result<(), i32> {
    // SAFETY: `arg` is a live, exclusively borrowed `T` for the duration of the call, and
    // every request used here is the `_IOWR` of exactly `size_of::<T>()` bytes, so the kernel
    // reads and writes within it.
    let ret = unsafe { libc::ioctl(file.as_raw_fd(), request as _, arg as *mut T) };
    if ret == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error().raw_os_error().unwrap_or(-1))
    }
}

/// The driver's name, version and description (`DRM_IOCTL_VERSION`: asked once for the
/// lengths, then with buffers).
fn version(file: &File) -> Result<String, i32> {
    let mut v = DrmVersion::default();
    ioctl(file, DRM_IOCTL_VERSION, &mut v)?;
    let mut name = vec![0u8; v.name_len];
    let mut date = vec![0u8; v.date_len];
    let mut desc = vec![0u8; v.desc_len];
    let mut w = DrmVersion {
        name_len: name.len(),
        name: name.as_mut_ptr() as usize,
        date_len: date.len(),
        date: date.as_mut_ptr() as usize,
        desc_len: desc.len(),
        desc: desc.as_mut_ptr() as usize,
        ..DrmVersion::default()
    };
    ioctl(file, DRM_IOCTL_VERSION, &mut w)?;
    name.truncate(w.name_len.min(name.len()));
    desc.truncate(w.desc_len.min(desc.len()));
    Ok(format!(
        "driver {} {}.{}.{} ({})",
        String::from_utf8_lossy(&name),
        w.major,
        w.minor,
        w.patchlevel,
        String::from_utf8_lossy(&desc)
    ))
}

/// `NOVA_GETPARAM_VRAM_BAR_SIZE`.
fn vram_bar_size(file: &File) -> Result<u64, i32> {
    let mut p = NovaGetParam {
        param: NOVA_GETPARAM_VRAM_BAR_SIZE,
        value: 0,
    };
    ioctl(file, DRM_IOCTL_NOVA_GETPARAM, &mut p)?;
    Ok(p.value)
}

/// A GEM object of `size` bytes created, and its size read back: (handle, size).
fn gem(file: &File, size: u64) -> Result<(u32, u64), i32> {
    let mut create = NovaGem {
        size,
        ..NovaGem::default()
    };
    ioctl(file, DRM_IOCTL_NOVA_GEM_CREATE, &mut create)?;
    let mut info = NovaGem {
        handle: create.handle,
        ..NovaGem::default()
    };
    ioctl(file, DRM_IOCTL_NOVA_GEM_INFO, &mut info)?;
    Ok((create.handle, info.size))
}

fn say(line: &str) {
    println!("nova-drm-client: {line}");
}

/// Makes every ioctl on `file`, one line each; whether all worked.
fn ask(node: &str, file: &File) -> bool {
    let mut ok = true;
    match version(file) {
        Ok(v) => say(&format!("{node}: {v}")),
        Err(e) => {
            say(&format!("{node}: DRM_IOCTL_VERSION failed: errno {e}"));
            ok = false;
        }
    }
    match vram_bar_size(file) {
        Ok(size) => say(&format!("{node}: VRAM BAR size {size:#x}")),
        Err(e) => {
            say(&format!("{node}: NOVA_GETPARAM failed: errno {e}"));
            ok = false;
        }
    }
    match gem(file, GEM_SIZE) {
        Ok((handle, size)) => say(&format!(
            "{node}: GEM object {handle} of {GEM_SIZE:#x} bytes created, size read back {size:#x}"
        )),
        Err(e) => {
            say(&format!(
                "{node}: GEM object not created or not read back: errno {e}"
            ));
            ok = false;
        }
    }
    ok
}

fn open(node: &str) -> Option<File> {
    match File::options().read(true).write(true).open(node) {
        Ok(f) => Some(f),
        Err(e) => {
            say(&format!("{node}: cannot open: {e}"));
            None
        }
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args[..] {
        ["info", node] => match open(node) {
            Some(file) if ask(node, &file) => ExitCode::SUCCESS,
            _ => ExitCode::from(1),
        },
        ["hold", node, seconds] => {
            let Ok(seconds) = seconds.parse::<u64>() else {
                say(&format!("hold: {seconds:?} is not a number of seconds"));
                return ExitCode::from(2);
            };
            let Some(file) = open(node) else {
                return ExitCode::from(1);
            };
            say(&format!("{node}: held open for {seconds} s"));
            std::thread::sleep(Duration::from_secs(seconds));
            let worked = ask(node, &file);
            drop(file);
            say(&format!(
                "{node}: closed after the hold (ioctls {})",
                if worked { "all worked" } else { "refused" }
            ));
            ExitCode::SUCCESS
        }
        _ => {
            eprintln!("usage: nova-drm-client info NODE | hold NODE SECONDS");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ioctl_numbers_are_the_uapi_headers() {
        // DRM_IOWR(0x00, struct drm_version) and nova_drm.h's three, as the kernel computes
        // them for x86_64.
        assert_eq!(DRM_IOCTL_VERSION, 0xc040_6400);
        assert_eq!(DRM_IOCTL_NOVA_GETPARAM, 0xc010_6440);
        assert_eq!(DRM_IOCTL_NOVA_GEM_CREATE, 0xc010_6441);
        assert_eq!(DRM_IOCTL_NOVA_GEM_INFO, 0xc010_6442);
    }

    #[test]
    fn structures_have_the_uapi_sizes() {
        assert_eq!(size_of::<DrmVersion>(), 64);
        assert_eq!(size_of::<NovaGetParam>(), 16);
        assert_eq!(size_of::<NovaGem>(), 16);
    }
}
