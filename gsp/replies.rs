// SPDX-License-Identifier: GPL-2.0

//! What the GSP answers the driver: the RPC replies the driver reads, validated per firmware
//! version (`GET_GSP_STATIC_INFO`).
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, fuzzed on the host.

use core::fmt;

use crate::gsp::rm::controls::{
    ControlError,
    GrInfo, //
};

/// Longest GPU name the GSP reports, terminating NUL included.
pub(crate) const NAME_LEN: usize = 64;

/// What the driver keeps of the `GET_GSP_STATIC_INFO` reply: the GPU's name, and GSP-RM's
/// internal client, device and subdevice (`hInternalClient`, `hInternalDevice`,
/// `hInternalSubdevice`), which RM allocates itself and nouveau sends controls to
/// (`rm/r535/gsp.c`, `r535_gsp_get_static_info`). (The reply's `fb_length` is not kept: the
/// driver has nothing yet to check it against; the framebuffer layout of the real boot will
/// read the size from the hardware.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct StaticInfo {
    name: [u8; NAME_LEN],
    name_len: usize,
    internal: InternalHandles,
    /// The GPCs and TPCs, where the version's static information holds them (535.113.01;
    /// 570.144 answers controls for them instead).
    gr: Option<GrInfo>,
    /// The video memory's size and regions.
    fb: FbInfo,
}

/// Most FB regions GSP-RM reports (`NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_MAX_ENTRIES`).
pub(crate) const MAX_FB_REGIONS: usize = 16;

/// One region of video memory as GSP-RM reports it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FbRegion {
    pub(crate) base: u64,
    pub(crate) limit: u64,
    /// Neither reserved nor protected, compressible and displayable: memory a client may use
    /// (nouveau takes exactly these, `rm/r535/gsp.c`, `r535_gsp_get_static_info_fb`).
    pub(crate) usable: bool,
}

/// The video memory's size and its regions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FbInfo {
    pub(crate) size: u64,
    regions: [FbRegion; MAX_FB_REGIONS],
    count: usize,
}

impl FbInfo {
    /// The regions GSP-RM reported.
    pub(crate) fn regions(&self) -> &[FbRegion] {
        &self.regions[..self.count]
    }
}

impl fmt::Display for FbInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#x} bytes", self.size)?;
        for r in self.regions() {
            let what = if r.usable { "usable" } else { "reserved" };
            write!(f, "; {:#x}-{:#x} {what}", r.base, r.limit)?;
        }
        Ok(())
    }
}

/// GSP-RM's own client, device and subdevice, as the static information names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct InternalHandles {
    pub(crate) client: u32,
    pub(crate) device: u32,
    pub(crate) subdevice: u32,
}

impl fmt::Display for InternalHandles {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "client {:#010x}, device {:#010x}, subdevice {:#010x}",
            self.client, self.device, self.subdevice
        )
    }
}

impl StaticInfo {
    /// The GPU's marketing name, e.g. `NVIDIA GeForce RTX 3090`.
    pub(crate) fn name(&self) -> &str {
        // `decode_static_info` only accepts printable ASCII names.
        core::str::from_utf8(&self.name[..self.name_len]).unwrap_or("?")
    }

    /// GSP-RM's internal client, device and subdevice.
    pub(crate) fn internal(&self) -> InternalHandles {
        self.internal
    }

    /// The GPCs and TPCs, where the static information holds them.
    pub(crate) fn gr(&self) -> Option<GrInfo> {
        self.gr
    }

    /// The video memory's size and regions.
    pub(crate) fn fb(&self) -> &FbInfo {
        &self.fb
    }
}

/// Why a `GET_GSP_STATIC_INFO` reply was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum StaticInfoError {
    /// The reply's size is not this version's `GspStaticConfigInfo` size (a sign of a GSP
    /// running another firmware version).
    WrongSize { got: usize, want: usize },
    /// The GPU name has no terminating NUL.
    NameNotTerminated,
    /// The GPU name holds bytes other than printable ASCII, or is empty.
    NameNotPrintable,
    /// GSP-RM's internal handles are not three distinct non-zero handles (RM never gives 0, its
    /// "no object"; two objects never share a handle in one client).
    InternalHandles(InternalHandles),
    /// The GPC and TPC masks do not describe a GPU.
    Gr(ControlError),
    /// More FB regions than the array holds.
    FbRegionCount(u32),
    /// An FB region that ends before it begins, or past the video memory.
    FbRegion { base: u64, limit: u64, size: u64 },
}

