// SPDX-License-Identifier: GPL-2.0

//! The booter's layout, whose errors are the firmware files'.

use crate::firmware::FwError;

/// Where the booter goes.
pub(crate) struct Layout(pub(crate) Option<FwError>);
