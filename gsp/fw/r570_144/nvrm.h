/* SPDX-License-Identifier: GPL-2.0 */
/*
 * GSP firmware interface of NVIDIA's GSP-RM release 570.144, as nova_core
 * sees it: the source from which bindgen generates the Rust structures of
 * this version. It holds only what nova_core uses: RPC function and event
 * numbers, the shared-memory message queue, the boot arguments, the
 * registry, the system-information message, the static information reply,
 * and the WPR/suspend-resume metadata.
 *
 * Names, member order, types and sizes are those of the firmware; the
 * static assertions at the end pin every top-level layout. The same C
 * type names are used in every version's header, so that generic Rust
 * code can name them alike in each version's namespace. Comments marked
 * "535:" say how 535.113.01 differs.
 */
#ifndef NOVA_GSP_FW_R570_144_NVRM_H
#define NOVA_GSP_FW_R570_144_NVRM_H

#include "../nvtypes.h"

/* ---------------------------------------------------------------------
 * RPC function numbers (rpc_message_header_v.function of a command).
 *
 * All numbers below are the same in 535.113.01, except NUM_FUNCTIONS
 * (535: 203; 570.144 adds functions 203 to 226).
 */
#define NV_VGPU_MSG_FUNCTION_NOP				0
#define NV_VGPU_MSG_FUNCTION_SET_GUEST_SYSTEM_INFO		1
#define NV_VGPU_MSG_FUNCTION_ALLOC_ROOT				2
#define NV_VGPU_MSG_FUNCTION_ALLOC_DEVICE			3
#define NV_VGPU_MSG_FUNCTION_ALLOC_MEMORY			4
#define NV_VGPU_MSG_FUNCTION_ALLOC_CTX_DMA			5
#define NV_VGPU_MSG_FUNCTION_ALLOC_CHANNEL_DMA			6
#define NV_VGPU_MSG_FUNCTION_MAP_MEMORY				7
#define NV_VGPU_MSG_FUNCTION_BIND_CTX_DMA			8
#define NV_VGPU_MSG_FUNCTION_ALLOC_OBJECT			9
#define NV_VGPU_MSG_FUNCTION_FREE				10
#define NV_VGPU_MSG_FUNCTION_LOG				11
#define NV_VGPU_MSG_FUNCTION_UNLOADING_GUEST_DRIVER		47
#define NV_VGPU_MSG_FUNCTION_GET_STATIC_INFO			51
#define NV_VGPU_MSG_FUNCTION_GET_GSP_STATIC_INFO		65
#define NV_VGPU_MSG_FUNCTION_CONTINUATION_RECORD		71
#define NV_VGPU_MSG_FUNCTION_GSP_SET_SYSTEM_INFO		72
#define NV_VGPU_MSG_FUNCTION_SET_REGISTRY			73
#define NV_VGPU_MSG_FUNCTION_GSP_INIT_POST_OBJGPU		74
#define NV_VGPU_MSG_FUNCTION_GSP_RM_CONTROL			76
#define NV_VGPU_MSG_FUNCTION_GSP_RM_ALLOC			103
/* Last function of 570.144 is CTRL_EXEC_PARTITIONS_EXPORT (226). */
#define NV_VGPU_MSG_FUNCTION_NUM_FUNCTIONS			227

/* ---------------------------------------------------------------------
 * Event numbers (rpc_message_header_v.function of a message the GSP sends
 * on its own). Events start at FIRST_EVENT.
 *
 * Differences with 535.113.01: up to 0x101a the numbers agree. 535 has
 * GSP_SEND_USER_SHARED_DATA at 0x101b, which 570.144 no longer has, so
 * NVLINK_FAULT_UP, GSP_LOCKDOWN_NOTICE and MIG_CI_CONFIG_UPDATE are one
 * lower here (GSP_LOCKDOWN_NOTICE: 0x101c here, 0x101d in 535).
 * GSP_POST_NOCAT_RECORD does not exist in 535. NUM_EVENTS: 535 0x101f.
 */
