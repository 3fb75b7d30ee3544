// SPDX-License-Identifier: GPL-2.0
/*
 * The RM API requests nouveau builds, from nouveau's own headers: each function below is the
 * nouveau function it is named after, cut down to what it writes into the request (same
 * structures, same field assignments, same zeroed buffer), and each request is printed instead
 * of sent. fuzz/tests/rm_nouveau_bytes.rs compiles this file with the kernel tree's nouveau
 * headers, once per firmware version, and holds the driver's requests against its output:
 *
 *   clang -std=gnu11 -I $NOVA_NOUVEAU/include -I $NOVA_NOUVEAU/nvkm/subdev/gsp/rm \
 *         [-DR570] rm_requests.c
 *   ./a.out HINTERNALCLIENT HINTERNALSUBDEVICE
 *
 * ($NOVA_NOUVEAU is the kernel tree's drivers/gpu/drm/nouveau; the two handles are GSP-RM's
 * internal client and subdevice, which nouveau reads from the static information.)
 *
 * Output: one line per request, `<name> <hex bytes>`, the bytes being the RPC's payload after
 * nouveau's `nvfw_gsp_rpc` header (what the driver's request builders return).
 *
 * Which headers: each nouveau file includes its own directory's. With 570.144 nouveau runs
 * r535's alloc.c, ctrl.c and device.c (rm/r570/rm.c, r570_api), r535's FIFO runlist
 * constructor (r570_fifo's runl_ctor, rm/r570/fifo.c) and r535's gsp.c's controls, so those
 * requests come from the r535 headers in both versions; the client (r570/client.c) and the
 * GPC and TPC controls (r570/gr.c) come from the r570 headers. nouveau sends no GPC or TPC
 * control with 535.113.01 (it reads the masks from the static information, r535/gsp.c), and
 * r535's headers have no command number for them: that version prints only their parameters,
 * as r535/nvrm/gsp.h lays them out.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What nouveau's headers take from the kernel. */
typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
#define __counted_by(member)

#include <handles.h>
#include <r535/nvrm/alloc.h>
#include <r535/nvrm/ctrl.h>
#include <r535/nvrm/device.h>
#include <r535/nvrm/fifo.h>
#include <r535/nvrm/gsp.h>
#ifdef R570
#include <r570/nvrm/client.h>
/*
 * r570/nvrm/gr.h declares the GPC and TPC parameters r535/nvrm/gsp.h also declares (for the
 * static information); no nouveau file includes both. r570's are renamed, and the names
 * below mean r570's from here on, as in r570/gr.c.
 */
#define NV2080_CTRL_GPU_GET_FERMI_GPC_INFO_PARAMS r570_NV2080_CTRL_GPU_GET_FERMI_GPC_INFO_PARAMS
#define NV2080_CTRL_GPU_GET_FERMI_TPC_INFO_PARAMS r570_NV2080_CTRL_GPU_GET_FERMI_TPC_INFO_PARAMS
#include <r570/nvrm/gr.h>
#else
#include <r535/nvrm/client.h>
#endif

/* include/nvkm/subdev/gsp.h, as far as the requests read it. */
struct nvkm_gsp_client;

struct nvkm_gsp_object {
	struct nvkm_gsp_client *client;
	struct nvkm_gsp_object *parent;
	u32 handle;
};

struct nvkm_gsp_client {
	struct nvkm_gsp_object object;
};

struct nvkm_gsp_device {
	struct nvkm_gsp_object object;
	struct nvkm_gsp_object subdevice;
};

/* The RPC being built: its payload and size. */
static u8 *rpc_payload;
static u32 rpc_size;

/*
 * rm/r535/rpc.c, r535_gsp_rpc_get: the payload of a zeroed message (kvzalloc in
 * r535_gsp_cmdq_get).
 */
