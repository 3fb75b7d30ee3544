// SPDX-License-Identifier: GPL-2.0

//! What differs between GSP firmware versions, as one trait: [`Interface`].
//!
//! Every version implements it with a marker type, `versioned::<version>::Fw`, and every
//! implementation comes from the one `impl` below, which `gsp_versioned!` expands once per
//! entry of the version list (`gsp/versions.rs`) with `#[ver]` where the versions differ. The
//! driver reaches versioned code only through the trait: the code that needs it is generic over
//! `V: Interface`, and the version the firmware files gave at run time enters it only through
//! the matches generated from the version list: [`FwVersion::with`] here, and `AnyGsp`'s methods
//! once GSP-RM runs (`gsp/running.rs`). Below them the version's code is called statically, but
//! for GSP-FMC's writers ([`Fmc`]), held as function pointers so that the code around them is
//! compiled once.
//!
//! What a version does not have is a fact of its implementation, known at compile time: 535.113.01
//! boots no chip through GSP-FMC, so its [`Interface::FMC`] is `None`, and the FSP chain, which
//! needs it, names the version where it would start (`gsp/fsp_chain.rs`).

use kernel::prelude::*;

use crate::{
    fb::{
        layout::{
            FbLayout,
            HeapParams, //
        },
        sizes::FmcSizes,
    },
    gsp::{
        encode::{
            FmcBootArgs,
            Sink,
            WprMetaArgs, //
        },
        msgq::Numbering,
        replies::{
            StaticInfo,
            StaticInfoError, //
        },
        rm::{
            controls::Engine,
            memsys::MemsysLayout, //
        },
        versions::FwVersion,
    },
    pci::SystemFacts,
    untrusted::Untrusted,
};

/// One GSP firmware version's interface: the numbers, layouts and validators that differ between
/// versions. Implemented once per version, by `versioned::<version>::Fw`.
pub(crate) trait Interface: Sized + 'static {
    /// The version, as the version list names it.
    const VERSION: FwVersion;

    /// The numbering of functions and events (data: the code that reads it is the same for
    /// every version).
    const NUMBERING: &'static Numbering;

    /// Size of the `GSP_SET_SYSTEM_INFO` payload.
    const SYSTEM_INFO_SIZE: usize;
    /// Writes the `GSP_SET_SYSTEM_INFO` payload for `facts`: exactly
    /// [`Interface::SYSTEM_INFO_SIZE`] bytes.
    fn write_system_info(facts: &SystemFacts, out: &mut dyn Sink) -> Result;
    /// Writes `GSP_ARGUMENTS_CACHED` for queues in a region at `shared` of `pages` pages, the
    /// command and status queues at offsets `cmdq` and `statq`.
    fn write_rmargs(shared: u64, pages: u32, cmdq: u64, statq: u64, out: &mut dyn Sink) -> Result;

    /// How GSP-RM sizes its heap in WPR2 on the chips the booter starts (LIBOS 3 from GA102 on).
    fn heap_params(libos3: bool) -> HeapParams;
    /// Size of the `GspFwWprMeta` that starts WPR2.
    const WPR_META_SIZE: u64;
    /// Writes the `GspFwWprMeta` for the booter: the images, and WPR2's regions where `layout`
    /// places them.
    fn write_wpr_meta(images: &WprMetaArgs, layout: &FbLayout, out: &mut dyn Sink) -> Result;
    /// What GSP-FMC's boot takes from the version (Hopper and later); `None` where the version
    /// boots no chip through GSP-FMC.
    const FMC: Option<Fmc>;

    /// Size of `NV0000_ALLOC_PARAMETERS`, a client's allocation parameters.
    const CLIENT_PARAMS_SIZE: usize;
    /// Writes the allocation parameters of the client `handle`: exactly
    /// [`Interface::CLIENT_PARAMS_SIZE`] bytes.
    fn write_client_params(handle: u32, out: &mut dyn Sink) -> Result;

    /// The engine an `MC_ENGINE_IDX` names in the interrupt table, where the driver knows it.
    fn engine(idx: u16) -> Option<Engine>;

    /// The engine an `RM_ENGINE_TYPE` names in the FIFO's device information, where the driver
    /// knows it.
    fn rm_engine(t: u32) -> Option<Engine>;

    /// Where the memory system's static configuration keeps what the driver reads.
    const MEMSYS: &'static MemsysLayout;

    /// Size of `GspStaticConfigInfo`: the `GET_GSP_STATIC_INFO` request and its reply.
    const STATIC_INFO_SIZE: usize;
    /// Validates a `GET_GSP_STATIC_INFO` reply payload.
    fn decode_static_info(payload: &Untrusted<[u8]>) -> Result<StaticInfo, StaticInfoError>;
}

/// What a version that boots through GSP-FMC has for it.
#[derive(Clone, Copy)]
pub(crate) struct Fmc {
    /// How GSP-RM sizes its heap on those chips.
    pub(crate) heap: HeapParams,
    /// Writes the `GspFwWprMeta` for GSP-FMC: the images, and WPR2's regions as sizes alone.
    pub(crate) write_wpr_meta: fn(&WprMetaArgs, &FmcSizes, &mut dyn Sink) -> Result,
    /// Writes `GSP_FMC_BOOT_PARAMS`.
    pub(crate) write_boot_params: fn(&FmcBootArgs, &mut dyn Sink) -> Result,
}

/// Code generic over the version, run by [`FwVersion::with`] for the version chosen at run time.
pub(crate) trait ForVersion {
    /// What the code gives back.
    type Output;