#define NV_VGPU_MSG_EVENT_FIRST_EVENT				0x1000
#define NV_VGPU_MSG_EVENT_GSP_INIT_DONE				0x1001
#define NV_VGPU_MSG_EVENT_GSP_RUN_CPU_SEQUENCER			0x1002
#define NV_VGPU_MSG_EVENT_POST_EVENT				0x1003
#define NV_VGPU_MSG_EVENT_RC_TRIGGERED				0x1004
#define NV_VGPU_MSG_EVENT_MMU_FAULT_QUEUED			0x1005
#define NV_VGPU_MSG_EVENT_OS_ERROR_LOG				0x1006
#define NV_VGPU_MSG_EVENT_UCODE_LIBOS_PRINT			0x100c
#define NV_VGPU_MSG_EVENT_NVLINK_FAULT_UP			0x101b
#define NV_VGPU_MSG_EVENT_GSP_LOCKDOWN_NOTICE			0x101c
#define NV_VGPU_MSG_EVENT_MIG_CI_CONFIG_UPDATE			0x101d
#define NV_VGPU_MSG_EVENT_GSP_POST_NOCAT_RECORD			0x1020
#define NV_VGPU_MSG_EVENT_NUM_EVENTS				0x1023

/* ---------------------------------------------------------------------
 * Message queues. Each direction (CPU to GSP, GSP to CPU) is a ring of
 * fixed-size elements in shared memory. The ring's producer owns a
 * msgqTxHeader, its consumer a msgqRxHeader. Same as 535.
 */
typedef struct {
	NvU32 version;	/* queue format version, 0 */
	NvU32 size;	/* size of the whole queue in bytes */
	NvU32 msgSize;	/* size of one element in bytes (a power of two) */
	NvU32 msgCount;	/* number of elements in the ring */
	NvU32 writePtr;	/* index of the next element the producer fills */
	NvU32 flags;	/* nonzero: the consumer should swap its RX side */
	NvU32 rxHdrOff;	/* offset of the msgqRxHeader from the queue start */
	NvU32 entryOff;	/* offset of element 0 from the queue start */
} msgqTxHeader;

typedef struct {
	NvU32 readPtr;	/* index of the next element the consumer reads */
} msgqRxHeader;

/*
 * One element is one 4 KiB page; a message larger than one page continues
 * in the following elements (GSP_MSG_QUEUE_ELEMENT.elemCount of them in
 * total), up to SIZE_MAX bytes. No constant for the resulting maximum
 * element count (SIZE_MAX / SIZE_MIN, 16) is defined by the firmware.
 */
#define GSP_MSG_QUEUE_ELEMENT_SIZE_MIN		0x1000
#define GSP_MSG_QUEUE_ELEMENT_SIZE_MAX		0x10000

/* header_version of every RPC: major 3, minor 0, in the top two bytes. */
#define NV_VGPU_MSG_HEADER_VERSION_MAJOR_TOT	0x03
#define NV_VGPU_MSG_HEADER_VERSION_MINOR_TOT	0x00
#define NV_VGPU_MSG_HEADER_VERSION		0x03000000
/* signature of every RPC: the characters 'C' 'P' 'R' 'V', high to low. */
#define NV_VGPU_MSG_SIGNATURE_VALID		0x43505256

/* The word after the sequence number: spare, or a vGPU function id. */
typedef union rpc_message_rpc_union_field_v03_00 {
	NvU32 spare;
	NvU32 cpuRmGfid;
} rpc_message_rpc_union_field_v03_00;

typedef rpc_message_rpc_union_field_v03_00 rpc_message_rpc_union_field_v;

/*
 * Header of every RPC, command or reply or event. The function-specific
 * payload follows it directly, as the flexible array rpc_message_data;
 * length counts this header plus the payload.
 */
typedef struct rpc_message_header_v03_00 {
	NvU32 header_version;	/* NV_VGPU_MSG_HEADER_VERSION */
	NvU32 signature;	/* NV_VGPU_MSG_SIGNATURE_VALID */
	NvU32 length;
	NvU32 function;		/* NV_VGPU_MSG_FUNCTION_* or _EVENT_* */
	NvU32 rpc_result;	/* status, set by the GSP in replies */
	NvU32 rpc_result_private;
	NvU32 sequence;
	rpc_message_rpc_union_field_v u;
	NvU8 rpc_message_data[];
} rpc_message_header_v03_00;

typedef rpc_message_header_v03_00 rpc_message_header_v;

/*
 * Header of a queue element. The RPC header is its last member, and the
 * RPC payload (rpc.rpc_message_data, a flexible array) follows without a
 * gap; sizeof() is the header size only.
 */
