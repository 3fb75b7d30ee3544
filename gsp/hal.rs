// SPDX-License-Identifier: GPL-2.0

//! How each family's GSP-RM is started, behind one interface: [`GspHal`] says what the GPU's own
//! firmware must have finished before the driver reads the GPU, and what the start reads from
//! the device first ([`GspHal::prepare`]); the [`Plan`] it returns starts GSP-RM.
//!
//! - Turing to Ada (`docs/boot-chain.md`): GFW boot done; the VBIOS and the framebuffer layout
//!   read; FWSEC-FRTS carves WPR2 out of the framebuffer, then the booter starts GSP-RM.
//! - Hopper and later (`docs/fsp-chain.md`): the FSP booted; the sizes GSP-FMC is given read;
//!   the FSP starts GSP-FMC, which starts GSP-RM.
//!
//! Both plans start GSP-RM only with bus mastering on and the sysmem flush page registered (a
//! falcon's reset writes to it), which their caller owns (`gpu.rs`); a GSP-RM that does not come
//! up is stopped (or its memory leaked) before the error returns.

use kernel::{
    device::{
        Bound,
        Device, //
    },
    prelude::*,
};

use crate::{
    bar0::SharedBar0,
    chip::{
        Identified,
        Spec, //
    },
    family::{
        Boot,
        BooterFacts,
        FspHal, //
    },
    fb::{
        layout::{
            FbLayout,
            HeapParams,
            Wpr2, //
        },
        sizes::FmcSizes,
    },
    firmware::{
        BootFiles,
        FwVersion,
        GspFirmware,
        Starter, //
    },
    fsp::{
        Fsp, //
    },
    fwsec::image::FwsecCommand,
    gsp::{
        boot::Gsp,
        chain::ChainArgs,
        fsp_chain::FspArgs,
        interface::{
            ForVersion,
            Interface, //
        },
        running::{
            AnyGsp,
            StartGsp, //
        },
        teardown::{
            BooterTeardown,
            Teardown, //
        },
    },
    pci::SystemFacts,
    prom::{
        Rom,
        RomError, //
    },
    vbios::Vbios,
};

/// The family's way to GSP-RM, with its facts.
pub(crate) enum GspHal {
    /// Turing to Ada: FWSEC-FRTS, then the booter.
    Booter(&'static BooterFacts),
    /// Hopper and later: the FSP, with the family's registers.
    Fsp(&'static FspHal),
}

impl GspHal {
    /// The way `spec`'s family starts GSP-RM.
    pub(crate) fn of(spec: &Spec) -> GspHal {
        match &spec.family().boot {
            Boot::Booter(facts) => GspHal::Booter(facts),
            Boot::Fsp(hal) => GspHal::Fsp(hal),
        }
    }

    /// Waits for the GPU's own firmware, which must be done before the driver reads what it set
    /// up: GFW boot on Turing to Ada, the FSP's boot from Hopper on.
    pub(crate) fn wait_ready(&self, dev: &Device, bar: &SharedBar0) -> Result {
        match self {
            GspHal::Booter(_) => crate::devinit::wait_gfw_boot(dev, bar),
            GspHal::Fsp(hal) => Fsp::new(bar, hal).wait_ready(dev),
        }
    }

    /// Reads what the start needs from the device before anything is started, validated: the
    /// VBIOS and the framebuffer layout (FWSEC), or the sizes GSP-FMC is given (FSP).
    pub(crate) fn prepare(
        &self,
        dev: &Device,
        bar: &SharedBar0,
        id: &Identified,
        fw: &GspFirmware,
    ) -> Result<Plan> {
        Ok(match self {
            GspHal::Booter(facts) => {
                let numbers = wpr_numbers(fw.version, facts.libos3);
                Plan::Booter(BooterPlan {
                    rom: read_vbios(dev, bar)?,
                    layout: crate::fb::read_layout(dev, bar, facts.fb, fw, numbers)?,
                    boot0: id.regs.boot0,
                })
            }
            GspHal::Fsp(hal) => {
                let Some(heap) = fw.version.with(FmcHeap) else {
                    // The firmware files were chosen for the chip (`FwVersion::supports`).
                    dev_err!(
                        dev,
                        "GSP firmware {} boots no chip through GSP-FMC\n",
                        fw.version
                    );
                    return Err(ENODEV);
                };
                Plan::Fsp(crate::fb::read_fmc_sizes(dev, bar, hal, heap)?)
            }
        })
    }
}

/// What WPR2 takes from firmware `version` on the chips the booter starts: GSP-RM's heap
/// sizing (LIBOS 3 or not) and the WPR meta's size.
pub(crate) fn wpr_numbers(version: FwVersion, libos3: bool) -> (HeapParams, u64) {
    struct Numbers(bool);

    impl ForVersion for Numbers {
        type Output = (HeapParams, u64);

        fn run<V: Interface>(self) -> Self::Output {
            (V::heap_params(self.0), V::WPR_META_SIZE)
        }
    }

    version.with(Numbers(libos3))
}

/// GSP-RM's heap sizing on the chips GSP-FMC boots, where the version boots them.
struct FmcHeap;

impl ForVersion for FmcHeap {
    type Output = Option<HeapParams>;

    fn run<V: Interface>(self) -> Self::Output {
        V::FMC.map(|fmc| fmc.heap)
    }
}

/// What a family's start was prepared with.
pub(crate) enum Plan {
    Booter(BooterPlan),
    Fsp(FmcSizes),
}

/// What the start of Turing to Ada reads at probe: the VBIOS, the framebuffer layout and
/// `NV_PMC_BOOT_0` as identified.
pub(crate) struct BooterPlan {
    rom: Rom,
    layout: FbLayout,
    boot0: u32,
}

/// What both starts are given.
pub(crate) struct StartArgs<'a> {
    pub(crate) spec: Spec,
    pub(crate) fw: &'a GspFirmware,
    pub(crate) facts: &'a SystemFacts,
}

impl Plan {
    /// Starts GSP-RM from `files`, of the version the firmware files are, and waits for
    /// `GSP_INIT_DONE`; a GSP-RM that does not come up is stopped (or its memory leaked) before
    /// the error returns.
    pub(crate) fn start(
        &self,
        dev: &Device<Bound>,
        bar: &SharedBar0,
        args: StartArgs<'_>,
        files: BootFiles,
    ) -> Result<AnyGsp> {
        let version = args.fw.version;
        AnyGsp::start(
            version,
            Start {
                plan: self,
                dev,
                bar,
                args,
                files,
            },
        )
    }
}

/// [`Plan::start`] for one version.
struct Start<'a> {
    plan: &'a Plan,
    dev: &'a Device<Bound>,
    bar: &'a SharedBar0,
    args: StartArgs<'a>,
    files: BootFiles,
}

