// tb_via_cq_env: one via_cq with its models and checks, for tb_via_cq.
//
// Around the block:
//   - the register bus of docs/rtl.md (tb_via_blocks_bus.vh: driven at the
//     falling edge, a write takes effect at the rising edge after it);
//   - two event sources (the send engine's port: VI and queue; the receive
//     engine's: VI, queue 1), fed by the bench through a FIFO each. They
//     keep to the module's promise and no more: in a cycle where
//     done_ready is 1 each port may present an event; once done_ready is 0,
//     at most three more events (both ports together) until it is 1 again.
//     At 100 % rate they spend that allowance at once (adversarial); the
//     VI and queue inputs carry garbage when their strobe is 0;
//   - the entries' memory: testbench/common/axi_ram_model (random AW, W and
//     B back-pressure, SLVERR / DECERR injection, guard pattern in every
//     byte the bench does not expect written), behind a W buffer of two
//     beats that accepts W independently of AW (so the block sees W taken
//     before, with or after its AW; the model itself takes W only after AW).
//
// The reference model holds every CQ's set-up (ENABLE, PAUSE, LOG2, base,
// PROD, CONS, OVERFLOW), the binding table, CQ_ENTRIES / CQ_DROPPED, and
// the events in the order the block took them (send port first when both
// fire in a cycle). It decides each event (ignored: unbound; dropped:
// disabled, or OVERFLOW already set; overflow: the ring full, an
// asynchronous error; written) when the block shows what it did: an entry
// write on the bus (the events before it can only have been ignored or
// dropped), an aerr_pulse that follows no failed response (an overflow),
// or the block idle (the rest: ignored or dropped). Checks, every cycle:
//   - every entry write: AW address base + (PROD mod size) * 8 (full
//     ADDR_WIDTH), one beat of 8 bytes (awlen 0, awsize 3, INCR, WLAST),
//     WR_ID, awcache/awprot; W: the entry (CQ_ENTRY of desc.layout: INFO
//     {VI, QUEUE, VALID}, SEQ = entry number mod 2**16) in the 8-byte lane
//     of its address, byte strobes exactly that lane; W held stable while
//     not taken (the memory model checks AW); one AW and one W per entry;
//   - every write response: in order, the entry in memory at that moment
//     (OKAY), or (SLVERR / DECERR) nothing written, aerr_pulse the next
//     cycle with that write's CQ; entry_pulse exactly in the cycle after
//     every response; busy 1 while a write is outstanding, 15 such writes
//     at most (the block's counts); the block's event queue never holds
//     more than its 8 entries (white box: ev_used);
//   - at every quiescent point (sources drained, busy fallen within a
//     bound, done_ready 1): CQ_ENTRIES, CQ_DROPPED, every CQ's CQ_CTRL
//     (BUSY 0), CQ_BASE_LO/HI and CQ_STATE against the model; the consumer
//     takes every entry (slot contents, SEQ); the memory pages written since
//     the last comparison equal the bench's image (guard bytes untouched).
//
// The sequence (main thread):
//   1. reset values and decode of block cq from the generated register
//      table; CQ_CAP; done_ready 1 and busy 0 after reset;
//   2. registers: CQ_SEL (stored bits), CQ_CTRL (ENABLE only with a valid
//      LOG2_ENTRIES, invalid sizes read 0, RESET reads 0), CQ_BASE_LO/HI
//      (bits 11:0 and above ADDR_WIDTH read 0) per CQ without aliasing,
//      out-of-range CQ_SEL (writes ignored, reads 0), CQ_CONS and CQ_BIND
//      (the last word, reserved bits 0; out-of-range CQ / VI ignored),
//      read-only registers ignore writes;
//   3. basic: entries from each port and from both in one cycle, the
//      flushed receive (send port, queue 1), unbound queues ignored,
//      disabled CQs (ENABLE 0, or an invalid size) drop and count,
//      rebinding, bind and consumer writes naming an out-of-range VI / CQ
//      (aliasing the low bits of a valid one) ignored;
//   4. overflow: a ring filled exactly; the next completion sets OVERFLOW
//      with one aerr_pulse (aerr_cq), later ones dropped even after CQ_CONS
//      made room, no second error; RESET clears PROD, CONS and OVERFLOW and
//      entries start again at slot 0, SEQ 0; CQ_CONS makes room in a full
//      ring without overflow;
//   5. PAUSE: the paused CQ's event at the head holds it and every event
//      behind it (no write); done_ready equals "at most 2 events queued" in
//      every cycle while the sources, at full rate, deliver exactly 4 + 3
//      events (both ports) or 3 + 3 (one port); CQ_CTRL.BUSY 0 but busy 1;
//      un-pausing writes everything in order; an event of another CQ ahead
//      of the paused one is written, an unbound event (its stale table
//      entry naming the paused CQ) is not held;
//   6. errors: an entry write answered SLVERR (aerr with its CQ, CQ_DROPPED,
//      no CQ_ENTRIES count, PROD advanced, slot untouched), pipelined with
//      good ones; a ring above the memory (CQ_BASE_HI): DECERR, the high
//      address bits on AW; responses held back: 15 writes outstanding
//      (never more), the 16th entry waits;
//   7. random rounds: all CQs with random sizes and roles (consumer that
//      keeps up, stalled consumer that overflows, disabled, SLVERR on some
//      slots, PAUSE toggled at random), random bindings (some unbound),
//      random back-pressure on AW, W (before AW too) and B, sources at
//      random rates or adversarial; the consumer checks entries and writes
//      CQ_CONS at random;
//   8. wrap: the consumer writing CQ_CONS every half ring (256 entries at
//      most). In every simulator: PROD = CONS = 2**16 - 200 - a few, preset
//      in the block after a RESET (white box: c_prod, c_cons), then 600
//      entries into a ring of 64 (MAX_LOG2's if smaller): SEQ, PROD and
//      CONS pass 2**16. In Verilator also (WRAP) the whole way from RESET:
//      2**16 + 1029 entries into a ring of 2**min(MAX_LOG2, 12) entries
//      over several 4 KiB pages, 16 laps (133 000 cycles: about a second
//      in that simulator, too long for Icarus).
// At the end, that every kind of event was seen (both ports in one cycle,
// W before AW and AW before W, overflows, failed writes, ignored and
// dropped completions, the event queue at 7).
// Plusargs: +short (a third of the random events, no wrap from RESET),
// +debug (every decision of the model and every event).

`timescale 1ns / 1ps

`include "via_bar0.vh"
`include "via_desc.vh"

module tb_via_cq_env #(
    parameter DATA_WIDTH  = 64,
    parameter ADDR_WIDTH  = 48,
    parameter NUM_VI      = 8,
    parameter NUM_CQ      = 16,
    parameter MAX_LOG2    = 12,
    // memory model: rings of the random rounds at pages 1..NUM_CQ, the wrap
    // ring at WRAP_BASE
    parameter MEM_BYTES   = 131072,
    parameter WRAP_BASE   = 32'h18000,
    parameter WRITE_LATENCY = 3,
    // random rounds and events per round (+short: a third)
    parameter ROUNDS      = 3,
    parameter RAND_EVENTS = 1500,
    // run the wrap phase (needs MAX_LOG2 >= 12 and 32 KiB at WRAP_BASE)
    parameter WRAP        = 0,
    parameter [3:0] WR_ID = 4'd9,
    parameter SALT        = 1,
    parameter NAME        = "a"
) (
    input  wire clk,
    output reg  fin = 1'b0
);

localparam VW       = (NUM_VI > 1) ? $clog2(NUM_VI) : 1;
localparam NQ       = 2 * NUM_VI;
localparam BYTES    = DATA_WIDTH / 8;
localparam LANES    = BYTES / 8;
localparam ID_WIDTH = 4;
localparam PAGES    = (MEM_BYTES + 4095) / 4096;
localparam MAXL     = (MAX_LOG2 < 12) ? MAX_LOG2 : 12;   // largest ring the bench uses
localparam SLOTS    = (WRAP != 0) ? (1 << MAXL) : 512;   // slots of the largest ring used
localparam RL       = (MAX_LOG2 < 9) ? MAX_LOG2 : 9;     // random rounds: one page a ring
localparam EVQ      = 8192;                              // model's event FIFO
localparam OWQ      = 64;                                // writes awaiting their response
localparam GQ       = 64;                                // source FIFOs
localparam [63:0] ADDR_MASK = (ADDR_WIDTH >= 64) ? {64{1'b1}} : ((64'd1 << ADDR_WIDTH) - 64'd1);
localparam [63:0] BASE_MASK = ADDR_MASK & ~64'hFFF;

// roles of a CQ in a random round
localparam R_ACTIVE = 0, R_STALL = 1, R_OFF = 2, R_ERR = 3, R_PAUSE = 4;

reg rst = 1'b1;
reg dbg = 1'b0;     // +debug: print every decision
reg abort_r = 1'b0; // the soft reset's drain (test_abort)
reg m_abort = 1'b0; // the model's view of it: every bound event is dropped

`include "tb_via_blocks_bus.vh"