typedef struct GSP_MSG_QUEUE_ELEMENT {
	NvU8 authTagBuffer[16];	/* used only with confidential computing */
	NvU8 aadBuffer[16];	/* likewise */
	NvU32 checkSum;		/* makes the XOR checksum of the message 0 */
	NvU32 seqNum;		/* per-queue sequence number */
	NvU32 elemCount;	/* number of elements the message occupies */
	rpc_message_header_v rpc NV_ALIGNED_8;
} GSP_MSG_QUEUE_ELEMENT;

/* ---------------------------------------------------------------------
 * Boot arguments the GSP reads from the page LibOS names "RMARGS".
 */
typedef struct {
	NvU64 sharedMemPhysAddr;	/* page table of the shared memory */
	NvU32 pageTableEntryCount;
	NvLength cmdQueueOffset;	/* CPU-to-GSP queue, from the start */
	NvLength statQueueOffset;	/* GSP-to-CPU queue, from the start */
	/* 535: two more offsets (lockless queues) follow. */
} MESSAGE_QUEUE_INIT_ARGUMENTS;

/* Suspend/resume state at boot; all zero on a cold boot. */
typedef struct {
	NvU32 oldLevel;
	NvU32 flags;
	NvBool bInPMTransition;
} GSP_SR_INIT_ARGUMENTS;

typedef struct {
	MESSAGE_QUEUE_INIT_ARGUMENTS messageQueueInitArguments;
	GSP_SR_INIT_ARGUMENTS srInitArguments;
	NvU32 gpuInstance;
	NvBool bDmemStack;		/* 535: absent */
	struct {
		NvU64 pa;
		NvU64 size;
	} profilerArgs;
} GSP_ARGUMENTS_CACHED;

/* ---------------------------------------------------------------------
 * LibOS memory regions: the table of named buffers (logs, RM arguments)
 * handed to the GSP at boot. Same as 535.
 */
typedef NvU64 LibosAddress;

typedef enum {
	LIBOS_MEMORY_REGION_NONE,
	LIBOS_MEMORY_REGION_CONTIGUOUS,
	LIBOS_MEMORY_REGION_RADIX3,
} LibosMemoryRegionKind;

typedef enum {
	LIBOS_MEMORY_REGION_LOC_NONE,
	LIBOS_MEMORY_REGION_LOC_SYSMEM,
	LIBOS_MEMORY_REGION_LOC_FB,
} LibosMemoryRegionLoc;

typedef struct {
	LibosAddress id8;	/* name, up to 8 characters packed in a u64 */
	LibosAddress pa;	/* physical address */
	LibosAddress size;	/* size in bytes */
	NvU8 kind;		/* LibosMemoryRegionKind */
	NvU8 loc;		/* LibosMemoryRegionLoc */
} LibosMemoryRegionInitArgument;

/* ---------------------------------------------------------------------
 * SET_REGISTRY payload: a table of entries followed by the key names and
 * the non-DWORD values, which the entries address by offset from the
 * start of the table. Same as 535.
 */
#define REGISTRY_TABLE_ENTRY_TYPE_DWORD		1	/* data is the value */
#define REGISTRY_TABLE_ENTRY_TYPE_BINARY	2	/* data is an offset */
#define REGISTRY_TABLE_ENTRY_TYPE_STRING	3	/* data is an offset */

typedef struct PACKED_REGISTRY_ENTRY {
	NvU32 nameOffset;	/* offset of the NUL-terminated key name */
	NvU8 type;		/* REGISTRY_TABLE_ENTRY_TYPE_* */
	NvU32 data;
	NvU32 length;		/* size of the value in bytes */
} PACKED_REGISTRY_ENTRY;

typedef struct PACKED_REGISTRY_TABLE {
	NvU32 size;		/* whole payload, strings included */
	NvU32 numEntries;
	PACKED_REGISTRY_ENTRY entries[];
} PACKED_REGISTRY_TABLE;

/* ---------------------------------------------------------------------
 * GSP_SET_SYSTEM_INFO payload: GspSystemInfo and what it contains.
 */

/* PCI identity of a bridge or chipset. */
typedef struct {
	NvU16 deviceID;
	NvU16 vendorID;
	NvU16 subdeviceID;
	NvU16 subvendorID;
	NvU8 revisionID;
} BUSINFO;

