// SPDX-License-Identifier: GPL-2.0

//! What the driver writes for the GSP beyond the RPCs' own types: the boot arguments (the LIBOS
//! regions, the queues' place in `GSP_ARGUMENTS_CACHED`, the WPR meta, GSP-FMC's boot
//! parameters) and `GSP_SET_SYSTEM_INFO`'s payload, into a [`Sink`]. What differs between
//! firmware versions is in [`versioned`], reached through [`crate::gsp::interface::Interface`].
//!
//! `GspSystemInfo` is the structure whose layout differs most: 570.144 adds the PCI ids, more
//! host addresses and a tail of flags, which moves most fields (`maxUserVa` is at offset 56 in
//! 535.113.01 and 72 in 570.144).

use kernel::prelude::*;
use zerocopy::{
    Immutable,
    IntoBytes, //
};

use crate::{
    gsp::fw::common,
    pci::SystemFacts, //
};

/// Where a payload goes, in order: the command queue's elements when an RPC is sent, a vector
/// for the boot arguments and the tests.
pub(crate) trait Sink {
    /// Appends `bytes`; fails if they do not fit. Once a `put` failed the command is not sent,
    /// whatever the writer does next: a writer passes the error on.
    fn put(&mut self, bytes: &[u8]) -> Result;
}

/// Appends a structure's bytes (its padding is zero: the bindings' structures derive
/// `IntoBytes`, which they only can without implicit padding).
pub(crate) fn put_struct<T: IntoBytes + Immutable>(out: &mut dyn Sink, value: &T) -> Result {
    out.put(value.as_bytes())
}

impl Sink for KVec<u8> {
    fn put(&mut self, bytes: &[u8]) -> Result {
        self.extend_from_slice(bytes, GFP_KERNEL)?;
        Ok(())
    }
}

/// Highest user virtual address the GSP may hand out (47-bit address space, last page kept).
const MAX_USER_VA: u64 = (1 << 47) - 4096;

/// A region of contiguous system memory the GSP's LIBOS is told about.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LibosRegion {
    /// Its name, packed as LIBOS expects (`libos_id8`).
    pub(crate) id8: u64,
    /// Its DMA address and size in bytes.
    pub(crate) address: u64,
    pub(crate) size: u64,
}

/// Writes one LIBOS memory region argument per region into `out`: the boot arguments the GSP
/// reads from the page MAILBOX0/1 point at.
pub(crate) fn write_libos_args(regions: &[LibosRegion], out: &mut dyn Sink) -> Result {
    for region in regions {
        let arg = common::LibosMemoryRegionInitArgument {
            id8: region.id8,
            pa: region.address,
            size: region.size,
            kind: u8::try_from(common::LIBOS_MEMORY_REGION_CONTIGUOUS)?,
            loc: u8::try_from(common::LIBOS_MEMORY_REGION_LOC_SYSMEM)?,
            ..Default::default()
        };
        put_struct(out, &arg)?;
    }
    Ok(())
}

/// What the WPR meta tells the booter or GSP-FMC of GSP-RM's images: where its image,
/// bootloader and signature are in system memory. Where WPR2 goes in video memory is the
/// writer's other argument: the driver's layout (the booter) or the sizes (GSP-FMC).
pub(crate) struct WprMetaArgs {
    /// The radix3 root of the image, and the image's size.
    pub(crate) radix3: u64,
    pub(crate) image_size: u64,
    /// The bootloader's ucode and size, and its code, data and manifest offsets.
    pub(crate) bootloader: u64,
    pub(crate) bootloader_size: u64,
    pub(crate) bootloader_offsets: [u64; 3],
    /// The signature's address and size.
    pub(crate) signature: u64,
    pub(crate) signature_size: u64,
}

/// What `GSP_FMC_BOOT_PARAMS` tells GSP-FMC: where GSP-RM's WPR meta and LIBOS arguments are
/// in system memory.
pub(crate) struct FmcBootArgs {
    pub(crate) wpr_meta: u64,
    pub(crate) wpr_meta_size: u32,
    pub(crate) libos: u64,
}