// ---------------------------------------------------------------- DUT
reg                   tx_done = 1'b0;
reg  [VW-1:0]         tx_done_vi = {VW{1'b0}};
reg                   tx_done_q = 1'b0;
reg                   rx_done = 1'b0;
reg  [VW-1:0]         rx_done_vi = {VW{1'b0}};
wire                  done_ready;
wire                  busy, entry_pulse, aerr_pulse;
wire [7:0]            aerr_cq;

// AW and B (the memory model's read channels are tied off)
wire [ID_WIDTH-1:0]   axi_awid;
wire [ADDR_WIDTH-1:0] axi_awaddr;
wire [7:0]            axi_awlen;
wire [2:0]            axi_awsize, axi_awprot;
wire [1:0]            axi_awburst, axi_bresp;
wire                  axi_awlock;
wire [3:0]            axi_awcache;
wire                  axi_awvalid, axi_awready, axi_bvalid, axi_bready;
// B held back by the bench (set only while no response is pending)
reg                   b_hold = 1'b0;
wire                  dut_bvalid = axi_bvalid && !b_hold;
wire                  ram_bready = axi_bready && !b_hold;
// W: the block's side, and the memory's side of the W buffer
wire [DATA_WIDTH-1:0] dut_wdata;
wire [BYTES-1:0]      dut_wstrb;
wire                  dut_wlast, dut_wvalid;
reg                   dut_wready = 1'b0;
wire [DATA_WIDTH-1:0] ram_wdata;
wire [BYTES-1:0]      ram_wstrb;
wire                  ram_wlast, ram_wvalid, ram_wready;

via_cq #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .NUM_VI(NUM_VI),
    .NUM_CQ(NUM_CQ),
    .MAX_LOG2(MAX_LOG2),
    .WR_ID(WR_ID)
) dut (
    .clk(clk),
    .rst(rst),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(wr_strb),
    .wr_hit(wr_hit),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(rd_fire),
    .rd_hit(rd_hit),
    .rd_data(rd_data),
    .tx_done(tx_done),
    .tx_done_vi(tx_done_vi),
    .tx_done_q(tx_done_q),
    .rx_done(rx_done),
    .rx_done_vi(rx_done_vi),
    .done_ready(done_ready),
    .m_axi_awid(axi_awid),
    .m_axi_awaddr(axi_awaddr),
    .m_axi_awlen(axi_awlen),
    .m_axi_awsize(axi_awsize),
    .m_axi_awburst(axi_awburst),
    .m_axi_awlock(axi_awlock),
    .m_axi_awcache(axi_awcache),
    .m_axi_awprot(axi_awprot),
    .m_axi_awvalid(axi_awvalid),
    .m_axi_awready(axi_awready),
    .m_axi_wdata(dut_wdata),
    .m_axi_wstrb(dut_wstrb),
    .m_axi_wlast(dut_wlast),
    .m_axi_wvalid(dut_wvalid),
    .m_axi_wready(dut_wready),
    .m_axi_bresp(axi_bresp),
    .m_axi_bvalid(dut_bvalid),
    .m_axi_bready(axi_bready),
    .abort(abort_r),
    .busy(busy),
    .entry_pulse(entry_pulse),
    .aerr_pulse(aerr_pulse),
    .aerr_cq(aerr_cq)
);

axi_ram_model #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .MEM_BYTES(MEM_BYTES),
    .READ_LATENCY(4),
    .WRITE_LATENCY(WRITE_LATENCY),
    .READY_PROB(100),
    .SEED_SALT(SALT)
) ram (
    .clk(clk),
    .rst(rst),
    .s_axi_awid(axi_awid),
    .s_axi_awaddr(axi_awaddr),
    .s_axi_awlen(axi_awlen),
    .s_axi_awsize(axi_awsize),
    .s_axi_awburst(axi_awburst),
    .s_axi_awlock(axi_awlock),
    .s_axi_awcache(axi_awcache),
    .s_axi_awprot(axi_awprot),
    .s_axi_awvalid(axi_awvalid),
    .s_axi_awready(axi_awready),
    .s_axi_wdata(ram_wdata),
    .s_axi_wstrb(ram_wstrb),
    .s_axi_wlast(ram_wlast),
    .s_axi_wvalid(ram_wvalid),
    .s_axi_wready(ram_wready),
    .s_axi_bid(),
    .s_axi_bresp(axi_bresp),
    .s_axi_bvalid(axi_bvalid),
    .s_axi_bready(ram_bready),
    .s_axi_arid({ID_WIDTH{1'b0}}),
    .s_axi_araddr({ADDR_WIDTH{1'b0}}),
    .s_axi_arlen(8'd0),
    .s_axi_arsize(3'd0),
    .s_axi_arburst(2'b01),
    .s_axi_arlock(1'b0),
    .s_axi_arcache(4'd0),
    .s_axi_arprot(3'd0),
    .s_axi_arvalid(1'b0),
    .s_axi_arready(),
    .s_axi_rid(),
    .s_axi_rdata(),
    .s_axi_rresp(),
    .s_axi_rlast(),
    .s_axi_rvalid(),
    .s_axi_rready(1'b0)
);

// ---------------------------------------------------------------- random
// xorshift32, one state per process (the processes' order at an edge does
// not change any sequence). Few draws per cycle, sliced into fields: a
// function call costs Icarus several microseconds.
reg [31:0] rs_main = 32'h1, rs_src = 32'h2, rs_buf = 32'h3;

// the next number of the main thread's sequence
function [31:0] rnd;
    input integer unused;
    begin
        rs_main = rs_main ^ (rs_main << 13);
        rs_main = rs_main ^ (rs_main >> 17);
        rs_main = rs_main ^ (rs_main << 5);
        rnd = rs_main;
    end
endfunction

// 0..n-1 (main thread)
function integer urand;
    input integer n;
    begin
        rs_main = rs_main ^ (rs_main << 13);
        rs_main = rs_main ^ (rs_main >> 17);
        rs_main = rs_main ^ (rs_main << 5);
        urand = (rs_main & 32'h7FFFFFFF) % n;
    end
endfunction

// ---------------------------------------------------------------- W buffer
// Two beats between the block's W and the memory's: the block's W is taken
// with probability wbuf_prob while there is room, whether or not its AW
// has been; the memory takes them in order once it has the AW.
integer wbuf_prob = 100;
reg [DATA_WIDTH-1:0] wb_data [0:1];
reg [BYTES-1:0]      wb_strb [0:1];
reg                  wb_last [0:1];
reg                  wb_rd = 1'b0, wb_wr = 1'b0;
reg [1:0]            wb_cnt = 2'd0;
reg                  wb_push, wb_pop;
reg [1:0]            wb_next;

assign ram_wvalid = wb_cnt != 2'd0;
assign ram_wdata  = wb_data[wb_rd];
assign ram_wstrb  = wb_strb[wb_rd];
assign ram_wlast  = wb_last[wb_rd];

always @(posedge clk) begin
    if (rst) begin
        wb_rd <= 1'b0;
        wb_wr <= 1'b0;
        wb_cnt <= 2'd0;
        dut_wready <= 1'b0;
    end else begin
        wb_push = dut_wvalid && dut_wready;
        wb_pop = ram_wvalid && ram_wready;
        if (wb_push) begin
            wb_data[wb_wr] <= dut_wdata;
            wb_strb[wb_wr] <= dut_wstrb;
            wb_last[wb_wr] <= dut_wlast;
            wb_wr <= ~wb_wr;
        end
        if (wb_pop) wb_rd <= ~wb_rd;
        wb_next = wb_cnt + {1'b0, wb_push} - {1'b0, wb_pop};
        wb_cnt <= wb_next;
        if (wbuf_prob >= 100) begin
            dut_wready <= wb_next < 2'd2;
        end else begin
            rs_buf = rs_buf ^ (rs_buf << 13);
            rs_buf = rs_buf ^ (rs_buf >> 17);
            rs_buf = rs_buf ^ (rs_buf << 5);
            dut_wready <= wb_next < 2'd2 && rs_buf[15:0] % 100 < wbuf_prob;
        end
    end
end

// ---------------------------------------------------------------- model state
// per CQ, as the block should hold it
reg         m_en    [0:NUM_CQ-1];
reg         m_pause [0:NUM_CQ-1];
reg         m_ovf   [0:NUM_CQ-1];
reg  [3:0]  m_log2  [0:NUM_CQ-1];
reg  [63:0] m_base  [0:NUM_CQ-1];
reg  [15:0] m_prod  [0:NUM_CQ-1];
reg  [15:0] m_cons  [0:NUM_CQ-1];
// the bench's counts since the CQ's RESET: entries decided as writes,
// responded, taken by the consumer, and the count last written to CQ_CONS;
// events given to the sources and not yet decided
integer     m_made  [0:NUM_CQ-1];
integer     m_resp  [0:NUM_CQ-1];
integer     m_took  [0:NUM_CQ-1];
integer     m_consw [0:NUM_CQ-1];
integer     m_inq   [0:NUM_CQ-1];
integer     m_role  [0:NUM_CQ-1];
// per CQ and slot: the last entry written there failed
reg         m_slot_err [0:NUM_CQ*SLOTS-1];
// binding table {enable, CQ} per {VI, queue}
reg         m_ben [0:NQ-1];
integer     m_bcq [0:NQ-1];
reg  [31:0] m_entries = 32'd0, m_dropped = 32'd0;
reg  [31:0] m_cons_word = 32'd0, m_bind_word = 32'd0;
reg  [7:0]  m_sel = 8'd0;
// memory error range of the model (as set in ram)
reg  [63:0] m_err_lo = 64'd0, m_err_hi = 64'd0;
// what the memory should hold
reg  [7:0]  exp_mem [0:MEM_BYTES-1];

// events taken by the block, in order, not yet decided
reg  [VW:0] mev [0:EVQ-1];
integer     mev_rd = 0, mev_wr = 0;

// the sources' FIFOs
reg  [VW-1:0] gtx_vi [0:GQ-1];
reg           gtx_q  [0:GQ-1];
reg  [VW-1:0] grx_vi [0:GQ-1];
integer       gtx_rd = 0, gtx_wr = 0, grx_rd = 0, grx_wr = 0;
integer       src_prob = 100;
integer       src_budget = 3;

// entry writes decided, awaiting their response
reg  [63:0] ow_addr [0:OWQ-1];
reg  [63:0] ow_data [0:OWQ-1];
reg         ow_err  [0:OWQ-1];
integer     ow_cq   [0:OWQ-1];
integer     ow_rd = 0, ow_wr = 0;
// the entry whose AW / W is in progress (the last one decided)
reg         cur_open = 1'b0, cur_aw = 1'b0, cur_w = 1'b0;
integer     cur_i = 0;

// statistics and counts
integer     cyc = 0;
integer     n_ev = 0, n_pairs = 0, n_writes = 0, n_resp = 0, n_resp_err = 0;
integer     n_aerr_ovf = 0, n_aerr_resp = 0, n_ignored = 0, n_drops = 0, n_wfirst = 0;
integer     n_taken = 0, max_used = 0, n_dr_low = 0, n_awfirst = 0, max_ow = 0;

// decision of one event (resolve_one)
localparam K_IGNORE = 0, K_DROP = 1, K_OVF = 2, K_WRITE = 3;
integer     r_kind, r_cq;

// ---------------------------------------------------------------- model
function [63:0] entry_value;
    input [VW-1:0] vi;
    input          q;
    input [15:0]   seqn;
    reg [31:0] info, seqw;
    begin
        info = 32'd0;
        info[`VIA_DESC_CQ_ENTRY_INFO_VI_RANGE] = {{(16-VW){1'b0}}, vi};
        info[`VIA_DESC_CQ_ENTRY_INFO_QUEUE_LSB] = q;
        info[`VIA_DESC_CQ_ENTRY_INFO_VALID_LSB] = 1'b1;
        seqw = {16'd0, seqn};
        entry_value = ({32'd0, info} << (8 * `VIA_DESC_CQ_ENTRY_INFO_OFFSET))
                    | ({32'd0, seqw} << (8 * `VIA_DESC_CQ_ENTRY_SEQ_OFFSET));
    end
endfunction

function [15:0] ring_size;
    input integer c;
    begin
        ring_size = 16'd1 << m_log2[c];
    end
endfunction

// the oldest undecided event, decided against the model's state now
task resolve_one;
    reg [VW:0] e;
    reg [15:0] size, slot;
    reg [63:0] a;
    integer k;
    begin
        if (mev_rd == mev_wr) begin
            $display("FAIL tb_via_cq %0s: cycle %0d: the block acted with no event left to decide", NAME, cyc);
            $fatal(1, "tb_via_cq %0s: check failed", NAME);
        end
        e = mev[mev_rd % EVQ];
        mev_rd = mev_rd + 1;
        k = e;
        r_cq = -1;
        if (dbg) $display("tb_via_cq %0s: cycle %0d: decide event VI %0d queue %0d: bound %b CQ %0d", NAME, cyc, e[VW:1], e[0], m_ben[k], m_bcq[k]);
        if (!m_ben[k]) begin
            r_kind = K_IGNORE;
            n_ignored = n_ignored + 1;
        end else begin
            r_cq = m_bcq[k];
            m_inq[r_cq] = m_inq[r_cq] - 1;
            size = ring_size(r_cq);
            if (!m_en[r_cq] || m_ovf[r_cq] || m_abort) begin
                r_kind = K_DROP;
                m_dropped = m_dropped + 32'd1;
                n_drops = n_drops + 1;
            end else if (m_prod[r_cq] - m_cons[r_cq] >= size) begin
                r_kind = K_OVF;
                m_ovf[r_cq] = 1'b1;
                m_dropped = m_dropped + 32'd1;
                n_drops = n_drops + 1;
            end else begin
                r_kind = K_WRITE;
                slot = m_prod[r_cq] & (size - 16'd1);
                a = (m_base[r_cq] + {45'd0, slot, 3'b000}) & ADDR_MASK;
                if (ow_wr - ow_rd >= OWQ) $fatal(1, "tb_via_cq %0s: bench error, too many writes outstanding", NAME);
                ow_addr[ow_wr % OWQ] = a;
                ow_data[ow_wr % OWQ] = entry_value(e[VW:1], e[0], m_prod[r_cq]);
                ow_cq[ow_wr % OWQ] = r_cq;
                // the memory model: DECERR beyond its bytes, SLVERR in the range
                ow_err[ow_wr % OWQ] = a + 64'd8 > MEM_BYTES || (m_err_lo < m_err_hi && a < m_err_hi && a + 64'd8 > m_err_lo);
                cur_i = ow_wr;
                ow_wr = ow_wr + 1;
                m_prod[r_cq] = m_prod[r_cq] + 16'd1;
                m_made[r_cq] = m_made[r_cq] + 1;
            end
        end
    end
endtask

// ---------------------------------------------------------------- sources
// at the falling edge (after the main thread's actions there): present the
// next event of each FIFO, within the allowance
always @(negedge clk) begin
    #2;
    if (gtx_wr - gtx_rd > GQ || grx_wr - grx_rd > GQ) $fatal(1, "tb_via_cq %0s: bench error, a source FIFO overflowed", NAME);
    if (!rst && (tx_done || rx_done || gtx_rd != gtx_wr || grx_rd != grx_wr)) begin
        rs_src = rs_src ^ (rs_src << 13);
        rs_src = rs_src ^ (rs_src >> 17);
        rs_src = rs_src ^ (rs_src << 5);
        tx_done = 1'b0;
        rx_done = 1'b0;
        tx_done_vi = rs_src[VW-1:0];
        tx_done_q = rs_src[10];
        rx_done_vi = rs_src[11 +: VW];
        if (done_ready === 1'b1) src_budget = 3;
        if (gtx_rd != gtx_wr && rs_src[31:22] % 100 < src_prob && (done_ready === 1'b1 || src_budget > 0)) begin
            tx_done = 1'b1;
            tx_done_vi = gtx_vi[gtx_rd % GQ];
            tx_done_q = gtx_q[gtx_rd % GQ];
            gtx_rd = gtx_rd + 1;
            if (done_ready !== 1'b1) src_budget = src_budget - 1;
        end
        if (grx_rd != grx_wr && rs_src[9:0] % 100 < src_prob && (done_ready === 1'b1 || src_budget > 0)) begin
            rx_done = 1'b1;
            rx_done_vi = grx_vi[grx_rd % GQ];
            grx_rd = grx_rd + 1;
            if (done_ready !== 1'b1) src_budget = src_budget - 1;
        end
    end
end

// ---------------------------------------------------------------- monitor
// at the rising edge: what happened in the cycle that ends
reg         prev_b = 1'b0, prev_b_err = 1'b0;
integer     prev_b_cq = 0;
reg         prev_wv = 1'b0, prev_wr = 1'b0;
reg [DATA_WIDTH-1:0] prev_wd;
reg [BYTES-1:0]      prev_ws;
reg         aw_hs, w_hs, b_hs;
integer     mi, mb, lane, used;
reg [63:0]  mw;
reg [BYTES-1:0] exp_strb;

always @(posedge clk) begin
    if (rst) begin
        prev_b = 1'b0;
        prev_wv = 1'b0;
    end else begin
        cyc = cyc + 1;
        // the events presented in this cycle (send port first)
        if (tx_done) begin
            if (mev_wr - mev_rd >= EVQ) $fatal(1, "tb_via_cq %0s: bench error, event FIFO full", NAME);
            mev[mev_wr % EVQ] = {tx_done_vi, tx_done_q};
            mev_wr = mev_wr + 1;
            n_ev = n_ev + 1;
        end
        if (rx_done) begin
            if (mev_wr - mev_rd >= EVQ) $fatal(1, "tb_via_cq %0s: bench error, event FIFO full", NAME);
            mev[mev_wr % EVQ] = {rx_done_vi, 1'b1};
            mev_wr = mev_wr + 1;
            n_ev = n_ev + 1;
        end
        if (tx_done && rx_done) n_pairs = n_pairs + 1;
        if (dbg && (tx_done || rx_done || dut.h_go))
            $display("tb_via_cq %0s: cycle %0d: tx %b %0d.%0d rx %b %0d, wp %0d rp %0d go %b head %0d.%0d", NAME, cyc,
                tx_done, tx_done_vi, tx_done_q, rx_done, rx_done_vi, dut.ev_wp, dut.ev_rp, dut.h_go, dut.ev_head[VW:1], dut.ev_head[0]);
        if (!done_ready) n_dr_low = n_dr_low + 1;
        // white box: the block's event queue (8 entries) never overflows
        used = dut.ev_used;
        if (used > max_used) max_used = used;
        if (used > 8) $fatal(1, "tb_via_cq %0s: cycle %0d: the event queue holds %0d events", NAME, cyc, used);

        // busy while a write is outstanding
        if ((cur_open || ow_rd != ow_wr) && busy !== 1'b1)
            $fatal(1, "tb_via_cq %0s: cycle %0d: busy 0 with an entry write outstanding", NAME, cyc);

        // entry_pulse: exactly the cycle after each response
        if (entry_pulse !== prev_b)
            $fatal(1, "tb_via_cq %0s: cycle %0d: entry_pulse %b, a response in the cycle before: %b", NAME, cyc, entry_pulse, prev_b);
        // aerr_pulse: after a failed response, or an overflow
        if (aerr_pulse === 1'bx) $fatal(1, "tb_via_cq %0s: cycle %0d: aerr_pulse X", NAME, cyc);
        if (prev_b && prev_b_err) begin
            if (aerr_pulse !== 1'b1 || aerr_cq != prev_b_cq)
                $fatal(1, "tb_via_cq %0s: cycle %0d: after a failed response of CQ %0d: aerr_pulse %b aerr_cq %0d",
                    NAME, cyc, prev_b_cq, aerr_pulse, aerr_cq);
            n_aerr_resp = n_aerr_resp + 1;
        end else if (aerr_pulse) begin
            // the events before the overflow were ignored or dropped
            r_kind = K_IGNORE;
            while (r_kind != K_OVF) begin
                resolve_one;
                if (r_kind == K_WRITE)
                    $fatal(1, "tb_via_cq %0s: cycle %0d: aerr_pulse (CQ %0d), but the model's next entry is a write to CQ %0d (no AW/W seen)",
                        NAME, cyc, aerr_cq, r_cq);
            end
            if (aerr_cq != r_cq)
                $fatal(1, "tb_via_cq %0s: cycle %0d: overflow of CQ %0d, aerr_cq %0d", NAME, cyc, r_cq, aerr_cq);
            n_aerr_ovf = n_aerr_ovf + 1;
        end

        // the entry write: AW and W on the block's side
        aw_hs = axi_awvalid && axi_awready;
        w_hs = dut_wvalid && dut_wready;
        if ((aw_hs || w_hs) && !cur_open) begin
            r_kind = K_IGNORE;
            while (r_kind != K_WRITE) begin
                resolve_one;
                if (r_kind == K_OVF)
                    $fatal(1, "tb_via_cq %0s: cycle %0d: the model's overflow of CQ %0d had no aerr_pulse before the next write",
                        NAME, cyc, r_cq);
            end
            cur_open = 1'b1;
            cur_aw = 1'b0;
            cur_w = 1'b0;
            n_writes = n_writes + 1;
            // the block counts 15 writes awaiting their response at most
            if (ow_wr - ow_rd > max_ow) max_ow = ow_wr - ow_rd;
            if (ow_wr - ow_rd > 15) $fatal(1, "tb_via_cq %0s: cycle %0d: %0d entry writes outstanding", NAME, cyc, ow_wr - ow_rd);
        end
        if (aw_hs) begin
            mi = cur_i % OWQ;
            if (cur_aw) $fatal(1, "tb_via_cq %0s: cycle %0d: a second AW before the entry's W", NAME, cyc);
            if (!cur_w && !w_hs) n_awfirst = n_awfirst + 1;
            if ({{(64-ADDR_WIDTH){1'b0}}, axi_awaddr} != ow_addr[mi] || axi_awlen != 8'd0 || axi_awsize != 3'd3 || axi_awburst != 2'b01
                    || axi_awid != WR_ID || axi_awlock != 1'b0 || axi_awcache != 4'b0011 || axi_awprot != 3'b010)
                $fatal(1, "tb_via_cq %0s: cycle %0d: AW addr 0x%0h len %0d size %0d burst %0d id %0d lock %b cache %b prot %b; expected addr 0x%0h (CQ %0d), one 8-byte beat, id %0d",
                    NAME, cyc, axi_awaddr, axi_awlen, axi_awsize, axi_awburst, axi_awid, axi_awlock, axi_awcache, axi_awprot,
                    ow_addr[mi], ow_cq[mi], WR_ID);
            cur_aw = 1'b1;
        end
        if (w_hs) begin
            mi = cur_i % OWQ;
            if (cur_w) $fatal(1, "tb_via_cq %0s: cycle %0d: a second W before the entry's AW", NAME, cyc);
            if (!cur_aw) n_wfirst = n_wfirst + 1;
            lane = (ow_addr[mi] >> 3) % LANES;
            exp_strb = {{(BYTES-8){1'b0}}, 8'hFF} << (8 * lane);
            mw = dut_wdata[64*lane +: 64];
            if (dut_wstrb !== exp_strb || mw !== ow_data[mi] || dut_wlast !== 1'b1)
                $fatal(1, "tb_via_cq %0s: cycle %0d: W data 0x%0h strb 0x%0h last %b; expected 0x%0h in lane %0d (addr 0x%0h, CQ %0d), strb 0x%0h",
                    NAME, cyc, mw, dut_wstrb, dut_wlast, ow_data[mi], lane, ow_addr[mi], ow_cq[mi], exp_strb);
            cur_w = 1'b1;
        end
        if (cur_open && cur_aw && cur_w) cur_open = 1'b0;
        // W stable while not taken (the memory model checks AW)
        if (prev_wv && !prev_wr && (dut_wvalid !== 1'b1 || dut_wdata !== prev_wd || dut_wstrb !== prev_ws))
            $fatal(1, "tb_via_cq %0s: cycle %0d: W dropped or changed before wready", NAME, cyc);
        prev_wv = dut_wvalid;
        prev_wr = dut_wready;
        prev_wd = dut_wdata;
        prev_ws = dut_wstrb;

        // the response
        b_hs = dut_bvalid && axi_bready;
        prev_b = b_hs;
        prev_b_err = 1'b0;
        if (b_hs) begin
            if (ow_rd == ow_wr || (ow_rd == cur_i && cur_open))
                $fatal(1, "tb_via_cq %0s: cycle %0d: a write response with no entry write complete", NAME, cyc);
            mi = ow_rd % OWQ;
            ow_rd = ow_rd + 1;
            prev_b_cq = ow_cq[mi];
            prev_b_err = axi_bresp[1];
            if (axi_bresp[1] !== ow_err[mi])
                $fatal(1, "tb_via_cq %0s: cycle %0d: response %0d for 0x%0h, the bench expected error %b", NAME, cyc, axi_bresp, ow_addr[mi], ow_err[mi]);
            m_slot_err[ow_cq[mi] * SLOTS + ((ow_addr[mi] - m_base[ow_cq[mi]]) >> 3) % SLOTS] = ow_err[mi];
            m_resp[ow_cq[mi]] = m_resp[ow_cq[mi]] + 1;
            n_resp = n_resp + 1;
            if (ow_err[mi]) begin
                m_dropped = m_dropped + 32'd1;
                n_resp_err = n_resp_err + 1;
            end else begin
                m_entries = m_entries + 32'd1;
                // the entry is in memory when its response comes
                mb = ow_addr[mi];
                mw = ow_data[mi];
                if ({ram.mem[mb + 7], ram.mem[mb + 6], ram.mem[mb + 5], ram.mem[mb + 4],
                     ram.mem[mb + 3], ram.mem[mb + 2], ram.mem[mb + 1], ram.mem[mb]} !== mw)
                    $fatal(1, "tb_via_cq %0s: cycle %0d: response for 0x%0h, but memory holds 0x%0h, expected 0x%0h",
                        NAME, cyc, ow_addr[mi], {ram.mem[mb + 7], ram.mem[mb + 6], ram.mem[mb + 5], ram.mem[mb + 4],
                        ram.mem[mb + 3], ram.mem[mb + 2], ram.mem[mb + 1], ram.mem[mb]}, mw);
                exp_mem[mb] = mw[7:0];
                exp_mem[mb + 1] = mw[15:8];
                exp_mem[mb + 2] = mw[23:16];
                exp_mem[mb + 3] = mw[31:24];
                exp_mem[mb + 4] = mw[39:32];
                exp_mem[mb + 5] = mw[47:40];
                exp_mem[mb + 6] = mw[55:48];
                exp_mem[mb + 7] = mw[63:56];
            end
        end
    end
end

// ---------------------------------------------------------------- bench actions
task tick;
    begin
        @(negedge clk);
    end
endtask

function [31:0] ctrl_word;
    input en;
    input pause;
    input rst_c;
    input [3:0] log2;
    begin
        ctrl_word = 32'd0;
        ctrl_word[`VIA_CQ_CTRL_ENABLE_LSB] = en;
        ctrl_word[`VIA_CQ_CTRL_PAUSE_LSB] = pause;
        ctrl_word[`VIA_CQ_CTRL_RESET_LSB] = rst_c;
        ctrl_word[`VIA_CQ_CTRL_LOG2_ENTRIES_RANGE] = log2;
    end
endfunction

task s_sel_cq;
    input integer c;
    begin
        bus_wr(`VIA_REG_CQ_SEL, c, 4'hF);
        m_sel = c;
    end
endtask

// the model's part of a CQ_CTRL write to CQ c (valid)
task model_ctrl;
    input integer c;
    input [31:0] w;
    reg ok;
    reg [3:0] l;
    begin
        l = w[`VIA_CQ_CTRL_LOG2_ENTRIES_RANGE];
        ok = l >= 4'd1 && l <= MAX_LOG2;
        m_en[c] = w[`VIA_CQ_CTRL_ENABLE_LSB] && ok;
        m_pause[c] = w[`VIA_CQ_CTRL_PAUSE_LSB];
        m_log2[c] = ok ? l : 4'd0;
        if (w[`VIA_CQ_CTRL_RESET_LSB]) begin
            m_prod[c] = 16'd0;
            m_cons[c] = 16'd0;
            m_ovf[c] = 1'b0;
            m_made[c] = 0;
            m_resp[c] = 0;
            m_took[c] = 0;
            m_consw[c] = 0;
        end
    end
endtask

// set up CQ c: base, then CTRL (optionally with RESET)
task s_cq_setup;
    input integer c;
    input en;
    input pause;
    input [3:0] log2;
    input [63:0] base;
    input rst_c;
    reg [31:0] w;
    begin
        s_sel_cq(c);
        bus_wr(`VIA_REG_CQ_BASE_LO, base[31:0], 4'hF);
        bus_wr(`VIA_REG_CQ_BASE_HI, base[63:32], 4'hF);
        m_base[c] = base & BASE_MASK;
        w = ctrl_word(en, pause, rst_c, log2);
        bus_wr(`VIA_REG_CQ_CTRL, w, 4'hF);
        model_ctrl(c, w);
    end
endtask

task s_set_pause;
    input integer c;
    input p;
    reg [31:0] w;
    begin
        if (m_sel != c) s_sel_cq(c);
        w = ctrl_word(m_en[c], p, 1'b0, m_log2[c]);
        bus_wr(`VIA_REG_CQ_CTRL, w, 4'hF);
        model_ctrl(c, w);
    end
endtask

// CQ_BIND: {VI, queue} -> CQ c (en) or unbound; out-of-range VI or CQ: ignored
task s_cq_bind;
    input integer vi;
    input integer q;
    input en;
    input integer c;
    reg [31:0] w;
    begin
        w = 32'd0;
        w[`VIA_CQ_BIND_VI_RANGE] = vi;
        w[`VIA_CQ_BIND_QUEUE_LSB] = q;
        w[`VIA_CQ_BIND_ENABLE_LSB] = en;
        w[`VIA_CQ_BIND_CQ_RANGE] = c;
        w = w | ({urand(64), 18'd0} & 32'h00FC0000);   // reserved bits: ignored, read 0
        bus_wr(`VIA_REG_CQ_BIND, w, 4'hF);
        m_bind_word = w & 32'hFF03FFFF;
        if (w[`VIA_CQ_BIND_VI_RANGE] < NUM_VI && w[`VIA_CQ_BIND_CQ_RANGE] < NUM_CQ) begin
            m_ben[2 * w[`VIA_CQ_BIND_VI_RANGE] + q] = en;
            m_bcq[2 * w[`VIA_CQ_BIND_VI_RANGE] + q] = w[`VIA_CQ_BIND_CQ_RANGE];
        end
    end
endtask

// CQ_CONS of CQ c: the count n (mod 2**16)
task s_cons_write;
    input integer c;
    input integer n;
    reg [31:0] w;
    begin
        w = 32'd0;
        w[`VIA_CQ_CONS_INDEX_RANGE] = n;
        w[`VIA_CQ_CONS_CQ_RANGE] = c;
        w = w | ({urand(256), 24'd0});   // reserved bits
        bus_wr(`VIA_REG_CQ_CONS, w, 4'hF);
        m_cons_word = w & 32'h00FFFFFF;
        if (w[`VIA_CQ_CONS_CQ_RANGE] < NUM_CQ) begin
            m_cons[w[`VIA_CQ_CONS_CQ_RANGE]] = n;
            m_consw[w[`VIA_CQ_CONS_CQ_RANGE]] = n;
        end
    end
endtask

// give an event to a source: port 0 send (VI, q), port 1 receive (VI, 1)
task send;
    input integer port;
    input integer vi;
    input integer q;
    integer k;
    begin
        k = 2 * vi + (port == 1 ? 1 : q);
        if (m_ben[k]) m_inq[m_bcq[k]] = m_inq[m_bcq[k]] + 1;
        if (port == 0) begin
            gtx_vi[gtx_wr % GQ] = vi;
            gtx_q[gtx_wr % GQ] = q;
            gtx_wr = gtx_wr + 1;
        end else begin
            grx_vi[grx_wr % GQ] = vi;
            grx_wr = grx_wr + 1;
        end
    end
endtask

// the consumer: take the entries of CQ c that have their response (the
// slot holds entry n, SEQ n mod 2**16, unless its write failed)
integer ct_a, ct_s;
reg [63:0] ct_v;
task s_consume;
    input integer c;
    begin
        while (m_took[c] < m_resp[c] && m_log2[c] != 4'd0) begin
            ct_s = m_took[c] % (1 << m_log2[c]);
            if (!m_slot_err[c * SLOTS + ct_s]) begin
                ct_a = ((m_base[c] + ct_s * 8) & ADDR_MASK);
                ct_v = {ram.mem[ct_a + 7], ram.mem[ct_a + 6], ram.mem[ct_a + 5], ram.mem[ct_a + 4],
                        ram.mem[ct_a + 3], ram.mem[ct_a + 2], ram.mem[ct_a + 1], ram.mem[ct_a]};
                if (ct_v !== {exp_mem[ct_a + 7], exp_mem[ct_a + 6], exp_mem[ct_a + 5], exp_mem[ct_a + 4],
                              exp_mem[ct_a + 3], exp_mem[ct_a + 2], exp_mem[ct_a + 1], exp_mem[ct_a]}
                        || ct_v[8*`VIA_DESC_CQ_ENTRY_SEQ_OFFSET +: 32] !== (m_took[c] & 32'hFFFF)
                        || ct_v[8*`VIA_DESC_CQ_ENTRY_INFO_OFFSET + `VIA_DESC_CQ_ENTRY_INFO_VALID_LSB] !== 1'b1)
                    $fatal(1, "tb_via_cq %0s: CQ %0d entry %0d: slot 0x%0h holds 0x%0h, expected 0x%0h (SEQ 0x%0h, VALID)", NAME, c, m_took[c],
                        ct_a, ct_v, {exp_mem[ct_a + 7], exp_mem[ct_a + 6], exp_mem[ct_a + 5], exp_mem[ct_a + 4],
                        exp_mem[ct_a + 3], exp_mem[ct_a + 2], exp_mem[ct_a + 1], exp_mem[ct_a]}, m_took[c] & 32'hFFFF);
            end
            m_took[c] = m_took[c] + 1;
            n_taken = n_taken + 1;
        end
    end
endtask

// the memory pages written since the last comparison equal the image
integer cm_p, cm_i;
task check_memory;
    begin
        for (cm_p = 0; cm_p < PAGES; cm_p = cm_p + 1) begin
            if (ram.page_written[cm_p]) begin
                for (cm_i = cm_p * 4096; cm_i < cm_p * 4096 + 4096 && cm_i < MEM_BYTES; cm_i = cm_i + 1) begin
                    if (ram.mem[cm_i] !== exp_mem[cm_i])
                        $fatal(1, "tb_via_cq %0s: memory byte 0x%0h is 0x%0h, expected 0x%0h", NAME, cm_i, ram.mem[cm_i], exp_mem[cm_i]);
                end
                ram.page_written[cm_p] = 1'b0;
            end
        end
    end
endtask

// read a register and compare (within the current cycle)
reg [31:0] rv;
task s_rd_check;
    input [15:0] a;
    input [31:0] exp_v;
    begin
        bus_peek(a, rv);
        if (rv !== exp_v)
            $fatal(1, "tb_via_cq %0s: register 0x%0h (CQ_SEL %0d) reads 0x%0h, expected 0x%0h", NAME, a, m_sel, rv, exp_v);
    end
endtask

function [31:0] exp_ctrl;
    input integer c;
    begin
        exp_ctrl = ctrl_word(m_en[c], m_pause[c], 1'b0, m_log2[c]);
        exp_ctrl[`VIA_CQ_CTRL_OVERFLOW_LSB] = m_ovf[c];
    end
endfunction

// everything a CQ's registers show, against the model (quiescent: BUSY 0)
task s_check_cq_regs;
    input integer c;
    reg [63:0] b;
    begin
        s_sel_cq(c);
        b = m_base[c];
        s_rd_check(`VIA_REG_CQ_CTRL, exp_ctrl(c));
        s_rd_check(`VIA_REG_CQ_BASE_LO, b[31:0]);
        s_rd_check(`VIA_REG_CQ_BASE_HI, b[63:32]);
        s_rd_check(`VIA_REG_CQ_STATE, {m_cons[c], m_prod[c]});
    end
endtask

// wait until the sources are drained and the block is idle, then decide
// the remaining events and compare everything
integer qi;
task s_quiesce;
    begin
        qi = 0;
        while ((gtx_rd != gtx_wr || grx_rd != grx_wr || busy !== 1'b0) && qi < 20000) begin
            tick;
            qi = qi + 1;
        end
        if (qi >= 20000) $fatal(1, "tb_via_cq %0s: busy does not fall (%0d events undecided, %0d writes outstanding)",
            NAME, mev_wr - mev_rd, ow_wr - ow_rd);
        repeat (3) tick;
        if (busy !== 1'b0 || done_ready !== 1'b1 || aerr_pulse !== 1'b0 || entry_pulse !== 1'b0)
            $fatal(1, "tb_via_cq %0s: idle: busy %b done_ready %b aerr_pulse %b entry_pulse %b", NAME, busy, done_ready, aerr_pulse, entry_pulse);
        if (cur_open || ow_rd != ow_wr) $fatal(1, "tb_via_cq %0s: idle with an entry write outstanding", NAME);
        while (mev_rd != mev_wr) begin
            resolve_one;
            if (r_kind == K_WRITE) $fatal(1, "tb_via_cq %0s: the block is idle, but the model writes an entry to CQ %0d", NAME, r_cq);
            if (r_kind == K_OVF) $fatal(1, "tb_via_cq %0s: the block is idle, but the model had an overflow of CQ %0d (no aerr_pulse)", NAME, r_cq);
        end
        for (qi = 0; qi < ncq; qi = qi + 1) begin
            if (m_inq[qi] != 0) $fatal(1, "tb_via_cq %0s: bench error, CQ %0d has %0d events counted", NAME, qi, m_inq[qi]);
            s_consume(qi);
            s_check_cq_regs(qi);
        end
        s_rd_check(`VIA_REG_CQ_ENTRIES, m_entries);
        s_rd_check(`VIA_REG_CQ_DROPPED, m_dropped);
        check_memory;
    end
endtask


// ---------------------------------------------------------------- requests
// The main thread's operations above run in one server process and the
// main thread's tasks below only post a request and wait for it: Verilator
// inlines a task's whole body (and the tasks it calls) at every call site
// of the main thread's one coroutine, which made minutes of C++.
localparam OP_SEL = 1, OP_SETUP = 2, OP_PAUSE = 3, OP_BIND = 4, OP_CONS = 5, OP_CONSUME = 6,
           OP_RD = 7, OP_REGS = 8, OP_QUIESCE = 9;
integer    srv_op = 0, srv_req = 0, srv_ack = 0;
integer    srv_a, srv_b, srv_c, srv_d, srv_e;
reg [63:0] srv_w;

always begin
    wait (srv_req != srv_ack);
    case (srv_op)
        OP_SEL:     s_sel_cq(srv_a);
        OP_SETUP:   s_cq_setup(srv_a, srv_b, srv_c, srv_d, srv_w, srv_e);
        OP_PAUSE:   s_set_pause(srv_a, srv_b);
        OP_BIND:    s_cq_bind(srv_a, srv_b, srv_c, srv_d);
        OP_CONS:    s_cons_write(srv_a, srv_b);
        OP_CONSUME: s_consume(srv_a);
        OP_RD:      s_rd_check(srv_w[15:0], srv_w[63:32]);
        OP_REGS:    s_check_cq_regs(srv_a);
        OP_QUIESCE: s_quiesce;
        default:    $fatal(1, "tb_via_cq %0s: bench error, request %0d", NAME, srv_op);
    endcase
    srv_ack = srv_req;
end

task serve;
    input integer o;
    begin
        srv_op = o;
        srv_req = srv_req + 1;
        wait (srv_ack == srv_req);
    end
endtask

task sel_cq;
    input integer c;
    begin
        srv_a = c;
        serve(OP_SEL);
    end
endtask

task cq_setup;
    input integer c;
    input en;
    input pause;
    input [3:0] log2;
    input [63:0] base;
    input rst_c;
    begin
        srv_a = c;
        srv_b = en;
        srv_c = pause;
        srv_d = log2;
        srv_w = base;
        srv_e = rst_c;
        serve(OP_SETUP);
    end
endtask

task set_pause;
    input integer c;
    input p;
    begin
        srv_a = c;
        srv_b = p;
        serve(OP_PAUSE);
    end
endtask

task cq_bind;
    input integer vi;
    input integer q;
    input en;
    input integer c;
    begin
        srv_a = vi;
        srv_b = q;
        srv_c = en;
        srv_d = c;
        serve(OP_BIND);
    end
endtask

task cons_write;
    input integer c;
    input integer n;
    begin
        srv_a = c;
        srv_b = n;
        serve(OP_CONS);
    end
endtask

task consume;
    input integer c;
    begin
        srv_a = c;
        serve(OP_CONSUME);
    end
endtask

task rd_check;
    input [15:0] a;
    input [31:0] exp_v;
    begin
        srv_w = {exp_v, 16'd0, a};
        serve(OP_RD);
    end
endtask

task check_cq_regs;
    input integer c;
    begin
        srv_a = c;
        serve(OP_REGS);
    end
endtask

task quiesce;
    begin
        serve(OP_QUIESCE);
    end
endtask

// ---------------------------------------------------------------- phases
// loop bounds in variables: Verilator unrolls a loop with a constant bound,
// timing controls and inlined tasks included
integer ncq = NUM_CQ, nvi = NUM_VI, nq = NQ, n_rounds = ROUNDS;
integer n_3 = 3, n_4 = 4, n_5 = 5, n_6 = 6, n_8 = 8, n_16 = 16, n_40 = 40, n_80 = 80;
integer i, c, c2, v, n, t0, w0, e0, k;
reg [31:0] w32;
reg [63:0] b64;
reg        short;

function [63:0] page;
    input integer p;
    begin
        page = p * 4096;
    end
endfunction

// 1. reset values, decode, capabilities
task test_reset;
    begin
        check_reset_values(`VIA_REG_CQ_SEL);
        if (SALT == 1) check_decode(`VIA_REG_CQ_SEL);   // (the same generated decode in every environment; slow in Icarus)
        w32 = 32'd0;
        w32[`VIA_CQ_CAP_NUM_RANGE] = NUM_CQ;
        w32[`VIA_CQ_CAP_MAX_LOG2_RANGE] = MAX_LOG2;
        rd_check(`VIA_REG_CQ_CAP, w32);
        rd_check(`VIA_REG_CQ_ENTRIES, 32'd0);
        rd_check(`VIA_REG_CQ_DROPPED, 32'd0);
        if (done_ready !== 1'b1 || busy !== 1'b0 || aerr_pulse !== 1'b0 || entry_pulse !== 1'b0 || axi_awvalid !== 1'b0 || dut_wvalid !== 1'b0)
            $fatal(1, "tb_via_cq %0s: after reset: done_ready %b busy %b aerr %b entry %b awvalid %b wvalid %b", NAME,
                done_ready, busy, aerr_pulse, entry_pulse, axi_awvalid, dut_wvalid);
        for (c = 0; c < ncq; c = c + 1) check_cq_regs(c);
    end
endtask

// 2. registers
reg [31:0] tr_ctrl [0:255];
reg [63:0] tr_base [0:255];
task test_regs;
    begin
        // CQ_SEL: its 8 bits
        bus_wr(`VIA_REG_CQ_SEL, 32'hFFFFFF00 | NUM_CQ, 4'hF);
        rd_check(`VIA_REG_CQ_SEL, NUM_CQ);
        // every CQ gets random set-up words (invalid sizes, reserved bits,
        // RESET), then every one reads back what it was given
        for (c = 0; c < ncq; c = c + 1) begin
            sel_cq(c);
            tr_ctrl[c] = rnd(0);
            tr_ctrl[c][`VIA_CQ_CTRL_LOG2_ENTRIES_RANGE] = urand(16);
            tr_base[c] = {rnd(0), rnd(0)};
            bus_wr(`VIA_REG_CQ_CTRL, tr_ctrl[c], 4'hF);
            model_ctrl(c, tr_ctrl[c]);
            bus_wr(`VIA_REG_CQ_BASE_LO, tr_base[c][31:0], 4'hF);
            bus_wr(`VIA_REG_CQ_BASE_HI, tr_base[c][63:32], 4'hF);
            m_base[c] = tr_base[c] & BASE_MASK;
            rd_check(`VIA_REG_CQ_CTRL, exp_ctrl(c));
        end
        // out-of-range CQ_SEL values (the low bits alias a valid CQ):
        // writes ignored, reads 0
        for (i = 0; i < n_4; i = i + 1) begin
            c = (i == 0) ? NUM_CQ : (i == 1) ? 255 : (i == 2) ? (NUM_CQ + urand(256 - NUM_CQ)) : (NUM_CQ * 2 < 256 ? NUM_CQ * 2 : 200);
            sel_cq(c);
            rd_check(`VIA_REG_CQ_SEL, c);
            bus_wr(`VIA_REG_CQ_CTRL, 32'h00000107 | (MAX_LOG2 << 8), 4'hF);
            bus_wr(`VIA_REG_CQ_BASE_LO, 32'hFFFFFFFF, 4'hF);
            bus_wr(`VIA_REG_CQ_BASE_HI, 32'hFFFFFFFF, 4'hF);
            rd_check(`VIA_REG_CQ_CTRL, 32'd0);
            rd_check(`VIA_REG_CQ_BASE_LO, 32'd0);
            rd_check(`VIA_REG_CQ_BASE_HI, 32'd0);
            rd_check(`VIA_REG_CQ_STATE, 32'd0);
        end
        for (c = 0; c < ncq; c = c + 1) check_cq_regs(c);
        // CQ_CONS: the last word (fields only); a valid CQ takes the index
        for (i = 0; i < n_6; i = i + 1) begin
            c = (i < 4) ? urand(NUM_CQ) : NUM_CQ + urand(256 - NUM_CQ);
            cons_write(c, urand(65536));
            rd_check(`VIA_REG_CQ_CONS, m_cons_word);
            if (c < NUM_CQ) check_cq_regs(c);
        end
        // CQ_BIND: the last word (fields only)
        for (i = 0; i < n_6; i = i + 1) begin
            cq_bind(urand(65536), urand(2), urand(2), urand(256));
            rd_check(`VIA_REG_CQ_BIND, m_bind_word);
        end
        // read-only registers ignore writes
        bus_wr(`VIA_REG_CQ_STATE, 32'hFFFFFFFF, 4'hF);
        bus_wr(`VIA_REG_CQ_ENTRIES, 32'hFFFFFFFF, 4'hF);
        bus_wr(`VIA_REG_CQ_DROPPED, 32'hFFFFFFFF, 4'hF);
        bus_wr(`VIA_REG_CQ_CAP, 32'hFFFFFFFF, 4'hF);
        rd_check(`VIA_REG_CQ_ENTRIES, 32'd0);
        rd_check(`VIA_REG_CQ_DROPPED, 32'd0);
        w32 = 32'd0;
        w32[`VIA_CQ_CAP_NUM_RANGE] = NUM_CQ;
        w32[`VIA_CQ_CAP_MAX_LOG2_RANGE] = MAX_LOG2;
        rd_check(`VIA_REG_CQ_CAP, w32);
        // back to a clean state: every CQ reset and disabled, nothing bound
        for (c = 0; c < ncq; c = c + 1) cq_setup(c, 1'b0, 1'b0, 4'd1, page(c + 1), 1'b1);
        for (v = 0; v < nvi; v = v + 1) begin
            cq_bind(v, 0, 1'b0, 0);
            cq_bind(v, 1, 1'b0, 0);
        end
        quiesce;
    end
endtask

// 3. entries from each port, both at once, unbound, disabled, rebinding
task test_basic;
    begin
        c = 0;
        c2 = NUM_CQ > 1 ? 1 : 0;
        cq_setup(c, 1'b1, 1'b0, (MAX_LOG2 < 3) ? MAX_LOG2 : 3, page(1), 1'b1);
        if (c2 != c) cq_setup(c2, 1'b1, 1'b0, 4'd1, page(2), 1'b1);
        cq_bind(0, 0, 1'b1, c);
        cq_bind(0, 1, 1'b1, c);
        cq_bind(NUM_VI - 1, 1, 1'b1, c2);
        n = n_pairs;
        send(0, 0, 0);
        repeat (6) tick;
        send(1, 0, 1);
        repeat (6) tick;
        // both ports in one cycle: the send port's entry first
        send(0, 0, 0);
        send(1, NUM_VI - 1, 1);
        repeat (6) tick;
        send(1, 0, 1);
        send(0, NUM_VI - 1, 1);    // a flushed receive through the send port
        // unbound queues: ignored
        if (NUM_VI > 1) begin
            send(0, 1, 0);
            send(1, 1, 1);
        end
        send(0, NUM_VI - 1, 0);
        quiesce;
        if (n_pairs - n < 2) $fatal(1, "tb_via_cq %0s: bench error, the two ports never fired together", NAME);
        consume(c);
        cons_write(c, m_took[c]);
        consume(c2);
        cons_write(c2, m_took[c2]);
        // disabled CQs drop (ENABLE 0; ENABLE 1 with an invalid size)
        if (NUM_CQ > 2) begin
            cq_setup(2, 1'b0, 1'b0, 4'd2, page(3), 1'b1);
            cq_bind(NUM_VI - 1, 0, 1'b1, 2);
            send(0, NUM_VI - 1, 0);
            send(0, NUM_VI - 1, 0);
            send(0, 0, 0);
            quiesce;
            cq_setup(2, 1'b1, 1'b0, MAX_LOG2 + 1, page(3), 1'b0);
            send(0, NUM_VI - 1, 0);
            send(1, 0, 1);
            quiesce;
            cq_setup(2, 1'b1, 1'b0, 4'd0, page(3), 1'b0);
            send(0, NUM_VI - 1, 0);
            quiesce;
            cq_setup(2, 1'b1, 1'b0, 4'd2, page(3), 1'b0);
            send(0, NUM_VI - 1, 0);
            quiesce;
        end else begin
            cq_setup(c2, 1'b0, 1'b0, 4'd1, page(2), 1'b0);
            send(1, NUM_VI - 1, 1);
            quiesce;
            cq_setup(c2, 1'b1, 1'b0, 4'd1, page(2), 1'b0);
        end
        // rebinding; out-of-range VI / CQ in CQ_BIND and CQ in CQ_CONS are
        // ignored (their low bits name VI 0 / CQ 0 when NUM_VI / NUM_CQ is
        // a power of 2)
        cq_bind(0, 0, 1'b1, c2);
        cq_bind(NUM_VI, 0, 1'b1, c);
        cq_bind(0, 0, 1'b1, NUM_CQ);
        cq_bind(65536 - (1 << VW), 1, 1'b0, c);
        cons_write(NUM_CQ, 16'hFFFF);
        consume(c2);
        send(0, 0, 0);
        send(1, 0, 1);
        quiesce;
        cq_bind(0, 0, 1'b0, c);    // unbind
        send(0, 0, 0);
        send(1, 0, 1);
        quiesce;
        for (c = 0; c < ncq; c = c + 1) begin
            consume(c);
            cons_write(c, m_took[c]);
        end
    end
endtask

// 4. overflow, CQ_CONS, RESET
task test_overflow;
    begin
        c = NUM_CQ - 1;
        cq_setup(c, 1'b1, 1'b0, 4'd2, page(c + 1), 1'b1);
        cq_bind(0, 0, 1'b1, c);
        for (i = 0; i < n_4; i = i + 1) send(0, 0, 0);
        quiesce;
        n = n_aerr_ovf;
        send(0, 0, 0);                // full: OVERFLOW, one error
        quiesce;
        if (!m_ovf[c] || n_aerr_ovf != n + 1) $fatal(1, "tb_via_cq %0s: no overflow", NAME);
        send(0, 0, 0);
        send(1, 0, 1);                // (VI 0's receive queue: bound to CQ 0 by test_basic)
        send(0, 0, 0);
        quiesce;
        consume(c);
        cons_write(c, m_took[c]);    // room, but OVERFLOW stays until RESET
        send(0, 0, 0);
        quiesce;
        if (n_aerr_ovf != n + 1) $fatal(1, "tb_via_cq %0s: more than one error for one overflow", NAME);
        cq_setup(c, 1'b1, 1'b0, 4'd2, page(c + 1), 1'b1);   // RESET
        for (i = 0; i < n_3; i = i + 1) send(0, 0, 0);
        quiesce;
        // CQ_CONS makes room in a full ring, without overflow
        send(0, 0, 0);
        quiesce;
        consume(c);
        cons_write(c, 2);
        send(0, 0, 0);
        send(0, 0, 0);
        quiesce;
        consume(c);
        cons_write(c, m_took[c]);
        for (i = 0; i < n_4; i = i + 1) send(0, 0, 0);
        quiesce;
        if (n_aerr_ovf != n + 1) $fatal(1, "tb_via_cq %0s: an overflow with room in the ring", NAME);
        consume(c);
        cons_write(c, m_took[c]);
    end
endtask

// 5. PAUSE
task test_pause;
    begin
        c = 0;
        c2 = NUM_CQ > 1 ? 1 : 0;
        cq_setup(c, 1'b1, 1'b0, (MAX_LOG2 < 4) ? MAX_LOG2 : 4, page(1), 1'b1);
        if (c2 != c) cq_setup(c2, 1'b1, 1'b0, (MAX_LOG2 < 4) ? MAX_LOG2 : 4, page(2), 1'b1);
        cq_bind(0, 0, 1'b1, c);
        cq_bind(NUM_VI - 1, 1, 1'b1, c2);
        cq_bind(0, 1, 1'b1, c2);
        set_pause(c, 1'b1);
        src_prob = 100;
        n = n_ev;
        w0 = n_writes;
        // the paused CQ's event first, then 5 + 6 more of both CQs; the
        // sources deliver 2 + 2 while done_ready is 1, then their 3
        send(0, 0, 0);
        for (i = 0; i < n_5; i = i + 1) send(0, (i % 2) ? 0 : NUM_VI - 1, (i % 2) ? 0 : 1);
        for (i = 0; i < n_6; i = i + 1) send(1, (i % 2) ? 0 : NUM_VI - 1, 1);
        for (t0 = 0; t0 < n_40; t0 = t0 + 1) begin
            tick;
            #1;
            if (done_ready !== ((n_ev - n) <= 2))
                $fatal(1, "tb_via_cq %0s: paused, %0d events queued: done_ready %b", NAME, n_ev - n, done_ready);
        end
        if (n_ev - n != 7 || n_writes != w0 || busy !== 1'b1)
            $fatal(1, "tb_via_cq %0s: paused: %0d events delivered (expected 7), %0d writes, busy %b", NAME, n_ev - n, n_writes - w0, busy);
        rd_check(`VIA_REG_CQ_CTRL, exp_ctrl(c));   // PAUSE 1, BUSY 0
        rd_check(`VIA_REG_CQ_STATE, {m_cons[c], m_prod[c]});
        set_pause(c, 1'b0);
        quiesce;
        if (n_ev - n != 12) $fatal(1, "tb_via_cq %0s: bench error, events lost in the sources", NAME);
        // one port only: done_ready falls with 3 queued, 3 more come
        set_pause(c, 1'b1);
        n = n_ev;
        for (i = 0; i < n_8; i = i + 1) send(0, 0, 0);
        for (t0 = 0; t0 < n_40; t0 = t0 + 1) begin
            tick;
            #1;
            if (done_ready !== ((n_ev - n) <= 2))
                $fatal(1, "tb_via_cq %0s: paused, %0d events queued: done_ready %b", NAME, n_ev - n, done_ready);
        end
        if (n_ev - n != 6) $fatal(1, "tb_via_cq %0s: paused, one port: %0d events delivered (expected 6)", NAME, n_ev - n);
        set_pause(c, 1'b0);
        quiesce;
        // an event of another CQ ahead of the paused one is written
        if (c2 != c) begin
            cq_bind(1, 0, 1'b0, c);    // unbound; the table keeps CQ c
            set_pause(c, 1'b1);
            w0 = n_writes;
            send(0, 1, 0);             // ignored, not held by c's PAUSE
            send(1, 0, 1);
            send(1, NUM_VI - 1, 1);
            repeat (3) tick;
            send(0, 0, 0);
            send(1, 0, 1);
            for (t0 = 0; t0 < n_40; t0 = t0 + 1) tick;
            if (n_writes - w0 != 2 || busy !== 1'b1)
                $fatal(1, "tb_via_cq %0s: paused behind two others: %0d writes, busy %b", NAME, n_writes - w0, busy);
            set_pause(c, 1'b0);
            quiesce;
        end
        for (c = 0; c < ncq; c = c + 1) begin
            consume(c);
            cons_write(c, m_took[c]);
        end
    end
endtask

// 6. failed writes
task test_errors;
    begin
        c = 0;
        cq_setup(c, 1'b1, 1'b0, (MAX_LOG2 < 3) ? MAX_LOG2 : 3, page(1), 1'b1);
        cq_bind(0, 0, 1'b1, c);
        cq_bind(0, 1, 1'b1, c);
        // slot 2 answers SLVERR: entries 0, 1, 3, 4 land, pipelined; AW
        // slow, W taken at once (before the AW)
        m_err_lo = page(1) + 16;
        m_err_hi = page(1) + 24;
        ram.set_wr_error(m_err_lo, m_err_hi);
        ram.set_channel_probs(5, 100, 30, -1, -1);
        wbuf_prob = 100;
        w0 = n_wfirst;
        e0 = n_aerr_resp;
        for (i = 0; i < n_5; i = i + 1) send(i % 2, 0, i % 2);
        // CQ_CTRL.BUSY is 1 whenever the bench sees an entry write outstanding
        n = 0;
        for (t0 = 0; t0 < n_40; t0 = t0 + 1) begin
            tick;
            if (cur_open || ow_rd != ow_wr) begin
                bus_peek(`VIA_REG_CQ_CTRL, w32);
                if (w32[`VIA_CQ_CTRL_BUSY_LSB] !== 1'b1) $fatal(1, "tb_via_cq %0s: CQ_CTRL.BUSY 0 with a write outstanding", NAME);
                n = n + 1;
            end
        end
        if (n == 0) $fatal(1, "tb_via_cq %0s: bench error, no write outstanding to see BUSY", NAME);
        quiesce;
        if (n_aerr_resp != e0 + 1) $fatal(1, "tb_via_cq %0s: %0d errors for one failed write", NAME, n_aerr_resp - e0);
        if (n_wfirst == w0) $fatal(1, "tb_via_cq %0s: bench error, W never taken before AW", NAME);
        consume(c);
        cons_write(c, m_took[c]);
        m_err_lo = 64'd0;
        m_err_hi = 64'd0;
        ram.clear_errors;
        ram.set_channel_probs(-1, -1, -1, -1, -1);
        // a ring above the memory: DECERR, and AW carries the high bits;
        // W slow (taken after the AW)
        wbuf_prob = 10;
        b64 = page(2) | (64'd1 << 32) | (64'd1 << (ADDR_WIDTH - 1)) | (64'd1 << 63);
        cq_setup(c, 1'b1, 1'b0, 4'd1, b64, 1'b1);
        send(0, 0, 0);
        send(0, 0, 0);
        send(0, 0, 0);     // overflow: the failed entries still count in PROD
        quiesce;
        if (n_aerr_resp != e0 + 3) $fatal(1, "tb_via_cq %0s: DECERR: %0d errors", NAME, n_aerr_resp - e0 - 1);
        wbuf_prob = 100;
        // responses held back: 15 writes outstanding, the 16th waits
        cq_setup(c, 1'b1, 1'b0, 4'd4, page(1), 1'b1);
        b_hold = 1'b1;
        w0 = n_writes;
        for (i = 0; i < n_16; i = i + 1) send(i % 2, 0, i % 2);
        for (t0 = 0; t0 < n_80; t0 = t0 + 1) tick;
        if (n_writes - w0 != 15 || busy !== 1'b1)
            $fatal(1, "tb_via_cq %0s: responses held: %0d entry writes, busy %b (expected 15, 1)", NAME, n_writes - w0, busy);
        b_hold = 1'b0;
        quiesce;
        consume(c);
        cons_write(c, m_took[c]);
    end
endtask

// 7. random rounds
reg [31:0] rr_r;
integer rr_gen, rr_k, rr_port, rr_vi, rr_q, rr_c, rr_try, n_pause_role;
integer pause_cq [0:NUM_CQ-1];
task random_round;
    input integer nev;
    begin
        // roles, sizes, rings
        for (c = 0; c < ncq; c = c + 1) begin
            k = urand(100);
            m_role[c] = (k < 55) ? R_ACTIVE : (k < 65) ? R_STALL : (k < 75) ? R_OFF : (k < 87) ? R_ERR : R_PAUSE;
            if (c == 0) m_role[c] = R_ACTIVE;
            n = 1 + urand(RL);
            if (m_role[c] == R_OFF) begin
                // disabled, or enabled with an invalid size
                if (urand(2) == 0) cq_setup(c, 1'b0, 1'b0, n, page(c + 1), 1'b1);
                else cq_setup(c, 1'b1, 1'b0, (MAX_LOG2 < 15 && urand(2) == 0) ? MAX_LOG2 + 1 : 0, page(c + 1), 1'b1);
            end else begin
                cq_setup(c, 1'b1, 1'b0, n, page(c + 1), urand(4) != 0);
            end
        end
        n_pause_role = 0;
        for (c = 0; c < ncq; c = c + 1) begin
            if (m_role[c] == R_PAUSE) begin
                pause_cq[n_pause_role] = c;
                n_pause_role = n_pause_role + 1;
            end
        end
        // SLVERR on a few slots of one R_ERR ring
        m_err_lo = 64'd0;
        m_err_hi = 64'd0;
        for (c = 0; c < ncq; c = c + 1) begin
            if (m_role[c] == R_ERR && m_err_hi == 64'd0) begin
                n = urand(1 << m_log2[c]);
                m_err_lo = m_base[c] + n * 8;
                m_err_hi = m_err_lo + 8 * (1 + urand(3));
            end
        end
        ram.set_wr_error(m_err_lo, m_err_hi);
        // bindings: a fifth unbound; with many VIs, a random subset rewritten
        for (k = 0; k < nq; k = k + 1) begin
            if (NQ <= 32 || urand(3) == 0) cq_bind(k / 2, k % 2, urand(5) != 0, urand(NUM_CQ));
        end
        cq_bind(urand(NUM_VI), urand(2), 1'b1, NUM_CQ + urand(256 - NUM_CQ));   // ignored
        // back-pressure and source rates
        k = urand(4);
        ram.set_ready_prob(k == 0 ? 100 : k == 1 ? 70 : k == 2 ? 40 : 15);
        k = urand(4);
        if (k == 0) ram.set_channel_probs(100, 20, -1, -1, -1);
        else if (k == 1) ram.set_channel_probs(20, 100, -1, -1, -1);
        else if (k == 2) ram.set_channel_probs(-1, -1, 10, -1, -1);
        else ram.set_channel_probs(-1, -1, -1, -1, -1);
        k = urand(3);
        wbuf_prob = k == 0 ? 100 : k == 1 ? 60 : 25;
        k = urand(3);
        src_prob = k == 0 ? 100 : k == 1 ? 50 : 15;
        $display("tb_via_cq %0s: random round, %0d events, memory ready %0d%%, W buffer %0d%%, sources %0d%%",
            NAME, nev, ram.ready_prob, wbuf_prob, src_prob);

        rr_gen = 0;
        while (rr_gen < nev) begin
            // up to two events a cycle
            rr_r = rnd(0);
            for (rr_try = 0; rr_try < 2; rr_try = rr_try + 1) begin
                if (rr_gen < nev && rr_r[3:0] < 11) begin
                    rr_vi = rr_r[15:8] % NUM_VI;
                    rr_port = rr_r[4];
                    rr_q = (rr_port == 1) ? 1 : (rr_r[6:5] == 2'd0);
                    rr_k = 2 * rr_vi + rr_q;
                    rr_c = m_ben[rr_k] ? m_bcq[rr_k] : -1;
                    // a consumer that keeps up: never more than the ring holds
                    if ((rr_c < 0 || m_role[rr_c] == R_STALL || !m_en[rr_c]
                            || m_made[rr_c] + m_inq[rr_c] - m_consw[rr_c] < (1 << m_log2[rr_c]))
                            && (rr_port == 0 ? gtx_wr - gtx_rd : grx_wr - grx_rd) < 12) begin
                        send(rr_port, rr_vi, rr_q);
                        rr_gen = rr_gen + 1;
                    end
                end
                rr_r = rr_r >> 16;
            end
            rr_r = rnd(0);
            k = rr_r[15:0] % 100;
            rr_c = rr_r[31:16] % NUM_CQ;
            if (k < 20 && m_role[rr_c] != R_STALL && m_took[rr_c] < m_resp[rr_c]) begin
                consume(rr_c);
                cons_write(rr_c, m_took[rr_c]);
            end else if (k < 23 && n_pause_role > 0) begin
                // PAUSE of a pause-role CQ toggled (on for ~25 cycles)
                rr_c = pause_cq[urand(n_pause_role)];
                if (m_pause[rr_c] || urand(4) == 0) set_pause(rr_c, !m_pause[rr_c]);
                else tick;
            end else if (k < 24) begin
                cons_write(NUM_CQ + urand(256 - NUM_CQ), urand(65536));   // ignored
            end else begin
                tick;
            end
        end
        for (c = 0; c < ncq; c = c + 1) if (m_pause[c]) set_pause(c, 1'b0);
        quiesce;
        for (c = 0; c < ncq; c = c + 1) cons_write(c, m_took[c]);
        ram.clear_errors;
        m_err_lo = 64'd0;
        m_err_hi = 64'd0;
    end
endtask

// 8. the wrap phase: `total` entries into one ring of 2**l2 entries at
// base, from PROD = CONS = pre (pre != 0: preset in the block after its
// RESET, white box), the consumer writing CQ_CONS every half ring (at most
// 256 entries); SEQ, PROD and CONS pass 2**16 when pre + total does
integer wr_size, wr_thr;
task test_wrap;
    input integer total;
    input integer pre;
    input [3:0] l2;
    input [63:0] base;
    begin
        c = NUM_CQ - 1;
        ram.set_ready_prob(100);
        ram.set_channel_probs(-1, -1, -1, -1, -1);
        wbuf_prob = 100;
        src_prob = 100;
        cq_setup(c, 1'b1, 1'b0, l2, base, 1'b1);
        if (pre != 0) begin
            dut.c_prod[c] = pre;
            dut.c_cons[c] = pre;
            m_prod[c] = pre;
            m_cons[c] = pre;
            m_made[c] = pre;
            m_resp[c] = pre;
            m_took[c] = pre;
            m_consw[c] = pre;
            tick;
            check_cq_regs(c);
        end
        for (v = 0; v < nvi; v = v + 1) begin
            cq_bind(v, 0, 1'b1, c);
            cq_bind(v, 1, 1'b1, c);
        end
        wr_size = 1 << l2;
        wr_thr = (wr_size / 2 < 256) ? wr_size / 2 : 256;
        rr_gen = 0;
        while (rr_gen < total) begin
            for (rr_try = 0; rr_try < 2; rr_try = rr_try + 1) begin
                if (rr_gen < total && m_made[c] + m_inq[c] - m_consw[c] < wr_size
                        && (rr_try == 0 ? gtx_wr - gtx_rd : grx_wr - grx_rd) < 8) begin
                    send(rr_try, (rr_gen / 2) % NUM_VI, rr_try == 1 ? 1 : rr_gen / 4 % 2);
                    rr_gen = rr_gen + 1;
                end
            end
            if (m_resp[c] - m_took[c] >= wr_thr) begin
                consume(c);
                cons_write(c, m_took[c]);
            end else begin
                tick;
            end
        end
        quiesce;
        cons_write(c, m_took[c]);
        if (m_made[c] != pre + total || m_prod[c] != (pre + total) % 65536)
            $fatal(1, "tb_via_cq %0s: wrap: %0d entries made, PROD 0x%0h", NAME, m_made[c] - pre, m_prod[c]);
        $display("tb_via_cq %0s: wrap: %0d entries from 0x%0h in a ring of %0d, PROD now 0x%0h", NAME, total, pre, wr_size, m_prod[c]);
    end
endtask

// 9. abort (via_soft_reset's drain): events held by a paused CQ are
// dropped (counted), nothing is written, busy falls; afterwards the CQ
// works again
task test_abort;
    begin
        c = 0;
        cq_setup(c, 1'b1, 1'b0, (MAX_LOG2 < 4) ? MAX_LOG2 : 4, page(1), 1'b1);
        cq_bind(0, 0, 1'b1, c);
        set_pause(c, 1'b1);
        src_prob = 100;
        w0 = n_writes;
        for (i = 0; i < n_4; i = i + 1) send(0, 0, 0);
        for (t0 = 0; t0 < n_40; t0 = t0 + 1) tick;
        if (n_writes != w0 || busy !== 1'b1)
            $fatal(1, "tb_via_cq %0s: abort: paused, %0d writes, busy %b", NAME, n_writes - w0, busy);
        m_abort = 1'b1;
        abort_r = 1'b1;
        // (the sources deliver what done_ready held back meanwhile: all
        // of it is dropped too)
        for (t0 = 0; t0 < n_80 && (busy === 1'b1 || gtx_rd != gtx_wr || grx_rd != grx_wr); t0 = t0 + 1) tick;
        repeat (2) tick;
        if (busy !== 1'b0 || n_writes != w0 || dut.ev_used != 4'd0)
            $fatal(1, "tb_via_cq %0s: abort: busy %b after %0d cycles, %0d writes, %0d events queued", NAME, busy, t0, n_writes - w0, dut.ev_used);
        // the model decides drops lazily (at the next write or error):
        // decide the aborted events now, while it knows of the abort
        while (mev_rd != mev_wr) begin
            resolve_one;
            if (r_kind == K_WRITE || r_kind == K_OVF) $fatal(1, "tb_via_cq %0s: abort: the model writes", NAME);
        end
        abort_r = 1'b0;
        m_abort = 1'b0;
        set_pause(c, 1'b0);
        send(0, 0, 0);
        quiesce;
        if (n_writes != w0 + 1) $fatal(1, "tb_via_cq %0s: after the abort: %0d writes, expected 1", NAME, n_writes - w0);
        consume(c);
        cons_write(c, m_took[c]);
    end
endtask

// ---------------------------------------------------------------- main
integer seed;
initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    short = $test$plusargs("short");
    dbg = $test$plusargs("debug");
    rs_main = (seed * 7919 + SALT * 104729) | 1;
    rs_src = (seed * 31 + SALT * 1009) | 1;
    rs_buf = (seed * 131 + SALT * 17) | 1;
    w32 = rnd(0) + rnd(0);    // (mix the seed in)
    for (c = 0; c < NUM_CQ; c = c + 1) begin
        m_en[c] = 1'b0;
        m_pause[c] = 1'b0;
        m_ovf[c] = 1'b0;
        m_log2[c] = 4'd0;
        m_base[c] = 64'd0;
        m_prod[c] = 16'd0;
        m_cons[c] = 16'd0;
        m_made[c] = 0;
        m_resp[c] = 0;
        m_took[c] = 0;
        m_consw[c] = 0;
        m_inq[c] = 0;
        m_role[c] = R_ACTIVE;
    end
    for (k = 0; k < NUM_CQ * SLOTS; k = k + 1) m_slot_err[k] = 1'b0;
    for (k = 0; k < NQ; k = k + 1) begin
        m_ben[k] = 1'b0;
        m_bcq[k] = 0;
    end
    // guard pattern everywhere
    for (k = 0; k < MEM_BYTES; k = k + 1) begin
        w32 = k * 151 + (k >> 8) * 29 + SALT * 97 + seed;
        ram.mem[k] = w32[7:0];
        exp_mem[k] = w32[7:0];
    end
    for (k = 0; k < PAGES; k = k + 1) ram.page_written[k] = 1'b0;
    repeat (10) @(posedge clk);
    @(negedge clk);
    rst = 1'b0;
    repeat (2) tick;

    test_reset;
    test_regs;
    test_basic;
    test_overflow;
    test_pause;
    test_errors;
    test_abort;
    $display("tb_via_cq %0s: directed tests done at cycle %0d", NAME, cyc);
    for (i = 0; i < n_rounds; i = i + 1) random_round(short ? RAND_EVENTS / 3 : RAND_EVENTS);
    // SEQ through 2**16 from a preset count (white box), in every
    // simulator: a ring of 64 (or MAX_LOG2's) entries, 600 entries from
    // 2**16 - 200 - a few
    test_wrap(600, 65536 - 200 - urand(16), (MAX_LOG2 < 6) ? MAX_LOG2 : 6, page(NUM_CQ));
`ifdef VERILATOR
    // the whole way from RESET: 2**16 + 1029 entries (133 000 cycles: a
    // second in Verilator, too long for Icarus)
    if (WRAP != 0 && !short) test_wrap(65536 + 1024 + 5, 0, MAXL, WRAP_BASE);
`endif

    // every kind of thing happened
    if (n_pairs == 0 || n_wfirst == 0 || n_awfirst == 0 || n_aerr_ovf == 0 || n_aerr_resp == 0 || n_ignored == 0 || n_drops == 0 || max_used < 7)
        $fatal(1, "tb_via_cq %0s: coverage: pairs %0d, W before AW %0d, AW before W %0d, overflows %0d, failed writes %0d, ignored %0d, dropped %0d, queue max %0d",
            NAME, n_pairs, n_wfirst, n_awfirst, n_aerr_ovf, n_aerr_resp, n_ignored, n_drops, max_used);
    $display("tb_via_cq %0s: %0d cycles, %0d events (%0d pairs), %0d entries written (%0d failed), %0d taken, %0d ignored, %0d dropped, %0d overflows, W before AW %0d, AW before W %0d, event queue max %0d, writes outstanding max %0d, done_ready low %0d cycles",
        NAME, cyc, n_ev, n_pairs, n_resp, n_resp_err, n_taken, n_ignored, n_drops, n_aerr_ovf, n_wfirst, n_awfirst, max_used, max_ow, n_dr_low);
    @(negedge clk);
    fin = 1'b1;
end

endmodule
