/* vi.h: virtual interfaces (docs/vi.md: the CREATE_VI .. DISCONNECT_VI
 * commands). The firmware keeps the VI table: for each VI id, which is the
 * index of the VI's doorbell page in BAR0 (DOORBELL array), its state,
 * attributes and peer. Pure logic: the ptags it checks and holds are
 * mem.c's, and the data path's copy of each VI's context is written through
 * vi_ctx_read/vi_ctx_write (the VI_CTX_* registers; main.c implements them
 * with MMIO, the host tests with a model, tests/fake_ctx.c).
 *
 * Context commits (one per VI changed; all fields of the VI at once; the
 * function then waits for VI_CTX_STATUS.BUSY to clear, at most
 * VI_CTX_POLL_LIMIT reads, and answers INTERNAL if it does not; the table
 * changes only for the commits that were taken):
 *   CREATE_VI        ENABLE 1, RESET_Q 1, IDLE, the attributes, PEER 0
 *   MODIFY_VI        ENABLE 1, RESET_Q 0, IDLE, the new attributes
 *   DESTROY_VI       ENABLE 0, RESET_Q 1, every other field 0
 *   CONNECT_LOOPBACK VI_A then VI_B: CONNECTED, PEER the other, RESET_Q 0
 *   DISCONNECT_VI    the VI then its peer (on this NIC, still connected to
 *                    it): ERROR, PEER 0; once both queues of each are
 *                    empty (VI_CTX_STATUS.SEND_QUEUED / RECV_QUEUED: the
 *                    data path completes every queued descriptor with
 *                    FLUSHED), IDLE; RESET_Q 0 throughout
 * The firmware starts only after a NIC reset, which disables every VI in
 * the data path, so vi_init commits nothing.
 *
 * Every function returns an admin status (VIA_ADMIN_ST_*) and changes
 * nothing and writes no output unless it returns ST_OK. Checks, in order
 * (the first that fails answers):
 *   1. the VI id (DESTROY, QUERY, MODIFY): below vi_init's count and
 *      created                                    -> INVALID_VI
 *   2. the state (DESTROY, MODIFY): IDLE          -> INVALID_STATE
 *   3. reserved fields (CREATE, MODIFY): FLAGS bits other than
 *      VI_RDMA_WRITE | VI_RDMA_READ, QOS, SEND_CQ, RECV_CQ nonzero
 *                                                 -> BAD_PARAM
 *   4. the reliability level: exactly one bit, and one of
 *      FW_RELIABILITY_LEVEL_SUPPORT               -> INVALID_RELIABILITY_LEVEL
 *   5. MAX_TRANSFER_SIZE: 1 .. VIA_ADMIN_MAX_TRANSFER_SIZE -> INVALID_MTU
 *   6. the ptag: live (mem.c's table)             -> INVALID_PTAG
 *   7. RDMA read enabled while FW_RDMA_READ_SUPPORT lacks the level
 *                                                 -> INVALID_RDMAREAD
 *   8. CREATE: a free VI (lowest free id)         -> NO_RESOURCE
 *   9. the context commit                          -> INTERNAL
 * CONNECT_LOOPBACK (VI_A, VI_B): both VIs exist    -> INVALID_VI
 *   they differ                                    -> BAD_PARAM
 *   both IDLE                                      -> INVALID_STATE
 *   the same reliability level                     -> INVALID_RELIABILITY_LEVEL
 *   the same MAX_TRANSFER_SIZE                     -> INVALID_MTU
 *   the two commits (if the second fails, the first is undone if it can
 *   be)                                            -> INTERNAL
 * CONNECT_REMOTE (VI, PEER_NODE, PEER_VI): the VI exists -> INVALID_VI;
 *   PEER_NODE <= 255 and not this node, PEER_VI <= 65535 -> BAD_PARAM;
 *   IDLE -> INVALID_STATE; the commit -> INTERNAL.
 * DISCONNECT_VI (VI): exists -> INVALID_VI; CONNECTED or ERROR ->
 *   INVALID_STATE; the commits, or a flush that does not end within
 *   VI_FLUSH_POLL_LIMIT reads -> INTERNAL (the VI itself first; its peer
 *   goes with it when it is on this NIC and CONNECTED to this VI).
 * A VI holds one use of its ptag from CREATE to DESTROY (MODIFY moves it),
 * so DESTROY_PTAG answers IN_USE while a VI has it. */
