// SPDX-License-Identifier: GPL-2.0

//! The macro used for real: the generated copies compile and behave per version.

mod fw {
    pub mod r535_113_01 {
        pub const RPC_SET_REGISTRY: u32 = 21;
    }
    pub mod r570_144 {
        pub const RPC_SET_REGISTRY: u32 = 20;
    }
}

pub trait Rpcs {
    fn version(&self) -> &'static str;
    fn set_registry_function(&self) -> u32;
    fn message_size(&self) -> usize;
    fn describe(&self) -> u32;
}

fn helper() -> u32 {
    7
}

/// A trait for a generic parameter named like the version placeholder.
pub trait Numbered {
    const N: u32;
}

pub struct Five;

impl Numbered for Five {
    const N: u32 = 5;
}

/// Expands to its input: code the versioned module hands through a macro invocation.
macro_rules! through {
    ($($t:tt)*) => { $($t)* };
}

#[nova_versions::versions(r535_113_01, r570_144; bindings = crate::fw)]
mod rpc {
    use super::Rpcs;

    #[repr(C)]
    pub struct Message {
        pub function: u32,
        #[ver(V >= r570_144)]
        pub flags: u64,
    }

    pub enum Kind {
        Common,
        #[ver(V == r535_113_01)]
        OnlyOld,
    }

    pub struct Impl;

    /// Visible where the annotated module's `pub(super)` items are: in this crate's root.
    pub(super) fn for_the_parent() -> &'static str {
        VERSION
    }

    through! {
        /// Made by a macro: `pub(super)`, `super::` and `V` inside the invocation are rewritten.
        pub(super) fn through_a_macro() -> (u32, &'static str) {
            (super::helper(), super::rpc::V::VERSION)
        }
    }

    /// `super::` inside an expression macro's arguments.
    pub fn helpers() -> String {
        format!("{}{}", super::helper(), super::helper())
    }

    /// A generic parameter `V` is not the version: `V::N` is its constant.
    pub fn number<V: super::Numbered>() -> u32 {
        V::N
    }

    impl Rpcs for Impl {
        fn version(&self) -> &'static str {
            VERSION
        }

        fn set_registry_function(&self) -> u32 {
            fw::RPC_SET_REGISTRY
        }

        fn message_size(&self) -> usize {
            core::mem::size_of::<Message>()
        }

        fn describe(&self) -> u32 {
            let mut n = super::helper();
            #[ver(V >= r570_144)]
            {
                n += 100;
            }
            #[ver(V == r535_113_01)]
            let kinds = [Kind::Common, Kind::OnlyOld];
            #[ver(V >= r570_144)]
            let kinds = [Kind::Common];
            for k in kinds {
                n += match k {
                    Kind::Common => 1,
                    #[ver(V == r535_113_01)]
                    Kind::OnlyOld => 1000,
                };
            }
            n
        }
    }
}

fn select(major: u32) -> Option<&'static dyn Rpcs> {
    match major {
        535 => Some(&rpc::r535_113_01::Impl),
        570 => Some(&rpc::r570_144::Impl),
        _ => None,
    }
}

#[test]
fn each_copy_reports_its_version() {
    assert_eq!(select(535).map(|r| r.version()), Some("535.113.01"));
    assert_eq!(select(570).map(|r| r.version()), Some("570.144"));
    assert!(select(580).is_none());
}

#[test]
fn fw_resolves_to_the_versions_bindings() {
    assert_eq!(rpc::r535_113_01::Impl.set_registry_function(), 21);
    assert_eq!(rpc::r570_144::Impl.set_registry_function(), 20);
}

#[test]
fn struct_layout_differs_per_version() {
    assert_eq!(rpc::r535_113_01::Impl.message_size(), 4);
    assert_eq!(rpc::r570_144::Impl.message_size(), 16);
}

#[test]
fn statements_and_super_paths_follow_the_version() {
    assert_eq!(rpc::r535_113_01::Impl.describe(), 1008);
    assert_eq!(rpc::r570_144::Impl.describe(), 108);
}

#[test]
fn a_generic_parameter_named_v_is_left_alone() {
    assert_eq!(rpc::r535_113_01::number::<Five>(), 5);
    assert_eq!(rpc::r570_144::number::<Five>(), 5);
}

#[test]
fn pub_super_is_visible_in_the_annotated_modules_parent() {
    assert_eq!(rpc::r535_113_01::for_the_parent(), "535.113.01");
    assert_eq!(rpc::r570_144::for_the_parent(), "570.144");
}

#[test]
fn super_v_and_visibilities_inside_macro_invocations_follow_the_version() {
    assert_eq!(rpc::r535_113_01::through_a_macro(), (7, "535.113.01"));
    assert_eq!(rpc::r570_144::through_a_macro(), (7, "570.144"));
    assert_eq!(rpc::r535_113_01::helpers(), "77");
    assert_eq!(rpc::r570_144::helpers(), "77");
}
