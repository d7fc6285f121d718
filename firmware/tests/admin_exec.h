/* admin_exec.h: runs one admin command through admin_execute for the host
 * tests that drive the firmware's logic over the TPT model, and checks the
 * invariants every response keeps. Include after harness.h. */
#ifndef FW_TEST_ADMIN_EXEC_H
#define FW_TEST_ADMIN_EXEC_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "admin.h"
#include "fake_ctx.h"
#include "fake_tpt.h"
#include "harness.h"

/* Runs the command op (flags, seq, payload of len bytes) with caps, in heap
 * blocks of exactly their size so that ASan sees any access past them;
 * checks that the response echoes opcode and seq, that an error carries no
 * payload, that the payload is zero past its length and that the TPT and
 * context models saw no violation; copies the response to *out and returns its status. */
static uint32_t admin_exec_checked(const admin_caps_t *caps, uint32_t seq, uint16_t op, uint16_t flags,
                                   const void *payload, uint32_t len, via_admin_rsp_t *out)
{
    via_admin_cmd_t *c = calloc(1, sizeof *c);
    via_admin_rsp_t *r = malloc(sizeof *r);
    memset(r, 0xA5, sizeof *r);
    c->opcode = op;
    c->flags = flags;
    c->seq = seq;
    c->len = len;
    if (payload)
        memcpy(c->payload, payload, len <= VIA_ADMIN_PAYLOAD_MAX ? len : VIA_ADMIN_PAYLOAD_MAX);
    admin_execute(c, r, caps);
    CHECK_EQ_U(r->opcode, op);
    CHECK_EQ_U(r->seq, c->seq);
    if (r->status != VIA_ADMIN_ST_OK)
        CHECK_EQ_U(r->len, 0);
    for (size_t i = r->len; i < sizeof r->payload && r->len <= sizeof r->payload; i++)
        if (r->payload[i] != 0) {
            CHECK(r->payload[i] == 0);
            break;
        }
    CHECK_EQ_U(fake.violations, 0);
    CHECK_EQ_U(fake_ctx.violations, 0);
    *out = *r;
    free(c);
    free(r);
    return out->status;
}

#endif
