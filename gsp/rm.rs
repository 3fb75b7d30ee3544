// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's resource manager, as the driver talks to it once GSP-RM is up: its calls on the
//! wire and the checks of their replies ([`calls`]), the controls ([`controls`]), the objects
//! the driver holds in it ([`objects`]), the FIFO's engines ([`fifo`]) and the memory system
//! ([`memsys`]), what the probe learns from it ([`info`]), and what its
//! calls answer ([`status`]).

pub(crate) mod calls;
pub(crate) mod controls;
pub(crate) mod fifo;
pub(crate) mod info;
pub(crate) mod memsys;
pub(crate) mod objects;
pub(crate) mod status;
