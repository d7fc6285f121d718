/* cm.c: see cm.h. */
#include "cm.h"

#include <stdint.h>

#include "lib.h"
#include "log.h"
#include "vi.h"
#include "via_vip.h"

#define CM_VI_NONE 0xFFFFu /* SRC_VI / DST_VI of the connection manager itself */

typedef struct {
    uint8_t used, disc_len;
    uint64_t disc;
} listen_t;

/* A request that came in and waits for CM_ACCEPT or CM_REJECT. */
typedef struct {
    uint8_t used;
    uint8_t node;
    uint16_t vi;      /* the requester's VI */
    uint32_t conn_id; /* the requester's id of it */
    uint32_t listen;  /* the listen it came in on */
    uint32_t rel, mts, flags;
} incoming_t;

/* A CM_REQUEST or CM_PEER_REQUEST waiting for the answer, one per VI at
 * most. */
typedef struct {
    uint8_t used, peer, disc_len;
    uint8_t node;
    uint16_t vi;
    uint32_t conn_id;
    uint64_t disc; /* peer: the discriminator */
} outgoing_t;

/* A PEER_REQUEST that came in before this side asked (kept until it does;
 * the oldest goes when the table is full). */
typedef struct {
    uint8_t used, disc_len;
    uint8_t node;
    uint16_t vi;
    uint32_t conn_id, rel, mts, flags, age;
    uint64_t disc;
} peer_in_t;

static listen_t listens[VIA_ADMIN_CM_LISTENS];
static incoming_t incoming[VIA_ADMIN_CM_REQUESTS];
static outgoing_t outgoing[VIA_ADMIN_CM_REQUESTS];
static peer_in_t peer_in[VIA_ADMIN_CM_REQUESTS];
static uint32_t peer_age;
static via_admin_cm_event_t events[VIA_ADMIN_CM_EVENTS];
static uint32_t ev_head, ev_count, ev_lost;
static uint32_t self, seq, dropped;

void cm_init(uint32_t node)
{
    memset(listens, 0, sizeof listens);
    memset(incoming, 0, sizeof incoming);
    memset(outgoing, 0, sizeof outgoing);
    memset(peer_in, 0, sizeof peer_in);
    peer_age = 0;
    ev_head = ev_count = ev_lost = 0;
    self = node & 0xffu;
    seq = 0;
    dropped = 0;
}

uint32_t cm_dropped(void) { return dropped; }

static void event(const via_admin_cm_event_t *e)
{
    if (ev_count == VIA_ADMIN_CM_EVENTS) {
        ev_head = (ev_head + 1) % VIA_ADMIN_CM_EVENTS; /* the oldest goes */
        ev_count--;
        if (ev_lost < 0xffffu)
            ev_lost++;
    }
    events[(ev_head + ev_count) % VIA_ADMIN_CM_EVENTS] = *e;
    ev_count++;
    cm_hw_host_event();
}

/* d with its bytes from len on cleared (bytes, not a 64-bit shift: the
 * core has no libgcc) */
static uint64_t disc_of(uint32_t len, uint64_t d)
{
    uint8_t b[8];
    memcpy(b, &d, 8);
    for (uint32_t i = len; i < 8; i++)
        b[i] = 0;
    memcpy(&d, b, 8);
    return d;
}

static void send(uint32_t node, uint32_t src_vi, uint32_t dst_vi, uint32_t op, uint32_t reason, uint32_t conn_id,
                 uint32_t rel, uint32_t mts, uint32_t flags, uint32_t disc_len, uint64_t disc)
{
    cm_msg_t m;
    memset(&m, 0, sizeof m);
    m.node = node;
    m.src_vi = src_vi;
    m.dst_vi = dst_vi;
    m.cm.op = (uint8_t)op;
    m.cm.reason = (uint8_t)reason;
    m.cm.disc_len = (uint8_t)disc_len;
    m.cm.reliability = (uint8_t)rel;
    m.cm.max_transfer = mts;
    m.cm.discriminator = disc;
    m.cm.attrs = flags;
    m.cm.conn_id = conn_id;
    cm_hw_send(&m);
}

/* ------------------------------------------------------------ commands */