static void *nvkm_gsp_rpc_get(u32 payload_size)
{
	rpc_payload = calloc(1, payload_size);
	if (!rpc_payload) {
		perror("calloc");
		exit(1);
	}
	rpc_size = payload_size;
	return rpc_payload;
}

/* Where nouveau sends the RPC (nvkm_gsp_rpc_wr, _push): the payload, printed. */
static void sent(const char *name)
{
	printf("%s ", name);
	for (u32 i = 0; i < rpc_size; i++)
		printf("%02x", rpc_payload[i]);
	printf("\n");
	free(rpc_payload);
	rpc_payload = NULL;
}

/* rm/r535/alloc.c, r535_gsp_rpc_rm_alloc_get. */
static void *r535_gsp_rpc_rm_alloc_get(struct nvkm_gsp_object *object, u32 oclass,
				       u32 params_size)
{
	struct nvkm_gsp_client *client = object->client;
	rpc_gsp_rm_alloc_v03_00 *rpc;

	rpc = nvkm_gsp_rpc_get(sizeof(*rpc) + params_size);

	rpc->hClient = client->object.handle;
	rpc->hParent = object->parent->handle;
	rpc->hObject = object->handle;
	rpc->hClass = oclass;
	rpc->status = 0;
	rpc->paramsSize = params_size;
	return rpc->params;
}

/* rm/r535/alloc.c, r535_gsp_rpc_rm_free. */
static void r535_gsp_rpc_rm_free(const char *name, struct nvkm_gsp_object *object)
{
	struct nvkm_gsp_client *client = object->client;
	rpc_free_v03_00 *rpc;

	rpc = nvkm_gsp_rpc_get(sizeof(*rpc));

	rpc->params.hRoot = client->object.handle;
	rpc->params.hObjectParent = 0;
	rpc->params.hObjectOld = object->handle;
	sent(name);
}

/* rm/r535/ctrl.c, r535_gsp_rpc_rm_ctrl_get. */
static void *r535_gsp_rpc_rm_ctrl_get(struct nvkm_gsp_object *object, u32 cmd, u32 params_size)
{
	struct nvkm_gsp_client *client = object->client;
	rpc_gsp_rm_control_v03_00 *rpc;

	rpc = nvkm_gsp_rpc_get(sizeof(*rpc) + params_size);

	rpc->hClient = client->object.handle;
	rpc->hObject = object->handle;
	rpc->cmd = cmd;
	rpc->status = 0;
	rpc->paramsSize = params_size;
	return rpc->params;
}

/* include/nvkm/subdev/gsp.h, nvkm_gsp_rm_alloc_get. */
static void *nvkm_gsp_rm_alloc_get(struct nvkm_gsp_object *parent, u32 handle, u32 oclass,
				   u32 argc, struct nvkm_gsp_object *object)
{
	object->client = parent->client;
	object->parent = parent;
	object->handle = handle;

	return r535_gsp_rpc_rm_alloc_get(object, oclass, argc);
}

/*
 * rm/client.c, nvkm_gsp_client_ctor (the first client: id 0), then rm/r535/client.c or
 * rm/r570/client.c, r5x0_gsp_client_ctor.
 */
static void gsp_client_ctor(struct nvkm_gsp_client *client)
{
	const u32 handle = NVKM_RM_CLIENT(0);
	NV0000_ALLOC_PARAMETERS *args;

	client->object.client = client;

	args = nvkm_gsp_rm_alloc_get(&client->object, handle, NV01_ROOT, sizeof(*args),
				     &client->object);

	args->hClient = client->object.handle;
	args->processID = ~0;

	sent("alloc.root");
}

/* rm/r535/device.c, r535_gsp_subdevice_ctor (through nvkm_gsp_rm_alloc: no field set). */
static void r535_gsp_subdevice_ctor(struct nvkm_gsp_device *device)
{
	NV2080_ALLOC_PARAMETERS *args;

	nvkm_gsp_rm_alloc_get(&device->object, NVKM_RM_SUBDEVICE, NV20_SUBDEVICE_0, sizeof(*args),
			      &device->subdevice);
	sent("alloc.subdevice");
}

