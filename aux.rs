// SPDX-License-Identifier: GPL-2.0

//! The auxiliary device the kernel's DRM driver stands on: `nova-core.nova-drm.<id>`, the
//! device Linux 7.3's nova-drm (`drivers/gpu/drm/nova`) binds to, registered once GSP-RM is up
//! with the GPU's PCI function as its parent. nova-drm reads what it needs from that parent
//! (BAR1's size for `NOVA_GETPARAM_VRAM_BAR_SIZE`) and no registration data.
//!
//! It is the GPU object's last part to be built (nothing that can fail comes after it; its own
//! failure stops GSP-RM again) and its first to go: unregistered before GSP-RM is stopped, so
//! that no DRM client is left on a GPU whose GSP goes away.

use kernel::{
    auxiliary,
    device::{
        Bound,
        Device, //
    },
    prelude::*,
    sync::atomic::{
        Atomic,
        Relaxed, //
    },
    types::CovariantForLt,
};

/// The module name nova-drm's device table matches: the kernel's own nova-core's, which this
/// module stands in for.
const MODNAME: &CStr = c"nova-core";
/// The auxiliary device's name within the module.
const NAME: &CStr = c"nova-drm";

/// The next auxiliary device id: one per registration, so that a GPU bound again gets a name
/// no stale sysfs entry can hold (the counter wraps after 2^32 registrations in one module
/// load, where an id still registered would make the registration fail, cleanly).
static NEXT_ID: Atomic<u32> = Atomic::new(0);

/// The auxiliary bus's registration, with no registration data.
type Registration<'bound> = auxiliary::Registration<'bound, CovariantForLt!(())>;

/// A registered `nova-core.nova-drm.<id>` device; unregistered when dropped (the auxiliary
/// bus unbinds nova-drm from it first).
pub(crate) struct DrmDevice<'bound> {
    parent: &'bound Device<Bound>,
    /// Taken by the drop, so that the log line follows the unregistration.
    registration: Option<Registration<'bound>>,
    id: u32,
}

impl<'bound> DrmDevice<'bound> {
    /// Registers the auxiliary device under `parent`, the GPU's PCI function.
    pub(crate) fn register(parent: &'bound Device<Bound>) -> Result<DrmDevice<'bound>> {
        let id = NEXT_ID.fetch_add(1, Relaxed);
        let registration = auxiliary::Registration::new(parent, NAME, id, MODNAME, ())
            .inspect_err(|e| {
                dev_err!(
                    parent,
                    "cannot register the auxiliary device {} (error {})\n",
                    Shown(id),
                    e.to_errno()
                )
            })?;
        dev_dbg!(parent, "auxiliary device {} registered\n", Shown(id));
        Ok(DrmDevice {
            parent,
            registration: Some(registration),
            id,
        })
    }
}

impl Drop for DrmDevice<'_> {
    fn drop(&mut self) {
        drop(self.registration.take());
        dev_dbg!(
            self.parent,
            "auxiliary device {} unregistered\n",
            Shown(self.id)
        );
    }
}

/// The device's full name, `nova-core.nova-drm.<id>`, as the log shows it.
pub(crate) struct Shown(u32);

impl core::fmt::Display for Shown {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "{}.{}.{}",
            MODNAME.to_str().unwrap_or("?"),
            NAME.to_str().unwrap_or("?"),
            self.0
        )
    }
}