gsp_versioned! {
pub(crate) mod versioned {
    use super::{
        put_struct,
        Sink,
        SystemFacts,
        WprMetaArgs,
        MAX_USER_VA, //
    };
    use crate::fb::layout::FbLayout;
    #[ver(V >= r570_144)]
    use {super::FmcBootArgs, crate::fb::sizes::FmcSizes};
    use kernel::prelude::*;

    /// The part of this version's `GspFwWprMeta` that says where GSP-RM's images are.
    fn images(a: &WprMetaArgs) -> fw::GspFwWprMeta {
        fw::GspFwWprMeta {
            magic: u64::from_le_bytes(fw::GSP_FW_WPR_META_MAGIC.to_le_bytes()),
            revision: u64::from(fw::GSP_FW_WPR_META_REVISION),
            sysmemAddrOfRadix3Elf: a.radix3,
            sizeOfRadix3Elf: a.image_size,
            sysmemAddrOfBootloader: a.bootloader,
            sizeOfBootloader: a.bootloader_size,
            bootloaderCodeOffset: a.bootloader_offsets[0],
            bootloaderDataOffset: a.bootloader_offsets[1],
            bootloaderManifestOffset: a.bootloader_offsets[2],
            __bindgen_anon_1: fw::GspFwWprMeta__bindgen_ty_1 {
                __bindgen_anon_1: fw::GspFwWprMeta__bindgen_ty_1__bindgen_ty_1 {
                    sysmemAddrOfSignature: a.signature,
                    sizeOfSignature: a.signature_size,
                },
            },
            ..Default::default()
        }
    }

    /// Writes this version's `GspFwWprMeta` for the booter into `out`: the images, and every
    /// region of WPR2 where the driver's layout `l` placed it (Turing to Ada).
    pub(crate) fn write_wpr_meta(a: &WprMetaArgs, l: &FbLayout, out: &mut dyn Sink) -> Result {
        let len = |r: &core::ops::Range<u64>| r.end - r.start;
        let meta = fw::GspFwWprMeta {
            gspFwRsvdStart: l.non_wpr_heap.start,
            nonWprHeapOffset: l.non_wpr_heap.start,
            nonWprHeapSize: len(&l.non_wpr_heap),
            gspFwWprStart: l.wpr2.start,
            gspFwHeapOffset: l.wpr2_heap.start,
            gspFwHeapSize: len(&l.wpr2_heap),
            gspFwOffset: l.elf.start,
            bootBinOffset: l.boot.start,
            frtsOffset: l.frts.start,
            frtsSize: len(&l.frts),
            gspFwWprEnd: l.frts.end,
            fbSize: len(&l.fb),
            vgaWorkspaceOffset: l.vga_workspace.start,
            vgaWorkspaceSize: len(&l.vga_workspace),
            ..images(a)
        };
        put_struct(out, &meta)
    }

    /// Writes this version's `GspFwWprMeta` for GSP-FMC into `out` (Hopper and later): the
    /// images and the regions' sizes `sz`, every offset left 0 for GSP-FMC to place.
    #[ver(V >= r570_144)]
    pub(crate) fn write_wpr_meta_fmc(
        a: &WprMetaArgs,
        sz: &FmcSizes,
        out: &mut dyn Sink,
    ) -> Result {
        let meta = fw::GspFwWprMeta {
            nonWprHeapSize: sz.non_wpr_heap,
            gspFwHeapSize: sz.heap,
            frtsSize: sz.frts_size,
            vgaWorkspaceSize: sz.vga_workspace,
            pmuReservedSize: sz.pmu_reserved,
            ..images(a)
        };
        put_struct(out, &meta)
    }

    /// Writes this version's `GSP_FMC_BOOT_PARAMS` for `b` into `out`: GSP-RM's WPR meta in
    /// coherent system memory, its LIBOS arguments through the non-coherent target (as NVIDIA's
    /// drivers name them), no WPR carve-out of the driver's, no SPDM.
    #[ver(V >= r570_144)]
    pub(crate) fn write_fmc_boot_params(b: &FmcBootArgs, out: &mut dyn Sink) -> Result {
        let params = fw::GSP_FMC_BOOT_PARAMS {
            bootGspRmParams: fw::GSP_ACR_BOOT_GSP_RM_PARAMS {
                target: fw::GSP_DMA_TARGET_COHERENT_SYSTEM,
                gspRmDescSize: b.wpr_meta_size,
                gspRmDescOffset: b.wpr_meta,
                bIsGspRmBoot: 1,
                ..Default::default()
            },
            gspRmParams: fw::GSP_RM_PARAMS {
                target: fw::GSP_DMA_TARGET_NONCOHERENT_SYSTEM,
                bootArgsOffset: b.libos,
                ..Default::default()
            },
            ..Default::default()
        };
        put_struct(out, &params)
    }

    /// Builds this version's `GspSystemInfo` from `facts`.
    pub(crate) fn system_info(facts: &SystemFacts) -> fw::GspSystemInfo {
        fw::GspSystemInfo {
            gpuPhysAddr: facts.bar0,
            gpuPhysFbAddr: facts.bar1,
            gpuPhysInstAddr: facts.bar3,
            nvDomainBusDeviceFunc: facts.bus_device_function,
            maxUserVa: MAX_USER_VA,
            pciConfigMirrorBase: facts.pci_config_mirror_base,
            pciConfigMirrorSize: facts.pci_config_mirror_size,
            #[ver(V >= r570_144)]
            PCIDeviceID: (u32::from(facts.device_id) << 16) | u32::from(facts.vendor_id),
            #[ver(V >= r570_144)]
            PCISubDeviceID: (u32::from(facts.subsystem_device_id) << 16)
                | u32::from(facts.subsystem_vendor_id),
            #[ver(V >= r570_144)]
            PCIRevisionID: u32::from(facts.revision_id),
            ..Default::default()
        }
    }

    /// Size of this version's `GspSystemInfo`.
    pub(crate) const SYSTEM_INFO_SIZE: usize = core::mem::size_of::<fw::GspSystemInfo>();

    /// Writes the `GSP_SET_SYSTEM_INFO` payload for `facts` into `out`.
    pub(crate) fn write_system_info(facts: &SystemFacts, out: &mut dyn Sink) -> Result {
        put_struct(out, &system_info(facts))
    }

    /// Writes the `GSP_ARGUMENTS_CACHED` of this version into `out`: where the queues are.
    pub(crate) fn write_rmargs(
        shared: u64,
        pages: u32,
        cmdq: u64,
        statq: u64,
        out: &mut dyn Sink,
    ) -> Result {
        let args = fw::GSP_ARGUMENTS_CACHED {
            messageQueueInitArguments: fw::MESSAGE_QUEUE_INIT_ARGUMENTS {
                sharedMemPhysAddr: shared,
                pageTableEntryCount: pages,
                cmdQueueOffset: cmdq,
                statQueueOffset: statq,
                ..Default::default()
            },
            // 570.144's GSP-RM keeps its stack in DMEM, as NVIDIA's drivers ask.
            #[ver(V >= r570_144)]
            bDmemStack: 1,
            ..Default::default()
        };
        put_struct(out, &args)
    }

}
}

