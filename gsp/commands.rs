// SPDX-License-Identifier: GPL-2.0

//! Payloads of the RPCs the driver sends to the GSP, written once and expanded per firmware
//! version.
//!
//! `GSP_SET_SYSTEM_INFO` is the first message whose layout really differs between versions:
//! 570.144 adds the PCI ids, more host addresses and a tail of flags to `GspSystemInfo`, which
//! moves most fields (`maxUserVa` is at offset 56 in 535.113.01 and 72 in 570.144).

use kernel::prelude::*;

/// What the driver tells the GSP about the host and the PCI function (`GSP_SET_SYSTEM_INFO`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SystemFacts {
    /// Bus addresses of BAR0 (registers), BAR1 (framebuffer window) and BAR3 (instance memory).
    pub(crate) bar0: u64,
    pub(crate) bar1: u64,
    pub(crate) bar3: u64,
    /// PCI domain, bus, device and function, as `pci_dev_id()` packs them.
    pub(crate) bus_device_function: u64,
    pub(crate) vendor_id: u16,
    pub(crate) device_id: u16,
    pub(crate) subsystem_vendor_id: u16,
    pub(crate) subsystem_device_id: u16,
    pub(crate) revision_id: u8,
    /// Where the chip mirrors its PCI configuration space in BAR0.
    pub(crate) pci_config_mirror_base: u32,
    pub(crate) pci_config_mirror_size: u32,
}

/// Highest user virtual address the GSP may hand out (47-bit address space, last page kept).
const MAX_USER_VA: u64 = (1 << 47) - 4096;

#[nova_versions::versions(r535_113_01, r570_144; bindings = crate::gsp::fw)]
pub(crate) mod versioned {
    use super::{
        SystemFacts,
        MAX_USER_VA, //
    };
    use kernel::prelude::*;
    use zerocopy::IntoBytes;

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

    /// Appends the `GSP_SET_SYSTEM_INFO` payload for `facts` to `out`.
    pub(crate) fn encode_system_info(facts: &SystemFacts, out: &mut KVec<u8>) -> Result {
        out.extend_from_slice(system_info(facts).as_bytes(), GFP_KERNEL)?;
        Ok(())
    }
}

#[kunit_tests(nova_core_gsp_commands)]
mod tests {
    use super::*;
    use crate::{
        firmware::FwVersion,
        gsp::interface, //
    };

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

    fn encoded(v: FwVersion) -> Result<KVec<u8>> {
        let mut out = KVec::new();
        interface(v).encode_system_info(&facts(), &mut out)?;
        Ok(out)
    }

    #[test]
    fn system_info_535_layout() -> Result {
        let b = encoded(FwVersion::R535_113_01)?;
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
        let b = encoded(FwVersion::R570_144)?;
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
    fn system_info_has_no_stray_bytes() -> Result {
        // Everything not set from the facts is zero, padding included.
        for &v in FwVersion::ALL {
            let b = encoded(v)?;
            let set: usize = b.iter().filter(|&&x| x != 0).count();
            assert!(set <= 40);
        }
        Ok(())
    }
}
