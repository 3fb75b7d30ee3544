// SPDX-License-Identifier: GPL-2.0

//! The RM objects the driver holds in GSP-RM, and their handles.
//!
//! Handles are picked as nouveau picks them (`nvkm/subdev/gsp/rm/handles.h`): client `n` is
//! `0xc1d00000 | n`, its device `0xde1d0000`, the device's subdevice `0x5d1d0000` (handles are
//! per client). Every object is recorded in [`Objects`] before its `GSP_RM_ALLOC` goes out, and
//! leaves it only when GSP-RM refused it or when it is freed: `GspCore`'s shutdown frees what is
//! left, children first (the reverse of the allocation order), before it asks GSP-RM to unload,
//! as nouveau frees a subdevice, then its device, then its client. A free cannot be forgotten: no
//! object lives outside that record.

use kernel::prelude::*;

use crate::gsp::rm::calls::{
    Class,
    Object, //
};

/// The first client's handle; client `n` is this `| n` (nouveau's `NVKM_RM_CLIENT`).
const CLIENT_BASE: u32 = 0xc1d0_0000;
/// How many client ids there are (nouveau's `NVKM_RM_CLIENT_MASK + 1`).
const CLIENT_IDS: u32 = 0x1_0000;
/// A client's device (nouveau's `NVKM_RM_DEVICE`).
const DEVICE: u32 = 0xde1d_0000;
/// A device's subdevice (nouveau's `NVKM_RM_SUBDEVICE`).
const SUBDEVICE: u32 = 0x5d1d_0000;

/// The device of `client` (a client's object).
pub(crate) fn device_of(client: &Object) -> Object {
    Object {
        client: client.client,
        parent: client.handle,
        handle: DEVICE,
        class: Class::Device,
    }
}

/// The subdevice of `device` (a device's object).
pub(crate) fn subdevice_of(device: &Object) -> Object {
    Object {
        client: device.client,
        parent: device.handle,
        handle: SUBDEVICE,
        class: Class::Subdevice,
    }
}

/// A client, its device and the device's subdevice, as nouveau's `nvkm_gsp_client_device_ctor`
/// allocates them for each of its users; the driver's controls so far go to GSP-RM's internal
/// subdevice, as nouveau's probe sends them. Made only from objects GSP-RM allocated.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RmDevice {
    client: Object,
    device: Object,
    subdevice: Object,
}

impl RmDevice {
    /// The client, device and subdevice GSP-RM allocated, in that order.
    pub(crate) fn allocated(client: Object, device: Object, subdevice: Object) -> RmDevice {
        RmDevice {
            client,
            device,
            subdevice,
        }
    }
}

impl core::fmt::Display for RmDevice {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "client {:#010x}, device {:#010x}, subdevice {:#010x}",
            self.client.handle, self.device.handle, self.subdevice.handle
        )
    }
}

/// The objects GSP-RM holds (or may hold) for the driver, in allocation order.
pub(crate) struct Objects {
    held: KVec<Object>,
    /// The id of the next client.
    next_client: u32,
}

impl Objects {
    pub(crate) fn new() -> Objects {
        Objects {
            held: KVec::new(),
            next_client: 0,
        }
    }

    /// A new client's object (not yet held).
    pub(crate) fn new_client(&mut self) -> Result<Object> {
        if self.next_client >= CLIENT_IDS {
            return Err(ENOSPC);
        }
        let handle = CLIENT_BASE | self.next_client;
        self.next_client += 1;
        Ok(Object {
            client: handle,
            parent: handle,
            handle,
            class: Class::Root,
        })
    }

    /// Records `object` as held, before its allocation is sent: whatever its reply, it is
    /// freed at the end unless GSP-RM said it refused it.
    pub(crate) fn hold(&mut self, object: Object) -> Result {
        self.held.push(object, GFP_KERNEL)?;
        Ok(())
    }

    /// GSP-RM refused `object`, the last one held, or was never asked: it holds nothing to
    /// free.
    pub(crate) fn refused(&mut self, object: &Object) {
        if self.held.last() == Some(object) {
            self.held.pop();
        }
    }

    /// The last object held, which no other held object can be a child of: the next to free.
    pub(crate) fn take_last(&mut self) -> Option<Object> {
        self.held.pop()
    }

    /// How many objects are held.
    pub(crate) fn len(&self) -> usize {
        self.held.len()
    }
}

#[kunit_tests(nova_core_gsp_rm_objects)]
mod tests {
    use super::*;

    /// nouveau's handles: client `n` is `0xc1d00000 | n`, its device `0xde1d0000` under it, the
    /// subdevice `0x5d1d0000` under the device; the last held is the first freed.
    #[test]
    fn handles_are_nouveaus_and_the_last_held_is_freed_first() -> Result {
        let mut objects = Objects::new();
        let client = objects.new_client()?;
        assert_eq!(
            (client.client, client.parent, client.handle),
            (0xc1d0_0000, 0xc1d0_0000, 0xc1d0_0000)
        );
        assert_eq!(objects.new_client()?.handle, 0xc1d0_0001);
        let device = device_of(&client);
        assert_eq!(
            (device.client, device.parent, device.handle),
            (0xc1d0_0000, 0xc1d0_0000, 0xde1d_0000)
        );
        let subdevice = subdevice_of(&device);
        assert_eq!(
            (subdevice.client, subdevice.parent, subdevice.handle),
            (0xc1d0_0000, 0xde1d_0000, 0x5d1d_0000)
        );
        for o in [client, device, subdevice] {
            objects.hold(o)?;
        }
        // A refusal releases only the object refused, the last one.
        objects.refused(&device);
        assert_eq!(objects.len(), 3);
        objects.refused(&subdevice);
        assert_eq!(objects.take_last(), Some(device));
        assert_eq!(objects.take_last(), Some(client));
        assert_eq!(objects.take_last(), None);
        Ok(())
    }
}
