// via_cq: completion queues of the vianic NIC (issue 11).
//
// The descriptor engines report every completed descriptor whose Status was
// written (after its write response) on two event ports: the send engine's
// (VI, queue: a flushed receive completes through it as queue 1) and the
// receive engine's (VI; queue 1). Both may fire in one cycle. The events go
// into an 8-entry queue; its head is looked up in the binding table (one
// {enable, CQ} per VI and queue, written by the driver through CQ_BIND) and,
// for a bound queue, an 8-byte CQ_ENTRY {INFO: VI, QUEUE, VALID; SEQ} is
// written into the CQ's ring at slot PROD mod 2**LOG2_ENTRIES (one AXI4
// write of one beat, on its own write port and ID; writes are pipelined,
// their responses come back in order). Each response raises entry_pulse
// (IRQ_STATUS.VI_DONE: a CQWait wakes after the entry is in memory).
//
// Per CQ (CQ_SEL selects one for set-up): ENABLE, PAUSE, LOG2_ENTRIES, the
// ring's physical base (contiguous, 4 KiB aligned), PROD (entries written,
// the next entry's SEQ) and CONS (written by the consumer through CQ_CONS).
// A CQ is full when PROD - CONS reaches its size: the completion is not
// written (its descriptor keeps its Status: nothing is lost but the entry),
// OVERFLOW is set, and one asynchronous error is raised (aerr_pulse, aerr_cq:
// VIP_ERROR_CATASTROPHIC for resource CQ); further completions of the CQ are
// dropped until RESET. A write answered with an error drops the entry and
// raises the same error. A disabled CQ drops its completions (CQ_DROPPED).
// An unbound queue's completions are ignored.
//
// Back-pressure: done_ready is 0 while the event queue has fewer than six
// free entries; the engines hold their next completion meanwhile. An event
// whose CQ is PAUSEd waits at the head (and everything behind it) until
// PAUSE is cleared: the driver moves a ring that way (ResizeCQ).
//
// abort (the soft reset's drain): queued events are dropped, PAUSE is
// ignored, nothing new is written; busy falls once the writes in flight
// have their responses.
//
// The engine's asynchronous error queue takes aerr_pulse (via_vi_engine).

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
`include "via_bar0.vh"
`include "via_desc.vh"

module via_cq #(
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 48,
    parameter ID_WIDTH   = 4,
    parameter NUM_VI     = 64,
    parameter VI_WIDTH   = (NUM_VI > 1) ? $clog2(NUM_VI) : 1,
    parameter NUM_CQ     = 16,
    parameter MAX_LOG2   = 12,
    parameter [ID_WIDTH-1:0] WR_ID = 6
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

    // completion events
    input  wire                    tx_done,
    input  wire [VI_WIDTH-1:0]     tx_done_vi,
    input  wire                    tx_done_q,
    input  wire                    rx_done,
    input  wire [VI_WIDTH-1:0]     rx_done_vi,
    output reg                     done_ready,

    // AXI4 write master (one beat per entry)
    output wire [ID_WIDTH-1:0]     m_axi_awid,
    output wire [ADDR_WIDTH-1:0]   m_axi_awaddr,
    output wire [7:0]              m_axi_awlen,
    output wire [2:0]              m_axi_awsize,
    output wire [1:0]              m_axi_awburst,
    output wire                    m_axi_awlock,
    output wire [3:0]              m_axi_awcache,
    output wire [2:0]              m_axi_awprot,
    output wire                    m_axi_awvalid,
    input  wire                    m_axi_awready,
    output wire [DATA_WIDTH-1:0]   m_axi_wdata,
    output wire [DATA_WIDTH/8-1:0] m_axi_wstrb,
    output wire                    m_axi_wlast,
    output wire                    m_axi_wvalid,
    input  wire                    m_axi_wready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [1:0]              m_axi_bresp,   // bit 1: SLVERR or DECERR
    /* verilator lint_on UNUSEDSIGNAL */
    input  wire                    m_axi_bvalid,
    output wire                    m_axi_bready,

    /* verilator lint_off SYMRSVDWORD */
    input  wire                    abort,         // level: drain (via_soft_reset's dma_abort)
    /* verilator lint_on SYMRSVDWORD */
    output wire                    busy,
    output reg                     entry_pulse,   // an entry's write got its response
    output reg  [7:0]              entry_cq,      // ... the entry's CQ (with entry_pulse)
    output reg                     aerr_pulse,    // a CQ overflowed or lost an entry
    output reg  [7:0]              aerr_cq
);