impl fmt::Display for StaticInfoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            StaticInfoError::WrongSize { got, want } => write!(
                f,
                "{} bytes, but GspStaticConfigInfo of this firmware version has {}",
                got, want
            ),
            StaticInfoError::NameNotTerminated => f.write_str("GPU name not terminated"),
            StaticInfoError::NameNotPrintable => f.write_str("GPU name empty or not printable"),
            StaticInfoError::Gr(e) => write!(f, "GPCs and TPCs: {e}"),
            StaticInfoError::FbRegionCount(n) => {
                write!(
                    f,
                    "{n} FB regions, past the {MAX_FB_REGIONS} the array holds"
                )
            }
            StaticInfoError::FbRegion { base, limit, size } => write!(
                f,
                "FB region {base:#x}-{limit:#x} is not inside the {size:#x} bytes of video memory"
            ),
            StaticInfoError::InternalHandles(h) => write!(
                f,
                "GSP-RM's internal {h}: not three distinct non-zero handles"
            ),
        }
    }
}

gsp_versioned! {
pub(crate) mod versioned {
    use core::mem::size_of;

    use super::{
        FbInfo,
        FbRegion,
        GrInfo,
        InternalHandles,
        StaticInfo,
        StaticInfoError,
        NAME_LEN, //
    };
    use crate::untrusted::{
        Untrusted,
        Validator, //
    };
    use zerocopy::FromBytes;

    /// Size of this version's `GspStaticConfigInfo`: the `GET_GSP_STATIC_INFO` request and
    /// its reply.
    pub(crate) const STATIC_INFO_SIZE: usize = size_of::<fw::GspStaticConfigInfo>();

    /// A `GET_GSP_STATIC_INFO` reply of this version, validated.
    pub(crate) struct StaticInfoReply(StaticInfo);

    impl Validator<&Untrusted<[u8]>> for StaticInfoReply {
        type Err = StaticInfoError;

        fn validate(raw: &[u8]) -> Result<StaticInfoReply, StaticInfoError> {
            let info = fw::GspStaticConfigInfo::read_from_bytes(raw).map_err(|_| {
                StaticInfoError::WrongSize {
                    got: raw.len(),
                    want: STATIC_INFO_SIZE,
                }
            })?;
            let name_len = info
                .gpuNameString
                .iter()
                .position(|&b| b == 0)
                .ok_or(StaticInfoError::NameNotTerminated)?;
            let name_bytes = &info.gpuNameString[..name_len];
            if name_len == 0 || !name_bytes.iter().all(|b| (0x20..0x7f).contains(b)) {
                return Err(StaticInfoError::NameNotPrintable);
            }
            let internal = InternalHandles {
                client: info.hInternalClient,
                device: info.hInternalDevice,
                subdevice: info.hInternalSubdevice,
            };
            let [c, d, sd] = [internal.client, internal.device, internal.subdevice];
            if c == 0 || d == 0 || sd == 0 || c == d || d == sd || c == sd {
                return Err(StaticInfoError::InternalHandles(internal));
            }
            let gr = gr_info(&info)?;
            let fb = fb_info(&info)?;
            let mut name = [0u8; NAME_LEN];
            name[..name_len].copy_from_slice(name_bytes);
            Ok(StaticInfoReply(StaticInfo {
                name,
                name_len,
                internal,
                gr,
                fb,
            }))
        }
    }

    /// The video memory's size and regions, checked: at most the array's, each inside the
    /// memory.
    fn fb_info(info: &fw::GspStaticConfigInfo) -> Result<FbInfo, StaticInfoError> {
        let p = &info.fbRegionInfoParams;
        let count = p.numFBRegions as usize;
        let size = info.fb_length;
        let mut fb = FbInfo {
            size,
            regions: [FbRegion::default(); super::MAX_FB_REGIONS],
            count,
        };
        let raw = p
            .fbRegion
            .get(..count)
            .filter(|_| count <= super::MAX_FB_REGIONS)
            .ok_or(StaticInfoError::FbRegionCount(p.numFBRegions))?;
        for (out, r) in fb.regions.iter_mut().zip(raw) {
            if r.base > r.limit || r.limit >= size {
                return Err(StaticInfoError::FbRegion {
                    base: r.base,
                    limit: r.limit,
                    size,
                });
            }
            *out = FbRegion {
                base: r.base,
                limit: r.limit,
                usable: r.reserved == 0
                    && r.bProtected == 0
                    && r.supportCompressed != 0
                    && r.supportISO != 0,
            };
        }
        Ok(fb)
    }

    /// The GPC mask and each GPC's TPC mask, checked (535.113.01 has them in its static
    /// information, `gpcInfo` and `tpcInfo`; nouveau counts GPCs and TPCs from them,
    /// `r535_gsp_get_static_info`).
    #[ver(V == r535_113_01)]
    fn gr_info(info: &fw::GspStaticConfigInfo) -> Result<Option<GrInfo>, StaticInfoError> {
        let mut tpc_masks = [0; crate::gsp::rm::controls::MAX_GPCS];
        for (mask, tpc) in tpc_masks.iter_mut().zip(info.tpcInfo.iter()) {
            *mask = tpc.tpcMask;
        }
        GrInfo {
            gpc_mask: info.gpcInfo.gpcMask,
            tpc_masks,
        }
        .checked()
        .map(Some)
        .map_err(StaticInfoError::Gr)
    }

    /// 570.144's static information has no GPCs and TPCs: GSP-RM answers controls for them.
    #[ver(V >= r570_144)]
    fn gr_info(_: &fw::GspStaticConfigInfo) -> Result<Option<GrInfo>, StaticInfoError> {
        Ok(None)
    }

    /// Validates a `GET_GSP_STATIC_INFO` reply payload of this version (see
    /// [`StaticInfoReply`]).
    pub(crate) fn decode_static_info(
        payload: &Untrusted<[u8]>,
    ) -> Result<StaticInfo, StaticInfoError> {
        payload.validate_ref::<StaticInfoReply>().map(|r| r.0)
    }
}
}

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_gsp_replies)]
mod tests {
    use super::{
        versioned::{
            r535_113_01 as v535,
            r570_144 as v570, //
        },
        StaticInfoError, //
    };
    use crate::untrusted::Untrusted;
    use kernel::prelude::*;

