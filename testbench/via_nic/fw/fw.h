// Peripheral window offsets of rtl/layouts/fw.layout, for the tb_via_nic
// test programs (spelled out: assembly cannot use the generated C header).
#define PER_BASE        0x20000000
#define P_ID            0x000
#define P_EVENT         0x004
#define P_EVENT_COUNT   0x008
#define P_TIME_LO       0x010
#define P_TIME_HI       0x014
#define P_TIMER_CMP_LO  0x018
#define P_TIMER_CMP_HI  0x01C
#define P_TIMER_CTRL    0x020
#define P_LOG           0x030
#define P_LOG_SPACE     0x034
#define P_ADMIN_COMPLETE 0x040
#define P_READY         0x044
#define P_SCRATCH       0x048
#define P_CMD           0x1000
#define P_RSP           0x1100
#define P_BAR0          0x8000

#define EV_ADMIN        1
#define EV_TIMER        2

// BAR0 offsets read through the P_BAR0 view
#define B_MAGIC         0x000
#define B_CAP_CPU       0x068
#define B_FW_LOG        0x22C
#define B_FW_LOG_LEVEL  0x230