/* rm/r535/device.c, r535_gsp_device_ctor. */
static void r535_gsp_device_ctor(struct nvkm_gsp_client *client, struct nvkm_gsp_device *device)
{
	NV0080_ALLOC_PARAMETERS *args;

	args = nvkm_gsp_rm_alloc_get(&client->object, NVKM_RM_DEVICE, NV01_DEVICE_0, sizeof(*args),
				     &device->object);

	args->hClientShare = client->object.handle;

	sent("alloc.device");

	r535_gsp_subdevice_ctor(device);
}

/* rm/r535/device.c, r535_gsp_device_dtor; rm/client.c, nvkm_gsp_client_dtor. */
static void gsp_client_device_dtor(struct nvkm_gsp_client *client, struct nvkm_gsp_device *device)
{
	r535_gsp_rpc_rm_free("free.subdevice", &device->subdevice);
	r535_gsp_rpc_rm_free("free.device", &device->object);
	r535_gsp_rpc_rm_free("free.root", &client->object);
}

#ifdef R570
/* rm/r570/gr.c, r570_gr_gpc_mask (nvkm_gsp_rm_ctrl_rd: no field set). */
static void r570_gr_gpc_mask(struct nvkm_gsp_object *subdevice)
{
	NV2080_CTRL_GPU_GET_FERMI_GPC_INFO_PARAMS *ctrl;

	ctrl = r535_gsp_rpc_rm_ctrl_get(subdevice, NV2080_CTRL_CMD_GPU_GET_FERMI_GPC_INFO,
					sizeof(*ctrl));
	(void)ctrl;
	sent("ctrl.gpc_info");
}

/* rm/r570/gr.c, r570_gr_tpc_mask. */
static void r570_gr_tpc_mask(struct nvkm_gsp_object *subdevice, int gpc, const char *name)
{
	NV2080_CTRL_GPU_GET_FERMI_TPC_INFO_PARAMS *ctrl;

	ctrl = r535_gsp_rpc_rm_ctrl_get(subdevice, NV2080_CTRL_CMD_GPU_GET_FERMI_TPC_INFO,
					sizeof(*ctrl));

	ctrl->gpcId = gpc;

	sent(name);
}
#else
/* 535.113.01: r570/gr.c's parameters in r535/nvrm/gsp.h's layout, without a frame. */
static void r535_gr_gpc_mask_params(void)
{
	NV2080_CTRL_GPU_GET_FERMI_GPC_INFO_PARAMS *ctrl;

	ctrl = nvkm_gsp_rpc_get(sizeof(*ctrl));
	(void)ctrl;
	sent("params.gpc_info");
}

static void r535_gr_tpc_mask_params(int gpc, const char *name)
{
	NV2080_CTRL_GPU_GET_FERMI_TPC_INFO_PARAMS *ctrl;

	ctrl = nvkm_gsp_rpc_get(sizeof(*ctrl));

	ctrl->gpcId = gpc;

	sent(name);
}
#endif

/* rm/r535/fifo.c, r535_fifo_runl_ctor: its last control (nvkm_gsp_rm_ctrl_rd). */
static void r535_fifo_method_buffer_size(struct nvkm_gsp_object *subdevice)
{
	NV2080_CTRL_CE_GET_FAULT_METHOD_BUFFER_SIZE_PARAMS *ctrl;

	ctrl = r535_gsp_rpc_rm_ctrl_get(subdevice, NV2080_CTRL_CMD_CE_GET_FAULT_METHOD_BUFFER_SIZE,
					sizeof(*ctrl));
	(void)ctrl;
	sent("ctrl.ce_fault_method_buffer_size");
}