localparam CW    = (NUM_CQ > 1) ? $clog2(NUM_CQ) : 1;
localparam BYTES = DATA_WIDTH / 8;
localparam LANES = BYTES / 8;                          // 8-byte lanes of a beat
localparam LW    = (LANES > 1) ? $clog2(LANES) : 1;

generate
    if (NUM_CQ < 1 || NUM_CQ > 256) begin : g_bad_num_cq
        `VIA_PARAM_FAIL(("via_cq: NUM_CQ=%0d, must be 1..256", NUM_CQ))
    end
    if (MAX_LOG2 < 1 || MAX_LOG2 > 15) begin : g_bad_max_log2
        `VIA_PARAM_FAIL(("via_cq: MAX_LOG2=%0d, must be 1..15", MAX_LOG2))
    end
    if (DATA_WIDTH < 64) begin : g_bad_width
        `VIA_PARAM_FAIL(("via_cq: DATA_WIDTH=%0d, must be at least 64", DATA_WIDTH))
    end
    if (ADDR_WIDTH < 32 || ADDR_WIDTH > 64) begin : g_bad_addr
        `VIA_PARAM_FAIL(("via_cq: ADDR_WIDTH=%0d, must be 32..64", ADDR_WIDTH))
    end
    if (NUM_VI < 1 || NUM_VI > 1024) begin : g_bad_num_vi
        `VIA_PARAM_FAIL(("via_cq: NUM_VI=%0d, must be 1..1024", NUM_VI))
    end
endgenerate

localparam [31:0] NUM_CQ_U = NUM_CQ;
localparam [31:0] NUM_VI_U = NUM_VI;
localparam [3:0]  MAX_LOG2_4 = MAX_LOG2;

// ------------------------------------------------------------ registers

wire [7:0] sel;
wire       ctrl_we, base_lo_we, base_hi_we, cons_we, bind_we;
wire       sel_ok = {24'd0, sel} < NUM_CQ_U;
wire [CW-1:0] sel_i = sel[CW-1:0];

reg              c_en    [0:NUM_CQ-1];
reg              c_pause [0:NUM_CQ-1];
reg              c_ovf   [0:NUM_CQ-1];
reg  [3:0]       c_log2  [0:NUM_CQ-1];
reg  [ADDR_WIDTH-1:12] c_base [0:NUM_CQ-1];
reg  [15:0]      c_prod  [0:NUM_CQ-1];
reg  [15:0]      c_cons  [0:NUM_CQ-1];

// binding table: {enable, CQ} per VI and queue (index {VI, queue}; one
// entry per index value, so at least 2 * NUM_VI: the index's width fits it)
localparam NB = 2 << VI_WIDTH;
reg  [NB-1:0]    b_en;
reg  [CW-1:0]    b_cq [0:NB-1];   // no reset: read only where b_en is 1

/* verilator lint_off UNUSEDSIGNAL */
reg  [31:0]      cons_word, bind_word;   // the last words written (read back; some bits reserved)
/* verilator lint_on UNUSEDSIGNAL */
reg  [31:0]      cnt_entries, cnt_dropped;
reg  [3:0]       wr_out;     // entry writes awaiting their response
reg              aw_pend, w_pend;   // the last entry's AW, W not yet taken

wire [63:0] base64 = sel_ok ? {{(64-ADDR_WIDTH){1'b0}}, c_base[sel_i], 12'd0} : 64'd0;
// bits 63:12 of the selected CQ's base after a CQ_BASE_HI write; the block
// keeps ADDR_WIDTH-1:12 of them (none of wr_data when ADDR_WIDTH is 32)
/* verilator lint_off UNUSEDSIGNAL */
wire [51:0] base_hi_new = {wr_data, base64[31:12]};
/* verilator lint_on UNUSEDSIGNAL */

via_bar0_cq_regs regs_inst (
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
    .cq_sel_cq_q(sel),
    .cq_ctrl_we(ctrl_we),
    .cq_ctrl_enable_i(sel_ok && c_en[sel_i]),
    .cq_ctrl_pause_i(sel_ok && c_pause[sel_i]),
    .cq_ctrl_reset_i(1'b0),
    .cq_ctrl_log2_entries_i(sel_ok ? c_log2[sel_i] : 4'd0),
    .cq_ctrl_overflow_i(sel_ok && c_ovf[sel_i]),
    .cq_ctrl_busy_i(wr_out != 4'd0 || aw_pend || w_pend),
    .cq_base_lo_we(base_lo_we),
    .cq_base_lo_i(base64[31:0]),
    .cq_base_hi_we(base_hi_we),
    .cq_base_hi_i(base64[63:32]),
    .cq_state_prod_i(sel_ok ? c_prod[sel_i] : 16'd0),
    .cq_state_cons_i(sel_ok ? c_cons[sel_i] : 16'd0),
    .cq_cons_we(cons_we),
    .cq_cons_index_i(cons_word[`VIA_CQ_CONS_INDEX_RANGE]),
    .cq_cons_cq_i(cons_word[`VIA_CQ_CONS_CQ_RANGE]),
    .cq_bind_we(bind_we),
    .cq_bind_vi_i(bind_word[`VIA_CQ_BIND_VI_RANGE]),
    .cq_bind_queue_i(bind_word[`VIA_CQ_BIND_QUEUE_LSB]),
    .cq_bind_enable_i(bind_word[`VIA_CQ_BIND_ENABLE_LSB]),
    .cq_bind_cq_i(bind_word[`VIA_CQ_BIND_CQ_RANGE]),
    .cq_entries_i(cnt_entries),
    .cq_dropped_i(cnt_dropped),
    .cq_cap_num_i(NUM_CQ_U[15:0]),
    .cq_cap_max_log2_i(MAX_LOG2_4)
);

// the register writes' fields
wire [3:0]  w_log2    = wr_data[`VIA_CQ_CTRL_LOG2_ENTRIES_RANGE];
wire        w_log2_ok = w_log2 >= 4'd1 && w_log2 <= MAX_LOG2_4;
wire [7:0]  w_cons_cq = wr_data[`VIA_CQ_CONS_CQ_RANGE];
wire        w_cons_ok = {24'd0, w_cons_cq} < NUM_CQ_U;
wire [15:0] w_bind_vi = wr_data[`VIA_CQ_BIND_VI_RANGE];
wire [7:0]  w_bind_cq = wr_data[`VIA_CQ_BIND_CQ_RANGE];
wire        w_bind_ok = {16'd0, w_bind_vi} < NUM_VI_U && {24'd0, w_bind_cq} < NUM_CQ_U;
wire [VI_WIDTH:0] w_bind_i = {w_bind_vi[VI_WIDTH-1:0], wr_data[`VIA_CQ_BIND_QUEUE_LSB]};