    /// A reply of `len` zero bytes with `name` at `name_at`, the FB size at `fb_at`, and
    /// GSP-RM's internal handles (as OpenRM picks them) right before the last 8 bytes of
    /// 535.113.01's struct or the last 56 of 570.144's.
    fn reply(len: usize, name_at: usize, name: &[u8], fb_at: usize) -> Result<KVec<u8>> {
        let mut b = KVec::from_elem(0u8, len, GFP_KERNEL)?;
        b[name_at..name_at + name.len()].copy_from_slice(name);
        b[fb_at..fb_at + 8].copy_from_slice(&(24u64 << 30).to_le_bytes());
        let at = handles_at(len);
        if at + 12 <= len {
            for (i, h) in [0xc1e0_0000u32, 0xcaf0_0000, 0xcaf0_0001]
                .iter()
                .enumerate()
            {
                b[at + 4 * i..at + 4 * i + 4].copy_from_slice(&h.to_le_bytes());
            }
        }
        if len == 2168 {
            // 535.113.01's GPCs and TPCs: GPC 0 with two TPCs (gpcInfo at 292, tpcInfo at 296).
            b[292] = 1;
            b[300] = 3;
        }
        Ok(b)
    }

    /// Where `hInternalClient` sits in a struct of `len` bytes (OpenRM gsp_abi_check.c: 1600 in
    /// 570.144; 2152 in 535.113.01).
    fn handles_at(len: usize) -> usize {
        if len == 2168 {
            2152
        } else {
            1600
        }
    }

    #[test]
    fn static_info_name_sits_where_each_version_puts_it() -> Result {
        let name = b"NVIDIA GeForce RTX 3090\0";
        let b = reply(1656, 1260, name, 1224)?;
        let info =
            v570::decode_static_info(Untrusted::new_untrusted_ref(&b[..])).map_err(|_| EINVAL)?;
        assert_eq!(info.name(), "NVIDIA GeForce RTX 3090");
        let b = reply(2168, 1820, name, 1752)?;
        let info =
            v535::decode_static_info(Untrusted::new_untrusted_ref(&b[..])).map_err(|_| EINVAL)?;
        assert_eq!(info.name(), "NVIDIA GeForce RTX 3090");
        Ok(())
    }

