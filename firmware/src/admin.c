/* admin.c: admin command decoding and execution (see admin.h). */
#include <stddef.h>
#include <stdint.h>

#include "admin.h"

#include "cm.h"
#include "lib.h"
#include "mem.h"
#include "vi.h"
#include "version.h"

/* Provisional NIC attributes: the blocks that will bound these (queue
 * state, CQ engine, packetizer, reliability engine) are not in the hardware
 * yet, and there is no capability register for them. Each value says which
 * later hardware will supply it; until then these are the promises the
 * driver and VIPL are built against. The registration limits are real:
 * admin.layout's constants (enforced by mem.c) and the TPT's regions; so
 * are the VI limits (vi.c enforces MAX_VI, MAX_TRANSFER_SIZE and the two
 * support masks of admin.h). The transfer size (admin.layout's
 * MAX_TRANSFER_SIZE, 64 KiB) is a firmware choice, since the packetizer
 * will segment to the link MTU; VIA asks for at least 32 KiB. */
enum {
    /* Connection manager (firmware + fabric): discriminator bytes carried in
     * a connect request. */
    ATTR_MAX_DISCRIMINATOR_LEN = 64,
    /* CQ engine (a future CAP_CQ register): one CQ per VI for now. */
    /* Packetizer/fabric (a future CAP_NET field): payload bytes per packet. */
    ATTR_NATIVE_MTU = 4096,
    /* The NIC's address is its node number (CAP_NET.NODE_ID, the fabric
     * port): one byte, as the wire's DST_NODE/SRC_NODE. */
    ATTR_NIC_ADDRESS_LEN = 1,
    /* The Go VIPL is safe for concurrent use. */
    ATTR_THREAD_SAFE = 1,
};

static const char nic_name[] = "vianic";

void admin_fill_nic_attrs(via_admin_nic_attrs_t *a, const admin_caps_t *caps)
{
    memset(a, 0, sizeof *a);
    memcpy(a->name, nic_name, sizeof nic_name);
    a->hardware_version = caps->hw_version;
    a->provider_version = FW_VERSION;
    a->nic_address_len = ATTR_NIC_ADDRESS_LEN;
    a->local_nic_address[0] = (uint8_t)caps->node_id;
    a->thread_safe = ATTR_THREAD_SAFE;
    a->max_discriminator_len = ATTR_MAX_DISCRIMINATOR_LEN;
    a->max_register_bytes = VIA_ADMIN_MAX_REGISTER_BYTES;
    a->max_register_regions = caps->regions;
    a->max_register_block_bytes = VIA_ADMIN_MAX_REGISTER_BLOCK_BYTES;
    a->max_vi = caps->num_vi;
    /* The queue limits are the hardware's (CAP_VI_QUEUE): descriptors are
     * chained through Next in host memory, and the doorbell block counts
     * at most MAX_DESC of them outstanding per queue. */
    a->max_descriptors_per_queue = caps->max_desc;
    a->max_segments_per_desc = caps->max_segs;
    /* Completion queues are the hardware's (CQ_CAP, via_cq). */
    a->max_cq = caps->num_cq;
    a->max_cq_entries = caps->num_cq == 0 ? 0 : caps->cq_entries;
    a->max_transfer_size = VIA_ADMIN_MAX_TRANSFER_SIZE;
    a->native_mtu = ATTR_NATIVE_MTU;
    a->max_ptags = VIA_ADMIN_MAX_PTAGS;
    a->reliability_level_support = FW_RELIABILITY_LEVEL_SUPPORT;
    a->rdma_read_support = FW_RDMA_READ_SUPPORT;
}

_Static_assert(sizeof(via_admin_nic_attrs_t) <= VIA_ADMIN_PAYLOAD_MAX, "NIC_ATTRS must fit a response payload");
_Static_assert(sizeof(((via_admin_cmd_t *)0)->payload) == VIA_ADMIN_PAYLOAD_MAX, "CMD payload size");
_Static_assert(sizeof(((via_admin_rsp_t *)0)->payload) == VIA_ADMIN_PAYLOAD_MAX, "RSP payload size");