uint32_t cm_listen(const via_admin_cm_listen_t *c, via_admin_cm_id_t *out)
{
    if (c->disc_len > VIA_ADMIN_CM_DISC_MAX || c->reserved != 0)
        return VIA_ADMIN_ST_BAD_PARAM;
    uint64_t d = disc_of(c->disc_len, c->discriminator);
    if (d != c->discriminator)
        return VIA_ADMIN_ST_BAD_PARAM; /* bytes past DISC_LEN must be zero */
    uint32_t free = VIA_ADMIN_CM_LISTENS;
    for (uint32_t i = 0; i < VIA_ADMIN_CM_LISTENS; i++) {
        if (listens[i].used && listens[i].disc_len == c->disc_len && listens[i].disc == d)
            return VIA_ADMIN_ST_IN_USE;
        if (!listens[i].used && free == VIA_ADMIN_CM_LISTENS)
            free = i;
    }
    if (free == VIA_ADMIN_CM_LISTENS)
        return VIA_ADMIN_ST_NO_RESOURCE;
    listens[free] = (listen_t){.used = 1, .disc_len = (uint8_t)c->disc_len, .disc = d};
    out->id = free + 1;
    return VIA_ADMIN_ST_OK;
}

static void reject_incoming(incoming_t *in, uint32_t reason)
{
    send(in->node, CM_VI_NONE, in->vi, VIA_WIRE_CM_OP_REJECT, reason, in->conn_id, 0, 0, 0, 0, 0);
    in->used = 0;
}

uint32_t cm_unlisten(uint32_t id)
{
    if (id == 0 || id > VIA_ADMIN_CM_LISTENS || !listens[id - 1].used)
        return VIA_ADMIN_ST_NO_MATCH;
    /* requests that came in on it stay: the host has them as events and
     * answers them with CM_ACCEPT or CM_REJECT (ConnectWait stops
     * listening as soon as it has its request) */
    listens[id - 1].used = 0;
    return VIA_ADMIN_ST_OK;
}

/* A connection of VI vi (CONNECT_PENDING or IDLE) with node's VI peer_vi,
 * whose attributes are rel/mts: checked against the VI's (a difference:
 * REJECT with the reason to the peer, REJECTED event here); then
 * CONNECTED, PEER_ACCEPT to the peer, CONNECTED event here. */
static void peer_match(uint32_t vi, uint32_t my_conn, uint32_t node, uint32_t peer_vi, uint32_t peer_conn, uint32_t rel,
                       uint32_t mts, uint32_t flags)
{
    uint32_t vrel, vmts, vflags;
    via_admin_cm_event_t e;
    memset(&e, 0, sizeof e);
    e.id = vi;
    e.conn_id = my_conn;
    e.node = node;
    if (vi_cm_attrs(vi, &vrel, &vmts, &vflags) != VIA_ADMIN_ST_OK)
        return;
    uint32_t reason = rel != vrel ? VIA_WIRE_CM_REASON_RELIABILITY : mts != vmts ? VIA_WIRE_CM_REASON_MTU : 0;
    if (reason != 0) {
        send(node, vi, peer_vi, VIA_WIRE_CM_OP_REJECT, reason, peer_conn, 0, 0, 0, 0, 0);
        vi_cm_idle(vi);
        e.type = VIA_ADMIN_CM_EV_REJECTED;
        e.reason = (uint8_t)reason;
        event(&e);
        return;
    }
    if (vi_cm_connect(vi, node, peer_vi) != VIA_ADMIN_ST_OK) {
        dropped++;
        return;
    }
    send(node, vi, peer_vi, VIA_WIRE_CM_OP_PEER_ACCEPT, 0, peer_conn, vrel, vmts, vflags, 0, 0);
    e.type = VIA_ADMIN_CM_EV_CONNECTED;
    e.remote_vi = peer_vi;
    e.reliability = rel;
    e.max_transfer = mts;
    e.flags = flags;
    event(&e);
}