    /// Runs the code for version `V`.
    fn run<V: Interface>(self) -> Self::Output;
}

/// [`FwVersion::with`], generated from the version list.
macro_rules! interface_dispatch {
    ([$(($v:ident, $V:ident, $($rest:tt)*)),* $(,)?]) => {
        impl FwVersion {
            /// Runs `code` for this version: a `match` on the version, where generic code is
            /// entered with the version's [`Interface`].
            pub(crate) fn with<W: ForVersion>(self, code: W) -> W::Output {
                match self {
                    $(FwVersion::$V => code.run::<versioned::$v::Fw>()),*
                }
            }
        }
    };
}

gsp_version_table!(interface_dispatch {});

gsp_versioned! {
/// Each version's [`Interface`], from this one source.
pub(crate) mod versioned {
    use super::{
        Fmc,
        Interface, //
    };
    use crate::{
        fb::layout::{
            FbLayout,
            HeapParams, //
        },
        gsp::{
            encode::{
                Sink,
                WprMetaArgs, //
            },
            msgq::Numbering,
            replies::{
                StaticInfo,
                StaticInfoError, //
            },
            rm::{
                controls::Engine,
                memsys::MemsysLayout, //
            },
            versions::FwVersion,
        },
        pci::SystemFacts,
        untrusted::Untrusted,
    };
    use kernel::prelude::*;

    /// This version of the GSP firmware interface.
    pub(crate) struct Fw;

    impl Interface for Fw {
        const VERSION: FwVersion = FwVersion::named(VERSION);

        const NUMBERING: &'static Numbering = &crate::gsp::msgq::versioned::V::NUMBERING;

        const SYSTEM_INFO_SIZE: usize = crate::gsp::encode::versioned::V::SYSTEM_INFO_SIZE;

        fn write_system_info(facts: &SystemFacts, out: &mut dyn Sink) -> Result {
            crate::gsp::encode::versioned::V::write_system_info(facts, out)
        }

        fn write_rmargs(
            shared: u64,
            pages: u32,
            cmdq: u64,
            statq: u64,
            out: &mut dyn Sink,
        ) -> Result {
            crate::gsp::encode::versioned::V::write_rmargs(shared, pages, cmdq, statq, out)
        }

        fn heap_params(libos3: bool) -> HeapParams {
            crate::gsp::wpr::versioned::V::heap_params(libos3)
        }

        const WPR_META_SIZE: u64 = crate::gsp::wpr::versioned::V::WPR_META_SIZE;

        fn write_wpr_meta(images: &WprMetaArgs, layout: &FbLayout, out: &mut dyn Sink) -> Result {
            crate::gsp::encode::versioned::V::write_wpr_meta(images, layout, out)
        }

        #[ver(V >= r570_144)]
        const FMC: Option<Fmc> = Some(Fmc {
            heap: crate::gsp::wpr::versioned::V::heap_params_fsp(),
            write_wpr_meta: crate::gsp::encode::versioned::V::write_wpr_meta_fmc,
            write_boot_params: crate::gsp::encode::versioned::V::write_fmc_boot_params,
        });
        // No chip GSP-FMC boots runs 535.113.01 (`FwVersion::supports`).
        #[ver(V == r535_113_01)]
        const FMC: Option<Fmc> = None;

        const CLIENT_PARAMS_SIZE: usize = crate::gsp::rm::calls::versioned::V::CLIENT_PARAMS_SIZE;

        fn write_client_params(handle: u32, out: &mut dyn Sink) -> Result {
            crate::gsp::encode::put_struct(
                out,
                &crate::gsp::rm::calls::versioned::V::client_params(handle),
            )
        }

        fn engine(idx: u16) -> Option<Engine> {
            crate::gsp::rm::controls::versioned::V::engine(idx)
        }

        fn rm_engine(t: u32) -> Option<Engine> {
            crate::gsp::rm::fifo::versioned::V::rm_engine(t)
        }

        const MEMSYS: &'static MemsysLayout = &crate::gsp::rm::memsys::versioned::V::MEMSYS;

        const STATIC_INFO_SIZE: usize = crate::gsp::replies::versioned::V::STATIC_INFO_SIZE;

        fn decode_static_info(payload: &Untrusted<[u8]>) -> Result<StaticInfo, StaticInfoError> {
            crate::gsp::replies::versioned::V::decode_static_info(payload)
        }
    }
}
}

#[kunit_tests(nova_core_gsp_interface)]
mod tests {
    use super::*;
    use crate::chip::Chipset;

    /// The version's name, as its implementation has it.
    struct Name;

    impl ForVersion for Name {
        type Output = (FwVersion, Option<Fmc>);

        fn run<V: Interface>(self) -> Self::Output {
            (V::VERSION, V::FMC)
        }
    }

    #[test]
    fn every_version_dispatches_to_its_own_implementation() {
        for &v in FwVersion::ALL {
            assert_eq!(v.with(Name).0, v);
        }
    }

    /// A version supports a chip GSP-FMC boots exactly where it has what GSP-FMC's boot takes.
    #[test]
    fn every_version_supporting_a_gsp_fmc_chip_has_its_fmc_part() {
        for &v in FwVersion::ALL {
            let fmc = v.with(Name).1.is_some();
            for &chipset in Chipset::ALL {
                if v.supports(chipset) && chipset.family().fsp().is_some() {
                    // A version that supports a chip GSP-FMC boots, without GSP-FMC's part.
                    assert!(fmc);
                }
            }
        }
        assert!(FwVersion::R535_113_01.with(Name).1.is_none());
    }
}