/* Payload bytes a command must have (LEN); ANY_LEN: NOP and QUERY_NIC
 * ignore theirs, ECHO answers it. */
enum { ANY_LEN = 0xFF };

void admin_execute(const via_admin_cmd_t *cmd, via_admin_rsp_t *rsp, const admin_caps_t *caps)
{
    /* Read each header field once: the caller's copy is stable, but reading
     * once keeps the checks and their use on the same value by construction. */
    uint16_t opcode = cmd->opcode;
    uint16_t flags = cmd->flags;
    uint32_t seq = cmd->seq;
    uint32_t len = cmd->len;
    uint32_t want;

    memset(rsp, 0, sizeof *rsp);
    rsp->opcode = opcode;
    rsp->seq = seq;

    switch (opcode) {
    case VIA_ADMIN_OP_NOP:
    case VIA_ADMIN_OP_QUERY_NIC:
    case VIA_ADMIN_OP_ECHO:
        want = ANY_LEN;
        break;
    case VIA_ADMIN_OP_CREATE_PTAG:
        want = 0;
        break;
    case VIA_ADMIN_OP_DESTROY_PTAG:
        want = sizeof(via_admin_ptag_args_t);
        break;
    case VIA_ADMIN_OP_REGISTER_MEM:
        want = sizeof(via_admin_reg_mem_t);
        break;
    case VIA_ADMIN_OP_DEREGISTER_MEM:
    case VIA_ADMIN_OP_QUERY_MEM:
        want = sizeof(via_admin_mem_handle_t);
        break;
    case VIA_ADMIN_OP_SET_MEM_ATTRS:
        want = sizeof(via_admin_set_mem_t);
        break;
    case VIA_ADMIN_OP_CREATE_VI:
        want = sizeof(via_admin_create_vi_t);
        break;
    case VIA_ADMIN_OP_DESTROY_VI:
    case VIA_ADMIN_OP_QUERY_VI:
    case VIA_ADMIN_OP_DISCONNECT_VI:
        want = sizeof(via_admin_vi_args_t);
        break;
    case VIA_ADMIN_OP_CONNECT_REMOTE:
        want = sizeof(via_admin_connect_remote_t);
        break;
    case VIA_ADMIN_OP_CONNECT_LOOPBACK:
        want = sizeof(via_admin_connect_loopback_t);
        break;
    case VIA_ADMIN_OP_MODIFY_VI:
        want = sizeof(via_admin_modify_vi_t);
        break;
    case VIA_ADMIN_OP_CM_LISTEN:
        want = sizeof(via_admin_cm_listen_t);
        break;
    case VIA_ADMIN_OP_CM_UNLISTEN:
    case VIA_ADMIN_OP_CM_REJECT:
        want = sizeof(via_admin_cm_id_t);
        break;
    case VIA_ADMIN_OP_CM_REQUEST:
    case VIA_ADMIN_OP_CM_PEER_REQUEST:
        want = sizeof(via_admin_cm_request_t);
        break;
    case VIA_ADMIN_OP_CM_ACCEPT:
        want = sizeof(via_admin_cm_accept_t);
        break;
    case VIA_ADMIN_OP_CM_CANCEL:
        want = sizeof(via_admin_vi_args_t);
        break;
    case VIA_ADMIN_OP_CM_POLL:
        want = 0;
        break;
    default:
        rsp->status = VIA_ADMIN_ST_UNKNOWN_CMD;
        return;
    }
    if (flags != 0 || len > VIA_ADMIN_PAYLOAD_MAX || (want != ANY_LEN && len != want)) {
        rsp->status = VIA_ADMIN_ST_BAD_PARAM;
        return;
    }

    /* The payloads start word aligned (offset 16 of an aligned struct), so
     * they are read and written in place through the generated structs; the
     * mem and vi functions write their output only on ST_OK. */
    const void *in = cmd->payload;
    void *out = rsp->payload;
    uint32_t st = VIA_ADMIN_ST_OK, out_len = 0;
    switch (opcode) {
    case VIA_ADMIN_OP_QUERY_NIC:
        admin_fill_nic_attrs(out, caps);
        out_len = sizeof(via_admin_nic_attrs_t);
        break;
    case VIA_ADMIN_OP_ECHO:
        memcpy(out, in, len);
        out_len = len;
        break;
    case VIA_ADMIN_OP_CREATE_PTAG:
        st = mem_create_ptag(&((via_admin_ptag_args_t *)out)->ptag);
        out_len = sizeof(via_admin_ptag_args_t);
        break;
    case VIA_ADMIN_OP_DESTROY_PTAG:
        st = mem_destroy_ptag(((const via_admin_ptag_args_t *)in)->ptag);
        break;
    case VIA_ADMIN_OP_REGISTER_MEM:
        st = mem_register(in, &((via_admin_mem_handle_t *)out)->handle);
        out_len = sizeof(via_admin_mem_handle_t);
        break;
    case VIA_ADMIN_OP_DEREGISTER_MEM:
        st = mem_deregister(((const via_admin_mem_handle_t *)in)->handle);
        break;
    case VIA_ADMIN_OP_QUERY_MEM:
        st = mem_query(((const via_admin_mem_handle_t *)in)->handle, out);
        out_len = sizeof(via_admin_mem_attrs_t);
        break;
    case VIA_ADMIN_OP_SET_MEM_ATTRS:
        st = mem_set_attrs(in);
        break;
    case VIA_ADMIN_OP_CREATE_VI:
        st = vi_create(in, &((via_admin_vi_args_t *)out)->vi);
        out_len = sizeof(via_admin_vi_args_t);
        break;
    case VIA_ADMIN_OP_DESTROY_VI:
        st = vi_destroy(((const via_admin_vi_args_t *)in)->vi);
        break;
    case VIA_ADMIN_OP_QUERY_VI:
        st = vi_query(((const via_admin_vi_args_t *)in)->vi, out);
        out_len = sizeof(via_admin_vi_info_t);
        break;
    case VIA_ADMIN_OP_MODIFY_VI:
        st = vi_modify(in);
        break;
    case VIA_ADMIN_OP_CONNECT_LOOPBACK:
        st = vi_connect_loopback(in);
        break;
    case VIA_ADMIN_OP_CONNECT_REMOTE:
        st = vi_connect_remote(in);
        break;
    case VIA_ADMIN_OP_DISCONNECT_VI: {
        uint32_t vi = ((const via_admin_vi_args_t *)in)->vi, node = 0, peer = 0;
        int remote = vi_peer_of(vi, &node, &peer) == VIA_ADMIN_ST_OK && node != vi_self_node();
        st = vi_disconnect(vi);
        if (st == VIA_ADMIN_ST_OK && remote)
            cm_disconnected(vi, node, peer);
        break;
    }
    case VIA_ADMIN_OP_CM_LISTEN:
        st = cm_listen(in, out);
        out_len = sizeof(via_admin_cm_id_t);
        break;
    case VIA_ADMIN_OP_CM_UNLISTEN:
        st = cm_unlisten(((const via_admin_cm_id_t *)in)->id);
        break;
    case VIA_ADMIN_OP_CM_REQUEST:
        st = cm_request(in, out);
        out_len = sizeof(via_admin_cm_id_t);
        break;
    case VIA_ADMIN_OP_CM_PEER_REQUEST:
        st = cm_peer_request(in, out);
        out_len = sizeof(via_admin_cm_id_t);
        break;
    case VIA_ADMIN_OP_CM_ACCEPT:
        st = cm_accept(in);
        break;
    case VIA_ADMIN_OP_CM_REJECT:
        st = cm_reject(((const via_admin_cm_id_t *)in)->id);
        break;
    case VIA_ADMIN_OP_CM_CANCEL:
        st = cm_cancel(((const via_admin_vi_args_t *)in)->vi);
        break;
    case VIA_ADMIN_OP_CM_POLL:
        st = cm_poll(out);
        out_len = sizeof(via_admin_cm_event_t);
        break;
    default: /* VIA_ADMIN_OP_NOP */
        break;
    }
    rsp->status = (uint16_t)st;
    rsp->len = st == VIA_ADMIN_ST_OK ? out_len : 0;
}