#define NV0073_CTRL_SYSTEM_ACPI_ID_MAP_MAX_DISPLAYS	16

/* Results of ACPI methods the CPU driver evaluates for the GSP. */
typedef struct DOD_METHOD_DATA {
	NV_STATUS status;
	NvU32 acpiIdListLen;
	NvU32 acpiIdList[NV0073_CTRL_SYSTEM_ACPI_ID_MAP_MAX_DISPLAYS];
} DOD_METHOD_DATA;

typedef struct JT_METHOD_DATA {
	NV_STATUS status;
	NvU32 jtCaps;
	NvU16 jtRevId;
	NvBool bSBIOSCaps;
} JT_METHOD_DATA;

typedef struct MUX_METHOD_DATA_ELEMENT {
	NvU32 acpiId;
	NvU32 mode;
	NV_STATUS status;
} MUX_METHOD_DATA_ELEMENT;

typedef struct MUX_METHOD_DATA {
	NvU32 tableLen;
	MUX_METHOD_DATA_ELEMENT acpiIdMuxModeTable[NV0073_CTRL_SYSTEM_ACPI_ID_MAP_MAX_DISPLAYS];
	MUX_METHOD_DATA_ELEMENT acpiIdMuxPartTable[NV0073_CTRL_SYSTEM_ACPI_ID_MAP_MAX_DISPLAYS];
	/* 535: absent. */
	MUX_METHOD_DATA_ELEMENT acpiIdMuxStateTable[NV0073_CTRL_SYSTEM_ACPI_ID_MAP_MAX_DISPLAYS];
} MUX_METHOD_DATA;

typedef struct CAPS_METHOD_DATA {
	NV_STATUS status;
	NvU32 optimusCaps;
} CAPS_METHOD_DATA;

typedef struct ACPI_METHOD_DATA {
	NvBool bValid;		/* the rest is meaningful only if set */
	DOD_METHOD_DATA dodMethodData;
	JT_METHOD_DATA jtMethodData;
	MUX_METHOD_DATA muxMethodData;
	CAPS_METHOD_DATA capsMethodData;
} ACPI_METHOD_DATA;

/* SR-IOV virtual functions, for vGPU hosts; zero otherwise. */
typedef struct GSP_VF_INFO {
	NvU32 totalVFs;
	NvU32 firstVFOffset;
	NvU64 FirstVFBar0Address;
	NvU64 FirstVFBar1Address;
	NvU64 FirstVFBar2Address;
	NvBool b64bitBar0;
	NvBool b64bitBar1;
	NvBool b64bitBar2;
} GSP_VF_INFO;

/* PCIe configuration registers of the GPU (535: absent). */
typedef struct {
	NvU32 linkCap;		/* the Link Capabilities register */
} GSP_PCIE_CONFIG_REG;

/*
 * Facts about the host the GSP cannot find itself. Members absent in 535
 * are marked; 535 ends after gspVFInfo.
 */