// ------------------------------------------------------------ event queue
// 8 entries of {VI, queue}; two pushes a cycle (send engine first)

reg  [VI_WIDTH:0] evq [0:7];
reg  [3:0]        ev_wp, ev_rp;
wire [3:0]        ev_used = ev_wp - ev_rp;
// the second push's slot, 3 bits (Icarus evaluates an index expression
// wider than its operands: ev_wp[2:0] + 3'd1 would be 8, not 0)
wire [2:0]        ev_wp1 = ev_wp[2:0] + 3'd1;
wire [VI_WIDTH:0] ev_head = evq[ev_rp[2:0]];
wire              ev_have = ev_used != 4'd0;

// ------------------------------------------------------------ the writer
// head -> bound? -> CQ state -> drop (disabled, overflow) or write; the
// head waits while its CQ is paused or while AW or W of the last entry is
// still pending

reg [ADDR_WIDTH-1:0] aw_addr;
reg [63:0]           w_entry;
reg [LW-1:0]         w_lane;     // the entry's 8-byte lane in the beat

wire          h_bound = b_en[ev_head];
wire [CW-1:0] h_cq    = b_cq[ev_head];
wire [15:0]   h_prod  = c_prod[h_cq];
wire [15:0]   h_size  = 16'd1 << c_log2[h_cq];
wire          h_full  = (h_prod - c_cons[h_cq]) >= h_size;
// (abort: events are dropped, paused or not, and nothing new is written;
// the writes in flight finish, then busy falls and the soft reset goes on)
wire          h_paused = h_bound && c_pause[h_cq] && !abort;
// the CQ of each write awaiting its response, in order
reg  [CW-1:0] wq [0:15];
reg  [3:0]    wq_wp, wq_rp;
wire          b_err  = b_fire && m_axi_bresp[1];
// (not in the cycle of a failed response: one error a cycle)
wire          h_go    = ev_have && !aw_pend && !w_pend && !h_paused && wr_out != 4'hF && !b_err;
wire          h_write = h_go && h_bound && c_en[h_cq] && !c_ovf[h_cq] && !h_full && !abort;
wire          h_ovf   = h_go && h_bound && c_en[h_cq] && !c_ovf[h_cq] && h_full && !abort;
wire          h_drop  = h_go && h_bound && (!c_en[h_cq] || c_ovf[h_cq] || h_full || abort);
wire [15:0]   h_slot  = h_prod & (h_size - 16'd1);
wire [VI_WIDTH-1:0] h_vi = ev_head[VI_WIDTH:1];
wire [ADDR_WIDTH-1:0] h_addr = {c_base[h_cq], 12'd0} + {{(ADDR_WIDTH-19){1'b0}}, h_slot, 3'b000};

