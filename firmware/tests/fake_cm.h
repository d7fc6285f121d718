/* fake_cm.h: cm.h's hardware for the host tests: every message cm.c sends
 * is recorded (the last FAKE_CM_KEEP), and the host events counted. */
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
};

extern struct fake_cm fake_cm;

void fake_cm_reset(void);
/* The i-th message sent since the reset (i < nsent, within the last
 * FAKE_CM_KEEP). */
const cm_msg_t *fake_cm_sent(uint32_t i);

#endif