typedef struct GspSystemInfo {
	NvU64 gpuPhysAddr;		/* BAR0 */
	NvU64 gpuPhysFbAddr;		/* BAR1 */
	NvU64 gpuPhysInstAddr;		/* BAR2/3 */
	NvU64 gpuPhysIoAddr;		/* 535: absent */
	NvU64 nvDomainBusDeviceFunc;	/* PCI domain:bus:device.function */
	NvU64 simAccessBufPhysAddr;
	NvU64 notifyOpSharedSurfacePhysAddr;	/* 535: absent */
	NvU64 pcieAtomicsOpMask;
	NvU64 consoleMemSize;
	NvU64 maxUserVa;
	NvU32 pciConfigMirrorBase;
	NvU32 pciConfigMirrorSize;
	NvU32 PCIDeviceID;		/* 535: absent; device << 16 | vendor */
	NvU32 PCISubDeviceID;		/* 535: absent; likewise, subsystem */
	NvU32 PCIRevisionID;		/* 535: absent */
	NvU32 pcieAtomicsCplDeviceCapMask;	/* 535: absent */
	NvU8 oorArch;
	NvU64 clPdbProperties;
	NvU32 Chipset;
	NvBool bGpuBehindBridge;
	NvBool bFlrSupported;		/* 535: absent */
	NvBool b64bBar0Supported;	/* 535: absent */
	NvBool bMnocAvailable;
	NvU32 chipsetL1ssEnable;	/* 535: absent */
	NvBool bUpstreamL0sUnsupported;
	NvBool bUpstreamL1Unsupported;
	NvBool bUpstreamL1PorSupported;
	NvBool bUpstreamL1PorMobileOnly;
	NvBool bSystemHasMux;		/* 535: absent */
	NvU8 upstreamAddressValid;
	BUSINFO FHBBusInfo;		/* first host bridge */
	BUSINFO chipsetIDInfo;
	ACPI_METHOD_DATA acpiMethodData;
	NvU32 hypervisorType;
	NvBool bIsPassthru;
	NvU64 sysTimerOffsetNs;
	GSP_VF_INFO gspVFInfo;
	/* 535: nothing below. */
	NvBool bIsPrimary;		/* the firmware's console device */
	NvBool isGridBuild;
	GSP_PCIE_CONFIG_REG pcieConfigReg;
	NvU32 gridBuildCsp;
	NvBool bPreserveVideoMemoryAllocations;
	NvBool bTdrEventSupported;
	NvBool bFeatureStretchVblankCapable;
	NvBool bEnableDynamicGranularityPageArrays;
	NvBool bClockBoostSupported;
	NvBool bRouteDispIntrsToCPU;
	NvU64 hostPageSize;
} GspSystemInfo;

/* ---------------------------------------------------------------------
 * GET_GSP_STATIC_INFO reply: GspStaticConfigInfo and what it contains.
 */

#define NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_MAX_ENTRIES	16
#define NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_MEM_TYPES		17

/* Per memory type: may the region hold it (nonzero) or not. */
typedef NvBool NV2080_CTRL_CMD_FB_GET_FB_REGION_SURFACE_MEM_TYPE_FLAG[NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_MEM_TYPES];

/* One region of framebuffer memory, bounds inclusive. */
typedef struct NV2080_CTRL_CMD_FB_GET_FB_REGION_FB_REGION_INFO {
	NvU64 base NV_ALIGNED_8;
	NvU64 limit NV_ALIGNED_8;
	NvU64 reserved NV_ALIGNED_8;
	NvU32 performance;
	NvBool supportCompressed;
	NvBool supportISO;
	NvBool bProtected;
	NV2080_CTRL_CMD_FB_GET_FB_REGION_SURFACE_MEM_TYPE_FLAG blackList;
} NV2080_CTRL_CMD_FB_GET_FB_REGION_FB_REGION_INFO;

typedef struct NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_PARAMS {
	NvU32 numFBRegions;
	NV2080_CTRL_CMD_FB_GET_FB_REGION_FB_REGION_INFO fbRegion[NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_MAX_ENTRIES] NV_ALIGNED_8;
} NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_PARAMS;

#define NV0080_CTRL_GR_CAPS_TBL_SIZE		23
#define NV2080_GPU_MAX_GID_LENGTH		0x100

/* The GPU's unique identifier (UUID), in the form flags asks for. */
typedef struct NV2080_CTRL_GPU_GET_GID_INFO_PARAMS {
	NvU32 index;
	NvU32 flags;
	NvU32 length;		/* valid bytes of data */
	NvU8 data[NV2080_GPU_MAX_GID_LENGTH];
} NV2080_CTRL_GPU_GET_GID_INFO_PARAMS;

/*
 * Board and SKU strings from the VBIOS (not NUL-terminated if full).
 * 535: chipSKU[4], chipSKUMod[2] and no skuConfigVersion.
 */
typedef struct NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS {
	NvU32 BoardID;
	char chipSKU[9];
	char chipSKUMod[5];
	NvU32 skuConfigVersion;
	char project[5];
	char projectSKU[5];
	char CDP[6];
	char projectSKUMod[2];
	NvU32 businessCycle;
} NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS;

#define MAX_GPC_COUNT				32

