/* main.c: boot and the event loop of the control processor.
 *
 * Boot: read the capabilities through the BAR0 view, log one line, wait
 * for the TPT to clear itself after reset (mem_init), empty the VI table
 * (vi_init), write READY (the
 * driver waits for it). Then pop hardware events forever and
 * sleep in WFI when there are none. The admin path copies the command out
 * of its window, runs admin_execute (admin.c, pure logic) and writes the
 * response back before ADMIN_COMPLETE; the host owns neither copy while the
 * firmware works on it. */
#include <stdint.h>

#include "admin.h"
#include "cm.h"
#include "hw.h"
#include "log.h"
#include "mem.h"
#include "vi.h"
#include "version.h"

/* link.ld */
extern char _image_end[], _dmem_start[], _bss_end[], _stack_top[];

static admin_caps_t caps;

/* Word views of the command and response, so the windows are copied with
 * 32-bit accesses only. */
static union {
    via_admin_cmd_t s;
    uint32_t w[VIA_ADMIN_CMD_BYTES / 4];
} cmd;
static union {
    via_admin_rsp_t s;
    uint32_t w[VIA_ADMIN_RSP_BYTES / 4];
} rsp;

/* Response words the last answer may have left non-zero in the window. The
 * window's content at boot is unknown, so the first answer clears it all;
 * later ones rewrite only what they or their predecessor used. */
static uint32_t rsp_dirty_words = VIA_ADMIN_RSP_BYTES / 4;

enum { HDR_WORDS = VIA_ADMIN_CMD_PAYLOAD_OFFSET / 4 };
_Static_assert(VIA_ADMIN_CMD_PAYLOAD_OFFSET == VIA_ADMIN_RSP_PAYLOAD_OFFSET, "CMD and RSP headers differ");

void log_write_word(uint32_t w)
{
    /* A full FIFO drops the word and counts it (FW_LOG_LEVEL.DROPPED):
     * the firmware never waits for the host to read its log. */
    hw_write(VIA_FW_REG_LOG, w);
}

uint32_t tpt_read(uint32_t reg)
{
    return hw_read(reg);
}

void tpt_write(uint32_t reg, uint32_t v)
{
    hw_write(reg, v);
}

uint32_t vi_ctx_read(uint32_t reg)
{
    return hw_read(reg);
}

void vi_ctx_write(uint32_t reg, uint32_t v)
{
    hw_write(reg, v);
}

static void admin_event(void)
{
    for (uint32_t i = 0; i < HDR_WORDS; i++)
        cmd.w[i] = hw_admin_cmd_word(i);
    /* Only the payload the command says it uses; admin_execute rejects
     * LEN > PAYLOAD_MAX before it looks at the payload. */
    uint32_t len = cmd.s.len <= VIA_ADMIN_PAYLOAD_MAX ? cmd.s.len : 0;
    uint32_t words = HDR_WORDS + (len + 3) / 4;
    for (uint32_t i = HDR_WORDS; i < words; i++)
        cmd.w[i] = hw_admin_cmd_word(i);

    admin_execute(&cmd.s, &rsp.s, &caps);

    uint32_t used = HDR_WORDS + (rsp.s.len + 3) / 4;
    uint32_t n = used > rsp_dirty_words ? used : rsp_dirty_words;
    for (uint32_t i = 0; i < n; i++)
        hw_admin_rsp_word(i, rsp.w[i]);
    rsp_dirty_words = used;
    hw_write(VIA_FW_REG_ADMIN_COMPLETE, 1);

    if (rsp.s.status != VIA_ADMIN_ST_OK)
        fw_log("admin: op %u seq %u flags 0x%x len %u: status %u\n", (unsigned)cmd.s.opcode,
               (unsigned)cmd.s.seq, (unsigned)cmd.s.flags, (unsigned)cmd.s.len, (unsigned)rsp.s.status);
}

