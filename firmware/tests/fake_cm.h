/* fake_cm.h: cm.h's hardware for the host tests: every message cm.c sends
 * and every asynchronous error it queues is recorded (the last
 * FAKE_CM_KEEP of each), and the host events counted. */
#ifndef FW_TEST_FAKE_CM_H
#define FW_TEST_FAKE_CM_H

#include <stdint.h>

#include "cm.h"

#define FAKE_CM_KEEP 64u

struct fake_cm {
    cm_msg_t sent[FAKE_CM_KEEP];
    uint32_t nsent;       /* every message sent (sent[] keeps the last ones) */
    uint32_t host_events; /* HOST_EVENT stores */
    uint32_t async_errors; /* AERR_PUSH stores, the last one's code and VI */
    uint32_t last_async_code, last_async_vi;
    struct {
        uint32_t code, vi;
    } aerr[FAKE_CM_KEEP]; /* every AERR_PUSH (the last ones), in order */
};

extern struct fake_cm fake_cm;

void fake_cm_reset(void);
/* The i-th message sent since the reset (i < nsent, within the last
 * FAKE_CM_KEEP). */
const cm_msg_t *fake_cm_sent(uint32_t i);
/* The i-th asynchronous error since the reset (i < async_errors, within
 * the last FAKE_CM_KEEP): its code and VI. */
uint32_t fake_cm_aerr_code(uint32_t i);
uint32_t fake_cm_aerr_vi(uint32_t i);

#endif
