// SPDX-License-Identifier: GPL-2.0

//! The GSP firmware interface, one implementation per firmware version.
//!
//! What differs between versions is written once inside `gsp_versioned!` modules (see
//! `gsp/macros`), which the `nova_versions` procedural macro expands into one copy per
//! supported firmware version; what is the same is written and compiled once, on the bindings'
//! common structures (`gsp/fw.rs`). The driver reaches the versioned copies through
//! [`FwVersion`]: its methods match on the version (a closed enum, static dispatch) and call
//! that version's copy.

use kernel::prelude::*;

use crate::firmware::FwVersion;

#[macro_use]
pub(crate) mod versions;

#[cfg(CONFIG_NOVA_CORE_BENCH)]
pub(crate) mod bench;
pub(crate) mod boot;
pub(crate) mod chain;
pub(crate) mod commands;
pub(crate) mod fsp_chain;
pub(crate) mod fw;
pub(crate) mod hal;
pub(crate) mod libos;
pub(crate) mod logs;
pub(crate) mod msgq;
pub(crate) mod queues;
pub(crate) mod radix3;
pub(crate) mod replies;
pub(crate) mod running;
pub(crate) mod sequencer;
pub(crate) mod shared;
pub(crate) mod start;
pub(crate) mod teardown;
pub(crate) mod wpr;

use crate::pci::SystemFacts;

/// The RPC functions and events the driver uses; [`FwVersion::function`] gives their numbers
/// in one firmware version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Function {
    SetSystemInfo,
    SetRegistry,
    GetGspStaticInfo,
    UnloadingGuestDriver,
    InitDone,
    RunCpuSequencer,
}

gsp_versioned! {
/// What differs between firmware versions beyond single structures: the numbering of functions
/// and events.
pub(crate) mod versioned {
    /// The number of `function` in this version.
    pub(crate) const fn function(function: super::Function) -> u32 {
        match function {
            super::Function::SetSystemInfo => fw::NV_VGPU_MSG_FUNCTION_GSP_SET_SYSTEM_INFO,
            super::Function::SetRegistry => fw::NV_VGPU_MSG_FUNCTION_SET_REGISTRY,
            super::Function::GetGspStaticInfo => fw::NV_VGPU_MSG_FUNCTION_GET_GSP_STATIC_INFO,
            super::Function::UnloadingGuestDriver => {
                fw::NV_VGPU_MSG_FUNCTION_UNLOADING_GUEST_DRIVER
            }
            super::Function::InitDone => fw::NV_VGPU_MSG_EVENT_GSP_INIT_DONE,
            super::Function::RunCpuSequencer => fw::NV_VGPU_MSG_EVENT_GSP_RUN_CPU_SEQUENCER,
        }
    }

    /// The version as in file names (the tests check that the dispatch maps every version to
    /// its own copy).
    #[cfg(CONFIG_KUNIT)]
    pub(crate) const NAME: &str = VERSION;
}
}

/// The versioned calls the rest of the driver makes, dispatched from the version list: a
/// closed enum matched in place (static dispatch), each arm calling that version's copy.
macro_rules! gsp_dispatch {
    ([$(($v:ident, $V:ident, $($rest:tt)*)),* $(,)?]) => {
        impl FwVersion {
            /// The number of `function` in this version.
            pub(crate) fn function(self, function: Function) -> u32 {
                match self {
                    $(FwVersion::$V => versioned::$v::function(function)),*
                }
            }

            /// Whether `function` is an event number (something the GSP sends unasked), not
            /// the reply to a command.
            pub(crate) fn is_event(self, function: u32) -> bool {
                match self {
                    $(FwVersion::$V => msgq::versioned::$v::is_event(function)),*
                }
            }

            /// The name of event `function` in this version, where the driver knows it.
            pub(crate) fn event_name(self, function: u32) -> Option<&'static str> {
                match self {
                    $(FwVersion::$V => msgq::versioned::$v::event_name(function)),*
                }
            }

            /// What the next status message must be, for this version's numbering.
            pub(crate) fn expect(self, available: u32, sequence: u32) -> msgq::Expect {
                msgq::Expect {
                    available,
                    sequence,
                    known_function: match self {
                        $(FwVersion::$V => msgq::versioned::$v::is_known_function),*
                    },
                }
            }

            /// Size of this version's `GSP_SET_SYSTEM_INFO` payload.
            pub(crate) fn system_info_size(self) -> usize {
                match self {
                    $(FwVersion::$V => commands::versioned::$v::SYSTEM_INFO_SIZE),*
                }
            }

            /// Writes this version's `GSP_SET_SYSTEM_INFO` payload for `facts` into `out`.
            pub(crate) fn write_system_info(
                self,
                facts: &SystemFacts,
                out: &mut dyn commands::Sink,
            ) -> Result {
                match self {
                    $(FwVersion::$V => commands::versioned::$v::write_system_info(facts, out)),*
                }
            }

            /// Writes this version's `GSP_ARGUMENTS_CACHED` for queues in a region at
            /// `shared`, of `pages` pages, with the queues at the given offsets.
            pub(crate) fn write_rmargs(
                self,
                shared: u64,
                pages: u32,
                cmdq: u64,
                statq: u64,
                out: &mut dyn commands::Sink,
            ) -> Result {
                match self {
                    $(FwVersion::$V => commands::versioned::$v::write_rmargs(
                        shared, pages, cmdq, statq, out
                    )),*
                }
            }

            /// Writes this version's `GspFwWprMeta` for `args` into `out`.
            pub(crate) fn write_wpr_meta(
                self,
                args: &commands::WprMetaArgs<'_>,
                out: &mut dyn commands::Sink,
            ) -> Result {
                match self {
                    $(FwVersion::$V => commands::versioned::$v::write_wpr_meta(args, out)),*
                }
            }

            /// Writes this version's `GSP_FMC_BOOT_PARAMS` for `args` into `out`.
            pub(crate) fn write_fmc_boot_params(
                self,
                args: &commands::FmcBootArgs,
                out: &mut dyn commands::Sink,
            ) -> Result {
                match self {
                    $(FwVersion::$V => commands::versioned::$v::write_fmc_boot_params(args, out)),*
                }
            }

            /// Size of this version's `GspStaticConfigInfo` (`GET_GSP_STATIC_INFO`'s request
            /// and reply).
            pub(crate) fn static_info_size(self) -> usize {
                match self {
                    $(FwVersion::$V => replies::versioned::$v::STATIC_INFO_SIZE),*
                }
            }

            /// Validates a `GET_GSP_STATIC_INFO` reply payload of this version.
            pub(crate) fn decode_static_info(
                self,
                payload: &crate::untrusted::Untrusted<[u8]>,
            ) -> Result<replies::StaticInfo, replies::StaticInfoError> {
                match self {
                    $(FwVersion::$V => replies::versioned::$v::decode_static_info(payload)),*
                }
            }

            /// The version the dispatch reaches, as that copy names it.
            #[cfg(CONFIG_KUNIT)]
            fn dispatched_name(self) -> &'static str {
                match self {
                    $(FwVersion::$V => versioned::$v::NAME),*
                }
            }
        }
    };
}

gsp_version_table!(gsp_dispatch {});

#[kunit_tests(nova_core_gsp)]
mod tests {
    use super::*;

    #[test]
    fn every_firmware_version_dispatches_to_its_own_copy() -> Result {
        for &v in FwVersion::ALL {
            assert_eq!(v.dispatched_name(), v.name());
        }
        Ok(())
    }
}