static void boot(void)
{
    uint32_t cpu = hw_bar0_read(VIA_REG_CAP_CPU);
    uint32_t imem = via_cap_cpu_imem_kb_get(cpu) << 10;
    uint32_t dmem = via_cap_cpu_dmem_kb_get(cpu) << 10;

    caps.hw_version = hw_bar0_read(VIA_REG_HW_VERSION);
    /* One VI per doorbell page, as many as the VI table holds. */
    caps.num_vi = vi_init(via_cap_vi_num_vi_get(hw_bar0_read(VIA_REG_CAP_VI)));
    caps.data_width = via_cap_datapath_data_width_get(hw_bar0_read(VIA_REG_CAP_DATAPATH));
    uint32_t vq = hw_bar0_read(VIA_REG_CAP_VI_QUEUE);
    caps.max_desc = via_cap_vi_queue_max_desc_get(vq);
    caps.max_segs = via_cap_vi_queue_max_segs_get(vq);
    caps.node_id = via_cap_net_node_id_get(hw_bar0_read(VIA_REG_CAP_NET));
    uint32_t cqcap = hw_bar0_read(VIA_REG_CQ_CAP);
    caps.num_cq = via_cq_cap_num_get(cqcap);
    caps.cq_entries = 1u << via_cq_cap_max_log2_get(cqcap);
    vi_set_node(caps.node_id);
    cm_init(caps.node_id);
    /* CAP_TPT says 4..16 (16..65536 regions); 0 is a NIC without a TPT
     * (registration then says NO_RESOURCE and never touches the TPT). */
    uint32_t rlog2 = via_cap_tpt_regions_log2_get(hw_bar0_read(VIA_REG_CAP_TPT));
    caps.regions = mem_init(rlog2 == 0 ? 0 : 1u << (rlog2 < 16 ? rlog2 : 16));

    fw_log("vianic fw %u.%u: %u VIs, %u regions, imem %u/%u B, dmem %u/%u B\n", (unsigned)FW_VERSION_MAJOR,
           (unsigned)FW_VERSION_MINOR, (unsigned)caps.num_vi, (unsigned)caps.regions, (unsigned)(uintptr_t)_image_end,
           (unsigned)imem, (unsigned)(_bss_end - _dmem_start), (unsigned)dmem);
    /* The stack already lives at the linked end of data memory: a smaller
     * memory would have faulted before this line, a larger one is unused. */
    if (imem < (uint32_t)(uintptr_t)_image_end || dmem < (uint32_t)(_stack_top - _dmem_start))
        fw_log("fw: warning: CAP_CPU memories are smaller than the image's link map\n");

    hw_write(VIA_FW_REG_READY, ((uint32_t)VIA_FW_READY_MAGIC_VALUE << 16) | FW_VERSION);
}

/* cm.h's hardware: the CM_TX and CM_RX registers, HOST_EVENT. */
void cm_hw_send(const cm_msg_t *m)
{
    while (via_fw_cm_tx_status_busy_get(hw_read(VIA_FW_REG_CM_TX_STATUS)))
        ;
    hw_write(VIA_FW_REG_CM_TX_DST, via_fw_cm_tx_dst_vi_set(via_fw_cm_tx_dst_node_set(0, m->node), m->dst_vi));
    hw_write(VIA_FW_REG_CM_TX_SRC_VI, m->src_vi & 0xffffu);
    const uint32_t *w = (const uint32_t *)&m->cm;
    for (uint32_t i = 0; i < 8; i++)
        hw_write(VIA_FW_REG_CM_TX_DATA0 + 4 * i, w[i]);
    hw_write(VIA_FW_REG_CM_TX_SEND, 1);
}

void cm_hw_host_event(void) { hw_write(VIA_FW_REG_HOST_EVENT, 1); }

void cm_hw_async_error(uint32_t code, uint32_t vi)
{
    hw_write(VIA_FW_REG_AERR_PUSH, via_fw_aerr_push_code_set(via_fw_aerr_push_vi_set(0, vi), code));
}

void cm_rx_drain(void)
{
    while (via_fw_cm_rx_status_valid_get(hw_read(VIA_FW_REG_CM_RX_STATUS))) {
        cm_msg_t m;
        uint32_t src = hw_read(VIA_FW_REG_CM_RX_SRC);
        m.node = via_fw_cm_rx_src_node_get(src);
        m.src_vi = via_fw_cm_rx_src_vi_get(src);
        m.dst_vi = hw_read(VIA_FW_REG_CM_RX_DST_VI) & 0xffffu;
        uint32_t *w = (uint32_t *)&m.cm;
        for (uint32_t i = 0; i < 8; i++)
            w[i] = hw_read(VIA_FW_REG_CM_RX_DATA0 + 4 * i);
        hw_write(VIA_FW_REG_CM_RX_POP, 0);
        cm_rx(&m);
    }
}

/* The VIs whose reliable connection the data path broke (VI_CTX_BREAK):
 * each one's bit cleared, then cm_break. */
static void break_drain(void)
{
    uint32_t b;
    while ((b = hw_read(VIA_FW_REG_VI_CTX_BREAK)) & VIA_FW_VI_CTX_BREAK_VALID_MASK) {
        uint32_t vi = b & VIA_FW_VI_CTX_BREAK_VI_MASK;
        hw_write(VIA_FW_REG_VI_CTX_BREAK, vi);
        cm_break(vi);
    }
}

int main(void)
{
    boot();
    for (;;) {
        uint32_t ev = hw_read(VIA_FW_REG_EVENT);
        switch (via_fw_event_code_get(ev)) {
        case VIA_FW_EV_NONE:
            /* a CONNECT message or a broken connection whose event a
             * full FIFO dropped */
            cm_rx_drain();
            break_drain();
            hw_wait_for_event();
            break;
        case VIA_FW_EV_CM:
            cm_rx_drain();
            break;
        case VIA_FW_EV_BREAK:
            break_drain();
            break;
        case VIA_FW_EV_ADMIN:
            admin_event();
            break;
        case VIA_FW_EV_TIMER:
            /* No timer is armed yet (connection timeouts will arm it). */
            break;
        default:
            fw_log("fw: unknown event 0x%08x\n", (unsigned)ev);
            break;
        }
    }
}