/* rm/r535/gsp.c, r535_gsp_intr_get_table. */
static void r535_gsp_intr_get_table(struct nvkm_gsp_object *subdevice)
{
	NV2080_CTRL_INTERNAL_INTR_GET_KERNEL_TABLE_PARAMS *ctrl;

	ctrl = r535_gsp_rpc_rm_ctrl_get(subdevice, NV2080_CTRL_CMD_INTERNAL_INTR_GET_KERNEL_TABLE,
					sizeof(*ctrl));
	(void)ctrl;
	sent("ctrl.intr_kernel_table");
}

/* rm/r535/fifo.c, r535_fifo_runl_ctor: the device information table (nvkm_gsp_rm_ctrl_rd). */
static void r535_fifo_device_info_table(struct nvkm_gsp_object *subdevice)
{
	NV2080_CTRL_FIFO_GET_DEVICE_INFO_TABLE_PARAMS *ctrl;

	ctrl = r535_gsp_rpc_rm_ctrl_get(subdevice, NV2080_CTRL_CMD_FIFO_GET_DEVICE_INFO_TABLE,
					sizeof(*ctrl));
	(void)ctrl;
	sent("ctrl.fifo_device_info_table");
}

#ifdef R570
/* rm/r535/gsp.c, r535_gsp_get_static_memsys_info, called with 570.144 only (rm/r570/gsp.c). */
static void r535_gsp_get_static_memsys_info(struct nvkm_gsp_object *subdevice)
{
	NV2080_CTRL_INTERNAL_MEMSYS_GET_STATIC_CONFIG_PARAMS *ctrl;

	ctrl = r535_gsp_rpc_rm_ctrl_get(subdevice,
					NV2080_CTRL_CMD_INTERNAL_MEMSYS_GET_STATIC_CONFIG,
					sizeof(*ctrl));
	(void)ctrl;
	sent("ctrl.memsys_static_config");
}
#endif

static u32 handle_arg(const char *arg)
{
	char *end;
	unsigned long v = strtoul(arg, &end, 0);

	if (*arg == '\0' || *end != '\0' || v > UINT32_MAX) {
		fprintf(stderr, "not a handle: %s\n", arg);
		exit(2);
	}
	return (u32)v;
}

int main(int argc, char **argv)
{
	struct nvkm_gsp_client client;
	struct nvkm_gsp_device device;
	struct nvkm_gsp_client internal;
	struct nvkm_gsp_object subdevice;

	if (argc != 3) {
		fprintf(stderr, "usage: %s HINTERNALCLIENT HINTERNALSUBDEVICE\n", argv[0]);
		return 2;
	}

	memset(&client, 0, sizeof(client));
	memset(&device, 0, sizeof(device));
	gsp_client_ctor(&client);
	r535_gsp_device_ctor(&client, &device);
	gsp_client_device_dtor(&client, &device);

	/*
	 * rm/r535/gsp.c, r535_gsp_get_static_info: GSP-RM's internal client and subdevice, which
	 * the probe's controls go to (the subdevice's parent, the internal device, is in none of
	 * the requests).
	 */
	internal.object.client = &internal;
	internal.object.parent = NULL;
	internal.object.handle = handle_arg(argv[1]);
	subdevice.client = &internal;
	subdevice.parent = NULL;
	subdevice.handle = handle_arg(argv[2]);

#ifdef R570
	r570_gr_gpc_mask(&subdevice);
	r570_gr_tpc_mask(&subdevice, 0, "ctrl.tpc_info.0");
	r570_gr_tpc_mask(&subdevice, 3, "ctrl.tpc_info.3");
#else
	r535_gr_gpc_mask_params();
	r535_gr_tpc_mask_params(0, "params.tpc_info.0");
	r535_gr_tpc_mask_params(3, "params.tpc_info.3");
#endif
	r535_fifo_method_buffer_size(&subdevice);
	r535_gsp_intr_get_table(&subdevice);
	r535_fifo_device_info_table(&subdevice);
#ifdef R570
	r535_gsp_get_static_memsys_info(&subdevice);
#endif

	return fflush(stdout) == 0 ? 0 : 1;
}
