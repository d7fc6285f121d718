/* fake_cm.c: see fake_cm.h. */
#include "fake_cm.h"

#include <string.h>

struct fake_cm fake_cm;

void fake_cm_reset(void) { memset(&fake_cm, 0, sizeof fake_cm); }

const cm_msg_t *fake_cm_sent(uint32_t i) { return &fake_cm.sent[i % FAKE_CM_KEEP]; }

void cm_hw_send(const cm_msg_t *m)
{
    fake_cm.sent[fake_cm.nsent % FAKE_CM_KEEP] = *m;
    fake_cm.nsent++;
}

void cm_hw_host_event(void) { fake_cm.host_events++; }

uint32_t fake_cm_aerr_code(uint32_t i) { return fake_cm.aerr[i % FAKE_CM_KEEP].code; }

uint32_t fake_cm_aerr_vi(uint32_t i) { return fake_cm.aerr[i % FAKE_CM_KEEP].vi; }

void cm_hw_async_error(uint32_t code, uint32_t vi)
{
    fake_cm.aerr[fake_cm.async_errors % FAKE_CM_KEEP].code = code;
    fake_cm.aerr[fake_cm.async_errors % FAKE_CM_KEEP].vi = vi;
    fake_cm.async_errors++;
    fake_cm.last_async_code = code;
    fake_cm.last_async_vi = vi;
}
