/* vi.h: virtual interfaces (docs/vi.md: the CREATE_VI .. MODIFY_VI
 * commands). The firmware keeps the VI table: for each VI id, which is the
 * index of the VI's doorbell page in BAR0 (DOORBELL array), its state and
 * attributes. Pure logic: the ptags it checks and holds are mem.c's.
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
 * A VI holds one use of its ptag from CREATE to DESTROY (MODIFY moves it),
 * so DESTROY_PTAG answers IN_USE while a VI has it. */
#ifndef FW_VI_H
#define FW_VI_H

#include <stdint.h>

#include "via_admin.h"

/* vi_init empties the table and returns how many VIs can exist: min(num_vi,
 * VIA_ADMIN_MAX_VI), num_vi being CAP_VI.NUM_VI (one doorbell page per
 * VI). QUERY_NIC reports it as MAX_VI. */
uint32_t vi_init(uint32_t num_vi);

/* CREATE_VI: OK with the new VI's id; the VI is IDLE. */
uint32_t vi_create(const via_admin_create_vi_t *c, uint32_t *vi);
/* DESTROY_VI: the VI's ptag use ends. */
uint32_t vi_destroy(uint32_t vi);
/* QUERY_VI: any state. */
uint32_t vi_query(uint32_t vi, via_admin_vi_info_t *info);
/* MODIFY_VI (VipSetViAttributes): all attributes at once, only in IDLE. */
uint32_t vi_modify(const via_admin_modify_vi_t *m);

/* The state of a live VI (VIA_VIP_VI_STATE_*), or 0xFFFFFFFF. */
uint32_t vi_state(uint32_t vi);
/* Sets a live VI's state; for the engines that will move VIs between
 * states (connection set-up, errors) and for the host tests. Returns
 * ST_INVALID_VI or ST_OK. */
uint32_t vi_set_state(uint32_t vi, uint32_t state);
/* VIs that exist, for the host tests. */
uint32_t vi_count(void);

#endif /* FW_VI_H */
