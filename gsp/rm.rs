// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's resource manager, as the driver talks to it once GSP-RM is up: what its calls
//! answer ([`status`]).

pub(crate) mod status;
