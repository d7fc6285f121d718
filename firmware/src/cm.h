/* cm.h: the connection manager (docs/fabric.md, "Connection management"):
 * the client/server handshake between the nodes' connection managers in
 * CONNECT frames (docs/wire.md, CM), driven by the driver's admin commands
 * CM_LISTEN .. CM_POLL (rtl/layouts/admin.layout).
 *
 *   server                               client
 *   CM_LISTEN(disc) -> listen id
 *                                        CM_REQUEST(vi, node, disc):
 *                                          vi CONNECT_PENDING,
 *               <----- REQUEST(disc, conn id, level, MTU, RDMA) --
 *   no listen on disc:
 *               -- REJECT(NO_MATCH) ---------------------------->  event REJECTED, vi IDLE
 *   else event REQUEST (conn id, the client's node, VI, attributes)
 *   CM_REJECT(conn id):
 *               -- REJECT(REJECTED) ---------------------------->  event REJECTED, vi IDLE
 *   CM_ACCEPT(conn id, vi): a different level or MTU answers
 *     INVALID_RELIABILITY_LEVEL / INVALID_MTU and
 *               -- REJECT(RELIABILITY / MTU) ------------------->  event REJECTED, vi IDLE
 *   else vi CONNECTED to the client's VI and
 *               -- ACCEPT(conn id, level, MTU, RDMA) ----------->  vi CONNECTED to the
 *                                                                  server's VI, event CONNECTED
 *
 * The driver reads the events with CM_POLL; each queued event raises
 * IRQ_STATUS.FW_EVENT (HOST_EVENT). Timeouts are the driver's (in
 * simulated time): CM_CANCEL puts a CONNECT_PENDING VI back to IDLE and a
 * late answer is then ignored. Messages that match nothing (an ACCEPT for
 * no pending request, an unknown op) are counted and dropped.
 *
 * The hardware (CM_RX_*, CM_TX_*, HOST_EVENT) is reached through cm_hw_*,
 * which main.c implements and the host tests fake. */
#ifndef FW_CM_H
#define FW_CM_H

#include <stdint.h>

#include "via_admin.h"
#include "via_wire.h"

/* A CONNECT message as the firmware sends and receives it. */
typedef struct {
    uint32_t node;   /* the other end's node (destination or source) */
    uint32_t src_vi; /* SRC_VI */
    uint32_t dst_vi; /* DST_VI */
    via_wire_cm_t cm;
} cm_msg_t;

/* The hardware, for cm.c: send one message (waits while the framer is
 * busy); tell the host something is queued. */
void cm_hw_send(const cm_msg_t *m);
void cm_hw_host_event(void);
/* Queues an asynchronous error (a VIA_VIP_ERROR_* code) about vi for the
 * driver (AERR_PUSH). */
void cm_hw_async_error(uint32_t code, uint32_t vi);

/* Boot: forget everything; node is this NIC's. */
void cm_init(uint32_t node);
/* A message that came in (cm_rx_drain's, or a test's). */
void cm_rx(const cm_msg_t *m);
/* Takes every CONNECT message waiting in CM_RX and hands it to cm_rx (EV_CM,
 * and before the core sleeps: an event the full FIFO dropped must not leave
 * one there). main.c. */
void cm_rx_drain(void);

/* The admin commands. Each returns an ST_*; the ones with an answer fill
 * *out (the response payload) and *out_len. */
uint32_t cm_listen(const via_admin_cm_listen_t *c, via_admin_cm_id_t *out);
uint32_t cm_unlisten(uint32_t id);
uint32_t cm_request(const via_admin_cm_request_t *c, via_admin_cm_id_t *out);
/* Peer to peer (CM_PEER_REQUEST): PEER_REQUEST to node's manager. When
 * the other side's PEER_REQUEST with the same discriminator has come (or
 * comes), the attributes are compared (a difference: REJECT to the peer
 * with the reason, REJECTED here) and the VIs are CONNECTED, with
 * PEER_ACCEPT to the peer and a CONNECTED event; if both sides match each
 * other's requests, the PEER_ACCEPTs then find nothing and are dropped. */
uint32_t cm_peer_request(const via_admin_cm_request_t *c, via_admin_cm_id_t *out);
uint32_t cm_accept(const via_admin_cm_accept_t *c);
uint32_t cm_reject(uint32_t conn_id);
uint32_t cm_cancel(uint32_t vi);
uint32_t cm_poll(via_admin_cm_event_t *out);

/* DISCONNECT_VI took vi (connected to node's VI peer, another node) back
 * to IDLE: tell the peer's manager (DISCONNECT). On the other side, a
 * DISCONNECT for a VI still CONNECTED to the sender takes it to ERROR (the
 * data path flushes its queues) and queues a DISCONNECTED event;
 * DISCONNECT_ACK answers. */
void cm_disconnected(uint32_t vi, uint32_t node, uint32_t peer);

/* The data path found VI vi's reliable connection broken (VI_CTX_BREAK: an
 * RDMA read completed with an error other than FLUSHED). VIA's reliable
 * levels break the connection on such an error: if vi is still CONNECTED
 * it goes to ERROR (its queued descriptors complete FLUSHED; its owner's
 * Disconnect takes it to IDLE) and its owner hears CONN_LOST; a peer on
 * this NIC goes to ERROR the same way, a peer on another node is sent a
 * DISCONNECT (its node does the same there). Nothing if vi is not
 * CONNECTED. */
void cm_break(uint32_t vi);

/* Counters, for tests and the log: messages dropped because they matched
 * nothing. */
uint32_t cm_dropped(void);

#endif
