/* admin.h: the admin command interface (docs/admin.md), as pure logic. The
 * caller copies the host's command out of the ADMIN_CMD window, calls
 * admin_execute and copies the response into the ADMIN_RSP window; nothing
 * here touches hardware, so the host-native tests (tests/test_admin.c) run
 * exactly this code. */
#ifndef FW_ADMIN_H
#define FW_ADMIN_H

#include <stdint.h>

#include "via_admin.h"

/* The reliability levels the NIC supports (NIC_ATTRS.RELIABILITY_LEVEL_
 * SUPPORT, mask: 1 unreliable, 2 reliable delivery, 4 reliable reception):
 * unreliable and reliable delivery (docs/vi.md, "RDMA read and Reliable
 * Delivery": the fabric is lossless and in order, so what the level adds
 * is RDMA read). vi.c accepts only these levels. */
#ifndef FW_RELIABILITY_LEVEL_SUPPORT /* a host test build may set others */
#define FW_RELIABILITY_LEVEL_SUPPORT 3u
#endif
/* The levels with RDMA read (NIC_ATTRS.RDMA_READ_SUPPORT): VIA offers it
 * on the reliable levels only; vi.c refuses EnableRdmaRead on a level
 * outside this mask. */
#define FW_RDMA_READ_SUPPORT 2u

/* What QUERY_NIC reports that the hardware knows: read from BAR0's
 * capability registers at boot (main.c), or made up by a test. */
typedef struct {
    uint32_t hw_version; /* HW_VERSION register value */
    uint32_t num_vi;     /* VIs the firmware can create (vi_init of CAP_VI.NUM_VI) */
    uint32_t data_width; /* CAP_DATAPATH.DATA_WIDTH, bits */
    uint32_t regions;    /* TPT regions registration uses (mem_init) */
    uint32_t max_desc;   /* CAP_VI_QUEUE.MAX_DESC: MaxDescriptorsPerQueue */
    uint32_t max_segs;   /* CAP_VI_QUEUE.MAX_SEGS: MaxSegmentsPerDesc */
    uint32_t node_id;    /* CAP_NET.NODE_ID: the NIC's network address */
    uint32_t num_cq;     /* CQ_CAP.NUM: MaxCQ */
    uint32_t cq_entries; /* 2**CQ_CAP.MAX_LOG2: MaxCQEntries (0: no CQs) */
} admin_caps_t;

/* admin_execute runs one command and fills *rsp completely (every byte is
 * written, reserved ones as zero). Any command, however malformed, gets an
 * answer; OPCODE and SEQ are always echoed. Checks, in order:
 *   unknown OPCODE               -> ST_UNKNOWN_CMD (the firmware cannot tell
 *                                   which flags or lengths it would accept)
 *   FLAGS != 0 or LEN > 240      -> ST_BAD_PARAM
 *   LEN not the size of the command's payload struct (CREATE_PTAG 0,
 *   DESTROY_PTAG 4, REGISTER_MEM 32, DEREGISTER_MEM 4, QUERY_MEM 4,
 *   SET_MEM_ATTRS 12, CREATE_VI 28, DESTROY_VI 4, QUERY_VI 4,
 *   MODIFY_VI 24)                -> ST_BAD_PARAM
 * then NOP -> ST_OK; QUERY_NIC -> ST_OK with NIC_ATTRS (LEN 240); ECHO ->
 * ST_OK with the first LEN payload bytes and LEN. NOP and QUERY_NIC ignore
 * their payload. The memory commands are mem.c's (mem.h); on ST_OK
 * CREATE_PTAG answers PTAG_ARGS, REGISTER_MEM MEM_HANDLE and QUERY_MEM
 * MEM_ATTRS, the others no payload. The VI commands are vi.c's (vi.h);
 * on ST_OK CREATE_VI answers VI_ARGS and QUERY_VI VI_INFO. On any status but ST_OK, LEN is 0 and
 * the payload zero. */
void admin_execute(const via_admin_cmd_t *cmd, via_admin_rsp_t *rsp, const admin_caps_t *caps);

/* admin_fill_nic_attrs writes QUERY_NIC's answer. */
void admin_fill_nic_attrs(via_admin_nic_attrs_t *a, const admin_caps_t *caps);

#endif /* FW_ADMIN_H */
