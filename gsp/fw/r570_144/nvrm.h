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
#define NV_VGPU_MSG_EVENT_PERF_BRIDGELESS_INFO_UPDATE		0x100f
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
 * payload follows it directly;
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
	/* The function-specific payload follows (rpc_message_data in NVIDIA's
	 * sources); left out here so that the header is a plain fixed-size type. */
} rpc_message_header_v03_00;

typedef rpc_message_header_v03_00 rpc_message_header_v;

/*
 * Header of a queue element. The RPC header is its last member, and the
 * RPC payload follows without a
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

/* UNLOADING_GUEST_DRIVER payload: the driver is going away (or suspending). */
typedef struct rpc_unloading_guest_driver_v1F_07 {
	NvBool bInPMTransition;	/* suspend rather than unload */
	NvBool bGc6Entering;
	NvU32 newLevel;		/* power level being entered */
} rpc_unloading_guest_driver_v1F_07;

typedef rpc_unloading_guest_driver_v1F_07 rpc_unloading_guest_driver_v;

/*
 * The RM API's calls: GSP_RM_ALLOC, GSP_RM_CONTROL and FREE. The same in 535.113.01 and
 * 570.144 (OpenRM src/nvidia/generated/g_rpc-structures.h, rpc_gsp_rm_alloc_v03_00,
 * rpc_gsp_rm_control_v03_00, rpc_free_v03_00; nouveau nvkm/subdev/gsp/rm/r535/nvrm/alloc.h,
 * ctrl.h). Each fixed part is followed by the call's parameters (paramsSize bytes).
 */
typedef struct rpc_gsp_rm_alloc_v03_00 {
	NvHandle hClient;
	NvHandle hParent;
	NvHandle hObject;
	NvU32 hClass;
	NvU32 status;		/* NV_STATUS of the allocation, in the reply */
	NvU32 paramsSize;
	NvU32 flags;
	NvU8 reserved[4];
	/* paramsSize bytes of the class's allocation parameters follow. */
} rpc_gsp_rm_alloc_v03_00;

typedef struct rpc_gsp_rm_control_v03_00 {
	NvHandle hClient;
	NvHandle hObject;
	NvU32 cmd;
	NvU32 status;		/* NV_STATUS of the control, in the reply */
	NvU32 paramsSize;
	NvU32 flags;
	/* paramsSize bytes of the control's parameters follow, answered in place. */
} rpc_gsp_rm_control_v03_00;

typedef struct NVOS00_PARAMETERS_v03_00 {
	NvHandle hRoot;		/* the client */
	NvHandle hObjectParent;
	NvHandle hObjectOld;	/* the object freed (the client itself frees its tree) */
	NvU32 status;
} NVOS00_PARAMETERS_v03_00;

typedef struct rpc_free_v03_00 {
	NVOS00_PARAMETERS_v03_00 params;
} rpc_free_v03_00;

/* The classes of the objects every client starts with (OpenRM class/cl0000.h, cl0080.h, cl2080.h). */
#define NV01_ROOT		0x00000000
#define NV01_DEVICE_0		0x00000080
#define NV20_SUBDEVICE_0	0x00002080

/* NV01_DEVICE_0's allocation parameters (OpenRM class/cl0080.h, the same in both versions). */
typedef struct NV0080_ALLOC_PARAMETERS {
	NvU32 deviceId;
	NvHandle hClientShare;
	NvHandle hTargetClient;
	NvHandle hTargetDevice;
	NvU32 flags;
	NvU64 vaSpaceSize;
	NvU64 vaStartInternal;
	NvU64 vaLimitInternal;
	NvU32 vaMode;
} NV0080_ALLOC_PARAMETERS;

/* NV20_SUBDEVICE_0's allocation parameters (OpenRM class/cl2080.h). */
typedef struct NV2080_ALLOC_PARAMETERS {
	NvU32 subDeviceId;
} NV2080_ALLOC_PARAMETERS;

/*
 * NV01_ROOT's allocation parameters, a client (OpenRM class/cl0000.h at 570.144): 535.113.01's,
 * and the OS's process information, 8-aligned (NV_DECLARE_ALIGNED(NvP64 pOsPidInfo, 8)).
 */
typedef struct NV0000_ALLOC_PARAMETERS {
	NvHandle hClient;
	NvU32 processID;
	char processName[100];
	NvU64 pOsPidInfo __attribute__((aligned(8)));
} NV0000_ALLOC_PARAMETERS;

/*
 * The controls the driver sends, on a subdevice (OpenRM ctrl/ctrl2080/ctrl2080gpu.h,
 * ctrl2080ce.h, ctrl2080internal.h; the same numbers and layouts in 535.113.01 and 570.144).
 */
#define NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO		0x20800137
#define NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO		0x20800138
#define NV2080_CTRL_CMD_CE_GET_FAULT_METHOD_BUFFER_SIZE	0x20802a08
#define NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE	0x20800a5c

typedef struct NV2080_CTRL_GPU_GET_FERMI_GPC_INFO_PARAMS {
	NvU32 gpcMask;
} NV2080_CTRL_GPU_GET_FERMI_GPC_INFO_PARAMS;

typedef struct NV2080_CTRL_GPU_GET_FERMI_TPC_INFO_PARAMS {
	NvU32 gpcId;
	NvU32 tpcMask;
} NV2080_CTRL_GPU_GET_FERMI_TPC_INFO_PARAMS;

typedef struct NV2080_CTRL_CE_GET_FAULT_METHOD_BUFFER_SIZE_PARAMS {
	NvU32 size;
} NV2080_CTRL_CE_GET_FAULT_METHOD_BUFFER_SIZE_PARAMS;