#ifndef FW_VI_H
#define FW_VI_H

#include <stdint.h>

#include "via_admin.h"

/* VI_CTX_STATUS reads before a commit counts as stuck (the data path takes
 * a commit within a few cycles; one poll is about 20 cycles). */
#define VI_CTX_POLL_LIMIT 4096u
/* Queue-state reads before a flush counts as stuck: the data path
 * completes a flushed descriptor in tens of cycles, both queues hold at
 * most 2 x 1024 (one read is about 40 cycles). */
#define VI_FLUSH_POLL_LIMIT 16384u

/* vi_init empties the table and returns how many VIs can exist: min(num_vi,
 * VIA_ADMIN_MAX_VI), num_vi being CAP_VI.NUM_VI (one doorbell page per
 * VI). QUERY_NIC reports it as MAX_VI. */
uint32_t vi_init(uint32_t num_vi);

/* vi_set_node tells the VI table this NIC's node (CAP_NET.NODE_ID): a
 * loopback connection's peer is on it. */
void vi_set_node(uint32_t node);

/* CREATE_VI: OK with the new VI's id; the VI is IDLE. */
uint32_t vi_create(const via_admin_create_vi_t *c, uint32_t *vi);
/* DESTROY_VI: the VI's ptag use ends. */
uint32_t vi_destroy(uint32_t vi);
/* QUERY_VI: any state. */
uint32_t vi_query(uint32_t vi, via_admin_vi_info_t *info);
/* MODIFY_VI (VipSetViAttributes): all attributes at once, only in IDLE. */
uint32_t vi_modify(const via_admin_modify_vi_t *m);

/* CONNECT_LOOPBACK: two VIs of this NIC connected to each other. */
uint32_t vi_connect_loopback(const via_admin_connect_loopback_t *c);
/* For the connection manager (cm.c): a VI's level, MaxTransferSize and
 * RDMA flags; IDLE -> CONNECT_PENDING; IDLE or CONNECT_PENDING -> CONNECTED
 * with a peer; CONNECT_PENDING -> IDLE. ST_OK, INVALID_VI, INVALID_STATE
 * or a commit's INTERNAL. */
uint32_t vi_cm_attrs(uint32_t vi, uint32_t *rel, uint32_t *mts, uint32_t *flags);
/* A CONNECTED VI's peer (node, VI); CONNECTED -> ERROR for this VI only
 * (its peer disconnected: the data path flushes its queues); this NIC's
 * node. */
uint32_t vi_peer_of(uint32_t vi, uint32_t *node, uint32_t *peer);
uint32_t vi_remote_disconnected(uint32_t vi);
uint32_t vi_self_node(void);
uint32_t vi_cm_pending(uint32_t vi);
uint32_t vi_cm_connect(uint32_t vi, uint32_t node, uint32_t peer);
uint32_t vi_cm_idle(uint32_t vi);
/* CONNECT_REMOTE: a VI of this NIC connected to a VI of another node. */
uint32_t vi_connect_remote(const via_admin_connect_remote_t *c);
/* DISCONNECT_VI: a CONNECTED (or ERROR) VI and its peer (on this NIC)
 * flushed and back to IDLE. */
uint32_t vi_disconnect(uint32_t vi);

/* The state of a live VI (VIA_VIP_VI_STATE_*), or 0xFFFFFFFF. */
uint32_t vi_state(uint32_t vi);
/* Sets a live VI's state (committed; the peer is kept for CONNECTED, else
 * 0); for the engines that will move VIs between states (connection
 * set-up, errors) and for the host tests. Returns ST_INVALID_VI, INTERNAL
 * or ST_OK. */
uint32_t vi_set_state(uint32_t vi, uint32_t state);
/* The peer of a live VI (0 unless CONNECTED), or 0xFFFFFFFF. */
uint32_t vi_peer(uint32_t vi);
/* VIs that exist, for the host tests. */
uint32_t vi_count(void);

/* The hardware: a VI_CTX_* register of the peripheral window. */
uint32_t vi_ctx_read(uint32_t reg);
void vi_ctx_write(uint32_t reg, uint32_t v);

#endif /* FW_VI_H */
