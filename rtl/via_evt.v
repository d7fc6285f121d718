// via_evt: the NIC's interrupt vectors (issue 11): completion interrupts
// armed per queue and per CQ, routed to a vector per process, moderated per
// vector. BAR0 block `evt` (EVT_ARM, EVT_MAP, EVT_VSEL, EVT_MOD, EVT_RAISED,
// EVT_EVENTS, EVT_CAP); docs/vi.md, "Interrupt vectors".
//
// Completions come in on three ports, all of them after the write that makes
// them visible has its response: the send engine's (VI, queue), the receive
// engine's (VI; queue 1) and via_cq's entries (CQ). Any two or all three may
// fire in one cycle.
//
// Routing: one vector per VI (both its queues) and per CQ, written by the
// driver through EVT_MAP (a process's VIs and CQs go to the process's
// vector). Arming: one bit per VI queue and per CQ, set through EVT_ARM by a
// waiter before it blocks. A completion of an armed queue or CQ counts for
// its vector; a completion of a queue or CQ not armed is not seen here (its
// waiter, if any, has not blocked yet and looks at memory first).
//
// Moderation, per vector (EVT_MOD): after the first counted completion the
// vector's interrupt (irq_set[v], one cycle) is raised once COUNT have been
// counted or TIME cycles have passed since that first one (irq_set in cycle
// t + 2 + TIME for a first completion in cycle t), whichever comes first
// (COUNT 0 or 1: at once; TIME 0: no time limit). Raising it disarms
// every queue and CQ routed to the vector and starts the count again; the
// completions counted in the cycle it is raised are covered by it.
//
// Timing: a completion in cycle t raises irq_set in cycle t+2 at the
// earliest (the count is registered, then the decision). busy is 1 while a
// time limit runs (via_nic's idle: a simulator that skips idle cycles must
// run those).
//
// A soft reset holds the block in reset like the rest of the NIC: arms,
// routes, moderation and counts are lost; the driver sets routes and
// moderation again after a reset.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
`include "via_bar0.vh"

module via_evt #(
    parameter NUM_VI   = 64,
    parameter VI_WIDTH = (NUM_VI > 1) ? $clog2(NUM_VI) : 1,
    parameter NUM_CQ   = 16,
    parameter CQ_WIDTH = (NUM_CQ > 1) ? $clog2(NUM_CQ) : 1,
    parameter NUM_VEC  = 8,
    parameter IRQ_LSB  = `VIA_IRQ_STATUS_VEC_LSB
) (
    input  wire                    clk,
    input  wire                    rst,

    // register bus (docs/rtl.md, "Register blocks")
    input  wire                    wr_en,
    input  wire [15:0]             wr_addr,
    input  wire [31:0]             wr_data,
    input  wire [3:0]              wr_strb,
    output wire                    wr_hit,
    input  wire                    rd_en,
    input  wire [15:0]             rd_addr,
    input  wire                    rd_fire,
    output wire                    rd_hit,
    output wire [31:0]             rd_data,

    // completions (pulses)
    input  wire                    tx_done,
    input  wire [VI_WIDTH-1:0]     tx_done_vi,
    input  wire                    tx_done_q,
    input  wire                    rx_done,
    input  wire [VI_WIDTH-1:0]     rx_done_vi,
    input  wire                    cq_done,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [7:0]              cq_done_cq,   // (bits CQ_WIDTH and up: zero)
    /* verilator lint_on UNUSEDSIGNAL */

    output reg  [NUM_VEC-1:0]      irq_set,    // vector v's interrupt, one cycle
    output wire                    busy        // a moderation timer runs, or a raise is under way
);

