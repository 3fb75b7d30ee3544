// SPDX-License-Identifier: GPL-2.0

//! GSP-RM's status codes: what an RPC's `rpc_result` and an RM call's `status` say, named.
//!
//! An RPC's `rpc_result` is an `NV_STATUS` (`NV_VGPU_MSG_RESULT_*` are the `NV_ERR_*` codes,
//! OpenRM `src/nvidia/inc/kernel/vgpu/rpc_headers.h`), or one of the RPC layer's own codes
//! (`0xff000001` to `0xff00000a`, `0xff100001` to `0xff100008`, the same header). The names are
//! OpenRM's (`src/common/sdk/nvidia/inc/nvstatuscodes.h` at 570.144: 143 codes, of which
//! 535.113.01 has the first 133 it lists; the numbers never changed), so that a log line says
//! `NV_ERR_INVALID_ARGUMENT (0x1f)`, not a bare number.
//!
//! Part of the parsing core (see [`crate::untrusted`]): no kernel types, tested on the host.

use core::fmt;

/// A status GSP-RM gave: `NV_OK` (0), or what went wrong.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NvStatus(pub(crate) u32);

impl NvStatus {
    /// The code's name, where OpenRM names it.
    pub(crate) fn name(self) -> Option<&'static str> {
        NAMES
            .binary_search_by_key(&self.0, |&(code, _)| code)
            .ok()
            .map(|i| NAMES[i].1)
    }
}

impl fmt::Display for NvStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.name() {
            Some(name) => write!(f, "{name} ({:#x})", self.0),
            None => write!(f, "unknown status {:#x}", self.0),
        }
    }
}

