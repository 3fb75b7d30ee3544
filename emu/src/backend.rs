// SPDX-License-Identifier: GPL-2.0

//! The glue between the vfio_user crate's server and the [`Device`]: the
//! regions and interrupts announced to the client, and the `ServerBackend`
//! implementation that forwards each request to the device.
//!
//! No region offers mmap, so that every access goes through the socket and is
//! counted.

use std::fs::File;
use std::io;
use std::mem::size_of;
use std::path::Path;
use std::sync::{Arc, Mutex};

use vfio_bindings::bindings::vfio::{
    vfio_region_info, VFIO_PCI_NUM_REGIONS, VFIO_REGION_INFO_FLAG_READ, VFIO_REGION_INFO_FLAG_WRITE,
};
use vfio_user::{DmaMapFlags, DmaUnmapFlags, IrqInfo, Server, ServerBackend, ServerRegion};

use crate::device::{irq_layout, Device};
use crate::logger::lock;

/// The vfio regions of `device`: BAR0..BAR5, ROM, config space and VGA, in
/// vfio index order; those the device lacks have size 0 and no flags.
pub fn regions(device: &Device) -> Vec<ServerRegion> {
    (0..VFIO_PCI_NUM_REGIONS)
        .map(|index| {
            let size = device.region_size(index);
            let flags = if size > 0 {
                VFIO_REGION_INFO_FLAG_READ | VFIO_REGION_INFO_FLAG_WRITE
            } else {
                0
            };
            ServerRegion {
                region_info: vfio_region_info {
                    argsz: size_of::<vfio_region_info>() as u32,
                    flags,
                    index,
                    cap_offset: 0,
                    size,
                    offset: 0,
                },
                sparse_areas: Vec::new(),
                mmap_fd: None,
            }
        })
        .collect()
}

/// The interrupts announced to the client.
pub fn irqs() -> Vec<IrqInfo> {
    irq_layout()
        .into_iter()
        .map(|(index, flags, count)| IrqInfo {
            index,
            flags,
            count,
        })
        .collect()
}

/// A vfio-user server for `device`, listening on `path` (which must not
/// exist).
pub fn server(path: &Path, device: &Device) -> Result<Server, vfio_user::Error> {
    Server::new(path, true, irqs(), regions(device))
}

/// Forwards the server's requests to a shared [`Device`].
pub struct Backend {
    device: Arc<Mutex<Device>>,
}

impl Backend {
    pub fn new(device: Arc<Mutex<Device>>) -> Self {
        Backend { device }
    }
}

impl ServerBackend for Backend {
    fn region_read(&mut self, region: u32, offset: u64, data: &mut [u8]) -> io::Result<()> {
        lock(&self.device).region_read(region, offset, data)
    }

    fn region_write(&mut self, region: u32, offset: u64, data: &[u8]) -> io::Result<()> {
        lock(&self.device).region_write(region, offset, data)
    }

    fn dma_map(
        &mut self,
        flags: DmaMapFlags,
        offset: u64,
        address: u64,
        size: u64,
        fd: Option<File>,
    ) -> io::Result<()> {
        lock(&self.device).dma_map(flags, offset, address, size, fd)
    }

    fn dma_unmap(&mut self, flags: DmaUnmapFlags, address: u64, size: u64) -> io::Result<()> {
        lock(&self.device).dma_unmap(flags, address, size)
    }

    fn reset(&mut self) -> io::Result<()> {
        lock(&self.device).reset();
        Ok(())
    }

