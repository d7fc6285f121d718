/* fake_ctx.h: a model of the per-VI context write port as the firmware sees
 * it through the VI_CTX_* registers of its peripheral window
 * (rtl/layouts/fw.layout), for the host tests. It implements vi.h's
 * vi_ctx_read/vi_ctx_write: the registers (each keeping its fields only), a
 * commit on VI_CTX_CMD.COMMIT that stays BUSY for `cmd_busy` VI_CTX_STATUS
 * reads and is then applied to the model's context table (what via_vi_ctx
 * and via_vi_queues would hold), and counts what the firmware must never do
 * (a violation): a commit while BUSY, a commit of a VI index at or above
 * `num_vi`, a store with bits outside the register's fields, an unknown
 * register. */
#ifndef FW_TEST_FAKE_CTX_H
#define FW_TEST_FAKE_CTX_H

#include <stdint.h>

#define FAKE_CTX_MAX_VI 1024u

typedef struct {
    uint8_t enable, state, rdma_write, rdma_read;
    uint8_t reliable; /* ATTR.RELIABLE: a reliable level, an error breaks the connection */
    uint32_t attr;    /* the whole ATTR word of the last commit (RESET_Q included) */
    uint16_t ptag, peer;
    uint8_t peer_node;
    uint32_t mtu;
    uint32_t commits; /* commits applied to this VI */
    uint32_t resets;  /* of them with RESET_Q */
    /* The queues (VI_CTX_STATUS.SEND_QUEUED bit 0, RECV_QUEUED bit 1 when
     * VI_CTX_VI is this VI): set by a test (descriptors posted), emptied by
     * a commit with RESET_Q, and by the flush: while the VI is in ERROR,
     * the flush_reads-th status read of it (FAKE_CTX_FLUSH_NEVER: none)
     * empties them. */
    uint32_t queued;
} fake_ctx_entry_t;

struct fake_ctx {
    uint32_t num_vi; /* the data path's NUM_VI */
    fake_ctx_entry_t e[FAKE_CTX_MAX_VI];

    /* Registers. */
    uint32_t vi, attr, ptag, mtu, peer;

    /* BUSY: the next `busy` VI_CTX_STATUS reads answer BUSY
     * (FAKE_CTX_BUSY_FOREVER: all of them); each commit sets it to
     * cmd_busy. stick_after n > 0: the n-th commit from now sets cmd_busy
     * to FAKE_CTX_BUSY_FOREVER (it and all later ones never finish). */
    uint32_t busy, cmd_busy, stick_after;
    uint32_t pending; /* a commit waits to be applied */
    fake_ctx_entry_t pend;
    uint32_t pend_vi, pend_reset;

    /* Status reads of a VI in ERROR with queued descriptors before they
     * are flushed (0 behaves as 1). */
    uint32_t flush_reads, flush_left;

    /* What happened. */
    uint32_t commits, status_reads, violations, flushes;
};

#define FAKE_CTX_BUSY_FOREVER 0xFFFFFFFFu
#define FAKE_CTX_FLUSH_NEVER 0xFFFFFFFFu

extern struct fake_ctx fake_ctx;

/* After a NIC reset: every VI disabled, all zero, not busy. */
void fake_ctx_reset(uint32_t num_vi);

#endif /* FW_TEST_FAKE_CTX_H */