    #[test]
    fn static_info_rejects_short_and_bad_names() -> Result {
        let b = reply(1656, 1260, b"NVIDIA\0", 1224)?;
        assert_eq!(
            v570::decode_static_info(Untrusted::new_untrusted_ref(&b[..1655])),
            Err(StaticInfoError::WrongSize {
                got: 1655,
                want: 1656
            })
        );
        // A 570.144 reply does not fit 535.113.01, nor the other way round: a version
        // mismatch shows here.
        assert_eq!(
            v535::decode_static_info(Untrusted::new_untrusted_ref(&b[..])),
            Err(StaticInfoError::WrongSize {
                got: 1656,
                want: 2168
            })
        );
        let b535 = reply(2168, 1820, b"NVIDIA\0", 1752)?;
        assert_eq!(
            v570::decode_static_info(Untrusted::new_untrusted_ref(&b535[..])),
            Err(StaticInfoError::WrongSize {
                got: 2168,
                want: 1656
            })
        );
        let b = reply(1656, 1260, &[b'A'; 64], 1224)?;
        assert_eq!(
            v570::decode_static_info(Untrusted::new_untrusted_ref(&b[..])),
            Err(StaticInfoError::NameNotTerminated)
        );
        let b = reply(1656, 1260, b"bad\x07name\0", 1224)?;
        assert_eq!(
            v570::decode_static_info(Untrusted::new_untrusted_ref(&b[..])),
            Err(StaticInfoError::NameNotPrintable)
        );
        let b = reply(1656, 1260, b"\0", 1224)?;
        assert_eq!(
            v570::decode_static_info(Untrusted::new_untrusted_ref(&b[..])),
            Err(StaticInfoError::NameNotPrintable)
        );
        Ok(())
    }

    /// GSP-RM's internal handles sit where each version puts them, and must be three distinct
    /// non-zero handles; 535.113.01's GPCs must name a GPC, each with a TPC.
    #[test]
    fn static_info_internal_handles_are_read_and_checked() -> Result {
        let name = b"NVIDIA\0";
        for (len, name_at, fb_at, decode) in [
            (1656, 1260, 1224, v570::decode_static_info as fn(&_) -> _),
            (2168, 1820, 1752, v535::decode_static_info),
        ] {
            let b = reply(len, name_at, name, fb_at)?;
            let info = decode(Untrusted::new_untrusted_ref(&b[..])).map_err(|_| EINVAL)?;
            let h = info.internal();
            assert_eq!(
                (h.client, h.device, h.subdevice),
                (0xc1e0_0000, 0xcaf0_0000, 0xcaf0_0001)
            );
            // 535.113.01 has the GPCs and TPCs; 570.144 asks controls for them.
            let gr = info.gr().map(|g| (g.gpcs(), g.tpcs()));
            assert_eq!(gr, (len == 2168).then_some((1, 2)));
            if len == 2168 {
                // No GPC; a GPC without TPCs.
                for off in [292, 300] {
                    let mut bad = reply(len, name_at, name, fb_at)?;
                    bad[off] = 0;
                    assert!(matches!(
                        decode(Untrusted::new_untrusted_ref(&bad[..])),
                        Err(StaticInfoError::Gr(_))
                    ));
                }
            }
            // The FB regions (fbRegionInfoParams at 840 and 344): their count within the
            // array, each inside the memory; a usable one read as such.
            let fb_regions = if len == 2168 { 840 } else { 344 };
            let region = |count: u32, limit: u64| -> Result<KVec<u8>> {
                let mut b = reply(len, name_at, name, fb_at)?;
                b[fb_regions..fb_regions + 4].copy_from_slice(&count.to_le_bytes());
                let r = fb_regions + 8;
                b[r + 8..r + 16].copy_from_slice(&limit.to_le_bytes());
                b[r + 28] = 1;
                b[r + 29] = 1;
                Ok(b)
            };
            let b = region(1, 0xfff)?;
            let info = decode(Untrusted::new_untrusted_ref(&b[..])).map_err(|_| EINVAL)?;
            assert_eq!(info.fb().size, 24 << 30);
            assert_eq!(info.fb().regions().len(), 1);
            assert!(info.fb().regions()[0].usable);
            assert_eq!(info.fb().regions()[0].limit, 0xfff);
            let b = region(17, 0xfff)?;
            assert_eq!(
                decode(Untrusted::new_untrusted_ref(&b[..])),
                Err(StaticInfoError::FbRegionCount(17))
            );
            let b = region(1, 24 << 30)?;
            assert!(matches!(
                decode(Untrusted::new_untrusted_ref(&b[..])),
                Err(StaticInfoError::FbRegion { .. })
            ));
            let at = handles_at(len);
            // Zero, or the device's handle twice.
            for (off, value) in [(0, 0u32), (8, 0xcaf0_0000)] {
                let mut bad = reply(len, name_at, name, fb_at)?;
                bad[at + off..at + off + 4].copy_from_slice(&value.to_le_bytes());
                assert!(matches!(
                    decode(Untrusted::new_untrusted_ref(&bad[..])),
                    Err(StaticInfoError::InternalHandles(_))
                ));
            }
        }
        Ok(())
    }
}