    fn set_irqs(
        &mut self,
        index: u32,
        flags: u32,
        start: u32,
        count: u32,
        fds: Vec<File>,
    ) -> io::Result<()> {
        lock(&self.device).set_irqs(index, flags, start, count, fds)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::counts::Region;
    use crate::device::tests::ga102_config;
    use crate::logger::Logger;
    use vfio_bindings::bindings::vfio::{
        VFIO_IRQ_INFO_EVENTFD, VFIO_PCI_BAR0_REGION_INDEX, VFIO_PCI_BAR1_REGION_INDEX,
        VFIO_PCI_CONFIG_REGION_INDEX, VFIO_PCI_MSI_IRQ_INDEX, VFIO_PCI_ROM_REGION_INDEX,
    };
    use vfio_user::Client;

    #[test]
    fn announced_regions_match_the_device_and_offer_no_mmap() {
        let (log, _) = Logger::memory();
        let dev = Device::new(ga102_config(), log);
        let r = regions(&dev);
        assert_eq!(r.len(), 9);
        for (i, region) in r.iter().enumerate() {
            assert_eq!(region.region_info.index, i as u32);
            assert!(region.mmap_fd.is_none());
            assert!(region.sparse_areas.is_empty());
        }
        assert_eq!(
            r[VFIO_PCI_CONFIG_REGION_INDEX as usize].region_info.size,
            256
        );
        assert_eq!(r[VFIO_PCI_ROM_REGION_INDEX as usize].region_info.flags, 0);
    }

    /// Serves a ga102 on a temporary socket in a thread and drives it with
    /// the vfio_user crate's client.
    #[test]
    fn client_over_socket_reads_config_space_and_boot0() {
        let path = std::env::temp_dir().join(format!("nova-emu-test-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let (log, text) = Logger::memory();
        let device = Arc::new(Mutex::new(Device::new(ga102_config(), log)));
        let srv = server(&path, &lock(&device)).expect("server listens");
        let mut backend = Backend::new(device.clone());
        let thread = std::thread::spawn(move || srv.run(&mut backend).map_err(|e| e.to_string()));

        let mut client = Client::new(&path).expect("client connects");
        let config = client
            .region(VFIO_PCI_CONFIG_REGION_INDEX)
            .expect("config region announced");
        assert_eq!(config.size, 256);
        let bar1 = client
            .region(VFIO_PCI_BAR1_REGION_INDEX)
            .expect("BAR1 announced");
        assert_eq!(bar1.size, 256 << 20);

        let mut id = [0u8; 4];
        client
            .region_read(VFIO_PCI_CONFIG_REGION_INDEX, 0, &mut id)
            .expect("config read");
        assert_eq!(u32::from_le_bytes(id), 0x2204_10de);

        let mut boot0 = [0u8; 4];
        client
            .region_read(VFIO_PCI_BAR0_REGION_INDEX, 0, &mut boot0)
            .expect("BAR0 read");
        assert_eq!(u32::from_le_bytes(boot0), 0x172000a1);

        client
            .region_write(VFIO_PCI_BAR0_REGION_INDEX, 0xff_fff0, &7u32.to_le_bytes())
            .expect("phase write");
        let msi = client
            .get_irq_info(VFIO_PCI_MSI_IRQ_INDEX)
            .expect("irq info");
        assert_eq!(msi.count, 1);
        assert_ne!(msi.flags & VFIO_IRQ_INFO_EVENTFD, 0);

        client.shutdown().expect("shutdown");
        drop(client);
        let served = thread.join().expect("server thread");
        assert_eq!(served, Ok(()));
        assert!(!path.exists(), "the server removes its socket");

        let dev = lock(&device);
        assert_eq!(dev.counts().tally(0, Region::Bar0, 0).reads, 1);
        assert_eq!(dev.counts().phase(), 7);
        assert_eq!(dev.counts().config_totals(), (1, 0));
        assert!(text.contents().contains("phase 0 -> 7"));
    }

    /// A DMA map with a memfd sent through the real server: the emulator
    /// reads what the test wrote into the file, and the test sees what the
    /// emulator wrote; after the unmap the memory is out of reach.
    #[test]
    fn dma_map_over_socket_gives_access_to_guest_memory() {
        use crate::guest_mem::tests::memfd;
        use std::os::fd::AsRawFd;
        use std::os::unix::fs::FileExt;

        let path =
            std::env::temp_dir().join(format!("nova-emu-dma-test-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let (log, _) = Logger::memory();
        let device = Arc::new(Mutex::new(Device::new(ga102_config(), log)));
        let srv = server(&path, &lock(&device)).expect("server listens");
        let mut backend = Backend::new(device.clone());
        let thread = std::thread::spawn(move || srv.run(&mut backend).map_err(|e| e.to_string()));

        let ram = memfd("socket", 0x20000);
        ram.write_all_at(b"GSP queue", 0x11000).expect("fill");
        let mut client = Client::new(&path).expect("client connects");
        client
            .dma_map(0x10000, 0x8000_0000, 0x10000, ram.as_raw_fd())
            .expect("DMA map");
        {
            let mut dev = lock(&device);
            let mut got = [0u8; 9];
            dev.sysmem().read(0x8000_1000, &mut got).expect("read");
            assert_eq!(&got, b"GSP queue");
            dev.sysmem()
                .write_u64(0x8000_fff8, 0x0123_4567_89ab_cdef)
                .expect("write");
        }
        let mut back = [0u8; 8];
        ram.read_exact_at(&mut back, 0x1fff8)
            .expect("read the memfd");
        assert_eq!(u64::from_le_bytes(back), 0x0123_4567_89ab_cdef);

        client.dma_unmap(0x8000_0000, 0x10000).expect("DMA unmap");
        assert!(lock(&device).sysmem().read_u32(0x8000_1000).is_err());
        client.shutdown().expect("shutdown");
        drop(client);
        assert_eq!(thread.join().expect("server thread"), Ok(()));

        let dev = lock(&device);
        assert_eq!(dev.dma_mappings(), 0);
        assert_eq!(dev.counts().tally(0, Region::Sysmem, 0x8000_1000).reads, 1);
        assert_eq!(dev.counts().tally(0, Region::Sysmem, 0x8000_fff8).writes, 1);
    }
}