#define NV2080_CTRL_INTERNAL_INTR_MAX_TABLE_SIZE	128
#define NV2080_INTR_CATEGORY_ENUM_COUNT			7

typedef struct NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_ENTRY {
	NvU16 engineIdx;
	NvU32 pmcIntrMask;
	NvU32 vectorStall;
	NvU32 vectorNonStall;
} NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_ENTRY;

typedef struct NV2080_INTR_CATEGORY_SUBTREE_MAP {
	NvU8 subtreeStart;
	NvU8 subtreeEnd;
} NV2080_INTR_CATEGORY_SUBTREE_MAP;

typedef struct NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS {
	NvU32 tableLen;
	NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_ENTRY table[NV2080_CTRL_INTERNAL_INTR_MAX_TABLE_SIZE];
	NV2080_INTR_CATEGORY_SUBTREE_MAP subtreeMap[NV2080_INTR_CATEGORY_ENUM_COUNT];
} NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS;

/*
 * The FIFO's device information table, 32 entries a call from baseIndex (OpenRM
 * ctrl/ctrl2080/ctrl2080fifo.h; the same in 535.113.01 and 570.144, OpenRM 570.144
 * gsp_abi_check.c). What each engineData word is: ENGINE_INFO_TYPE (OpenRM
 * gpu/fifo/engine_info.h at 570.144, g_kernel_fifo_nvoc.h at 535.113.01).
 */
#define NV2080_CTRL_CMD_FIFO_GET_DEVICE_INFO_TABLE			0x20801112
#define NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_MAX_DEVICES		256
#define NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_MAX_ENTRIES		32
#define NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_ENGINE_DATA_TYPES	16
#define NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_ENGINE_MAX_PBDMA		2
#define NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_ENGINE_MAX_NAME_LEN	16

#define ENGINE_INFO_TYPE_ENG_DESC		0
#define ENGINE_INFO_TYPE_RM_ENGINE_TYPE		2
#define ENGINE_INFO_TYPE_RUNLIST		3
#define ENGINE_INFO_TYPE_RUNLIST_PRI_BASE	11

typedef struct NV2080_CTRL_FIFO_DEVICE_ENTRY {
	NvU32 engineData[NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_ENGINE_DATA_TYPES];
	NvU32 pbdmaIds[NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_ENGINE_MAX_PBDMA];
	NvU32 pbdmaFaultIds[NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_ENGINE_MAX_PBDMA];
	NvU32 numPbdmas;
	char engineName[NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_ENGINE_MAX_NAME_LEN];
} NV2080_CTRL_FIFO_DEVICE_ENTRY;

typedef struct NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_PARAMS {
	NvU32 baseIndex;
	NvU32 numEntries;
	NvBool bMore;
	NV2080_CTRL_FIFO_DEVICE_ENTRY entries[NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_MAX_ENTRIES];
} NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_PARAMS;

#define NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG		0x20800a1c

/*
 * The memory system's static configuration (OpenRM ctrl/ctrl2080/ctrl2080internal.h at 570.144;
 * nouveau rm/r535/nvrm/gsp.h has this layout, sent only with 570.144, rm/r570/gsp.c).
 */
typedef struct NV2080_CTRL_INTERNAL_MEMSYS_GET_STATIC_CONFIG_PARAMS {
	NvBool bOneToOneComptagLineAllocation;
	NvBool bUseOneToFourComptagLineAllocation;
	NvBool bUseRawModeComptaglineAllocation;
	NvBool bDisableCompbitBacking;
	NvBool bDisablePostL2Compression;
	NvBool bEnabledEccFBPA;
	NvBool bL2PreFill;
	NvU64 l2CacheSize __attribute__((aligned(8)));
	NvBool bFbpaPresent;
	NvU32 comprPageSize;
	NvU32 comprPageShift;
	NvU32 ramType;
	NvU32 ltcCount;
	NvU32 ltsPerLtcCount;
} NV2080_CTRL_INTERNAL_MEMSYS_GET_STATIC_CONFIG_PARAMS;

/*
 * The engines of the device information table (RM_ENGINE_TYPE, OpenRM
 * kernel/gpu/gpu_engine_type.h; nouveau nvkm/subdev/gsp/rm/r570/nvrm/engine.h): 570.144 has
 * 20 copy engines, 4 encoders and two OFAs, so the numbers from SW on moved.
 */
#define RM_ENGINE_TYPE_GR0		0x01
#define RM_ENGINE_TYPE_GR7		0x08
#define RM_ENGINE_TYPE_COPY0		0x09
#define RM_ENGINE_TYPE_COPY_MAX		0x1c
#define RM_ENGINE_TYPE_NVDEC0		0x1d
#define RM_ENGINE_TYPE_NVDEC_MAX	0x24
#define RM_ENGINE_TYPE_NVENC0		0x25
#define RM_ENGINE_TYPE_NVENC_MAX	0x28
#define RM_ENGINE_TYPE_SW		0x2d
#define RM_ENGINE_TYPE_SEC2		0x31
#define RM_ENGINE_TYPE_NVJPEG0		0x36
#define RM_ENGINE_TYPE_NVJPEG_MAX	0x3d
#define RM_ENGINE_TYPE_OFA0		0x3e
#define RM_ENGINE_TYPE_OFA_MAX		0x3f

/*
 * The engines of the interrupt table (MC_ENGINE_IDX, OpenRM kernel/gpu/intr/engine_idx.h;
 * nouveau nvkm/subdev/gsp/rm/r570/nvrm/engine.h): the copy engines are
 * numbered alike up to CE9 and the encoders up to the third; the numbers after them moved
 * (570.144 has 20 copy engines and 4 encoders, 535.113.01 10 and 3).
 */
