// SPDX-License-Identifier: GPL-2.0

//! What the probe asks GSP-RM once it is up, as nouveau asks it: its static information, the
//! client, device and subdevice the driver allocates, the GPCs and TPCs (from the static
//! information in 535.113.01, by controls in 570.144), the copy engines' fault method buffer
//! size, the interrupt table, the FIFO's engines and the memory system's configuration
//! (controls on GSP-RM's internal subdevice, where nouveau and OpenRM send them); the video
//! memory's size and regions come with the static information. Logged at debug level, and
//! shown in the device's debugfs `info` file.

use core::fmt;

use kernel::{
    device::Device,
    prelude::*, //
};

use crate::{
    bar0::SharedBar0,
    chip::Chipset,
    gsp::{
        boot::{
            Gsp,
            GspCore, //
        },
        encode::Sink,
        interface::Interface,
        replies::StaticInfo,
        rm::{
            controls::{
                CeFaultMethodBufferSize,
                Control,
                Engine,
                EngineKind,
                GpcInfo,
                GrInfo,
                IntrKernelTable,
                IntrTable,
                TpcInfo,
                MAX_GPCS, //
            },
            fifo::{
                DeviceInfoTable,
                FifoEngine, //
            },
            memsys::{
                Memsys,
                MemsysLayout,
                MemsysStaticConfig, //
            },
            objects::RmDevice,
        },
        versions::FwVersion,
    },
};

/// What the probe learnt from GSP-RM.
pub(crate) struct RmInfo {
    chipset: Chipset,
    version: FwVersion,
    static_info: StaticInfo,
    rm: RmDevice,
    gr: GrInfo,
    ce_method_buffer: u32,
    intr: IntrTable,
    fifo: KVec<FifoEngine>,
    memsys: Memsys,
}

impl RmInfo {
    /// The GSP's stalling interrupt vector, where GSP-RM's interrupt table gives one.
    pub(crate) fn gsp_vector(&self) -> Option<u32> {
        self.intr
            .engines()
            .find(|e| e.engine.kind == EngineKind::Gsp)
            .and_then(|e| e.stall)
    }

    /// The GPU's name, as GSP-RM gives it.
    pub(crate) fn name(&self) -> &str {
        self.static_info.name()
    }
}

/// What the probe takes from the firmware version: its name, its client parameters and its
/// engine numbering (data, so that the probe's body is compiled once).
struct VersionFacts {
    version: FwVersion,
    client_params: usize,
    write_client_params: fn(u32, &mut dyn Sink) -> Result,
    engine: fn(u16) -> Option<Engine>,
    rm_engine: fn(u32) -> Option<Engine>,
    memsys: &'static MemsysLayout,
}

impl<V: Interface> Gsp<V> {
    /// Asks GSP-RM what the probe needs, allocating the probe's RM objects on the way.
    pub(crate) fn probe_info(&mut self, dev: &Device, bar: &SharedBar0) -> Result<KBox<RmInfo>> {
        let static_info = self.static_info(dev, bar)?;
        let facts = VersionFacts {
            version: V::VERSION,
            client_params: V::CLIENT_PARAMS_SIZE,
            write_client_params: V::write_client_params,
            engine: V::engine,
            rm_engine: V::rm_engine,
            memsys: V::MEMSYS,
        };
        self.probe_info_with(dev, bar, static_info, &facts)
    }
}

impl GspCore {
    /// [`Gsp::probe_info`] once the static information is in.
    fn probe_info_with(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        static_info: StaticInfo,
        facts: &VersionFacts,
    ) -> Result<KBox<RmInfo>> {
        let rm = self.alloc_rm_device(dev, bar, facts.client_params, facts.write_client_params)?;
        let gr = match static_info.gr() {
            Some(gr) => gr,
            None => self.gr_by_controls(dev, bar, &static_info)?,
        };
        let internal = static_info.internal();
        let subdevice = (internal.client, internal.subdevice);
        let ce_method_buffer = self.control(dev, bar, subdevice, &CeFaultMethodBufferSize)?;
        let intr = self.control(
            dev,
            bar,
            subdevice,
            &IntrKernelTable {
                engine: facts.engine,
                vectors: self.chipset().family().intr_leaves * 32,
            },
        )?;
        let fifo = self.fifo_engines(dev, bar, subdevice, facts.rm_engine)?;
        let memsys = self.control(dev, bar, subdevice, &MemsysStaticConfig(facts.memsys))?;
        // On the heap at once: with the interrupt table it is a kilobyte.
        let info = KBox::new(
            RmInfo {
                chipset: self.chipset(),
                version: facts.version,
                static_info,
                rm,
                gr,
                ce_method_buffer,
                intr,
                fifo,
                memsys,
            },
            GFP_KERNEL,
        )?;
        dev_dbg!(
            dev,
            "GSP-RM: {}; {}; fault method buffer {:#x} bytes; {} interrupt table entries; {} FIFO engines; {}\n",
            info.rm,
            info.gr,
            info.ce_method_buffer,
            info.intr.len,
            info.fifo.len(),
            info.memsys
        );
        Ok(info)
    }