static uint32_t request(const via_admin_cm_request_t *c, via_admin_cm_id_t *out, int peer)
{
    uint32_t rel, mts, flags;
    uint32_t st = vi_cm_attrs(c->vi, &rel, &mts, &flags);
    if (st != VIA_ADMIN_ST_OK)
        return st;
    if (c->node > 0xffu || c->disc_len > VIA_ADMIN_CM_DISC_MAX || c->reserved != 0 ||
        disc_of(c->disc_len, c->discriminator) != c->discriminator)
        return VIA_ADMIN_ST_BAD_PARAM;
    uint32_t free = VIA_ADMIN_CM_REQUESTS;
    for (uint32_t i = 0; i < VIA_ADMIN_CM_REQUESTS; i++) {
        if (!outgoing[i].used && free == VIA_ADMIN_CM_REQUESTS)
            free = i;
    }
    if (free == VIA_ADMIN_CM_REQUESTS)
        return VIA_ADMIN_ST_NO_RESOURCE;
    st = vi_cm_pending(c->vi); /* IDLE, or INVALID_STATE */
    if (st != VIA_ADMIN_ST_OK)
        return st;
    uint32_t id = (self << 24) | (++seq & 0xffffffu);
    out->id = id;
    if (peer) {
        /* the other side asked first: connect now */
        for (uint32_t i = 0; i < VIA_ADMIN_CM_REQUESTS; i++) {
            peer_in_t *p = &peer_in[i];
            if (p->used && p->node == c->node && p->disc_len == c->disc_len && p->disc == c->discriminator) {
                p->used = 0;
                peer_match(c->vi, id, p->node, p->vi, p->conn_id, p->rel, p->mts, p->flags);
                return VIA_ADMIN_ST_OK;
            }
        }
    }
    outgoing[free] = (outgoing_t){.used = 1, .peer = (uint8_t)peer, .disc_len = (uint8_t)c->disc_len,
                                  .node = (uint8_t)c->node, .vi = (uint16_t)c->vi, .conn_id = id, .disc = c->discriminator};
    send(c->node, c->vi, CM_VI_NONE, peer ? VIA_WIRE_CM_OP_PEER_REQUEST : VIA_WIRE_CM_OP_REQUEST, 0, id, rel, mts, flags,
         c->disc_len, c->discriminator);
    return VIA_ADMIN_ST_OK;
}

uint32_t cm_request(const via_admin_cm_request_t *c, via_admin_cm_id_t *out) { return request(c, out, 0); }

uint32_t cm_peer_request(const via_admin_cm_request_t *c, via_admin_cm_id_t *out) { return request(c, out, 1); }

static incoming_t *find_incoming(uint32_t conn_id)
{
    for (uint32_t i = 0; i < VIA_ADMIN_CM_REQUESTS; i++) {
        if (incoming[i].used && incoming[i].conn_id == conn_id)
            return &incoming[i];
    }
    return 0;
}

uint32_t cm_accept(const via_admin_cm_accept_t *c)
{
    incoming_t *in = find_incoming(c->conn_id);
    if (!in)
        return VIA_ADMIN_ST_NO_MATCH;
    uint32_t rel, mts, flags;
    uint32_t st = vi_cm_attrs(c->vi, &rel, &mts, &flags);
    if (st != VIA_ADMIN_ST_OK)
        return st;
    /* the spec's order: the state, then the attributes */
    if (vi_state(c->vi) != VIA_VIP_VI_STATE_IDLE)
        return VIA_ADMIN_ST_INVALID_STATE;
    if (rel != in->rel) {
        reject_incoming(in, VIA_WIRE_CM_REASON_RELIABILITY);
        return VIA_ADMIN_ST_INVALID_RELIABILITY_LEVEL;
    }
    if (mts != in->mts) {
        reject_incoming(in, VIA_WIRE_CM_REASON_MTU);
        return VIA_ADMIN_ST_INVALID_MTU;
    }
    st = vi_cm_connect(c->vi, in->node, in->vi);
    if (st != VIA_ADMIN_ST_OK)
        return st;
    send(in->node, c->vi, in->vi, VIA_WIRE_CM_OP_ACCEPT, 0, in->conn_id, rel, mts, flags, 0, 0);
    in->used = 0;
    return VIA_ADMIN_ST_OK;
}

uint32_t cm_reject(uint32_t conn_id)
{
    incoming_t *in = find_incoming(conn_id);
    if (!in)
        return VIA_ADMIN_ST_NO_MATCH;
    reject_incoming(in, VIA_WIRE_CM_REASON_REJECTED);
    return VIA_ADMIN_ST_OK;
}

uint32_t cm_cancel(uint32_t vi)
{
    for (uint32_t i = 0; i < VIA_ADMIN_CM_REQUESTS; i++) {
        if (outgoing[i].used && outgoing[i].vi == vi) {
            outgoing[i].used = 0;
            return vi_cm_idle(vi);
        }
    }
    return VIA_ADMIN_ST_NO_MATCH;
}

uint32_t cm_poll(via_admin_cm_event_t *out)
{
    memset(out, 0, sizeof *out);
    if (ev_count == 0) {
        out->lost = (uint16_t)ev_lost;
        ev_lost = 0;
        return VIA_ADMIN_ST_OK;
    }
    *out = events[ev_head];
    out->lost = (uint16_t)ev_lost;
    ev_lost = 0;
    ev_head = (ev_head + 1) % VIA_ADMIN_CM_EVENTS;
    ev_count--;
    return VIA_ADMIN_ST_OK;
}