#[kunit_tests(nova_core_gsp_encode)]
mod tests {
    use super::*;

    fn facts() -> SystemFacts {
        SystemFacts {
            bar0: 0xe600_0000,
            bar1: 0xfc_8000_0000,
            bar3: 0xfe_0000_0000,
            bus_device_function: 0x0020,
            vendor_id: 0x10de,
            device_id: 0x2204,
            subsystem_vendor_id: 0x10de,
            subsystem_device_id: 0x0001,
            revision_id: 0xa1,
            pci_config_mirror_base: 0x88000,
            pci_config_mirror_size: 0x1000,
        }
    }

    /// `GSP_SET_SYSTEM_INFO`'s payload for [`facts`] as `write` writes it, checked to be
    /// `size` bytes.
    fn system_info(
        write: fn(&SystemFacts, &mut dyn Sink) -> Result,
        size: usize,
    ) -> Result<KVec<u8>> {
        let mut out = KVec::new();
        write(&facts(), &mut out)?;
        assert_eq!(out.len(), size);
        Ok(out)
    }

    fn system_info_535() -> Result<KVec<u8>> {
        use versioned::r535_113_01 as v;
        system_info(v::write_system_info, v::SYSTEM_INFO_SIZE)
    }

    fn system_info_570() -> Result<KVec<u8>> {
        use versioned::r570_144 as v;
        system_info(v::write_system_info, v::SYSTEM_INFO_SIZE)
    }

