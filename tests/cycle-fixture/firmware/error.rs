// SPDX-License-Identifier: GPL-2.0

//! Why a file was rejected.

/// The reason.
pub(crate) struct FwError;