typedef struct NV0080_CTRL_GPU_GET_SRIOV_CAPS_PARAMS {
	NvU32 totalVFs;
	NvU32 firstVfOffset;
	NvU32 vfFeatureMask;
	NvU64 FirstVFBar0Address NV_ALIGNED_8;
	NvU64 FirstVFBar1Address NV_ALIGNED_8;
	NvU64 FirstVFBar2Address NV_ALIGNED_8;
	NvU64 bar0Size NV_ALIGNED_8;
	NvU64 bar1Size NV_ALIGNED_8;
	NvU64 bar2Size NV_ALIGNED_8;
	NvBool b64bitBar0;
	NvBool b64bitBar1;
	NvBool b64bitBar2;
	NvBool bSriovEnabled;
	NvBool bSriovHeavyEnabled;
	NvBool bEmulateVFBar0TlbInvalidationRegister;
	NvBool bClientRmAllocatedCtxBuffer;
	NvBool bNonPowerOf2ChannelCountSupported;	/* 535: absent */
	NvBool bVfResizableBAR1Supported;		/* 535: absent */
} NV0080_CTRL_GPU_GET_SRIOV_CAPS_PARAMS;

/*
 * One bit per RM engine type. RM_ENGINE_TYPE_LAST is 0x54 in 570.144,
 * so (0x54 - 1) / 32 + 1 = 3 words (535: 0x3e, 2 words).
 */
#define NVGPU_ENGINE_CAPS_MASK_BITS		32
#define NVGPU_ENGINE_CAPS_MASK_ARRAY_MAX	3

#define NV2080_GPU_MAX_NAME_STRING_LENGTH	0x40

/* Limits of a display-less GPU's virtual display. */
typedef struct VIRTUAL_DISPLAY_GET_NUM_HEADS_PARAMS {
	NvU32 numHeads;
	NvU32 maxNumHeads;
} VIRTUAL_DISPLAY_GET_NUM_HEADS_PARAMS;

typedef struct VIRTUAL_DISPLAY_GET_MAX_RESOLUTION_PARAMS {
	NvU32 headIndex;
	NvU32 maxHResolution;
	NvU32 maxVResolution;
} VIRTUAL_DISPLAY_GET_MAX_RESOLUTION_PARAMS;

#define MAX_GROUP_COUNT				2

/* Manufacturing ECID (chip serial) words of one group (535: absent). */
typedef struct {
	NvU32 ecidLow;
	NvU32 ecidHigh;
	NvU32 ecidExtended;
} EcidManufacturingInfo;

/* WPR layout chosen by ACR on chips where it, not the driver, decides. */
typedef struct {
	NvU64 nonWprHeapOffset;
	NvU64 frtsOffset;
} FW_WPR_LAYOUT_OFFSET;

/*
 * What GSP-RM found out about the GPU during its own initialisation:
 * identity and name strings, framebuffer size and regions, and the
 * handles of the RM objects it allocated for the CPU driver's use.
 *
 * 535 also has, after gidInfo, gpcInfo/tpcInfo/zcullInfo (floorsweeping
 * masks), after fbRegionInfoParams computeBranding, after engineCaps
 * SM_info, and after l2_cache_size gfxpBufferSize/Alignment; it has
 * 32-bit fbio_mask and fbp_mask and lacks the members marked here.
 */