wire          b_fire = m_axi_bvalid && wr_out != 4'd0;

assign m_axi_awid    = WR_ID;
assign m_axi_awaddr  = aw_addr;
assign m_axi_awlen   = 8'd0;
assign m_axi_awsize  = 3'd3;          // 8 bytes
assign m_axi_awburst = 2'b01;
assign m_axi_awlock  = 1'b0;
assign m_axi_awcache = 4'b0011;
assign m_axi_awprot  = 3'b010;
assign m_axi_awvalid = aw_pend;
assign m_axi_wlast   = 1'b1;
assign m_axi_wvalid  = w_pend;
assign m_axi_bready  = wr_out != 4'd0;

genvar gl;
generate
    for (gl = 0; gl < BYTES / 8; gl = gl + 1) begin : g_lane
        assign m_axi_wdata[64*gl +: 64] = w_entry;
        assign m_axi_wstrb[8*gl +: 8]   = ({{(32-LW){1'b0}}, w_lane} == gl) ? 8'hFF : 8'h00;
    end
endgenerate

assign busy = ev_have || aw_pend || w_pend || wr_out != 4'd0;

integer i;
always @(posedge clk) begin
    if (rst) begin
        for (i = 0; i < NUM_CQ; i = i + 1) begin
            c_en[i] <= 1'b0; c_pause[i] <= 1'b0; c_ovf[i] <= 1'b0; c_log2[i] <= 4'd0;
            c_base[i] <= {(ADDR_WIDTH-12){1'b0}}; c_prod[i] <= 16'd0; c_cons[i] <= 16'd0;
        end
        b_en <= {NB{1'b0}};
        cons_word <= 32'd0;
        bind_word <= 32'd0;
        cnt_entries <= 32'd0;
        cnt_dropped <= 32'd0;
        ev_wp <= 4'd0;
        ev_rp <= 4'd0;
        done_ready <= 1'b0;
        aw_pend <= 1'b0;
        w_pend <= 1'b0;
        aw_addr <= {ADDR_WIDTH{1'b0}};
        w_entry <= 64'd0;
        w_lane <= {LW{1'b0}};
        wr_out <= 4'd0;
        wq_wp <= 4'd0;
        wq_rp <= 4'd0;
        entry_pulse <= 1'b0;
        entry_cq <= 8'd0;
        aerr_pulse <= 1'b0;
        aerr_cq <= 8'd0;
    end else begin
        entry_pulse <= 1'b0;
        aerr_pulse <= 1'b0;

        // ---------------- events in (the engines see done_ready a cycle late:
        // four free entries cover what they may still send)
        if (tx_done && rx_done) begin
            evq[ev_wp[2:0]] <= {tx_done_vi, tx_done_q};
            evq[ev_wp1] <= {rx_done_vi, 1'b1};
        end else if (tx_done) begin
            evq[ev_wp[2:0]] <= {tx_done_vi, tx_done_q};
        end else if (rx_done) begin
            evq[ev_wp[2:0]] <= {rx_done_vi, 1'b1};
        end
        ev_wp <= ev_wp + {3'd0, tx_done} + {3'd0, rx_done};
        ev_rp <= ev_rp + {3'd0, h_go};
        // at most three more events may come from the engines after
        // done_ready falls (the send engine's registered pulse and its
        // next completion, the receive engine's completion in progress)
        done_ready <= (ev_wp + {3'd0, tx_done} + {3'd0, rx_done} - ev_rp - {3'd0, h_go}) <= 4'd2;

        // ---------------- the head
        if (h_write) begin
            aw_pend <= 1'b1;
            w_pend <= 1'b1;
            aw_addr <= h_addr;
            w_entry <= {16'd0, h_prod, 1'b1, 14'd0, ev_head[0], {(16-VI_WIDTH){1'b0}}, h_vi};
            w_lane <= (LANES > 1) ? h_addr[3 +: LW] : {LW{1'b0}};
            c_prod[h_cq] <= h_prod + 16'd1;
            wq[wq_wp] <= h_cq;
            wq_wp <= wq_wp + 4'd1;
        end
        if (h_ovf) begin
            c_ovf[h_cq] <= 1'b1;
            aerr_pulse <= 1'b1;
            aerr_cq <= {{(8-CW){1'b0}}, h_cq};
        end
        if (h_drop) cnt_dropped <= cnt_dropped + 32'd1;
        if (aw_pend && m_axi_awready) aw_pend <= 1'b0;
        if (w_pend && m_axi_wready) w_pend <= 1'b0;
        wr_out <= wr_out + {3'd0, h_write} - {3'd0, b_fire};
        if (b_fire) begin
            entry_pulse <= 1'b1;
            entry_cq <= {{(8-CW){1'b0}}, wq[wq_rp]};
            wq_rp <= wq_rp + 4'd1;
            if (m_axi_bresp[1]) begin
                // (no head decision in this cycle: h_go is 0)
                cnt_dropped <= cnt_dropped + 32'd1;
                aerr_pulse <= 1'b1;
                aerr_cq <= {{(8-CW){1'b0}}, wq[wq_rp]};
            end else begin
                cnt_entries <= cnt_entries + 32'd1;
            end
        end

        // ---------------- register writes (full words)
        if (ctrl_we && sel_ok) begin
            c_en[sel_i] <= wr_data[`VIA_CQ_CTRL_ENABLE_LSB] && w_log2_ok;
            c_pause[sel_i] <= wr_data[`VIA_CQ_CTRL_PAUSE_LSB];
            c_log2[sel_i] <= w_log2_ok ? w_log2 : 4'd0;
            if (wr_data[`VIA_CQ_CTRL_RESET_LSB]) begin
                c_prod[sel_i] <= 16'd0;
                c_cons[sel_i] <= 16'd0;
                c_ovf[sel_i] <= 1'b0;
            end
        end
        if (base_lo_we && sel_ok) c_base[sel_i][31:12] <= wr_data[31:12];
        if (base_hi_we && sel_ok) c_base[sel_i] <= base_hi_new[ADDR_WIDTH-13:0];
        if (cons_we) begin
            cons_word <= wr_data;
            if (w_cons_ok) c_cons[w_cons_cq[CW-1:0]] <= wr_data[`VIA_CQ_CONS_INDEX_RANGE];
        end
        if (bind_we) begin
            bind_word <= wr_data;
            if (w_bind_ok) b_en[w_bind_i] <= wr_data[`VIA_CQ_BIND_ENABLE_LSB];
        end
    end
end

always @(posedge clk) begin
    if (bind_we && w_bind_ok) b_cq[w_bind_i] <= w_bind_cq[CW-1:0];
end

endmodule

`default_nettype wire