generate
    if (NUM_VI < 1 || NUM_VI > 1024) begin : g_bad_num_vi
        `VIA_PARAM_FAIL(("via_evt: NUM_VI=%0d, must be 1..1024", NUM_VI))
    end
    if (NUM_CQ < 1 || NUM_CQ > 256) begin : g_bad_num_cq
        `VIA_PARAM_FAIL(("via_evt: NUM_CQ=%0d, must be 1..256", NUM_CQ))
    end
    if (NUM_VEC < 1 || NUM_VEC > 8) begin : g_bad_num_vec
        `VIA_PARAM_FAIL(("via_evt: NUM_VEC=%0d, must be 1..8", NUM_VEC))
    end
endgenerate

localparam [31:0] NUM_VI_U  = NUM_VI;
localparam [31:0] NUM_CQ_U  = NUM_CQ;
localparam [31:0] NUM_VEC_U = NUM_VEC;
localparam [31:0] IRQ_LSB_U = IRQ_LSB;

// ------------------------------------------------------------ state

reg  [2:0]        vec_vi [0:NUM_VI-1];   // route of each VI's queues
reg  [2:0]        vec_cq [0:NUM_CQ-1];   // route of each CQ
reg  [NUM_VI-1:0] arm_s, arm_r;          // armed send / receive queues
reg  [NUM_CQ-1:0] arm_c;                 // armed CQs

reg  [7:0]        mod_count [0:NUM_VEC-1];
reg  [15:0]       mod_time  [0:NUM_VEC-1];
reg  [7:0]        v_cnt     [0:NUM_VEC-1];  // completions counted since the last raise (saturates)
reg  [15:0]       v_tmr     [0:NUM_VEC-1];  // cycles since the first of them (saturates)
reg  [NUM_VEC-1:0] v_act;                   // a completion has been counted and not raised
reg  [31:0]       v_raised  [0:NUM_VEC-1];
reg  [31:0]       v_events  [0:NUM_VEC-1];

/* verilator lint_off UNUSEDSIGNAL */
reg  [31:0]       arm_word, map_word;       // the last words written (read back; some bits reserved)
/* verilator lint_on UNUSEDSIGNAL */

// ------------------------------------------------------------ registers

wire       arm_we, map_we, mod_we;
wire [7:0] vsel;
wire       vsel_ok = {24'd0, vsel} < NUM_VEC_U;
wire [2:0] vsel_i  = vsel[2:0];

via_bar0_evt_regs regs_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(wr_strb),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(rd_fire),
    .wr_hit(wr_hit),
    .rd_hit(rd_hit),
    .rd_data(rd_data),
    .evt_arm_we(arm_we),
    .evt_arm_index_i(arm_word[`VIA_EVT_ARM_INDEX_RANGE]),
    .evt_arm_queue_i(arm_word[`VIA_EVT_ARM_QUEUE_LSB]),
    .evt_arm_cq_i(arm_word[`VIA_EVT_ARM_CQ_LSB]),
    .evt_map_we(map_we),
    .evt_map_index_i(map_word[`VIA_EVT_MAP_INDEX_RANGE]),
    .evt_map_cq_i(map_word[`VIA_EVT_MAP_CQ_LSB]),
    .evt_map_vec_i(map_word[`VIA_EVT_MAP_VEC_RANGE]),
    .evt_vsel_vec_q(vsel),
    .evt_mod_we(mod_we),
    .evt_mod_count_i(vsel_ok ? mod_count[vsel_i] : 8'd0),
    .evt_mod_time_i(vsel_ok ? mod_time[vsel_i] : 16'd0),
    .evt_raised_i(vsel_ok ? v_raised[vsel_i] : 32'd0),
    .evt_events_i(vsel_ok ? v_events[vsel_i] : 32'd0),
    .evt_cap_num_i(NUM_VEC_U[7:0]),
    .evt_cap_irq_lsb_i(IRQ_LSB_U[7:0]),
    .evt_cap_cqs_i(NUM_CQ_U[7:0])
);

// the register writes' fields
wire [15:0] w_arm_i  = wr_data[`VIA_EVT_ARM_INDEX_RANGE];
wire        w_arm_q  = wr_data[`VIA_EVT_ARM_QUEUE_LSB];
wire        w_arm_c  = wr_data[`VIA_EVT_ARM_CQ_LSB];
wire        w_arm_vi = arm_we && !w_arm_c && {16'd0, w_arm_i} < NUM_VI_U;
wire        w_arm_cq = arm_we && w_arm_c && {16'd0, w_arm_i} < NUM_CQ_U;
wire [15:0] w_map_i  = wr_data[`VIA_EVT_MAP_INDEX_RANGE];
wire        w_map_c  = wr_data[`VIA_EVT_MAP_CQ_LSB];
wire [2:0]  w_map_v  = wr_data[`VIA_EVT_MAP_VEC_RANGE];
wire        w_map_ok = {29'd0, w_map_v} < NUM_VEC_U;
wire        w_map_vi = map_we && w_map_ok && !w_map_c && {16'd0, w_map_i} < NUM_VI_U;
wire        w_map_cq = map_we && w_map_ok && w_map_c && {16'd0, w_map_i} < NUM_CQ_U;

// ------------------------------------------------------------ counting

wire [2:0] tx_vec = vec_vi[tx_done_vi];
wire [2:0] rx_vec = vec_vi[rx_done_vi];
wire [CQ_WIDTH-1:0] cq_i = cq_done_cq[CQ_WIDTH-1:0];
wire [2:0] cq_vec = vec_cq[cq_i];
wire       tx_hit = tx_done && (tx_done_q ? arm_r[tx_done_vi] : arm_s[tx_done_vi]);
wire       rx_hit = rx_done && arm_r[rx_done_vi];
wire       cq_hit = cq_done && arm_c[cq_i];

// per vector: completions counted this cycle (0..3), and whether it raises
reg [1:0]         v_inc  [0:NUM_VEC-1];
reg [NUM_VEC-1:0] v_fire;
integer v;
always @* begin
    for (v = 0; v < NUM_VEC; v = v + 1) begin
        v_inc[v] = {1'b0, tx_hit && tx_vec == v[2:0]}
                 + {1'b0, rx_hit && rx_vec == v[2:0]}
                 + {1'b0, cq_hit && cq_vec == v[2:0]};
        v_fire[v] = v_act[v]
                 && (v_cnt[v] >= mod_count[v]
                     || (mod_time[v] != 16'd0 && v_tmr[v] >= mod_time[v]));
    end
end

// busy: time alone will change something (a vector with a time limit has
// counted a completion, or raises now), so a simulator that skips idle
// cycles must not skip these; a vector that waits for COUNT without a time
// limit waits for completions, which come with activity of their own
reg [NUM_VEC-1:0] v_timed;
integer vt;
always @* begin
    for (vt = 0; vt < NUM_VEC; vt = vt + 1) begin
        v_timed[vt] = v_act[vt] && mod_time[vt] != 16'd0;
    end
end
assign busy = |v_timed || |v_fire || |irq_set;

// disarm masks: every queue and CQ routed to a vector that raises
reg [NUM_VI-1:0] dis_vi;
reg [NUM_CQ-1:0] dis_cq;
integer k;
// (the loops run only in a cycle where a vector raises: the simulator
// evaluates this block every cycle)
always @* begin
    dis_vi = {NUM_VI{1'b0}};
    dis_cq = {NUM_CQ{1'b0}};
    if (|v_fire) begin
        for (k = 0; k < NUM_VI; k = k + 1) begin
            dis_vi[k] = v_fire[vec_vi[k]];
        end
        for (k = 0; k < NUM_CQ; k = k + 1) begin
            dis_cq[k] = v_fire[vec_cq[k]];
        end
    end
end

integer i;
always @(posedge clk) begin
    if (rst) begin
        arm_s <= {NUM_VI{1'b0}};
        arm_r <= {NUM_VI{1'b0}};
        arm_c <= {NUM_CQ{1'b0}};
        for (i = 0; i < NUM_VI; i = i + 1) vec_vi[i] <= 3'd0;
        for (i = 0; i < NUM_CQ; i = i + 1) vec_cq[i] <= 3'd0;
        for (i = 0; i < NUM_VEC; i = i + 1) begin
            mod_count[i] <= 8'd1;
            mod_time[i] <= 16'd0;
            v_cnt[i] <= 8'd0;
            v_tmr[i] <= 16'd0;
            v_raised[i] <= 32'd0;
            v_events[i] <= 32'd0;
        end
        v_act <= {NUM_VEC{1'b0}};
        arm_word <= 32'd0;
        map_word <= 32'd0;
        irq_set <= {NUM_VEC{1'b0}};
    end else begin
        irq_set <= v_fire;

        // ---------------- per vector: count, time, raise
        for (i = 0; i < NUM_VEC; i = i + 1) begin
            v_events[i] <= v_events[i] + {30'd0, v_inc[i]};
            if (v_fire[i]) begin
                // the completions of this cycle are covered by this raise
                v_act[i] <= 1'b0;
                v_cnt[i] <= 8'd0;
                v_tmr[i] <= 16'd0;
                v_raised[i] <= v_raised[i] + 32'd1;
            end else if (v_act[i]) begin
                // saturates at 255 (only when this cycle's completions
                // would carry it past 255, not by itself)
                v_cnt[i] <= (v_cnt[i] > 8'd255 - {6'd0, v_inc[i]}) ? 8'd255 : v_cnt[i] + {6'd0, v_inc[i]};
                v_tmr[i] <= (v_tmr[i] == 16'hFFFF) ? v_tmr[i] : v_tmr[i] + 16'd1;
            end else if (v_inc[i] != 2'd0) begin
                v_act[i] <= 1'b1;
                v_cnt[i] <= {6'd0, v_inc[i]};
                v_tmr[i] <= 16'd0;
            end
        end

        // ---------------- arms: a raise disarms its vector's queues and
        // CQs; a route disarms what it routes; an arm written in the cycle
        // of a raise stays armed
        arm_s <= arm_s & ~dis_vi;
        arm_r <= arm_r & ~dis_vi;
        arm_c <= arm_c & ~dis_cq;
        if (w_map_vi) begin
            vec_vi[w_map_i[VI_WIDTH-1:0]] <= w_map_v;
            arm_s[w_map_i[VI_WIDTH-1:0]] <= 1'b0;
            arm_r[w_map_i[VI_WIDTH-1:0]] <= 1'b0;
        end
        if (w_map_cq) begin
            vec_cq[w_map_i[CQ_WIDTH-1:0]] <= w_map_v;
            arm_c[w_map_i[CQ_WIDTH-1:0]] <= 1'b0;
        end
        if (w_arm_vi) begin
            if (w_arm_q) arm_r[w_arm_i[VI_WIDTH-1:0]] <= 1'b1;
            else         arm_s[w_arm_i[VI_WIDTH-1:0]] <= 1'b1;
        end
        if (w_arm_cq) arm_c[w_arm_i[CQ_WIDTH-1:0]] <= 1'b1;

        // ---------------- register words
        if (arm_we) arm_word <= wr_data;
        if (map_we) map_word <= wr_data;
        if (mod_we && vsel_ok) begin
            mod_count[vsel_i] <= wr_data[`VIA_EVT_MOD_COUNT_RANGE];
            mod_time[vsel_i] <= wr_data[`VIA_EVT_MOD_TIME_RANGE];
        end
    end
end

endmodule

`default_nettype wire