impl StartGsp for Start<'_> {
    fn start<V: Interface>(self) -> Result<Gsp<V>> {
        let Start {
            plan,
            dev,
            bar,
            args: StartArgs { spec, fw: _, facts },
            files,
        } = self;
        match plan {
            Plan::Booter(plan) => plan.start(dev, bar, spec, facts, files),
            Plan::Fsp(sizes) => {
                let args = FspArgs { spec, sizes, facts };
                crate::gsp::fsp_chain::start(dev, bar, args, files)
            }
        }
    }
}

impl BooterPlan {
    /// The VBIOS read at probe, for FWSEC-FRTS and FWSEC-SB; one that does not parse is named
    /// in one line.
    fn vbios(&self, dev: &Device) -> Result<Vbios<'_>> {
        self.rom.vbios().map_err(|e| {
            dev_err!(dev, "VBIOS: {}\n", e);
            EINVAL
        })
    }

    /// FWSEC-FRTS, then the booter. The teardown (FWSEC-SB, made before FWSEC-FRTS sets WPR2,
    /// while the VBIOS is at hand, and `booter_unload`) undoes every failure once WPR2 is set:
    /// the next probe finds WPR2 clear.
    fn start<V: Interface>(
        &self,
        dev: &Device<Bound>,
        bar: &SharedBar0,
        spec: Spec,
        facts: &SystemFacts,
        files: BootFiles,
    ) -> Result<Gsp<V>> {
        let BootFiles {
            gsp: rm,
            starter: Starter::Booter { load, unload },
        } = files
        else {
            return Err(EINVAL);
        };
        let vbios = self.vbios(dev)?;
        let sb = crate::fwsec::prepare(dev, bar, spec.chipset, &vbios, FwsecCommand::Sb)?;
        let teardown = BooterTeardown {
            chipset: spec.chipset,
            boot0: self.boot0,
            sb: Some(sb),
            booter_unload: unload,
        };
        // Not this probe's WPR2: left as it is (the GPU needs a reset).
        crate::fb::check_wpr2_unset(dev, bar)?;
        let ran = crate::fwsec::run_frts(dev, bar, spec.chipset, self.boot0, &vbios, &self.layout);
        if let Err(e) = ran {
            if matches!(crate::fb::wpr2(bar), Ok(Wpr2::Set(_))) {
                // Nothing of GSP-RM ran: WPR2 alone is undone.
                Teardown::Booter(teardown).run(dev, bar, true);
            }
            return Err(e);
        }
        let args = ChainArgs {
            spec,
            boot0: self.boot0,
            layout: &self.layout,
            facts,
        };
        crate::gsp::chain::start(dev, bar, args, rm, load, teardown)
    }
}

/// Reads the VBIOS through the PROM window and validates it: the FWSEC ucode the boot of Turing
/// to Ada runs. A ROM that lies fails probe with one line naming what was wrong.
fn read_vbios(dev: &Device, bar: &SharedBar0) -> Result<Rom> {
    let rom = Rom::read(bar).map_err(|e| match e {
        RomError::Invalid(e) => {
            dev_err!(dev, "VBIOS: {}\n", e);
            EINVAL
        }
        RomError::Window(e) => {
            dev_err!(
                dev,
                "VBIOS: cannot read the PROM window (error {})\n",
                e.to_errno()
            );
            e
        }
    })?;
    if let Ok(vbios) = rom.vbios() {
        dev_dbg!(dev, "VBIOS: {:#x} bytes read: {}\n", rom.len(), vbios);
    }
    Ok(rom)
}