    fn u64_at(b: &[u8], off: usize) -> u64 {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[off..off + 8]);
        u64::from_le_bytes(w)
    }

    fn u32_at(b: &[u8], off: usize) -> u32 {
        let mut w = [0u8; 4];
        w.copy_from_slice(&b[off..off + 4]);
        u32::from_le_bytes(w)
    }

    #[test]
    fn system_info_535_layout() -> Result {
        let b = system_info_535()?;
        assert_eq!(b.len(), 664);
        assert_eq!(u64_at(&b, 0), 0xe600_0000);
        assert_eq!(u64_at(&b, 8), 0xfc_8000_0000);
        assert_eq!(u64_at(&b, 24), 0x0020);
        assert_eq!(u64_at(&b, 56), MAX_USER_VA);
        assert_eq!(u32_at(&b, 64), 0x88000);
        assert_eq!(u32_at(&b, 68), 0x1000);
        Ok(())
    }

    #[test]
    fn system_info_570_layout() -> Result {
        let b = system_info_570()?;
        assert_eq!(b.len(), 928);
        assert_eq!(u64_at(&b, 0), 0xe600_0000);
        assert_eq!(u64_at(&b, 32), 0x0020);
        assert_eq!(u64_at(&b, 72), MAX_USER_VA);
        assert_eq!(u32_at(&b, 80), 0x88000);
        assert_eq!(u32_at(&b, 88), 0x2204_10de);
        assert_eq!(u32_at(&b, 92), 0x0001_10de);
        assert_eq!(u32_at(&b, 96), 0xa1);
        Ok(())
    }

    #[test]
    fn fmc_boot_params_570_layout() -> Result {
        let mut b = KVec::new();
        let args = FmcBootArgs {
            wpr_meta: 0x1_2345_6000,
            wpr_meta_size: 256,
            libos: 0x7_8900_0000,
        };
        versioned::r570_144::write_fmc_boot_params(&args, &mut b)?;
        assert_eq!(b.len(), 80);
        assert_eq!(u32_at(&b, 0), 0);
        // bootGspRmParams: coherent system memory, the WPR meta, GSP-RM (not a proxy).
        assert_eq!(u32_at(&b, 8), 1);
        assert_eq!(u32_at(&b, 12), 256);
        assert_eq!(u64_at(&b, 16), 0x1_2345_6000);
        assert_eq!((u64_at(&b, 24), u32_at(&b, 32)), (0, 0));
        assert_eq!(b[36], 1);
        // gspRmParams: the LIBOS arguments.
        assert_eq!(u32_at(&b, 40), 2);
        assert_eq!(u64_at(&b, 48), 0x7_8900_0000);
        assert!(b[56..].iter().all(|&x| x == 0));
        Ok(())
    }

    #[test]
    fn wpr_meta_for_gsp_fmc_has_sizes_and_no_offsets() -> Result {
        let sizes = crate::fb::sizes::FmcSizes {
            fb_size: 80 << 30,
            frts_size: 1 << 20,
            frts_offset: 2 << 20,
            heap: 140 << 20,
            non_wpr_heap: 2 << 20,
            pmu_reserved: 0x182_0000,
            vga_workspace: 128 << 10,
        };
        let args = WprMetaArgs {
            radix3: 0x1000,
            image_size: 0x2000,
            bootloader: 0x3000,
            bootloader_size: 0x400,
            bootloader_offsets: [1, 2, 3],
            signature: 0x5000,
            signature_size: 0x1000,
        };
        let mut b = KVec::new();
        versioned::r570_144::write_wpr_meta_fmc(&args, &sizes, &mut b)?;
        assert_eq!(b.len(), 256);
        assert_eq!(u64_at(&b, 0), 0xdc3a_ae21_371a_60b3);
        assert_eq!(u64_at(&b, 16), 0x1000);
        assert_eq!(u64_at(&b, 32), 0x3000);
        // From gspFwRsvdStart (88) to vgaWorkspaceSize (192): only the sizes are set.
        let at = |off| u64_at(&b, off);
        assert_eq!((at(88), at(96), at(104)), (0, 0, 2 << 20));
        assert_eq!((at(112), at(120), at(128)), (0, 0, 140 << 20));
        assert_eq!((at(136), at(144), at(152), at(160)), (0, 0, 0, 1 << 20));
        assert_eq!((at(168), at(176), at(184), at(192)), (0, 0, 0, 128 << 10));
        assert_eq!(u32_at(&b, 244), 0x182_0000);
        Ok(())
    }

    #[test]
    fn rmargs_layout_differs_per_version() -> Result {
        // 535.113.01 has two lockless queue offsets more in MESSAGE_QUEUE_INIT_ARGUMENTS;
        // 570.144 has bDmemStack (at 48), which NVIDIA's drivers set.
        type WriteRmargs = fn(u64, u32, u64, u64, &mut dyn Sink) -> Result;
        let versions: [(WriteRmargs, usize, usize, Option<usize>); 2] = [
            (versioned::r535_113_01::write_rmargs, 80, 48, None),
            (versioned::r570_144::write_rmargs, 72, 32, Some(48)),
        ];
        for (write_rmargs, size, queue_args, dmem_stack) in versions {
            let mut b = KVec::new();
            write_rmargs(0x1_0000_0000, 129, 0x1000, 0x41000, &mut b)?;
            assert_eq!(b.len(), size);
            assert_eq!(u64_at(&b, 0), 0x1_0000_0000);
            assert_eq!(u32_at(&b, 8), 129);
            assert_eq!(u64_at(&b, 16), 0x1000);
            assert_eq!(u64_at(&b, 24), 0x41000);
            // Nothing else is set after the queue arguments, but the DMEM stack flag.
            for (i, &x) in b.iter().enumerate().skip(queue_args) {
                assert_eq!(x, u8::from(Some(i) == dmem_stack));
            }
        }
        Ok(())
    }

    #[test]
    fn libos_arguments_name_their_regions() -> Result {
        use crate::gsp::libos::libos_id8;
        assert_eq!(libos_id8("RMARGS"), 0x524d_4152_4753);
        let mut b = KVec::new();
        let region = LibosRegion {
            id8: libos_id8("RMARGS"),
            address: 0x2000,
            size: 72,
        };
        write_libos_args(&[region], &mut b)?;
        assert_eq!(b.len(), 32);
        assert_eq!(u64_at(&b, 0), libos_id8("RMARGS"));
        assert_eq!(u64_at(&b, 8), 0x2000);
        assert_eq!(u64_at(&b, 16), 72);
        // Contiguous, in system memory.
        assert_eq!((b[24], b[25]), (1, 1));
        Ok(())
    }

    /// The whole payload, byte for byte, against one written here from the headers' layout:
    /// the facts at their offsets, every other byte (padding included) zero.
    #[test]
    fn system_info_is_the_facts_and_zeros() -> Result {
        let put = |b: &mut [u8], at: usize, v: &[u8]| b[at..at + v.len()].copy_from_slice(v);
        let f = facts();
        // 535.113.01: BAR0, BAR1, BAR3, BDF, then maxUserVa at 56 and the mirror at 64.
        let mut want = KVec::from_elem(0u8, 664, GFP_KERNEL)?;
        put(&mut want, 0, &f.bar0.to_le_bytes());
        put(&mut want, 8, &f.bar1.to_le_bytes());
        put(&mut want, 16, &f.bar3.to_le_bytes());
        put(&mut want, 24, &f.bus_device_function.to_le_bytes());
        put(&mut want, 56, &MAX_USER_VA.to_le_bytes());
        put(&mut want, 64, &0x88000u32.to_le_bytes());
        put(&mut want, 68, &0x1000u32.to_le_bytes());
        assert!(system_info_535()?[..] == want[..]);
        // 570.144: gpuPhysIoAddr moves the BDF to 32, two more addresses maxUserVa to 72; the
        // PCI ids follow the mirror.
        let mut want = KVec::from_elem(0u8, 928, GFP_KERNEL)?;
        put(&mut want, 0, &f.bar0.to_le_bytes());
        put(&mut want, 8, &f.bar1.to_le_bytes());
        put(&mut want, 16, &f.bar3.to_le_bytes());
        put(&mut want, 32, &f.bus_device_function.to_le_bytes());
        put(&mut want, 72, &MAX_USER_VA.to_le_bytes());
        put(&mut want, 80, &0x88000u32.to_le_bytes());
        put(&mut want, 84, &0x1000u32.to_le_bytes());
        put(&mut want, 88, &0x2204_10deu32.to_le_bytes());
        put(&mut want, 92, &0x0001_10deu32.to_le_bytes());
        put(&mut want, 96, &0xa1u32.to_le_bytes());
        assert!(system_info_570()?[..] == want[..]);
        Ok(())
    }
}
