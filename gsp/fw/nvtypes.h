/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scalar types of the NVIDIA GSP firmware interface, shared by the
 * per-version headers (gsp/fw/<version>/nvrm.h) that bindgen turns into
 * the Rust bindings of nova_core.
 *
 * Only compiler built-in types are used, so that the headers depend on
 * neither libc nor kernel headers (they are parsed with -ffreestanding).
 * The widths are those the firmware expects; the names are the firmware's.
 */
#ifndef NOVA_GSP_FW_NVTYPES_H
#define NOVA_GSP_FW_NVTYPES_H

typedef __UINT8_TYPE__ NvU8;
typedef __UINT16_TYPE__ NvU16;
typedef __UINT32_TYPE__ NvU32;
typedef __UINT64_TYPE__ NvU64;

typedef __INT8_TYPE__ NvS8;
typedef __INT16_TYPE__ NvS16;
typedef __INT32_TYPE__ NvS32;
typedef __INT64_TYPE__ NvS64;

/* A one-byte boolean: 0 is false, anything else true. */
typedef NvU8 NvBool;

/* An RM object handle (client, device, subdevice, ...). */
typedef NvU32 NvHandle;

/* A byte count or byte offset. */
typedef NvU64 NvLength;

/* A physical address as the GPU's resource manager sees it. */
typedef NvU64 RmPhysAddr;

/* An RM status code (0 is success). */
typedef NvU32 NV_STATUS;

/*
 * Forces 8-byte alignment on a member. Used only where the firmware's own
 * declaration asks for it; on the 64-bit hosts nova_core supports it changes
 * the layout only where the member would otherwise be 4-byte aligned.
 */
#define NV_ALIGNED_8 __attribute__((__aligned__(8)))

#endif /* NOVA_GSP_FW_NVTYPES_H */