/* ------------------------------------------------------------ messages */

static void rx_request(const cm_msg_t *m)
{
    const via_wire_cm_t *c = &m->cm;
    uint32_t node = m->node & 0xffu;
    uint64_t d = disc_of(c->disc_len > 8 ? 8 : c->disc_len, c->discriminator);
    uint32_t listen = 0;
    for (uint32_t i = 0; i < VIA_ADMIN_CM_LISTENS; i++) {
        if (listens[i].used && listens[i].disc_len == c->disc_len && listens[i].disc == d)
            listen = i + 1;
    }
    if (!listen) {
        send(node, CM_VI_NONE, m->src_vi, VIA_WIRE_CM_OP_REJECT, VIA_WIRE_CM_REASON_NO_MATCH, c->conn_id, 0, 0, 0, 0, 0);
        return;
    }
    incoming_t *in = 0;
    for (uint32_t i = 0; i < VIA_ADMIN_CM_REQUESTS && !in; i++) {
        if (incoming[i].used && incoming[i].node == node && incoming[i].conn_id == c->conn_id)
            return; /* the same request again: already waiting */
    }
    for (uint32_t i = 0; i < VIA_ADMIN_CM_REQUESTS && !in; i++) {
        if (!incoming[i].used)
            in = &incoming[i];
    }
    if (!in) {
        /* no room: refused as if rejected */
        send(node, CM_VI_NONE, m->src_vi, VIA_WIRE_CM_OP_REJECT, VIA_WIRE_CM_REASON_REJECTED, c->conn_id, 0, 0, 0, 0, 0);
        return;
    }
    *in = (incoming_t){.used = 1, .node = (uint8_t)node, .vi = (uint16_t)m->src_vi, .conn_id = c->conn_id,
                       .listen = listen, .rel = c->reliability, .mts = c->max_transfer, .flags = c->attrs};
    via_admin_cm_event_t e;
    memset(&e, 0, sizeof e);
    e.type = VIA_ADMIN_CM_EV_REQUEST;
    e.id = listen;
    e.conn_id = c->conn_id;
    e.node = node;
    e.remote_vi = m->src_vi;
    e.reliability = c->reliability;
    e.max_transfer = c->max_transfer;
    e.flags = c->attrs;
    e.disc_len = c->disc_len;
    e.discriminator = d;
    event(&e);
}

static void rx_answer(const cm_msg_t *m, int accepted)
{
    const via_wire_cm_t *c = &m->cm;
    outgoing_t *o = 0;
    for (uint32_t i = 0; i < VIA_ADMIN_CM_REQUESTS && !o; i++) {
        if (outgoing[i].used && outgoing[i].conn_id == c->conn_id && outgoing[i].node == (m->node & 0xffu) &&
            outgoing[i].vi == m->dst_vi)
            o = &outgoing[i];
    }
    if (!o) {
        dropped++; /* canceled, or not ours */
        return;
    }
    via_admin_cm_event_t e;
    memset(&e, 0, sizeof e);
    e.id = o->vi;
    e.conn_id = o->conn_id;
    e.node = o->node;
    o->used = 0;
    if (accepted) {
        if (vi_cm_connect(e.id, e.node, m->src_vi) != VIA_ADMIN_ST_OK) {
            dropped++;
            return;
        }
        e.type = VIA_ADMIN_CM_EV_CONNECTED;
        e.remote_vi = m->src_vi;
        e.reliability = c->reliability;
        e.max_transfer = c->max_transfer;
        e.flags = c->attrs;
    } else {
        vi_cm_idle(e.id);
        e.type = VIA_ADMIN_CM_EV_REJECTED;
        e.reason = c->reason;
    }
    event(&e);
}