typedef struct GspStaticConfigInfo_t {
	NvU8 grCapsBits[NV0080_CTRL_GR_CAPS_TBL_SIZE];
	NV2080_CTRL_GPU_GET_GID_INFO_PARAMS gidInfo;
	NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS SKUInfo;
	NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_PARAMS fbRegionInfoParams;

	NV0080_CTRL_GPU_GET_SRIOV_CAPS_PARAMS sriovCaps;
	NvU32 sriovMaxGfid;

	NvU32 engineCaps[NVGPU_ENGINE_CAPS_MASK_ARRAY_MAX];

	NvBool poisonFuseEnabled;

	/* Framebuffer: size in bytes, unit masks, bus width and RAM type. */
	NvU64 fb_length;
	NvU64 fbio_mask;		/* 535: NvU32 */
	NvU32 fb_bus_width;
	NvU32 fb_ram_type;
	NvU64 fbp_mask;			/* 535: NvU32 */
	NvU32 l2_cache_size;

	/* Marketing names, NUL-terminated. */
	NvU8 gpuNameString[NV2080_GPU_MAX_NAME_STRING_LENGTH];
	NvU8 gpuShortNameString[NV2080_GPU_MAX_NAME_STRING_LENGTH];
	NvU16 gpuNameString_Unicode[NV2080_GPU_MAX_NAME_STRING_LENGTH];
	NvBool bGpuInternalSku;
	NvBool bIsQuadroGeneric;
	NvBool bIsQuadroAd;
	NvBool bIsNvidiaNvs;
	NvBool bIsVgx;
	NvBool bGeforceSmb;
	NvBool bIsTitan;
	NvBool bIsTesla;
	NvBool bIsMobile;
	NvBool bIsGc6Rtd3Allowed;
	NvBool bIsGc8Rtd3Allowed;	/* 535: absent */
	NvBool bIsGcOffRtd3Allowed;
	NvBool bIsGcoffLegacyAllowed;
	NvBool bIsMigSupported;		/* 535: absent */

	/* GC6 (RTD3) board power and PERST# delay (535: absent). */
	NvU16 RTD3GC6TotalBoardPower;
	NvU16 RTD3GC6PerstDelay;

	/* Page directories GSP-RM set up for BAR1 and BAR2. */
	NvU64 bar1PdeBase;
	NvU64 bar2PdeBase;

	NvBool bVbiosValid;
	NvU32 vbiosSubVendor;
	NvU32 vbiosSubDevice;

	NvBool bPageRetirementSupported;

	NvBool bSplitVasBetweenServerClientRm;

	NvBool bClRootportNeedsNosnoopWAR;

	VIRTUAL_DISPLAY_GET_NUM_HEADS_PARAMS displaylessMaxHeads;
	VIRTUAL_DISPLAY_GET_MAX_RESOLUTION_PARAMS displaylessMaxResolution;
	NvU64 displaylessMaxPixels;

	/* RM objects GSP-RM allocated for the CPU driver's internal use. */
	NvHandle hInternalClient;
	NvHandle hInternalDevice;
	NvHandle hInternalSubdevice;

	NvBool bSelfHostedMode;
	NvBool bAtsSupported;

	NvBool bIsGpuUefi;
	NvBool bIsEfiInit;		/* 535: absent, and nothing below */

	EcidManufacturingInfo ecidInfo[MAX_GROUP_COUNT];

	FW_WPR_LAYOUT_OFFSET fwWprLayoutOffset;
} GspStaticConfigInfo;

/* ---------------------------------------------------------------------
 * Boot metadata placed in the framebuffer for Booter and the GSP
 * bootloader: where the firmware images are in system memory and how the
 * WPR2 region of the framebuffer is laid out. 256 bytes.
 */
#define GSP_FW_WPR_META_MAGIC		0xdc3aae21371a60b3ULL
#define GSP_FW_WPR_META_REVISION	1
/* Value of verified once Booter has accepted the images. */
#define GSP_FW_WPR_META_VERIFIED	0xa0a0a0a0a0a0a0a0ULL

typedef struct {
	NvU64 magic;			/* GSP_FW_WPR_META_MAGIC */
	NvU64 revision;			/* GSP_FW_WPR_META_REVISION */

	/* Images in system memory, read by Booter. */
	NvU64 sysmemAddrOfRadix3Elf;
	NvU64 sizeOfRadix3Elf;
	NvU64 sysmemAddrOfBootloader;
	NvU64 sizeOfBootloader;
	NvU64 bootloaderCodeOffset;	/* within the bootloader image */
	NvU64 bootloaderDataOffset;
	NvU64 bootloaderManifestOffset;

	union {
		/* Cold boot: the firmware's signature. */
		struct {
			NvU64 sysmemAddrOfSignature;
			NvU64 sizeOfSignature;
		};
		/* Resume: the heap free list, from gspFwWprStart. */
		struct {
			NvU32 gspFwHeapFreeListWprOffset;
			NvU32 unused0;
			NvU64 unused1;
		};
	};

	/* Framebuffer layout, as offsets from the start of the FB. */
	NvU64 gspFwRsvdStart;
	NvU64 nonWprHeapOffset;
	NvU64 nonWprHeapSize;
	NvU64 gspFwWprStart;
	NvU64 gspFwHeapOffset;
	NvU64 gspFwHeapSize;
	NvU64 gspFwOffset;		/* ELF image, sizeOfRadix3Elf bytes */
	NvU64 bootBinOffset;		/* bootloader, sizeOfBootloader bytes */
	NvU64 frtsOffset;
	NvU64 frtsSize;
	NvU64 gspFwWprEnd;
	NvU64 fbSize;

	NvU64 vgaWorkspaceOffset;
	NvU64 vgaWorkspaceSize;

	NvU64 bootCount;

	union {
		/* Filled in by a partition bootstrapper, if any. */
		struct {
			NvU64 partitionRpcAddr;
			NvU16 partitionRpcRequestOffset;
			NvU16 partitionRpcReplyOffset;
			NvU32 elfCodeOffset;
			NvU32 elfDataOffset;
			NvU32 elfCodeSize;
			NvU32 elfDataSize;
			NvU32 lsUcodeVersion;
		};
		/* The crash-report queue, over the elf* members. */
		struct {
			NvU32 partitionRpcPadding[4];
			NvU64 sysmemAddrOfCrashReportQueue;
			NvU32 sizeOfCrashReportQueue;
			NvU32 lsUcodeVersionPadding[1];
		};
	};

	NvU8 gspFwHeapVfPartitionCount;
	/* 535: padding[7] from here to verified. */
	NvU8 flags;			/* boot-flow flags */
	NvU8 padding[2];		/* zero */
	NvU32 pmuReservedSize;		/* reserved after gspFwWprEnd + frtsSize */

	NvU64 verified;			/* 0, or GSP_FW_WPR_META_VERIFIED */
} GspFwWprMeta;

