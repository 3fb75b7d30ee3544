// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's static information (`GET_GSP_STATIC_INFO`): each version's `GspStaticConfigInfo`
//! as the emulated chip fills it.

use super::bar::usable_end;
use super::wire::{put_u32, put_u64, Version, GPU_NAME_LEN, NV_ERR_BUFFER_TOO_SMALL};
use super::{controls, rm, Gsp};

impl Gsp {
    /// `GET_GSP_STATIC_INFO`: GSP-RM fills the request in place and sends it back at its own
    /// length (OpenRM's `rpcGetGspStaticInfo_v14_00` sizes the request as the whole
    /// `GspStaticConfigInfo`, and nouveau and nova-core send it so). A request too short to
    /// hold the struct is refused with `NV_ERR_BUFFER_TOO_SMALL`, sent back as it came: the
    /// model's assumption, no reference shows GSP-RM's answer.
    pub(super) fn fill_static_info(
        &self,
        version: Version,
        mut request: Vec<u8>,
    ) -> (u32, Vec<u8>) {
        let want = version.static_info_size();
        if request.len() < want {
            self.line(&format!(
                "GET_GSP_STATIC_INFO refused: {} bytes cannot hold GspStaticConfigInfo of \
                 {version} ({want} bytes)",
                request.len()
            ));
            return (NV_ERR_BUFFER_TOO_SMALL, request);
        }
        self.line("GET_GSP_STATIC_INFO");
        request[..want].copy_from_slice(&self.static_info(version));
        (0, request)
    }

    /// GspStaticConfigInfo of `version`: zero but for the name, the framebuffer size and its
    /// usable region, the BARs' root directories, GSP-RM's internal client, device and subdevice, and (535.113.01) the GPCs
    /// and TPCs.
    pub(super) fn static_info(&self, version: Version) -> Vec<u8> {
        let mut info = vec![0u8; version.static_info_size()];
        let name = format!("NVIDIA {}", self.chip.product);
        let bytes = name.as_bytes();
        let n = bytes.len().min(GPU_NAME_LEN - 1);
        let at = version.static_info_name_offset();
        info[at..at + n].copy_from_slice(&bytes[..n]);
        put_u64(
            &mut info,
            version.static_info_fb_length_offset(),
            self.config.fb_size,
        );
        let at = version.static_info_internal_handles_offset();
        for (i, handle) in rm::INTERNAL.iter().enumerate() {
            put_u32(&mut info, at + 4 * i, *handle);
        }
        // The video memory the driver may use: one region from 0 to 2 MiB below WPR2's 2 MiB
        // aligned start (the 2 MiB between are GSP-RM's: the BARs' root directories are there,
        // `bar::Roots`), compressible and displayable, neither reserved nor protected, as
        // nouveau takes a usable region (`r535_gsp_get_static_info_fb`). The model's figure:
        // GSP-RM's own reservations below it are not published. Without a modelled FB unit, no
        // region and no BAR roots.
        if let Some(end) = self.wpr2_start.and_then(usable_end) {
            let at = version.static_info_fb_regions_offset();
            put_u32(&mut info, at, 1);
            let r = at + 8;
            put_u64(&mut info, r, 0);
            put_u64(&mut info, r + 8, end - 1);
            // reserved (u64) at +16 and performance (u32) at +24 stay 0.
            info[r + 28] = 1; // supportCompressed
            info[r + 29] = 1; // supportISO
        }
        if let Some(roots) = self.bar_roots() {
            let at = version.static_info_bar_pde_base_offset();
            put_u64(&mut info, at, roots.bar1);
            put_u64(&mut info, at + 8, roots.bar2);
        }
        // 535.113.01 has the GPCs and TPCs here (gpcInfo, then tpcInfo[32] of {gpcId,
        // tpcMask}); 570.144 answers controls for them.
        if let Some(at) = version.static_info_gr_offset() {
            let (mask, tpcs) = controls::gr_masks(self.chip);
            put_u32(&mut info, at, mask);
            for (g, tpc) in tpcs.iter().enumerate() {
                put_u32(&mut info, at + 4 + 8 * g, g as u32);
                put_u32(&mut info, at + 8 + 8 * g, *tpc);
            }
        }
        info
    }
}