/// Every code OpenRM names, by number (ascending: [`NvStatus::name`] searches it).
pub(crate) const NAMES: [(u32, &str); 161] = [
    (0x0, "NV_OK"),
    (0x1, "NV_ERR_BROKEN_FB"),
    (0x2, "NV_ERR_BUFFER_TOO_SMALL"),
    (0x3, "NV_ERR_BUSY_RETRY"),
    (0x4, "NV_ERR_CALLBACK_NOT_SCHEDULED"),
    (0x5, "NV_ERR_CARD_NOT_PRESENT"),
    (0x6, "NV_ERR_CYCLE_DETECTED"),
    (0x7, "NV_ERR_DMA_IN_USE"),
    (0x8, "NV_ERR_DMA_MEM_NOT_LOCKED"),
    (0x9, "NV_ERR_DMA_MEM_NOT_UNLOCKED"),
    (0xa, "NV_ERR_DUAL_LINK_INUSE"),
    (0xb, "NV_ERR_ECC_ERROR"),
    (0xc, "NV_ERR_FIFO_BAD_ACCESS"),
    (0xd, "NV_ERR_FREQ_NOT_SUPPORTED"),
    (0xe, "NV_ERR_GPU_DMA_NOT_INITIALIZED"),
    (0xf, "NV_ERR_GPU_IS_LOST"),
    (0x10, "NV_ERR_GPU_IN_FULLCHIP_RESET"),
    (0x11, "NV_ERR_GPU_NOT_FULL_POWER"),
    (0x12, "NV_ERR_GPU_UUID_NOT_FOUND"),
    (0x13, "NV_ERR_HOT_SWITCH"),
    (0x14, "NV_ERR_I2C_ERROR"),
    (0x15, "NV_ERR_I2C_SPEED_TOO_HIGH"),
    (0x16, "NV_ERR_ILLEGAL_ACTION"),
    (0x17, "NV_ERR_IN_USE"),
    (0x18, "NV_ERR_INFLATE_COMPRESSED_DATA_FAILED"),
    (0x19, "NV_ERR_INSERT_DUPLICATE_NAME"),
    (0x1a, "NV_ERR_INSUFFICIENT_RESOURCES"),
    (0x1b, "NV_ERR_INSUFFICIENT_PERMISSIONS"),
    (0x1c, "NV_ERR_INSUFFICIENT_POWER"),
    (0x1d, "NV_ERR_INVALID_ACCESS_TYPE"),
    (0x1e, "NV_ERR_INVALID_ADDRESS"),
    (0x1f, "NV_ERR_INVALID_ARGUMENT"),
    (0x20, "NV_ERR_INVALID_BASE"),
    (0x21, "NV_ERR_INVALID_CHANNEL"),
    (0x22, "NV_ERR_INVALID_CLASS"),
    (0x23, "NV_ERR_INVALID_CLIENT"),
    (0x24, "NV_ERR_INVALID_COMMAND"),
    (0x25, "NV_ERR_INVALID_DATA"),
    (0x26, "NV_ERR_INVALID_DEVICE"),
    (0x27, "NV_ERR_INVALID_DMA_SPECIFIER"),
    (0x28, "NV_ERR_INVALID_EVENT"),
    (0x29, "NV_ERR_INVALID_FLAGS"),
    (0x2a, "NV_ERR_INVALID_FUNCTION"),
    (0x2b, "NV_ERR_INVALID_HEAP"),
    (0x2c, "NV_ERR_INVALID_INDEX"),
    (0x2d, "NV_ERR_INVALID_IRQ_LEVEL"),
    (0x2e, "NV_ERR_INVALID_LIMIT"),
    (0x2f, "NV_ERR_INVALID_LOCK_STATE"),
    (0x30, "NV_ERR_INVALID_METHOD"),
    (0x31, "NV_ERR_INVALID_OBJECT"),
    (0x32, "NV_ERR_INVALID_OBJECT_BUFFER"),
    (0x33, "NV_ERR_INVALID_OBJECT_HANDLE"),
    (0x34, "NV_ERR_INVALID_OBJECT_NEW"),
    (0x35, "NV_ERR_INVALID_OBJECT_OLD"),
    (0x36, "NV_ERR_INVALID_OBJECT_PARENT"),
    (0x37, "NV_ERR_INVALID_OFFSET"),
    (0x38, "NV_ERR_INVALID_OPERATION"),
    (0x39, "NV_ERR_INVALID_OWNER"),
    (0x3a, "NV_ERR_INVALID_PARAM_STRUCT"),
    (0x3b, "NV_ERR_INVALID_PARAMETER"),
    (0x3c, "NV_ERR_INVALID_PATH"),
    (0x3d, "NV_ERR_INVALID_POINTER"),
    (0x3e, "NV_ERR_INVALID_REGISTRY_KEY"),
    (0x3f, "NV_ERR_INVALID_REQUEST"),
    (0x40, "NV_ERR_INVALID_STATE"),
    (0x41, "NV_ERR_INVALID_STRING_LENGTH"),
    (0x42, "NV_ERR_INVALID_READ"),
    (0x43, "NV_ERR_INVALID_WRITE"),
    (0x44, "NV_ERR_INVALID_XLATE"),
    (0x45, "NV_ERR_IRQ_NOT_FIRING"),
    (0x46, "NV_ERR_IRQ_EDGE_TRIGGERED"),
    (0x47, "NV_ERR_MEMORY_TRAINING_FAILED"),
    (0x48, "NV_ERR_MISMATCHED_SLAVE"),
    (0x49, "NV_ERR_MISMATCHED_TARGET"),
    (0x4a, "NV_ERR_MISSING_TABLE_ENTRY"),
    (0x4b, "NV_ERR_MODULE_LOAD_FAILED"),
    (0x4c, "NV_ERR_MORE_DATA_AVAILABLE"),
    (0x4d, "NV_ERR_MORE_PROCESSING_REQUIRED"),
    (0x4e, "NV_ERR_MULTIPLE_MEMORY_TYPES"),
    (0x4f, "NV_ERR_NO_FREE_FIFOS"),
    (0x50, "NV_ERR_NO_INTR_PENDING"),
    (0x51, "NV_ERR_NO_MEMORY"),
    (0x52, "NV_ERR_NO_SUCH_DOMAIN"),
    (0x53, "NV_ERR_NO_VALID_PATH"),
    (0x54, "NV_ERR_NOT_COMPATIBLE"),
    (0x55, "NV_ERR_NOT_READY"),
    (0x56, "NV_ERR_NOT_SUPPORTED"),
    (0x57, "NV_ERR_OBJECT_NOT_FOUND"),
    (0x58, "NV_ERR_OBJECT_TYPE_MISMATCH"),
    (0x59, "NV_ERR_OPERATING_SYSTEM"),
    (0x5a, "NV_ERR_OTHER_DEVICE_FOUND"),
    (0x5b, "NV_ERR_OUT_OF_RANGE"),
    (0x5c, "NV_ERR_OVERLAPPING_UVM_COMMIT"),
    (0x5d, "NV_ERR_PAGE_TABLE_NOT_AVAIL"),
    (0x5e, "NV_ERR_PID_NOT_FOUND"),
    (0x5f, "NV_ERR_PROTECTION_FAULT"),
    (0x60, "NV_ERR_RC_ERROR"),
    (0x61, "NV_ERR_REJECTED_VBIOS"),
    (0x62, "NV_ERR_RESET_REQUIRED"),
    (0x63, "NV_ERR_STATE_IN_USE"),
    (0x64, "NV_ERR_SIGNAL_PENDING"),
    (0x65, "NV_ERR_TIMEOUT"),
    (0x66, "NV_ERR_TIMEOUT_RETRY"),
    (0x67, "NV_ERR_TOO_MANY_PRIMARIES"),
    (0x68, "NV_ERR_UVM_ADDRESS_IN_USE"),
    (0x69, "NV_ERR_MAX_SESSION_LIMIT_REACHED"),
    (0x6a, "NV_ERR_LIB_RM_VERSION_MISMATCH"),
    (0x6b, "NV_ERR_PRIV_SEC_VIOLATION"),
    (0x6c, "NV_ERR_GPU_IN_DEBUG_MODE"),
    (0x6d, "NV_ERR_FEATURE_NOT_ENABLED"),
    (0x6e, "NV_ERR_RESOURCE_LOST"),
    (0x6f, "NV_ERR_PMU_NOT_READY"),
    (0x70, "NV_ERR_FLCN_ERROR"),
    (0x71, "NV_ERR_FATAL_ERROR"),
    (0x72, "NV_ERR_MEMORY_ERROR"),
    (0x73, "NV_ERR_INVALID_LICENSE"),
    (0x74, "NV_ERR_NVLINK_INIT_ERROR"),
    (0x75, "NV_ERR_NVLINK_MINION_ERROR"),
    (0x76, "NV_ERR_NVLINK_CLOCK_ERROR"),
    (0x77, "NV_ERR_NVLINK_TRAINING_ERROR"),
    (0x78, "NV_ERR_NVLINK_CONFIGURATION_ERROR"),
    (0x79, "NV_ERR_RISCV_ERROR"),
    (0x7a, "NV_ERR_FABRIC_MANAGER_NOT_PRESENT"),
    (0x7b, "NV_ERR_ALREADY_SIGNALLED"),
    (0x7c, "NV_ERR_QUEUE_TASK_SLOT_NOT_AVAILABLE"),
    (0x7d, "NV_ERR_KEY_ROTATION_IN_PROGRESS"),
    (0x7e, "NV_ERR_TEST_ONLY_CODE_NOT_ENABLED"),
    (0x7f, "NV_ERR_SECURE_BOOT_FAILED"),
    (0x80, "NV_ERR_INSUFFICIENT_ZBC_ENTRY"),
    (0x81, "NV_ERR_NVLINK_FABRIC_NOT_READY"),
    (0x82, "NV_ERR_NVLINK_FABRIC_FAILURE"),
    (0x83, "NV_ERR_GPU_MEMORY_ONLINING_FAILURE"),
    (0x84, "NV_ERR_REDUCTION_MANAGER_NOT_AVAILABLE"),
    (0x86, "NV_ERR_RESOURCE_RETIREMENT_ERROR"),
    (0xffff, "NV_ERR_GENERIC"),
    (0x10001, "NV_WARN_HOT_SWITCH"),
    (0x10002, "NV_WARN_INCORRECT_PERFMON_DATA"),
    (0x10003, "NV_WARN_MISMATCHED_SLAVE"),
    (0x10004, "NV_WARN_MISMATCHED_TARGET"),
    (0x10005, "NV_WARN_MORE_PROCESSING_REQUIRED"),
    (0x10006, "NV_WARN_NOTHING_TO_DO"),
    (0x10007, "NV_WARN_NULL_OBJECT"),
    (0x10008, "NV_WARN_OUT_OF_RANGE"),
    (0xff000001, "NV_VGPU_MSG_RESULT_VMIOP_INVAL"),
    (0xff000002, "NV_VGPU_MSG_RESULT_VMIOP_RESOURCE"),
    (0xff000003, "NV_VGPU_MSG_RESULT_VMIOP_RANGE"),
    (0xff000004, "NV_VGPU_MSG_RESULT_VMIOP_READ_ONLY"),
    (0xff000005, "NV_VGPU_MSG_RESULT_VMIOP_NOT_FOUND"),
    (0xff000006, "NV_VGPU_MSG_RESULT_VMIOP_NO_ADDRESS_SPACE"),
    (0xff000007, "NV_VGPU_MSG_RESULT_VMIOP_TIMEOUT"),
    (
        0xff000008,
        "NV_VGPU_MSG_RESULT_VMIOP_NOT_ALLOWED_IN_CALLBACK",
    ),
    (0xff000009, "NV_VGPU_MSG_RESULT_VMIOP_ECC_MISMATCH"),
    (0xff00000a, "NV_VGPU_MSG_RESULT_VMIOP_NOT_SUPPORTED"),
    (0xff100001, "NV_VGPU_MSG_RESULT_RPC_UNKNOWN_FUNCTION"),
    (0xff100002, "NV_VGPU_MSG_RESULT_RPC_INVALID_MESSAGE_FORMAT"),
    (0xff100003, "NV_VGPU_MSG_RESULT_RPC_HANDLE_NOT_FOUND"),
    (0xff100004, "NV_VGPU_MSG_RESULT_RPC_HANDLE_EXISTS"),
    (0xff100005, "NV_VGPU_MSG_RESULT_RPC_UNKNOWN_RM_ERROR"),
    (0xff100006, "NV_VGPU_MSG_RESULT_RPC_UNKNOWN_VMIOP_ERROR"),
    (0xff100007, "NV_VGPU_MSG_RESULT_RPC_RESERVED_HANDLE"),
    (0xff100008, "NV_VGPU_MSG_RESULT_RPC_CUDA_PROFILING_DISABLED"),
];

#[cfg(CONFIG_KUNIT)]
#[kernel::prelude::kunit_tests(nova_core_gsp_rm_status)]
mod tests {
    use super::*;

    #[test]
    fn the_names_are_sorted_and_unique() {
        assert!(NAMES.windows(2).all(|w| w[0].0 < w[1].0));
        assert_eq!(NvStatus(0).name(), Some("NV_OK"));
    }

    #[test]
    fn a_status_is_named_where_openrm_names_it() {
        assert_eq!(NvStatus(0x1f).name(), Some("NV_ERR_INVALID_ARGUMENT"));
        assert_eq!(NvStatus(0x56).name(), Some("NV_ERR_NOT_SUPPORTED"));
        assert_eq!(NvStatus(0xffff).name(), Some("NV_ERR_GENERIC"));
        assert_eq!(
            NvStatus(0xff10_0001).name(),
            Some("NV_VGPU_MSG_RESULT_RPC_UNKNOWN_FUNCTION")
        );
        assert_eq!(NvStatus(0x7fff).name(), None);
        assert_eq!(NvStatus(0xdead_beef).name(), None);
    }
}