/*
 * Suspend/resume metadata for the secure ucode. 570.144 form: the hash
 * members of 535 are replaced by an opaque area the ucode owns. 256 bytes.
 * The sources define no magic/revision values for this form (535:
 * GSP_FW_SR_META_MAGIC 0x8a3bb9e6c6c39d93, revision 2).
 */
typedef struct {
	NvU64 magic;
	NvU64 revision;
	NvU64 sysmemAddrOfSuspendResumeData;
	NvU64 sizeOfSuspendResumeData;
	NvU32 internal[32];		/* for the secure ucode only */
	NvU32 flags;			/* as GspFwWprMeta.flags */
	NvU32 subrevision;
	NvU32 padding[22];		/* zero */
} GspFwSRMeta;

/* ---------------------------------------------------------------------
 * Sizing of the GSP-RM heap in WPR2 (bytes unless named _MB).
 *
 * LIBOS3_BAREMETAL_MIN_MB is 88 in a normal firmware build, as nova-core's
 * bindings have it; nouveau's excerpt shows the code-coverage build's
 * larger value (88 + 12 + 70 = 170) instead.
 */
#define GSP_FW_HEAP_PARAM_OS_SIZE_LIBOS2		(0 << 20)
#define GSP_FW_HEAP_PARAM_OS_SIZE_LIBOS3_BAREMETAL	(22 << 20)
#define GSP_FW_HEAP_PARAM_BASE_RM_SIZE_TU10X		(8 << 20)	/* Turing to Ada */
#define GSP_FW_HEAP_PARAM_BASE_RM_SIZE_GH100		(14 << 20)	/* Hopper and later */
#define GSP_FW_HEAP_PARAM_SIZE_PER_GB_FB		(96 << 10)
/* 48 KiB for each of 2048 channels. */
#define GSP_FW_HEAP_PARAM_CLIENT_ALLOC_SIZE		((48 << 10) * 2048)
#define GSP_FW_HEAP_SIZE_VGPU_DEFAULT			(581 << 20)
#define GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS2_MIN_MB		64
#define GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS2_MAX_MB		256
#define GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_BAREMETAL_MIN_MB 88
#define GSP_FW_HEAP_SIZE_OVERRIDE_LIBOS3_BAREMETAL_MAX_MB 280

/* ---------------------------------------------------------------------
 * Layout checks. Every number was read from the compiled firmware
 * headers of this release and checked against nova-core's generated
 * bindings for it, not taken from the declarations above.
 */
#define NVRM_SIZE(t, n) _Static_assert(sizeof(t) == (n), "size of " #t)
#define NVRM_OFF(t, f, n) \
	_Static_assert(__builtin_offsetof(t, f) == (n), "offset of " #t "." #f)

/* NVRM_ASSERTS */

#undef NVRM_SIZE
#undef NVRM_OFF

#endif /* NOVA_GSP_FW_R570_144_NVRM_H */
