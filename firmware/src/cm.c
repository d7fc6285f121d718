/* cm.c: see cm.h. */
#include "cm.h"

#include <stdint.h>

#include "hw.h"
#include "log.h"
#include "via_fw.h"
#include "via_wire.h"

void cm_rx_drain(void)
{
    while (via_fw_cm_rx_status_valid_get(hw_read(VIA_FW_REG_CM_RX_STATUS))) {
        uint32_t src = hw_read(VIA_FW_REG_CM_RX_SRC);
        uint32_t w0 = hw_read(VIA_FW_REG_CM_RX_DATA0);
        fw_log("cm: message op %u from node %u VI 0x%x to VI 0x%x dropped (no connection manager yet)\n",
               (unsigned)(w0 & 0xffu), (unsigned)via_fw_cm_rx_src_node_get(src),
               (unsigned)via_fw_cm_rx_src_vi_get(src), (unsigned)hw_read(VIA_FW_REG_CM_RX_DST_VI));
        hw_write(VIA_FW_REG_CM_RX_POP, 0);
    }
}