#define MC_ENGINE_IDX_DISP		2
#define MC_ENGINE_IDX_CE0		15
#define MC_ENGINE_IDX_CE_MAX		34
#define MC_ENGINE_IDX_NVENC0		38
#define MC_ENGINE_IDX_NVENC_MAX		41
#define MC_ENGINE_IDX_SEC2		47
#define MC_ENGINE_IDX_GSP		50
#define MC_ENGINE_IDX_NVJPEG0		51
#define MC_ENGINE_IDX_NVJPEG_MAX	58
#define MC_ENGINE_IDX_NVDEC0		65
#define MC_ENGINE_IDX_NVDEC_MAX		72
#define MC_ENGINE_IDX_OFA0		81
#define MC_ENGINE_IDX_GR0		84

typedef struct PACKED_REGISTRY_ENTRY {
	NvU32 nameOffset;	/* offset of the NUL-terminated key name */
	NvU8 type;		/* REGISTRY_TABLE_ENTRY_TYPE_* */
	NvU32 data;
	NvU32 length;		/* size of the value in bytes */
} PACKED_REGISTRY_ENTRY;

typedef struct PACKED_REGISTRY_TABLE {
	NvU32 size;		/* whole payload, strings included */
	NvU32 numEntries;
	/* numEntries PACKED_REGISTRY_ENTRY follow, then the strings. */
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
 * What GSP-FMC is given on Hopper and Blackwell (at the address the FSP's
 * chain-of-trust message names): where GSP-RM's WPR meta and its LIBOS
 * arguments are. 80 bytes.
 */
typedef enum {
	GSP_DMA_TARGET_LOCAL_FB = 0,
	GSP_DMA_TARGET_COHERENT_SYSTEM = 1,
	GSP_DMA_TARGET_NONCOHERENT_SYSTEM = 2,
} GSP_DMA_TARGET;

typedef struct {
	NvU32 regkeys;			/* confidential-computing keys: 0 */
} GSP_FMC_INIT_PARAMS;

typedef struct {
	GSP_DMA_TARGET target;		/* where the WPR meta is */
	NvU32 gspRmDescSize;		/* sizeof(GspFwWprMeta) */
	NvU64 gspRmDescOffset;		/* the WPR meta's address */
	NvU64 wprCarveoutOffset;	/* 0: GSP-FMC places WPR2 */
	NvU32 wprCarveoutSize;		/* 0 */
	NvBool bIsGspRmBoot;		/* GSP-RM, not a GSP proxy */
} GSP_ACR_BOOT_GSP_RM_PARAMS;

typedef struct {
	GSP_DMA_TARGET target;		/* where the LIBOS arguments are */
	NvU64 bootArgsOffset;		/* their address */
} GSP_RM_PARAMS;

typedef struct {
	GSP_DMA_TARGET target;
	NvU64 payloadBufferOffset;
	NvU32 payloadBufferSize;
} GSP_SPDM_PARAMS;			/* no SPDM: all 0 */

typedef struct {
	GSP_FMC_INIT_PARAMS initParams;
	GSP_ACR_BOOT_GSP_RM_PARAMS bootGspRmParams;
	GSP_RM_PARAMS gspRmParams;
	GSP_SPDM_PARAMS gspSpdmParams;
} GSP_FMC_BOOT_PARAMS;

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
 * Layout checks. Every number below comes from compiling the firmware's
 * own declarations of 570.144 (as excerpted in Linux 7.3's nouveau
 * driver) and printing sizeof/offsetof, and agrees with nova-core's
 * generated Rust bindings for 570.144; none was derived from the
 * declarations above.
 */
#define NVRM_SIZE(t, n) _Static_assert(sizeof(t) == (n), "size of " #t)
#define NVRM_ALIGN(t, n) _Static_assert(_Alignof(t) == (n), "alignment of " #t)
#define NVRM_OFF(t, f, n) \
	_Static_assert(__builtin_offsetof(t, f) == (n), "offset of " #t "." #f)

/* Types nested in the messages: size, and each member after padding. */
NVRM_SIZE(rpc_message_rpc_union_field_v03_00, 4);
NVRM_OFF(rpc_message_rpc_union_field_v03_00, cpuRmGfid, 0);
NVRM_SIZE(BUSINFO, 10);
NVRM_OFF(BUSINFO, revisionID, 8);
NVRM_SIZE(DOD_METHOD_DATA, 72);
NVRM_OFF(DOD_METHOD_DATA, acpiIdList, 8);
NVRM_SIZE(JT_METHOD_DATA, 12);
NVRM_OFF(JT_METHOD_DATA, bSBIOSCaps, 10);
NVRM_SIZE(MUX_METHOD_DATA_ELEMENT, 12);
NVRM_OFF(MUX_METHOD_DATA_ELEMENT, status, 8);
NVRM_SIZE(MUX_METHOD_DATA, 580);
NVRM_OFF(MUX_METHOD_DATA, acpiIdMuxStateTable, 388);
NVRM_SIZE(CAPS_METHOD_DATA, 8);
NVRM_OFF(CAPS_METHOD_DATA, optimusCaps, 4);
NVRM_SIZE(ACPI_METHOD_DATA, 676);
NVRM_OFF(ACPI_METHOD_DATA, dodMethodData, 4);
NVRM_OFF(ACPI_METHOD_DATA, capsMethodData, 668);
NVRM_SIZE(GSP_VF_INFO, 40);
NVRM_OFF(GSP_VF_INFO, b64bitBar2, 34);
NVRM_SIZE(GSP_PCIE_CONFIG_REG, 4);
NVRM_OFF(GSP_PCIE_CONFIG_REG, linkCap, 0);
NVRM_SIZE(NV2080_CTRL_CMD_FB_GET_FB_REGION_FB_REGION_INFO, 48);
NVRM_OFF(NV2080_CTRL_CMD_FB_GET_FB_REGION_FB_REGION_INFO, blackList, 31);
NVRM_SIZE(NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_PARAMS, 776);
NVRM_OFF(NV2080_CTRL_CMD_FB_GET_FB_REGION_INFO_PARAMS, fbRegion, 8);
NVRM_SIZE(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, 268);
NVRM_OFF(NV2080_CTRL_GPU_GET_GID_INFO_PARAMS, data, 12);
NVRM_SIZE(NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS, 48);
NVRM_OFF(NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS, skuConfigVersion, 20);
NVRM_OFF(NV2080_CTRL_BIOS_GET_SKU_INFO_PARAMS, businessCycle, 44);
NVRM_SIZE(NV0080_CTRL_GPU_GET_SRIOV_CAPS_PARAMS, 80);
NVRM_OFF(NV0080_CTRL_GPU_GET_SRIOV_CAPS_PARAMS, FirstVFBar0Address, 16);
NVRM_OFF(NV0080_CTRL_GPU_GET_SRIOV_CAPS_PARAMS, bVfResizableBAR1Supported, 72);
NVRM_SIZE(VIRTUAL_DISPLAY_GET_NUM_HEADS_PARAMS, 8);
NVRM_OFF(VIRTUAL_DISPLAY_GET_NUM_HEADS_PARAMS, maxNumHeads, 4);
NVRM_SIZE(VIRTUAL_DISPLAY_GET_MAX_RESOLUTION_PARAMS, 12);
NVRM_OFF(VIRTUAL_DISPLAY_GET_MAX_RESOLUTION_PARAMS, maxVResolution, 8);
NVRM_SIZE(EcidManufacturingInfo, 12);
NVRM_OFF(EcidManufacturingInfo, ecidExtended, 8);
NVRM_SIZE(FW_WPR_LAYOUT_OFFSET, 16);
NVRM_OFF(FW_WPR_LAYOUT_OFFSET, frtsOffset, 8);

/* Queue, boot and message structures: size, alignment, every member. */
NVRM_SIZE(msgqTxHeader, 32);
NVRM_ALIGN(msgqTxHeader, 4);
NVRM_OFF(msgqTxHeader, version, 0);
NVRM_OFF(msgqTxHeader, size, 4);
NVRM_OFF(msgqTxHeader, msgSize, 8);
NVRM_OFF(msgqTxHeader, msgCount, 12);
NVRM_OFF(msgqTxHeader, writePtr, 16);
NVRM_OFF(msgqTxHeader, flags, 20);
NVRM_OFF(msgqTxHeader, rxHdrOff, 24);
NVRM_OFF(msgqTxHeader, entryOff, 28);
NVRM_SIZE(msgqRxHeader, 4);
NVRM_ALIGN(msgqRxHeader, 4);
NVRM_OFF(msgqRxHeader, readPtr, 0);
NVRM_SIZE(rpc_message_header_v, 32);
NVRM_ALIGN(rpc_message_header_v, 4);
NVRM_OFF(rpc_message_header_v, header_version, 0);
NVRM_OFF(rpc_message_header_v, signature, 4);
NVRM_OFF(rpc_message_header_v, length, 8);
NVRM_OFF(rpc_message_header_v, function, 12);
NVRM_OFF(rpc_message_header_v, rpc_result, 16);
NVRM_OFF(rpc_message_header_v, rpc_result_private, 20);
NVRM_OFF(rpc_message_header_v, sequence, 24);
NVRM_OFF(rpc_message_header_v, u, 28);
/* The payload starts right after the 32-byte header. */
NVRM_SIZE(GSP_MSG_QUEUE_ELEMENT, 80);
NVRM_ALIGN(GSP_MSG_QUEUE_ELEMENT, 8);
NVRM_OFF(GSP_MSG_QUEUE_ELEMENT, authTagBuffer, 0);
NVRM_OFF(GSP_MSG_QUEUE_ELEMENT, aadBuffer, 16);
NVRM_OFF(GSP_MSG_QUEUE_ELEMENT, checkSum, 32);
NVRM_OFF(GSP_MSG_QUEUE_ELEMENT, seqNum, 36);
NVRM_OFF(GSP_MSG_QUEUE_ELEMENT, elemCount, 40);
NVRM_OFF(GSP_MSG_QUEUE_ELEMENT, rpc, 48);
NVRM_SIZE(MESSAGE_QUEUE_INIT_ARGUMENTS, 32);
NVRM_ALIGN(MESSAGE_QUEUE_INIT_ARGUMENTS, 8);
NVRM_OFF(MESSAGE_QUEUE_INIT_ARGUMENTS, sharedMemPhysAddr, 0);
NVRM_OFF(MESSAGE_QUEUE_INIT_ARGUMENTS, pageTableEntryCount, 8);
NVRM_OFF(MESSAGE_QUEUE_INIT_ARGUMENTS, cmdQueueOffset, 16);
NVRM_OFF(MESSAGE_QUEUE_INIT_ARGUMENTS, statQueueOffset, 24);
NVRM_SIZE(GSP_SR_INIT_ARGUMENTS, 12);
NVRM_ALIGN(GSP_SR_INIT_ARGUMENTS, 4);
NVRM_OFF(GSP_SR_INIT_ARGUMENTS, oldLevel, 0);
NVRM_OFF(GSP_SR_INIT_ARGUMENTS, flags, 4);
NVRM_OFF(GSP_SR_INIT_ARGUMENTS, bInPMTransition, 8);
NVRM_SIZE(GSP_ARGUMENTS_CACHED, 72);
NVRM_ALIGN(GSP_ARGUMENTS_CACHED, 8);
NVRM_OFF(GSP_ARGUMENTS_CACHED, messageQueueInitArguments, 0);
NVRM_OFF(GSP_ARGUMENTS_CACHED, srInitArguments, 32);
NVRM_OFF(GSP_ARGUMENTS_CACHED, gpuInstance, 44);
NVRM_OFF(GSP_ARGUMENTS_CACHED, bDmemStack, 48);
NVRM_OFF(GSP_ARGUMENTS_CACHED, profilerArgs, 56);
NVRM_SIZE(LibosMemoryRegionInitArgument, 32);
NVRM_ALIGN(LibosMemoryRegionInitArgument, 8);
NVRM_OFF(LibosMemoryRegionInitArgument, id8, 0);
NVRM_OFF(LibosMemoryRegionInitArgument, pa, 8);
NVRM_OFF(LibosMemoryRegionInitArgument, size, 16);
NVRM_OFF(LibosMemoryRegionInitArgument, kind, 24);
NVRM_OFF(LibosMemoryRegionInitArgument, loc, 25);
NVRM_SIZE(PACKED_REGISTRY_ENTRY, 16);
NVRM_ALIGN(PACKED_REGISTRY_ENTRY, 4);
NVRM_OFF(PACKED_REGISTRY_ENTRY, nameOffset, 0);
NVRM_OFF(PACKED_REGISTRY_ENTRY, type, 4);
NVRM_OFF(PACKED_REGISTRY_ENTRY, data, 8);
NVRM_OFF(PACKED_REGISTRY_ENTRY, length, 12);
NVRM_SIZE(PACKED_REGISTRY_TABLE, 8);
NVRM_SIZE(rpc_unloading_guest_driver_v1F_07, 8);
NVRM_OFF(rpc_unloading_guest_driver_v1F_07, newLevel, 4);
NVRM_SIZE(rpc_gsp_rm_alloc_v03_00, 32);
NVRM_OFF(rpc_gsp_rm_alloc_v03_00, hClass, 12);
NVRM_OFF(rpc_gsp_rm_alloc_v03_00, status, 16);
NVRM_OFF(rpc_gsp_rm_alloc_v03_00, paramsSize, 20);
NVRM_OFF(rpc_gsp_rm_alloc_v03_00, flags, 24);
NVRM_OFF(rpc_gsp_rm_alloc_v03_00, reserved, 28);
NVRM_SIZE(rpc_gsp_rm_control_v03_00, 24);
NVRM_OFF(rpc_gsp_rm_control_v03_00, cmd, 8);
NVRM_OFF(rpc_gsp_rm_control_v03_00, status, 12);
NVRM_OFF(rpc_gsp_rm_control_v03_00, paramsSize, 16);
NVRM_OFF(rpc_gsp_rm_control_v03_00, flags, 20);
NVRM_SIZE(rpc_free_v03_00, 16);
NVRM_OFF(NVOS00_PARAMETERS_v03_00, hObjectOld, 8);
NVRM_OFF(NVOS00_PARAMETERS_v03_00, status, 12);
NVRM_SIZE(NV0080_ALLOC_PARAMETERS, 56);
NVRM_OFF(NV0080_ALLOC_PARAMETERS, hClientShare, 4);
NVRM_OFF(NV0080_ALLOC_PARAMETERS, flags, 16);
NVRM_OFF(NV0080_ALLOC_PARAMETERS, vaSpaceSize, 24);
NVRM_OFF(NV0080_ALLOC_PARAMETERS, vaLimitInternal, 40);
NVRM_OFF(NV0080_ALLOC_PARAMETERS, vaMode, 48);
NVRM_SIZE(NV2080_ALLOC_PARAMETERS, 4);
NVRM_SIZE(NV2080_CTRL_GPU_GET_FERMI_GPC_INFO_PARAMS, 4);
NVRM_SIZE(NV2080_CTRL_GPU_GET_FERMI_TPC_INFO_PARAMS, 8);
NVRM_SIZE(NV2080_CTRL_CE_GET_FAULT_METHOD_BUFFER_SIZE_PARAMS, 4);
NVRM_SIZE(NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_ENTRY, 16);
NVRM_OFF(NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_ENTRY, pmcIntrMask, 4);
NVRM_OFF(NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_ENTRY, vectorNonStall, 12);
NVRM_SIZE(NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS, 2068);
NVRM_OFF(NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS, table, 4);
NVRM_OFF(NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS, subtreeMap, 2052);
NVRM_SIZE(NV2080_CTRL_FIFO_DEVICE_ENTRY, 100);
NVRM_OFF(NV2080_CTRL_FIFO_DEVICE_ENTRY, pbdmaIds, 64);
NVRM_OFF(NV2080_CTRL_FIFO_DEVICE_ENTRY, pbdmaFaultIds, 72);
NVRM_OFF(NV2080_CTRL_FIFO_DEVICE_ENTRY, numPbdmas, 80);
NVRM_OFF(NV2080_CTRL_FIFO_DEVICE_ENTRY, engineName, 84);
NVRM_SIZE(NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_PARAMS, 3212);
NVRM_OFF(NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_PARAMS, bMore, 8);
NVRM_OFF(NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_PARAMS, entries, 12);
NVRM_SIZE(NV2080_CTRL_INTERNAL_MEMSYS_GET_STATIC_CONFIG_PARAMS, 40);
NVRM_OFF(NV2080_CTRL_INTERNAL_MEMSYS_GET_STATIC_CONFIG_PARAMS, l2CacheSize, 8);
NVRM_OFF(NV2080_CTRL_INTERNAL_MEMSYS_GET_STATIC_CONFIG_PARAMS, bFbpaPresent, 16);
NVRM_OFF(NV2080_CTRL_INTERNAL_MEMSYS_GET_STATIC_CONFIG_PARAMS, comprPageSize, 20);
NVRM_OFF(NV2080_CTRL_INTERNAL_MEMSYS_GET_STATIC_CONFIG_PARAMS, ramType, 28);
NVRM_OFF(NV2080_CTRL_INTERNAL_MEMSYS_GET_STATIC_CONFIG_PARAMS, ltsPerLtcCount, 36);
NVRM_SIZE(NV0000_ALLOC_PARAMETERS, 120);
NVRM_OFF(NV0000_ALLOC_PARAMETERS, processName, 8);
NVRM_OFF(NV0000_ALLOC_PARAMETERS, pOsPidInfo, 112);
NVRM_ALIGN(PACKED_REGISTRY_TABLE, 4);
NVRM_OFF(PACKED_REGISTRY_TABLE, size, 0);
NVRM_OFF(PACKED_REGISTRY_TABLE, numEntries, 4);
/* The entries start right after the 8-byte table header. */
NVRM_SIZE(GspSystemInfo, 928);
NVRM_ALIGN(GspSystemInfo, 8);
NVRM_OFF(GspSystemInfo, gpuPhysAddr, 0);
NVRM_OFF(GspSystemInfo, gpuPhysFbAddr, 8);
NVRM_OFF(GspSystemInfo, gpuPhysInstAddr, 16);
NVRM_OFF(GspSystemInfo, gpuPhysIoAddr, 24);
NVRM_OFF(GspSystemInfo, nvDomainBusDeviceFunc, 32);
NVRM_OFF(GspSystemInfo, simAccessBufPhysAddr, 40);
NVRM_OFF(GspSystemInfo, notifyOpSharedSurfacePhysAddr, 48);
NVRM_OFF(GspSystemInfo, pcieAtomicsOpMask, 56);
NVRM_OFF(GspSystemInfo, consoleMemSize, 64);
NVRM_OFF(GspSystemInfo, maxUserVa, 72);
NVRM_OFF(GspSystemInfo, pciConfigMirrorBase, 80);
NVRM_OFF(GspSystemInfo, pciConfigMirrorSize, 84);
NVRM_OFF(GspSystemInfo, PCIDeviceID, 88);
NVRM_OFF(GspSystemInfo, PCISubDeviceID, 92);
NVRM_OFF(GspSystemInfo, PCIRevisionID, 96);
NVRM_OFF(GspSystemInfo, pcieAtomicsCplDeviceCapMask, 100);
NVRM_OFF(GspSystemInfo, oorArch, 104);
NVRM_OFF(GspSystemInfo, clPdbProperties, 112);
NVRM_OFF(GspSystemInfo, Chipset, 120);
NVRM_OFF(GspSystemInfo, bGpuBehindBridge, 124);
NVRM_OFF(GspSystemInfo, bFlrSupported, 125);
NVRM_OFF(GspSystemInfo, b64bBar0Supported, 126);
NVRM_OFF(GspSystemInfo, bMnocAvailable, 127);
NVRM_OFF(GspSystemInfo, chipsetL1ssEnable, 128);
NVRM_OFF(GspSystemInfo, bUpstreamL0sUnsupported, 132);
NVRM_OFF(GspSystemInfo, bUpstreamL1Unsupported, 133);
NVRM_OFF(GspSystemInfo, bUpstreamL1PorSupported, 134);
NVRM_OFF(GspSystemInfo, bUpstreamL1PorMobileOnly, 135);
NVRM_OFF(GspSystemInfo, bSystemHasMux, 136);
NVRM_OFF(GspSystemInfo, upstreamAddressValid, 137);
NVRM_OFF(GspSystemInfo, FHBBusInfo, 138);
NVRM_OFF(GspSystemInfo, chipsetIDInfo, 148);
NVRM_OFF(GspSystemInfo, acpiMethodData, 160);
NVRM_OFF(GspSystemInfo, hypervisorType, 836);
NVRM_OFF(GspSystemInfo, bIsPassthru, 840);
NVRM_OFF(GspSystemInfo, sysTimerOffsetNs, 848);
NVRM_OFF(GspSystemInfo, gspVFInfo, 856);
NVRM_OFF(GspSystemInfo, bIsPrimary, 896);
NVRM_OFF(GspSystemInfo, isGridBuild, 897);
NVRM_OFF(GspSystemInfo, pcieConfigReg, 900);
NVRM_OFF(GspSystemInfo, gridBuildCsp, 904);
NVRM_OFF(GspSystemInfo, bPreserveVideoMemoryAllocations, 908);
NVRM_OFF(GspSystemInfo, bTdrEventSupported, 909);
NVRM_OFF(GspSystemInfo, bFeatureStretchVblankCapable, 910);
NVRM_OFF(GspSystemInfo, bEnableDynamicGranularityPageArrays, 911);
NVRM_OFF(GspSystemInfo, bClockBoostSupported, 912);
NVRM_OFF(GspSystemInfo, bRouteDispIntrsToCPU, 913);
NVRM_OFF(GspSystemInfo, hostPageSize, 920);
NVRM_SIZE(GspStaticConfigInfo, 1656);
NVRM_ALIGN(GspStaticConfigInfo, 8);
NVRM_OFF(GspStaticConfigInfo, grCapsBits, 0);
NVRM_OFF(GspStaticConfigInfo, gidInfo, 24);
NVRM_OFF(GspStaticConfigInfo, SKUInfo, 292);
NVRM_OFF(GspStaticConfigInfo, fbRegionInfoParams, 344);
NVRM_OFF(GspStaticConfigInfo, sriovCaps, 1120);
NVRM_OFF(GspStaticConfigInfo, sriovMaxGfid, 1200);
NVRM_OFF(GspStaticConfigInfo, engineCaps, 1204);
NVRM_OFF(GspStaticConfigInfo, poisonFuseEnabled, 1216);
NVRM_OFF(GspStaticConfigInfo, fb_length, 1224);
NVRM_OFF(GspStaticConfigInfo, fbio_mask, 1232);
NVRM_OFF(GspStaticConfigInfo, fb_bus_width, 1240);
NVRM_OFF(GspStaticConfigInfo, fb_ram_type, 1244);
NVRM_OFF(GspStaticConfigInfo, fbp_mask, 1248);
NVRM_OFF(GspStaticConfigInfo, l2_cache_size, 1256);
NVRM_OFF(GspStaticConfigInfo, gpuNameString, 1260);
NVRM_OFF(GspStaticConfigInfo, gpuShortNameString, 1324);
NVRM_OFF(GspStaticConfigInfo, gpuNameString_Unicode, 1388);
NVRM_OFF(GspStaticConfigInfo, bGpuInternalSku, 1516);
NVRM_OFF(GspStaticConfigInfo, bIsQuadroGeneric, 1517);
NVRM_OFF(GspStaticConfigInfo, bIsQuadroAd, 1518);
NVRM_OFF(GspStaticConfigInfo, bIsNvidiaNvs, 1519);
NVRM_OFF(GspStaticConfigInfo, bIsVgx, 1520);
NVRM_OFF(GspStaticConfigInfo, bGeforceSmb, 1521);
NVRM_OFF(GspStaticConfigInfo, bIsTitan, 1522);
NVRM_OFF(GspStaticConfigInfo, bIsTesla, 1523);
NVRM_OFF(GspStaticConfigInfo, bIsMobile, 1524);
NVRM_OFF(GspStaticConfigInfo, bIsGc6Rtd3Allowed, 1525);
NVRM_OFF(GspStaticConfigInfo, bIsGc8Rtd3Allowed, 1526);
NVRM_OFF(GspStaticConfigInfo, bIsGcOffRtd3Allowed, 1527);
NVRM_OFF(GspStaticConfigInfo, bIsGcoffLegacyAllowed, 1528);
NVRM_OFF(GspStaticConfigInfo, bIsMigSupported, 1529);
NVRM_OFF(GspStaticConfigInfo, RTD3GC6TotalBoardPower, 1530);
NVRM_OFF(GspStaticConfigInfo, RTD3GC6PerstDelay, 1532);
NVRM_OFF(GspStaticConfigInfo, bar1PdeBase, 1536);
NVRM_OFF(GspStaticConfigInfo, bar2PdeBase, 1544);
NVRM_OFF(GspStaticConfigInfo, bVbiosValid, 1552);
NVRM_OFF(GspStaticConfigInfo, vbiosSubVendor, 1556);
NVRM_OFF(GspStaticConfigInfo, vbiosSubDevice, 1560);
NVRM_OFF(GspStaticConfigInfo, bPageRetirementSupported, 1564);
NVRM_OFF(GspStaticConfigInfo, bSplitVasBetweenServerClientRm, 1565);
NVRM_OFF(GspStaticConfigInfo, bClRootportNeedsNosnoopWAR, 1566);
NVRM_OFF(GspStaticConfigInfo, displaylessMaxHeads, 1568);
NVRM_OFF(GspStaticConfigInfo, displaylessMaxResolution, 1576);
NVRM_OFF(GspStaticConfigInfo, displaylessMaxPixels, 1592);
NVRM_OFF(GspStaticConfigInfo, hInternalClient, 1600);
NVRM_OFF(GspStaticConfigInfo, hInternalDevice, 1604);
NVRM_OFF(GspStaticConfigInfo, hInternalSubdevice, 1608);
NVRM_OFF(GspStaticConfigInfo, bSelfHostedMode, 1612);
NVRM_OFF(GspStaticConfigInfo, bAtsSupported, 1613);
NVRM_OFF(GspStaticConfigInfo, bIsGpuUefi, 1614);
NVRM_OFF(GspStaticConfigInfo, bIsEfiInit, 1615);
NVRM_OFF(GspStaticConfigInfo, ecidInfo, 1616);
NVRM_OFF(GspStaticConfigInfo, fwWprLayoutOffset, 1640);
NVRM_SIZE(GspFwWprMeta, 256);
NVRM_ALIGN(GspFwWprMeta, 8);
NVRM_OFF(GspFwWprMeta, magic, 0);
NVRM_OFF(GspFwWprMeta, revision, 8);
NVRM_OFF(GspFwWprMeta, sysmemAddrOfRadix3Elf, 16);
NVRM_OFF(GspFwWprMeta, sizeOfRadix3Elf, 24);
NVRM_OFF(GspFwWprMeta, sysmemAddrOfBootloader, 32);
NVRM_OFF(GspFwWprMeta, sizeOfBootloader, 40);
NVRM_OFF(GspFwWprMeta, bootloaderCodeOffset, 48);
NVRM_OFF(GspFwWprMeta, bootloaderDataOffset, 56);
NVRM_OFF(GspFwWprMeta, bootloaderManifestOffset, 64);
NVRM_OFF(GspFwWprMeta, sysmemAddrOfSignature, 72);
NVRM_OFF(GspFwWprMeta, sizeOfSignature, 80);
NVRM_OFF(GspFwWprMeta, gspFwHeapFreeListWprOffset, 72);
NVRM_OFF(GspFwWprMeta, unused0, 76);
NVRM_OFF(GspFwWprMeta, unused1, 80);
NVRM_OFF(GspFwWprMeta, gspFwRsvdStart, 88);
NVRM_OFF(GspFwWprMeta, nonWprHeapOffset, 96);
NVRM_OFF(GspFwWprMeta, nonWprHeapSize, 104);
NVRM_OFF(GspFwWprMeta, gspFwWprStart, 112);
NVRM_OFF(GspFwWprMeta, gspFwHeapOffset, 120);
NVRM_OFF(GspFwWprMeta, gspFwHeapSize, 128);
NVRM_OFF(GspFwWprMeta, gspFwOffset, 136);
NVRM_OFF(GspFwWprMeta, bootBinOffset, 144);
NVRM_OFF(GspFwWprMeta, frtsOffset, 152);
NVRM_OFF(GspFwWprMeta, frtsSize, 160);
NVRM_OFF(GspFwWprMeta, gspFwWprEnd, 168);
NVRM_OFF(GspFwWprMeta, fbSize, 176);
NVRM_OFF(GspFwWprMeta, vgaWorkspaceOffset, 184);
NVRM_OFF(GspFwWprMeta, vgaWorkspaceSize, 192);
NVRM_OFF(GspFwWprMeta, bootCount, 200);
NVRM_OFF(GspFwWprMeta, partitionRpcAddr, 208);
NVRM_OFF(GspFwWprMeta, partitionRpcRequestOffset, 216);
NVRM_OFF(GspFwWprMeta, partitionRpcReplyOffset, 218);
NVRM_OFF(GspFwWprMeta, elfCodeOffset, 220);
NVRM_OFF(GspFwWprMeta, elfDataOffset, 224);
NVRM_OFF(GspFwWprMeta, elfCodeSize, 228);
NVRM_OFF(GspFwWprMeta, elfDataSize, 232);
NVRM_OFF(GspFwWprMeta, lsUcodeVersion, 236);
NVRM_OFF(GspFwWprMeta, partitionRpcPadding, 208);
NVRM_OFF(GspFwWprMeta, sysmemAddrOfCrashReportQueue, 224);
NVRM_OFF(GspFwWprMeta, sizeOfCrashReportQueue, 232);
NVRM_OFF(GspFwWprMeta, lsUcodeVersionPadding, 236);
NVRM_OFF(GspFwWprMeta, gspFwHeapVfPartitionCount, 240);
NVRM_OFF(GspFwWprMeta, flags, 241);
NVRM_OFF(GspFwWprMeta, padding, 242);
NVRM_OFF(GspFwWprMeta, pmuReservedSize, 244);
NVRM_OFF(GspFwWprMeta, verified, 248);
NVRM_SIZE(GspFwSRMeta, 256);
NVRM_ALIGN(GspFwSRMeta, 8);
NVRM_OFF(GspFwSRMeta, magic, 0);
NVRM_OFF(GspFwSRMeta, revision, 8);
NVRM_OFF(GspFwSRMeta, sysmemAddrOfSuspendResumeData, 16);
NVRM_OFF(GspFwSRMeta, sizeOfSuspendResumeData, 24);
NVRM_OFF(GspFwSRMeta, internal, 32);
NVRM_OFF(GspFwSRMeta, flags, 160);
NVRM_OFF(GspFwSRMeta, subrevision, 164);
NVRM_OFF(GspFwSRMeta, padding, 168);

NVRM_SIZE(GSP_FMC_BOOT_PARAMS, 80);
NVRM_ALIGN(GSP_FMC_BOOT_PARAMS, 8);
NVRM_OFF(GSP_FMC_BOOT_PARAMS, initParams, 0);
NVRM_OFF(GSP_FMC_BOOT_PARAMS, bootGspRmParams, 8);
NVRM_OFF(GSP_FMC_BOOT_PARAMS, gspRmParams, 40);
NVRM_OFF(GSP_FMC_BOOT_PARAMS, gspSpdmParams, 56);
NVRM_SIZE(GSP_ACR_BOOT_GSP_RM_PARAMS, 32);
NVRM_OFF(GSP_ACR_BOOT_GSP_RM_PARAMS, gspRmDescSize, 4);
NVRM_OFF(GSP_ACR_BOOT_GSP_RM_PARAMS, gspRmDescOffset, 8);
NVRM_OFF(GSP_ACR_BOOT_GSP_RM_PARAMS, wprCarveoutOffset, 16);
NVRM_OFF(GSP_ACR_BOOT_GSP_RM_PARAMS, wprCarveoutSize, 24);
NVRM_OFF(GSP_ACR_BOOT_GSP_RM_PARAMS, bIsGspRmBoot, 28);
NVRM_SIZE(GSP_RM_PARAMS, 16);
NVRM_OFF(GSP_RM_PARAMS, bootArgsOffset, 8);
NVRM_SIZE(GSP_SPDM_PARAMS, 24);
NVRM_OFF(GSP_SPDM_PARAMS, payloadBufferOffset, 8);
NVRM_OFF(GSP_SPDM_PARAMS, payloadBufferSize, 16);
#undef NVRM_SIZE
#undef NVRM_ALIGN
#undef NVRM_OFF

#endif /* NOVA_GSP_FW_R570_144_NVRM_H */
