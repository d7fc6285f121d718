/* cm.h: the connection manager's side of the network (docs/fabric.md):
 * CONNECT messages from other nodes' connection managers, in CM_RX. */
#ifndef FW_CM_H
#define FW_CM_H

/* Takes every CONNECT message waiting in CM_RX (EV_CM, and before the core
 * sleeps: an event the full FIFO dropped must not leave one there). The
 * connection-management protocol is not built yet: each message is logged
 * and dropped. */
void cm_rx_drain(void);

#endif