    /// The FIFO's engines: the device information table, 32 entries a control, asked again
    /// from the next 32 while GSP-RM says more follow (OpenRM `kfifoGetHostDeviceInfoTable`;
    /// nouveau asks once).
    fn fifo_engines(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        subdevice: (u32, u32),
        rm_engine: fn(u32) -> Option<Engine>,
    ) -> Result<KVec<FifoEngine>> {
        let mut engines = KVec::new();
        let mut base = 0;
        loop {
            let page = self.control(dev, bar, subdevice, &DeviceInfoTable { base, rm_engine })?;
            for e in page.engines() {
                engines.push(*e, GFP_KERNEL)?;
            }
            match page.next(base) {
                Ok(Some(next)) => base = next,
                Ok(None) => return Ok(engines),
                Err(e) => {
                    dev_err!(
                        dev,
                        "GSP-RM: {} on {:#010x} refused: {}\n",
                        DeviceInfoTable::NAME,
                        subdevice.1,
                        e
                    );
                    return Err(EIO);
                }
            }
        }
    }

    /// The GPC mask and each GPC's TPC mask, by controls on GSP-RM's internal subdevice
    /// (nouveau `rm/r570/gr.c`, `r570_gr_gpc_mask`, `r570_gr_tpc_mask`).
    fn gr_by_controls(
        &mut self,
        dev: &Device,
        bar: &SharedBar0,
        static_info: &StaticInfo,
    ) -> Result<GrInfo> {
        let internal = static_info.internal();
        let subdevice = (internal.client, internal.subdevice);
        let gpc_mask = self.control(dev, bar, subdevice, &GpcInfo)?;
        let mut tpc_masks = [0; MAX_GPCS];
        for (gpc, mask) in tpc_masks.iter_mut().enumerate() {
            if gpc_mask & (1 << gpc) != 0 {
                *mask = self.control(dev, bar, subdevice, &TpcInfo(gpc as u32))?;
            }
        }
        Ok(GrInfo {
            gpc_mask,
            tpc_masks,
        })
    }
}

impl fmt::Display for RmInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "chip: {}", self.chipset)?;
        let family = self.chipset.family();
        writeln!(
            f,
            "family: {} (MMU version {}, channel class {:#x}, copy class {:#x})",
            family.name,
            family.mmu.number(),
            family.classes.channel,
            family.classes.copy
        )?;
        writeln!(f, "firmware: {}", self.version)?;
        writeln!(f, "name: {}", self.name())?;
        writeln!(f, "fb: {}", self.static_info.fb())?;
        writeln!(f, "gr: {}", self.gr)?;
        writeln!(
            f,
            "ce fault method buffer: {:#x} bytes",
            self.ce_method_buffer
        )?;
        writeln!(f, "memsys: {}", self.memsys)?;
        writeln!(f, "interrupt table: {} entries", self.intr.len)?;
        for e in self.intr.engines() {
            let vector = |v: Option<u32>| v.map_or(-1, i64::from);
            writeln!(
                f,
                "interrupt {}: stall {} nonstall {}",
                e.engine,
                vector(e.stall),
                vector(e.nonstall)
            )?;
        }
        writeln!(f, "fifo engines: {}", self.fifo.len())?;
        for e in &self.fifo {
            writeln!(f, "fifo {e}")?;
        }
        writeln!(f, "rm objects: {}", self.rm)?;
        writeln!(f, "gsp-rm internal: {}", self.static_info.internal())
    }
}