static void rx_peer_request(const cm_msg_t *m)
{
    const via_wire_cm_t *c = &m->cm;
    uint32_t node = m->node & 0xffu;
    uint32_t dlen = c->disc_len > 8 ? 8 : c->disc_len;
    uint64_t d = disc_of(dlen, c->discriminator);
    for (uint32_t i = 0; i < VIA_ADMIN_CM_REQUESTS; i++) {
        outgoing_t *o = &outgoing[i];
        if (o->used && o->peer && o->node == node && o->disc_len == dlen && o->disc == d) {
            o->used = 0;
            peer_match(o->vi, o->conn_id, node, m->src_vi, c->conn_id, c->reliability, c->max_transfer, c->attrs);
            return;
        }
    }
    /* this side has not asked yet: keep it (the same one again: refresh) */
    peer_in_t *slot = 0;
    for (uint32_t i = 0; i < VIA_ADMIN_CM_REQUESTS && !slot; i++) {
        if (peer_in[i].used && peer_in[i].node == node && peer_in[i].conn_id == c->conn_id)
            slot = &peer_in[i];
    }
    for (uint32_t i = 0; i < VIA_ADMIN_CM_REQUESTS && !slot; i++) {
        if (!peer_in[i].used)
            slot = &peer_in[i];
    }
    if (!slot) {
        slot = &peer_in[0];
        for (uint32_t i = 1; i < VIA_ADMIN_CM_REQUESTS; i++) {
            if (peer_in[i].age < slot->age)
                slot = &peer_in[i];
        }
        dropped++;
    }
    *slot = (peer_in_t){.used = 1, .disc_len = (uint8_t)dlen, .node = (uint8_t)node, .vi = (uint16_t)m->src_vi,
                        .conn_id = c->conn_id, .rel = c->reliability, .mts = c->max_transfer, .flags = c->attrs,
                        .age = ++peer_age, .disc = d};
}

void cm_disconnected(uint32_t vi, uint32_t node, uint32_t peer)
{
    send(node, vi, peer, VIA_WIRE_CM_OP_DISCONNECT, 0, 0, 0, 0, 0, 0, 0);
}

/* The peer disconnected: our VI, if it is still CONNECTED to it, goes to
 * ERROR (its queued descriptors complete with FLUSHED; the owner's
 * Disconnect takes it to IDLE) and the driver hears of it: a CM event, and
 * the asynchronous error CONN_LOST for the VI's owner; DISCONNECT_ACK
 * answers either way. */
static void rx_disconnect(const cm_msg_t *m)
{
    uint32_t node = m->node & 0xffu;
    uint32_t vi = m->dst_vi, pnode, peer;
    if (vi_peer_of(vi, &pnode, &peer) == VIA_ADMIN_ST_OK && pnode == node && peer == m->src_vi &&
        vi_remote_disconnected(vi) == VIA_ADMIN_ST_OK) {
        via_admin_cm_event_t e;
        memset(&e, 0, sizeof e);
        e.type = VIA_ADMIN_CM_EV_DISCONNECTED;
        e.id = vi;
        e.node = node;
        e.remote_vi = m->src_vi;
        event(&e);
        cm_hw_async_error(VIA_VIP_ERROR_CONN_LOST, vi);
    } else {
        dropped++;
    }
    send(node, vi, m->src_vi, VIA_WIRE_CM_OP_DISCONNECT_ACK, 0, 0, 0, 0, 0, 0, 0);
}

void cm_break(uint32_t vi)
{
    uint32_t node, peer, pnode, ppeer;
    if (vi_peer_of(vi, &node, &peer) != VIA_ADMIN_ST_OK || vi_remote_disconnected(vi) != VIA_ADMIN_ST_OK)
        return;
    cm_hw_async_error(VIA_VIP_ERROR_CONN_LOST, vi);
    if (node != vi_self_node()) {
        cm_disconnected(vi, node, peer);
    } else if (peer != vi && vi_peer_of(peer, &pnode, &ppeer) == VIA_ADMIN_ST_OK && pnode == node && ppeer == vi &&
               vi_remote_disconnected(peer) == VIA_ADMIN_ST_OK) {
        cm_hw_async_error(VIA_VIP_ERROR_CONN_LOST, peer);
    }
}

void cm_rx(const cm_msg_t *m)
{
    switch (m->cm.op) {
    case VIA_WIRE_CM_OP_DISCONNECT:
        rx_disconnect(m);
        break;
    case VIA_WIRE_CM_OP_DISCONNECT_ACK:
        break;
    case VIA_WIRE_CM_OP_PEER_REQUEST:
        rx_peer_request(m);
        break;
    case VIA_WIRE_CM_OP_PEER_ACCEPT:
        /* the answer to our PEER_REQUEST: as an ACCEPT; after both sides
         * matched each other's requests it finds nothing (dropped) */
        rx_answer(m, 1);
        break;
    case VIA_WIRE_CM_OP_REQUEST:
        rx_request(m);
        break;
    case VIA_WIRE_CM_OP_ACCEPT:
        rx_answer(m, 1);
        break;
    case VIA_WIRE_CM_OP_REJECT:
        rx_answer(m, 0);
        break;
    default:
        dropped++;
        fw_log("cm: op %u from node %u not handled\n", (unsigned)m->cm.op, (unsigned)(m->node & 0xffu));
        break;
    }
}
