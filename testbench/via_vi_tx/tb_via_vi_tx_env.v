// tb_via_vi_tx_env: via_vi_tx against a real via_tpt and an AXI4 memory
// model (axi_ram_model), with a context model, a work-item driver, an
// advance sink and an AXI-Stream sink that parses and checks every frame.
//
// Wiring: the unit's two lookup ports share the TPT through a small
// arbiter in this file (lk_tag 0: the fetch port, 1: the data port); its
// three read masters (data ID 3, descriptor fetch ID 2) and the TPT's
// page-list fetch (ID 1) share the memory's read channels through two
// via_axi_rd_arb; the write-back master is the memory's only writer.
//
// Memory: page 0 holds the regions' page lists; the regions' pages are
// drawn at random from the others (scattered, out of order). K_D holds the
// descriptors, K_A (12 pages) the data, filled with random bytes.
//
// Checks per descriptor (run_desc): the frame (header fields, payload bytes
// against the gathered memory, keep/last rules, trailer status) or no frame;
// the Status word written (or not); the advance (Next, NextHandle); the
// counters; the header beat before the first data AR. At the end the whole
// memory is compared with the bench's shadow copy (nothing else changed).
//
// MODE 0: every case, in two passes (without, then with random
// back-pressure on the memory and on m_axis): gathers of 1..MAX_SEGS
// segments (odd offsets and lengths, page-straddling, zero-length
// segments), zero-length messages with immediate, fetch results (RESERVED,
// OP, LEN_SUM, LEN_MAX, SEG_LIMIT, XLAT_SEGS, XLAT_CTL, BUS, RDMA write,
// RDMA read not enabled), VI states ERROR / IDLE / CONNECT_PENDING, lookup
// failure on the 3rd segment (stale handle, and bounds), R SLVERR, bad B
// on the write-back, random sends; then once: write-back lookup failure
// (the descriptor's region invalidated while the sink holds the frame,
// which also checks the fence, white box: no translation or burst of the
// old epoch is left in the unit when the INVALIDATE finishes), abort
// mid-message, an abort sweep over 24 moments of a send (each followed by
// a reset of the unit), and a send after the reset. MODE 1: the 32 KiB throughput figure (no back-pressure),
// required >= 90 % of one beat per cycle from the first to the last payload
// beat.

`timescale 1ns / 1ps

`define XFAIL(msg) begin $display("FAIL %m: %0s (case %0s)", msg, case_name); failed = 1'b1; #1; end

module tb_via_vi_tx_env #(
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 48,
    parameter ID_WIDTH = 4,
    parameter MAX_SEGS = 16,
    parameter MEM_BYTES = 262144,
    parameter READ_LATENCY = 20,
    parameter READY_PROB = 60,
    parameter MODE = 0,
    parameter RANDOM_SENDS = 40,
    parameter SALT = 1
) (
    input  wire clk,
    input  wire rst,
    output reg  finished = 1'b0
);

localparam BYTES = DATA_WIDTH / 8;
localparam LB = $clog2(BYTES);
localparam NUM_VI = 8;
localparam VI_WIDTH = 3;
localparam REGIONS = 16;
localparam RPAGES = 32;
localparam WATCHDOG = 200000;
localparam PAGES = MEM_BYTES / 4096;
localparam [15:0] PT = 16'h0007;
localparam K_D = 1, K_A = 2;

localparam [31:0] OP_RDMAW = 32'h2 << 16, OP_RDMAR = 32'h4 << 16;
localparam [31:0] ST_DONE = 32'h1, ST_FORMAT = 32'h2, ST_PROTECTION = 32'h4, ST_LENGTH = 32'h8,
    ST_FLUSHED = 32'h20, ST_TRANSPORT = 32'h40;

// ------------------------------------------------------------- DUT

reg dut_rst_x = 1'b0;
wire dut_rst = rst | dut_rst_x;

reg                 work_valid;
wire                work_ready;
reg  [VI_WIDTH-1:0] work_vi;
reg                 work_q = 1'b0;   // 1: a receive of a VI in ERROR (the flush)
reg  [63:0]         work_va;
reg  [31:0]         work_handle;
wire                adv_valid;
reg                 adv_ready;
wire [VI_WIDTH-1:0] adv_vi;
wire                adv_q, adv_keep;
wire [63:0]         adv_next;
wire [31:0]         adv_next_handle;
wire [VI_WIDTH-1:0] ctx_rd_vi;
reg                 ctx_rd_enable;
reg  [1:0]          ctx_rd_state;
reg  [15:0]         ctx_rd_ptag;
reg  [31:0]         ctx_rd_mts;
reg                 ctx_rd_rw, ctx_rd_rr;
reg  [23:0]         ctx_rd_peer;    // {node, VI}

wire        f_lk_valid, f_lk_ready, f_rs_valid, f_rs_ready;
wire [31:0] f_lk_handle, f_lk_len;
wire [63:0] f_lk_va;
wire [15:0] f_lk_ptag;
wire [1:0]  f_lk_kind;
wire        d_lk_valid, d_lk_ready, d_rs_valid, d_rs_ready;
wire [31:0] d_lk_handle, d_lk_len;
wire [63:0] d_lk_va;
wire [15:0] d_lk_ptag;
wire [1:0]  d_lk_kind;

wire [ID_WIDTH-1:0]   f_arid, d_arid, t_arid, a_arid, axi_arid, axi_rid;
wire [ADDR_WIDTH-1:0] f_araddr, d_araddr, t_araddr, a_araddr, axi_araddr;
wire [7:0]            f_arlen, d_arlen, t_arlen, a_arlen, axi_arlen;
wire [2:0]            f_arsize, d_arsize, t_arsize, a_arsize, axi_arsize;
wire [1:0]            f_arburst, d_arburst, t_arburst, a_arburst, axi_arburst, axi_rresp;
wire                  f_arlock, d_arlock, a_arlock, axi_arlock;
wire [3:0]            f_arcache, d_arcache, a_arcache, axi_arcache;
wire [2:0]            f_arprot, d_arprot, a_arprot, axi_arprot;
wire                  f_arvalid, f_arready, d_arvalid, d_arready, t_arvalid, t_arready;
wire                  a_arvalid, a_arready, axi_arvalid, axi_arready;
wire                  f_rvalid, f_rready, d_rvalid, d_rready, t_rvalid, t_rready;
wire                  a_rvalid, a_rready, axi_rvalid, axi_rready, axi_rlast;
wire [DATA_WIDTH-1:0] axi_rdata;

wire [ID_WIDTH-1:0]   awid, bid;
wire [ADDR_WIDTH-1:0] awaddr;
wire [7:0]            awlen;
wire [2:0]            awsize, awprot;
wire [1:0]            awburst, bresp;
wire                  awlock, awvalid, awready, wlast, wvalid, wready, bvalid, bready;
wire [3:0]            awcache;
wire [DATA_WIDTH-1:0] wdata;
wire [BYTES-1:0]      wstrb;

wire [DATA_WIDTH-1:0] s_tdata;
wire [BYTES-1:0]      s_tkeep;
wire                  s_tvalid, s_tlast;
reg                   s_tready;

wire [1:0]  inflight_epoch, tx_inflight;
reg         abort;
wire        busy, done_pulse;
// the completion event (via_cq's port): done_ready is 1 three cycles in
// four (its own LFSR, so the bench's random streams stay as they were);
// every done_pulse must name the VI and queue of the advance it follows
wire [VI_WIDTH-1:0] done_vi;
wire        done_q, done_ev;
reg  [15:0] dr_lfsr = 16'hACE1;
wire        done_ready = dr_lfsr[1:0] != 2'b00;
always @(posedge clk) dr_lfsr <= {dr_lfsr[14:0], dr_lfsr[15] ^ dr_lfsr[13] ^ dr_lfsr[12] ^ dr_lfsr[10]};
reg  [VI_WIDTH:0] dq_fifo [0:255];
integer     dq_wp = 0, dq_rp = 0;
wire [31:0] cnt_desc, cnt_err, cnt_frames, cnt_wb_lost;
wire [1:0]  tpt_inflight = tx_inflight;
assign inflight_epoch = tx_inflight;

wire        lk_valid, lk_ready, rs_valid, rs_ready, rs_hit, rs_epoch;
wire [31:0] lk_handle, lk_len;
wire [63:0] lk_va;
wire [15:0] lk_ptag;
wire [1:0]  lk_kind, lk_tag, rs_tag;
wire [2:0]  rs_err;
wire [ADDR_WIDTH-1:0] rs_pa;
wire [12:0] rs_bytes;

via_vi_tx #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .NUM_VI(NUM_VI),
    .VI_WIDTH(VI_WIDTH),
    .MAX_SEGS(MAX_SEGS),
    .MAX_BURST(16),
    .RD_BUF_BYTES(2048),
    .FETCH_ID(2),
    .DATA_ID(3)
) dut (
    .clk(clk),
    .rst(dut_rst),
    .work_valid(work_valid),
    .work_ready(work_ready),
    .work_vi(work_vi),
    .work_q(work_q),
    .work_va(work_va),
    .work_handle(work_handle),
    .work_state(2'd1),
    .adv_valid(adv_valid),
    .adv_ready(adv_ready),
    .adv_vi(adv_vi),
    .adv_q(adv_q),
    .adv_next(adv_next),
    .adv_next_handle(adv_next_handle),
    .adv_keep(adv_keep),
    .ctx_rd_vi(ctx_rd_vi),
    .ctx_rd_enable(ctx_rd_enable),
    .ctx_rd_state(ctx_rd_state),
    .ctx_rd_ptag(ctx_rd_ptag),
    .ctx_rd_max_transfer(ctx_rd_mts),
    .ctx_rd_rdma_write(ctx_rd_rw),
    .ctx_rd_rdma_read(ctx_rd_rr),
    .ctx_rd_peer(ctx_rd_peer),
    .f_lk_valid(f_lk_valid),
    .f_lk_ready(f_lk_ready),
    .f_lk_handle(f_lk_handle),
    .f_lk_va(f_lk_va),
    .f_lk_len(f_lk_len),
    .f_lk_ptag(f_lk_ptag),
    .f_lk_kind(f_lk_kind),
    .f_rs_valid(f_rs_valid),
    .f_rs_ready(f_rs_ready),
    .f_rs_err(rs_err),
    .f_rs_pa(rs_pa),
    .f_rs_bytes(rs_bytes),
    .f_rs_hit(rs_hit),
    .f_rs_epoch(rs_epoch),
    .d_lk_valid(d_lk_valid),
    .d_lk_ready(d_lk_ready),
    .d_lk_handle(d_lk_handle),
    .d_lk_va(d_lk_va),
    .d_lk_len(d_lk_len),
    .d_lk_ptag(d_lk_ptag),
    .d_lk_kind(d_lk_kind),
    .d_rs_valid(d_rs_valid),
    .d_rs_ready(d_rs_ready),
    .d_rs_err(rs_err),
    .d_rs_pa(rs_pa),
    .d_rs_bytes(rs_bytes),
    .d_rs_hit(rs_hit),
    .d_rs_epoch(rs_epoch),
    .f_axi_arid(f_arid),
    .f_axi_araddr(f_araddr),
    .f_axi_arlen(f_arlen),
    .f_axi_arsize(f_arsize),
    .f_axi_arburst(f_arburst),
    .f_axi_arlock(f_arlock),
    .f_axi_arcache(f_arcache),
    .f_axi_arprot(f_arprot),
    .f_axi_arvalid(f_arvalid),
    .f_axi_arready(f_arready),
    .f_axi_rid(axi_rid),
    .f_axi_rdata(axi_rdata),
    .f_axi_rresp(axi_rresp),
    .f_axi_rlast(axi_rlast),
    .f_axi_rvalid(f_rvalid),
    .f_axi_rready(f_rready),
    .d_axi_arid(d_arid),
    .d_axi_araddr(d_araddr),
    .d_axi_arlen(d_arlen),
    .d_axi_arsize(d_arsize),
    .d_axi_arburst(d_arburst),
    .d_axi_arlock(d_arlock),
    .d_axi_arcache(d_arcache),
    .d_axi_arprot(d_arprot),
    .d_axi_arvalid(d_arvalid),
    .d_axi_arready(d_arready),
    .d_axi_rid(axi_rid),
    .d_axi_rdata(axi_rdata),
    .d_axi_rresp(axi_rresp),
    .d_axi_rlast(axi_rlast),
    .d_axi_rvalid(d_rvalid),
    .d_axi_rready(d_rready),
    .w_axi_awid(awid),
    .w_axi_awaddr(awaddr),
    .w_axi_awlen(awlen),
    .w_axi_awsize(awsize),
    .w_axi_awburst(awburst),
    .w_axi_awlock(awlock),
    .w_axi_awcache(awcache),
    .w_axi_awprot(awprot),
    .w_axi_awvalid(awvalid),
    .w_axi_awready(awready),
    .w_axi_wdata(wdata),
    .w_axi_wstrb(wstrb),
    .w_axi_wlast(wlast),
    .w_axi_wvalid(wvalid),
    .w_axi_wready(wready),
    .w_axi_bid(bid),
    .w_axi_bresp(bresp),
    .w_axi_bvalid(bvalid),
    .w_axi_bready(bready),
    .m_axis_tdata(s_tdata),
    .m_axis_tkeep(s_tkeep),
    .m_axis_tvalid(s_tvalid),
    .m_axis_tready(s_tready),
    .m_axis_tlast(s_tlast),
    .inflight_epoch(tx_inflight),
    .abort(abort),
    .busy(busy),
    .done_pulse(done_pulse),
    .done_vi(done_vi),
    .done_q(done_q),
    .done_ev(done_ev),
    .done_ready(done_ready),
    .cnt_desc(cnt_desc),
    .cnt_err(cnt_err),
    .cnt_frames(cnt_frames),
    .cnt_wb_lost(cnt_wb_lost),
    // RDMA read (the response jobs and the read slots): not driven here;
    // the co-simulation tests (vipl/rdma_read_cosim_test.go) cover them
    .job_valid(1'b0), .job_vi({VI_WIDTH{1'b0}}), .job_peer(24'd0), .job_ptag(16'd0), .job_va(64'd0),
    .job_handle(32'd0), .job_len(32'd0), .job_tag(32'd0), .job_err(1'b0),
    .rq_tag(32'd0), .rq_vi({VI_WIDTH{1'b0}}), .rq_claim(1'b0), .rc_vi({VI_WIDTH{1'b0}}), .rs_idx(10'd0),
    .rd_done_valid(1'b0), .rd_done_tag(32'd0), .rd_done_ev(1'b0), .rd_done_err(1'b0)
);

// ------------------------------------------------------------- lookup arbiter (bench)


reg lk_lock, lk_lsel, lk_rr;
wire lk_sel = lk_lock ? lk_lsel : (f_lk_valid && d_lk_valid) ? lk_rr : d_lk_valid;
assign lk_valid  = lk_sel ? d_lk_valid : f_lk_valid;
assign lk_handle = lk_sel ? d_lk_handle : f_lk_handle;
assign lk_va     = lk_sel ? d_lk_va : f_lk_va;
assign lk_len    = lk_sel ? d_lk_len : f_lk_len;
assign lk_ptag   = lk_sel ? d_lk_ptag : f_lk_ptag;
assign lk_kind   = lk_sel ? d_lk_kind : f_lk_kind;
assign lk_tag    = {1'b0, lk_sel};
assign f_lk_ready = lk_ready && !lk_sel;
assign d_lk_ready = lk_ready && lk_sel;
assign f_rs_valid = rs_valid && rs_tag[0] == 1'b0;
assign d_rs_valid = rs_valid && rs_tag[0] == 1'b1;
assign rs_ready = rs_tag[0] ? d_rs_ready : f_rs_ready;
always @(posedge clk) begin
    if (rst) begin
        lk_lock <= 1'b0;
        lk_lsel <= 1'b0;
        lk_rr <= 1'b0;
    end else begin
        lk_lock <= lk_valid && !lk_ready;
        lk_lsel <= lk_sel;
        if (lk_valid && lk_ready) lk_rr <= !lk_sel;
    end
end

// the TPT
reg         prog_valid;
reg  [2:0]  prog_op;
reg  [15:0] prog_index;
reg  [63:0] prog_va;
reg  [31:0] prog_len;
reg  [15:0] prog_ptag;
reg  [63:0] prog_pl;
wire        prog_busy;
/* verilator lint_off UNUSEDSIGNAL */
wire [63:0] prog_rd_va, prog_rd_pl;
wire [31:0] prog_rd_len;
wire [15:0] prog_rd_ptag, prog_rd_gen;
wire        prog_rd_rdma_write, prog_rd_rdma_read, prog_rd_valid;
wire        st_lookup, st_hit, st_miss, st_error;
/* verilator lint_on UNUSEDSIGNAL */

via_tpt #(
    .REGIONS(REGIONS),
    .CACHE_ENTRIES(64),
    .ADDR_WIDTH(ADDR_WIDTH),
    .DATA_WIDTH(DATA_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .FETCH_ID(1),
    .TAG_WIDTH(2)
) tpt (
    .clk(clk),
    .rst(rst),
    .prog_valid(prog_valid),
    .prog_op(prog_op),
    .prog_index(prog_index),
    .prog_va(prog_va),
    .prog_len(prog_len),
    .prog_ptag(prog_ptag),
    .prog_rdma_write(1'b0),
    .prog_rdma_read(1'b0),
    .prog_pl(prog_pl),
    .prog_busy(prog_busy),
    .prog_rd_va(prog_rd_va),
    .prog_rd_len(prog_rd_len),
    .prog_rd_ptag(prog_rd_ptag),
    .prog_rd_rdma_write(prog_rd_rdma_write),
    .prog_rd_rdma_read(prog_rd_rdma_read),
    .prog_rd_pl(prog_rd_pl),
    .prog_rd_valid(prog_rd_valid),
    .prog_rd_gen(prog_rd_gen),
    .lk_valid(lk_valid),
    .lk_ready(lk_ready),
    .lk_handle(lk_handle),
    .lk_va(lk_va),
    .lk_len(lk_len),
    .lk_ptag(lk_ptag),
    .lk_kind(lk_kind),
    .lk_tag(lk_tag),
    .rs_valid(rs_valid),
    .rs_ready(rs_ready),
    .rs_err(rs_err),
    .rs_pa(rs_pa),
    .rs_bytes(rs_bytes),
    .rs_hit(rs_hit),
    .rs_epoch(rs_epoch),
    .rs_tag(rs_tag),
    .inflight_epoch(tpt_inflight),
    .m_axi_arid(t_arid),
    .m_axi_araddr(t_araddr),
    .m_axi_arlen(t_arlen),
    .m_axi_arsize(t_arsize),
    .m_axi_arburst(t_arburst),
    .m_axi_arvalid(t_arvalid),
    .m_axi_arready(t_arready),
    .m_axi_rid(axi_rid),
    .m_axi_rdata(axi_rdata),
    .m_axi_rresp(axi_rresp),
    .m_axi_rlast(axi_rlast),
    .m_axi_rvalid(t_rvalid),
    .m_axi_rready(t_rready),
    .st_lookup(st_lookup),
    .st_hit(st_hit),
    .st_miss(st_miss),
    .st_error(st_error)
);

/* verilator lint_off PINCONNECTEMPTY */
via_axi_rd_arb #(
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .S1_ID(2)
) arb_a (
    .clk(clk),
    .rst(rst),
    .s0_axi_arid(d_arid),
    .s0_axi_araddr(d_araddr),
    .s0_axi_arlen(d_arlen),
    .s0_axi_arsize(d_arsize),
    .s0_axi_arburst(d_arburst),
    .s0_axi_arlock(d_arlock),
    .s0_axi_arcache(d_arcache),
    .s0_axi_arprot(d_arprot),
    .s0_axi_arvalid(d_arvalid),
    .s0_axi_arready(d_arready),
    .s0_axi_rvalid(d_rvalid),
    .s0_axi_rready(d_rready),
    .s1_axi_arid(f_arid),
    .s1_axi_araddr(f_araddr),
    .s1_axi_arlen(f_arlen),
    .s1_axi_arsize(f_arsize),
    .s1_axi_arburst(f_arburst),
    .s1_axi_arlock(f_arlock),
    .s1_axi_arcache(f_arcache),
    .s1_axi_arprot(f_arprot),
    .s1_axi_arvalid(f_arvalid),
    .s1_axi_arready(f_arready),
    .s1_axi_rvalid(f_rvalid),
    .s1_axi_rready(f_rready),
    .m_axi_arid(a_arid),
    .m_axi_araddr(a_araddr),
    .m_axi_arlen(a_arlen),
    .m_axi_arsize(a_arsize),
    .m_axi_arburst(a_arburst),
    .m_axi_arlock(a_arlock),
    .m_axi_arcache(a_arcache),
    .m_axi_arprot(a_arprot),
    .m_axi_arvalid(a_arvalid),
    .m_axi_arready(a_arready),
    .m_axi_rid(axi_rid),
    .m_axi_rlast(axi_rlast),
    .m_axi_rvalid(a_rvalid),
    .m_axi_rready(a_rready),
    .busy1()
);

via_axi_rd_arb #(
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .S1_ID(1)
) arb_b (
    .clk(clk),
    .rst(rst),
    .s0_axi_arid(a_arid),
    .s0_axi_araddr(a_araddr),
    .s0_axi_arlen(a_arlen),
    .s0_axi_arsize(a_arsize),
    .s0_axi_arburst(a_arburst),
    .s0_axi_arlock(a_arlock),
    .s0_axi_arcache(a_arcache),
    .s0_axi_arprot(a_arprot),
    .s0_axi_arvalid(a_arvalid),
    .s0_axi_arready(a_arready),
    .s0_axi_rvalid(a_rvalid),
    .s0_axi_rready(a_rready),
    .s1_axi_arid(t_arid),
    .s1_axi_araddr(t_araddr),
    .s1_axi_arlen(t_arlen),
    .s1_axi_arsize(t_arsize),
    .s1_axi_arburst(t_arburst),
    .s1_axi_arlock(1'b0),
    .s1_axi_arcache(4'b0011),
    .s1_axi_arprot(3'b010),
    .s1_axi_arvalid(t_arvalid),
    .s1_axi_arready(t_arready),
    .s1_axi_rvalid(t_rvalid),
    .s1_axi_rready(t_rready),
    .m_axi_arid(axi_arid),
    .m_axi_araddr(axi_araddr),
    .m_axi_arlen(axi_arlen),
    .m_axi_arsize(axi_arsize),
    .m_axi_arburst(axi_arburst),
    .m_axi_arlock(axi_arlock),
    .m_axi_arcache(axi_arcache),
    .m_axi_arprot(axi_arprot),
    .m_axi_arvalid(axi_arvalid),
    .m_axi_arready(axi_arready),
    .m_axi_rid(axi_rid),
    .m_axi_rlast(axi_rlast),
    .m_axi_rvalid(axi_rvalid),
    .m_axi_rready(axi_rready),
    .busy1()
);
/* verilator lint_on PINCONNECTEMPTY */

axi_ram_model #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .MEM_BYTES(MEM_BYTES),
    .READ_LATENCY(READ_LATENCY),
    .WRITE_LATENCY(38),
    .READY_PROB(READY_PROB),
    .MAX_READS(40),
    .SEED_SALT(SALT)
) ram (
    .clk(clk),
    .rst(rst),
    .s_axi_awid(awid),
    .s_axi_awaddr(awaddr),
    .s_axi_awlen(awlen),
    .s_axi_awsize(awsize),
    .s_axi_awburst(awburst),
    .s_axi_awlock(awlock),
    .s_axi_awcache(awcache),
    .s_axi_awprot(awprot),
    .s_axi_awvalid(awvalid),
    .s_axi_awready(awready),
    .s_axi_wdata(wdata),
    .s_axi_wstrb(wstrb),
    .s_axi_wlast(wlast),
    .s_axi_wvalid(wvalid),
    .s_axi_wready(wready),
    .s_axi_bid(bid),
    .s_axi_bresp(bresp),
    .s_axi_bvalid(bvalid),
    .s_axi_bready(bready),
    .s_axi_arid(axi_arid),
    .s_axi_araddr(axi_araddr),
    .s_axi_arlen(axi_arlen),
    .s_axi_arsize(axi_arsize),
    .s_axi_arburst(axi_arburst),
    .s_axi_arlock(axi_arlock),
    .s_axi_arcache(axi_arcache),
    .s_axi_arprot(axi_arprot),
    .s_axi_arvalid(axi_arvalid),
    .s_axi_arready(axi_arready),
    .s_axi_rid(axi_rid),
    .s_axi_rdata(axi_rdata),
    .s_axi_rresp(axi_rresp),
    .s_axi_rlast(axi_rlast),
    .s_axi_rvalid(axi_rvalid),
    .s_axi_rready(axi_rready)
);

// ------------------------------------------------------------- bench state

integer seed;
`include "bench_random.vh"

reg failed = 1'b0;
reg [8*32-1:0] case_name = "init";
always @(posedge failed) begin
    $fatal(1, "%m: check failed (see FAIL above)");
end

task tick;
    begin
        @(posedge clk);
        #1;
    end
endtask

// context model: one-cycle registered read
reg        cx_enable [0:NUM_VI-1];
reg [1:0]  cx_state [0:NUM_VI-1];
reg [23:0] cx_peer [0:NUM_VI-1];   // {node, VI}
reg        cx_rw [0:NUM_VI-1];
always @(posedge clk) begin
    ctx_rd_enable <= cx_enable[ctx_rd_vi];
    ctx_rd_state <= cx_state[ctx_rd_vi];
    ctx_rd_ptag <= PT;
    ctx_rd_mts <= 32'h00100000;
    ctx_rd_rw <= cx_rw[ctx_rd_vi];
    ctx_rd_rr <= 1'b0;
    ctx_rd_peer <= cx_peer[ctx_rd_vi];
end

// regions
reg [63:0] r_va [0:REGIONS-1];
reg [31:0] r_len [0:REGIONS-1];
reg [63:0] r_pg [0:REGIONS*RPAGES-1];
reg [31:0] r_handle [0:REGIONS-1];
integer free_pg [0:PAGES-1];
integer free_n;

// shadow of the memory as it must be
reg [7:0] shadow [0:MEM_BYTES-1];

task tpt_cmd;
    input [2:0]  op;
    input [15:0] idx;
    input [63:0] va;
    input [31:0] n;
    input [63:0] pl;
    integer k;
    begin
        k = 0;
        while (prog_busy) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("TPT busy for ever")
        end
        prog_op = op;
        prog_index = idx;
        prog_va = va;
        prog_len = n;
        prog_ptag = PT;
        prog_pl = pl;
        prog_valid = 1'b1;
        tick;
        prog_valid = 1'b0;
        tick;
        while (prog_busy) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("TPT command never finished")
        end
    end
endtask

function [63:0] pa_of;
    input integer k;
    input [63:0] va;
    reg [63:0] pi;
    begin
        pi = (va >> 12) - (r_va[k] >> 12);
        pa_of = r_pg[k * RPAGES + pi] + (va & 64'hfff);
    end
endfunction

task mem_wr;
    input [63:0] pa;
    input [7:0] b;
    begin
        ram.mem[pa] = b;
        shadow[pa] = b;
    end
endtask

task region_new;
    input integer k;
    input [63:0] va;
    input [31:0] n;
    integer i, np, j;
    reg [63:0] pg;
    begin
        r_va[k] = va;
        r_len[k] = n;
        np = (((va & 64'hfff) + n + 64'hfff) >> 12);
        for (i = 0; i < np; i = i + 1) begin
            if (free_n == 0) `XFAIL("bench: out of pages")
            j = {bench_random(0)} % free_n;
            pg = free_pg[j] * 4096;
            free_pg[j] = free_pg[free_n - 1];
            free_n = free_n - 1;
            r_pg[k * RPAGES + i] = pg;
            for (j = 0; j < 8; j = j + 1) begin
                mem_wr(k * 256 + i * 8 + j, pg[8*j +: 8]);
            end
        end
        tpt_cmd(3'd1, k, va, n, k * 256);
        if (prog_rd_valid !== 1'b1) `XFAIL("WRITE: region not valid")
        r_handle[k] = {prog_rd_gen, k[15:0]};
    end
endtask

// ------------------------------------------------------------- descriptor image

reg [63:0] b_next;
reg [31:0] b_nh;
reg [15:0] b_segc;
reg [15:0] b_ctrl;
reg [31:0] b_imm;
reg [31:0] b_len;
reg [63:0] s_addr [0:MAX_SEGS+1];
reg [31:0] s_hnd [0:MAX_SEGS+1];
reg [31:0] s_len [0:MAX_SEGS+1];

function [7:0] img_byte;
    input integer j;
    reg [127:0] w;
    integer s;
    begin
        if (j < 16) begin
            w = {64'd0, b_ctrl, b_segc, b_nh, b_next};
            img_byte = w[8*j +: 8];
        end else if (j < 32) begin
            w = {32'd0, b_len, b_imm, 32'd0};
            img_byte = w[8*(j - 16) +: 8];
        end else begin
            s = (j - 32) / 16;
            w = {s_len[s], s_hnd[s], s_addr[s]};
            img_byte = w[8*((j - 32) % 16) +: 8];
        end
    end
endfunction

task desc_write;
    input [63:0] va;
    integer j;
    begin
        for (j = 0; j < 32 + 16 * b_segc; j = j + 1) begin
            mem_wr(pa_of(K_D, va + j), img_byte(j));
        end
    end
endtask

// ------------------------------------------------------------- monitors

// stream mode (several work items ahead, checked in order by the stream
// model below); 0: one descriptor at a time (run_desc)
reg        st_mode = 1'b0;

// the frame sink
reg [7:0]  rx_pay [0:65535];
integer    rx_n = 0, rx_beat = 0, rx_frames = 0;
reg        sink_clr = 1'b0;
integer    frames_off = 0;
integer    t_hv = -1;
reg [127:0] rx_hdr;
reg [127:0] rx_ext;    // the RDMA extension of the last frame (0 if none)
integer    rx_xn = 0;  // extension beats still to come
localparam HB = (DATA_WIDTH == 64) ? 2 : 1;
reg [31:0] rx_trl;
reg        rx_partial;
integer    sink_prob;
integer    t_hdr = 0, t_ar = -1, t_pay0 = 0, t_pay1 = 0, t_trl = 0, cyc = 0;
integer    i_s;
always @(posedge clk) begin
    cyc <= cyc + 1;
    if (dut_rst || sink_clr) begin
        rx_beat <= 0;
        rx_n <= 0;
        rx_partial <= 1'b0;
        rx_xn <= 0;
        t_ar <= -1;
        t_hv <= -1;
    end else begin
        if (d_arvalid && t_ar < 0) t_ar <= cyc;
        if (s_tvalid && rx_beat == 0 && t_hv < 0) t_hv <= cyc;
        if (s_tvalid && s_tready) begin
            if (rx_beat == 0) t_hdr <= cyc;
            if (rx_beat < (DATA_WIDTH == 64 ? 2 : 1)) begin
                if (s_tkeep !== {BYTES{1'b1}} || s_tlast !== 1'b0) `XFAIL("header beat keep/last")
                if (DATA_WIDTH == 64) begin
                    if (rx_beat == 0) rx_hdr[63:0] <= s_tdata[63:0];
                    else rx_hdr[127:64] <= s_tdata[63:0];
                end else begin
                    rx_hdr <= s_tdata[127:0];
                    if (DATA_WIDTH > 128 && s_tdata[DATA_WIDTH-1:128] !== 0) `XFAIL("header beat: lanes above 15 not 0")
                end
                // the op byte (13) is in the header's last beat: an RDMA
                // write's extension follows
                if (rx_beat == HB - 1) begin
                    rx_ext <= 128'd0;
                    rx_xn <= (s_tdata[(DATA_WIDTH == 64 ? 40 : 104) +: 8] == 8'd1) ? HB : 0;
                end
                rx_beat <= rx_beat + 1;
            end else if (rx_xn > 0 && !s_tlast) begin
                if (s_tkeep !== {BYTES{1'b1}}) `XFAIL("extension beat keep")
                if (DATA_WIDTH == 64) begin
                    if (rx_xn == 2) rx_ext[63:0] <= s_tdata[63:0];
                    else rx_ext[127:64] <= s_tdata[63:0];
                end else begin
                    rx_ext <= s_tdata[127:0];
                    if (DATA_WIDTH > 128 && s_tdata[DATA_WIDTH-1:128] !== 0) `XFAIL("extension beat: lanes above 15 not 0")
                end
                rx_xn <= rx_xn - 1;
            end else if (s_tlast) begin
                if (rx_xn != 0) `XFAIL("trailer inside the RDMA extension")
                if (s_tkeep !== {BYTES{1'b1}}) `XFAIL("trailer keep")
                rx_trl <= s_tdata[31:0];
                t_trl <= cyc;
                rx_frames <= rx_frames + 1;
                if (st_mode) rx_n <= 0;
                rx_beat <= 0;
                rx_partial <= 1'b0;
            end else begin
                if (rx_partial) `XFAIL("payload beat after a partial one")
                if (rx_n == 0) t_pay0 <= cyc;
                t_pay1 <= cyc;
                for (i_s = 0; i_s < BYTES; i_s = i_s + 1) begin
                    if (s_tkeep[i_s]) rx_pay[rx_n + i_s] <= s_tdata[8*i_s +: 8];
                    if (i_s > 0 && s_tkeep[i_s] && !s_tkeep[i_s - 1]) `XFAIL("payload keep not contiguous from lane 0")
                end
                if (s_tkeep !== {BYTES{1'b1}}) rx_partial <= 1'b1;
                rx_n <= rx_n + keep_count(s_tkeep);
                rx_beat <= rx_beat + 1;
            end
        end
    end
end

// random stream back-pressure
always @(posedge clk) begin
    s_tready <= ({bench_random(0)} % 100) < sink_prob;
end

// advances
reg [63:0] got_next;
reg [31:0] got_nh;
integer n_adv = 0, n_done = 0, n_errst = 0, n_lost = 0;
integer wb_open = 0;  // Status writes whose AW was taken and B not yet
always @(posedge clk) begin
    if (dut_rst) wb_open <= 0;
    else wb_open <= wb_open + (awvalid && awready) - (bvalid && bready);
end
integer n_dar = 0, n_drl = 0;
integer ab_wb = 0, ab_adv = 0, ab_fr = 0;
reg [31:0] ab_st;   // data bursts issued / completed
always @(posedge clk) begin
    if (d_arvalid && d_arready) n_dar <= n_dar + 1;
    if (d_rvalid && d_rready && axi_rlast) n_drl <= n_drl + 1;
end
always @(posedge clk) begin
    if (!dut_rst && adv_valid && adv_ready) begin
        got_next <= adv_next;
        got_nh <= adv_next_handle;
        n_adv <= n_adv + 1;
        if (adv_keep !== 1'b0) `XFAIL("adv_keep not 0")
        if (!st_mode && adv_q !== 1'b0) `XFAIL("adv_q not 0")
    end
    if (!dut_rst && done_pulse) n_done <= n_done + 1;
    if (dut_rst) begin
        dq_wp = 0; dq_rp = 0;
    end else begin
        if (adv_valid && adv_ready) begin
            dq_fifo[dq_wp % 256] = {adv_vi, adv_q};
            dq_wp = dq_wp + 1;
        end
        if (done_pulse) begin
            if (dq_rp == dq_wp) `XFAIL("done_pulse without an advance")
            else if ({done_vi, done_q} !== dq_fifo[dq_rp % 256]) `XFAIL("done_vi/done_q differ from the advance's VI and queue")
            dq_rp = dq_rp + 1;
        end
        if (done_ev && !done_pulse) `XFAIL("done_ev without done_pulse")
    end
    // a descriptor completes only after its Status write's B: no done_pulse
    // while a Status write awaits its B
    if (!dut_rst && !st_mode && done_pulse && wb_open != 0) `XFAIL("done_pulse before the Status write's B")
    // one Status write at most in flight (completions in order)
    if (!dut_rst && !st_mode && wb_open > 1) `XFAIL("two Status writes in flight")
    // the fence bits are 0 while the unit is idle
    if (!dut_rst && !busy && inflight_epoch != 2'b00) `XFAIL("inflight_epoch set while idle")
end

// ------------------------------------------------------------- one descriptor

integer exp_frame;     // 1: a frame is expected
reg [31:0] exp_trl;    // its trailer status
reg [31:0] exp_st;     // status bits to be written (0: not written)
reg        exp_wb;     // the status word is written
integer    exp_wb_lost;
reg [2:0]  vi_sel;
reg [7:0]  ex_pay [0:65535];
integer    ex_n;

// the payload the message gathers
task expect_payload;
    integer s, j;
    begin
        ex_n = 0;
        // an RDMA write's segment 0 is its address segment
        for (s = (b_ctrl[1:0] == 2'd1) ? 1 : 0; s < b_segc; s = s + 1) begin
            for (j = 0; j < s_len[s]; j = j + 1) begin
                ex_pay[ex_n] = ram.mem[pa_of(K_A, s_addr[s] + j)];
                ex_n = ex_n + 1;
            end
        end
    end
endtask

task run_desc;
    input [63:0] dva;
    input [31:0] dh;
    integer k, frames0, desc0, err0, lost0, adv0, j;
    reg [31:0] w;
    begin
        frames0 = rx_frames;
        desc0 = cnt_desc;
        err0 = cnt_err;
        lost0 = cnt_wb_lost;
        adv0 = n_adv;
        sink_clear;
        work_vi = vi_sel;
        work_va = dva;
        work_handle = dh;
        work_valid = 1'b1;
        k = 0;
        while (!work_ready) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("work never taken")
        end
        tick;
        work_valid = 1'b0;
        k = 0;
        while (n_adv == adv0) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("no advance")
        end
        tick;
        tick;
        k = 0;
        while (busy) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("busy for ever")
        end
        // advance
        if (got_next !== b_next || got_nh !== b_nh) `XFAIL("advance Next/NextHandle")
        if (cnt_desc != desc0 + 1) `XFAIL("cnt_desc")
        if (cnt_err != err0 + ((exp_st & 32'h1fe) != 0)) begin
            $display("  cnt_err %0d before %0d; trailer 0x%0h frames %0d/%0d rx_n %0d len %0d segc %0d", cnt_err, err0, rx_trl, rx_frames, frames0, rx_n, b_len, b_segc);
            `XFAIL("cnt_err")
        end
        if (cnt_wb_lost != lost0 + exp_wb_lost) `XFAIL("cnt_wb_lost")
        if (rx_frames != frames0 + exp_frame) `XFAIL("frame count")
        if (cnt_frames + frames_off != rx_frames) `XFAIL("cnt_frames")
        if (n_done != n_adv) `XFAIL("done_pulse count differs from the advances")
        n_errst = n_errst + ((exp_st & 32'h1fe) != 0);
        n_lost = n_lost + exp_wb_lost;
        if (exp_frame) begin
            if (rx_hdr[15:0] !== cx_peer[vi_sel][15:0]) `XFAIL("header dst")
            if (rx_hdr[119:112] !== cx_peer[vi_sel][23:16]) `XFAIL("header peer node")
            if (rx_hdr[31:16] !== {13'd0, vi_sel}) `XFAIL("header src")
            if (rx_hdr[63:32] !== b_len) `XFAIL("header length")
            if (rx_hdr[95:64] !== (b_ctrl[2] ? b_imm : 32'd0)) `XFAIL("header immediate")
            if (rx_hdr[103:96] !== {7'd0, b_ctrl[2]}) `XFAIL("header flags")
            if (rx_hdr[111:104] !== {6'd0, b_ctrl[1:0]} || rx_hdr[127:120] !== 8'd0) `XFAIL("header op / pad")
            if (b_ctrl[1:0] == 2'd1 && rx_ext !== {32'd0, s_hnd[0], s_addr[0]}) `XFAIL("RDMA extension")
            if (rx_trl !== exp_trl) begin
                $display("  trailer 0x%0h expected 0x%0h", rx_trl, exp_trl);
                `XFAIL("trailer status")
            end
            if (exp_trl == 0 && rx_n != b_len) `XFAIL("payload length")
            if (rx_n > ex_n) `XFAIL("payload longer than the message")
            for (j = 0; j < rx_n; j = j + 1) begin
                if (rx_pay[j] !== ex_pay[j]) begin
                    $display("  payload byte %0d: 0x%0h expected 0x%0h", j, rx_pay[j], ex_pay[j]);
                    `XFAIL("payload byte")
                end
            end
            if (t_ar >= 0 && t_hv > t_ar) `XFAIL("first data AR before the header")
        end
        // the status word
        for (j = 0; j < 4; j = j + 1) w[8*j +: 8] = ram.mem[pa_of(K_D, dva + 28 + j)];
        if (exp_wb) begin
            if (w !== (ST_DONE | exp_st)) begin
                $display("  status 0x%0h expected 0x%0h", w, ST_DONE | exp_st);
                `XFAIL("status word")
            end
            for (j = 0; j < 4; j = j + 1) shadow[pa_of(K_D, dva + 28 + j)] = ram.mem[pa_of(K_D, dva + 28 + j)];
        end else if (w !== 32'd0) begin
            `XFAIL("status word written")
        end
        // clear the status for the next use of the place
        for (j = 0; j < 4; j = j + 1) mem_wr(pa_of(K_D, dva + 28 + j), 8'd0);
    end
endtask

// a good send descriptor with n data segments at random places of K_A
// (odd offsets and lengths, some crossing pages, some zero-length)
task desc_gather;
    input integer n;
    input integer maxlen;
    integer s;
    reg [63:0] off;
    begin
        b_next = {bench_random(0), bench_random(0)} & ~64'h3f;
        b_nh = bench_random(0);
        b_segc = n;
        b_ctrl = ({bench_random(0)} % 2) ? 16'h0004 : 16'h0000;
        b_imm = bench_random(0);
        b_len = 0;
        for (s = 0; s < n; s = s + 1) begin
            s_len[s] = {bench_random(0)} % (maxlen + 1);
            if ({bench_random(0)} % 8 == 0) s_len[s] = 0;
            if ({bench_random(0)} % 4 == 0) s_len[s] = 1 + {bench_random(0)} % 15;
            off = {bench_random(0)} % (r_len[K_A] - s_len[s] + 1);
            // now and then straddle a page boundary
            if ({bench_random(0)} % 3 == 0 && s_len[s] > 1) begin
                off = ((r_va[K_A] + off + 64'h1000) & ~64'hfff) - r_va[K_A] - {bench_random(0)} % s_len[s];
                if (off > r_len[K_A] || off + s_len[s] > r_len[K_A]) off = 0;   // (off may wrap below 0)
            end
            s_addr[s] = r_va[K_A] + off;
            s_hnd[s] = r_handle[K_A];
            b_len = b_len + s_len[s];
        end
    end
endtask

task expect_good;
    begin
        expect_payload;
        exp_frame = 1;
        exp_trl = 0;
        exp_st = 0;
        exp_wb = 1'b1;
        exp_wb_lost = 0;
    end
endtask

task expect_nofr;
    input [31:0] st;
    begin
        exp_frame = 0;
        exp_st = st;
        exp_wb = 1'b1;
        exp_wb_lost = 0;
    end
endtask


// ------------------------------------------------------------- stream model
// Several work items handed out back to back (several VIs, post order per
// VI as the queue block gives them): every frame is checked in order
// against its item (header, payload, trailer), every advance against its
// item (VI, Next, NextHandle), every done_pulse against the B's seen (a
// written descriptor completes only after as many B's as written
// descriptors completed so far), and at the end every Status word.

localparam NI = 64;
reg [VI_WIDTH-1:0] it_vi [0:NI-1];
reg [63:0] it_dva [0:NI-1];
reg [63:0] it_next [0:NI-1];
reg [31:0] it_nh [0:NI-1];
reg        it_frame [0:NI-1];
reg        it_wbl [0:NI-1];     // its Status write gets a bad B
reg        it_q [0:NI-1];       // a receive to flush (work_q 1)
reg [31:0] it_trl [0:NI-1];
reg [31:0] it_st [0:NI-1];
reg [31:0] it_len [0:NI-1];
reg [31:0] it_imm [0:NI-1];
reg        it_immf [0:NI-1];
integer    it_pofs [0:NI-1];
reg [7:0]  st_pay [0:262143];
integer    st_n = 0, st_pn = 0;
integer    st_fx = 0, st_ax = 0, st_dx = 0, st_wdone = 0, st_nb = 0, st_wbmax = 0;
integer    st_t_first_trl = -1, st_t_last_trl = 0, st_t_last_done = 0, st_t_work0 = 0;
integer    st_j;

// frames
always @(posedge clk) begin
    if (st_mode && !dut_rst && s_tvalid && s_tready && s_tlast && rx_beat >= (DATA_WIDTH == 64 ? 2 : 1)) begin
        while (st_fx < st_n && !it_frame[st_fx]) st_fx = st_fx + 1;
        if (st_fx >= st_n) begin
            `XFAIL("stream: a frame no item expects")
        end else begin
            if (rx_hdr[15:0] !== cx_peer[it_vi[st_fx]][15:0]) `XFAIL("stream: header dst")
            if (rx_hdr[119:112] !== cx_peer[it_vi[st_fx]][23:16]) `XFAIL("stream: header peer node")
            if (rx_hdr[31:16] !== {{(16-VI_WIDTH){1'b0}}, it_vi[st_fx]}) `XFAIL("stream: header src")
            if (rx_hdr[63:32] !== it_len[st_fx]) `XFAIL("stream: header length")
            if (rx_hdr[95:64] !== (it_immf[st_fx] ? it_imm[st_fx] : 32'd0)) `XFAIL("stream: header immediate")
            if (rx_hdr[103:96] !== {7'd0, it_immf[st_fx]}) `XFAIL("stream: header flags")
            if (s_tdata[31:0] !== it_trl[st_fx]) begin
                $display("  item %0d: trailer 0x%0h expected 0x%0h", st_fx, s_tdata[31:0], it_trl[st_fx]);
                `XFAIL("stream: trailer status")
            end
            if (it_trl[st_fx] == 0 && rx_n != it_len[st_fx]) `XFAIL("stream: payload length")
            if (rx_n > it_len[st_fx]) `XFAIL("stream: payload longer than the message")
            for (st_j = 0; st_j < rx_n; st_j = st_j + 1) begin
                if (rx_pay[st_j] !== st_pay[it_pofs[st_fx] + st_j]) begin
                    $display("  item %0d payload byte %0d: 0x%0h expected 0x%0h", st_fx, st_j, rx_pay[st_j], st_pay[it_pofs[st_fx] + st_j]);
                    `XFAIL("stream: payload byte")
                end
            end
            st_fx = st_fx + 1;
        end
        if (st_t_first_trl < 0) st_t_first_trl = cyc;
        st_t_last_trl = cyc;
    end
end

// advances, B's, completions
always @(posedge clk) begin
    if (st_mode && !dut_rst) begin
        if (adv_valid && adv_ready) begin
            if (st_ax >= st_n) `XFAIL("stream: an advance no item expects")
            else begin
                if (adv_vi !== it_vi[st_ax]) `XFAIL("stream: advance VI (order)")
                if (adv_q !== it_q[st_ax]) `XFAIL("stream: advance queue (adv_q)")
                if (adv_next !== it_next[st_ax] || adv_next_handle !== it_nh[st_ax]) `XFAIL("stream: advance Next/NextHandle")
            end
            st_ax = st_ax + 1;
        end
        if (bvalid && bready) st_nb = st_nb + 1;
        if (wb_open > st_wbmax) st_wbmax = wb_open;
        if (done_pulse) begin
            if (st_dx >= st_ax) `XFAIL("stream: done_pulse before its advance")
            st_wdone = st_wdone + 1;   // every stream item writes its Status
            if (st_wdone > st_nb) `XFAIL("stream: done_pulse before its Status write's B")
            st_dx = st_dx + 1;
            st_t_last_done = cyc;
        end
    end
end

// start a stream
task st_begin;
    begin
        st_n = 0;
        st_pn = 0;
        st_fx = 0;
        st_ax = 0;
        st_dx = 0;
        st_wdone = 0;
        st_nb = 0;
        st_wbmax = 0;
        st_t_first_trl = -1;
        sink_clear;
        st_mode = 1'b1;
    end
endtask

// add the item just built (b_*, s_*) at dva on VI v; exp: 0 good frame,
// else the status bits (no frame unless frame_too)
task st_add;
    input [VI_WIDTH-1:0] v;
    input [63:0] va;
    input [31:0] st;
    input        with_frame;
    input [31:0] trl;
    integer s, j;
    begin
        desc_write(va);
        it_vi[st_n] = v;
        it_dva[st_n] = va;
        it_next[st_n] = b_next;
        it_nh[st_n] = b_nh;
        it_frame[st_n] = with_frame;
        it_wbl[st_n] = 1'b0;
        it_q[st_n] = 1'b0;
        it_trl[st_n] = trl;
        it_st[st_n] = st;
        it_len[st_n] = b_len;
        it_imm[st_n] = b_imm;
        it_immf[st_n] = b_ctrl[2];
        it_pofs[st_n] = st_pn;
        if (with_frame) begin
            for (s = 0; s < b_segc; s = s + 1) begin
                for (j = 0; j < s_len[s]; j = j + 1) begin
                    if (s_hnd[s] == r_handle[K_A]) st_pay[st_pn] = ram.mem[pa_of(K_A, s_addr[s] + j)];
                    else st_pay[st_pn] = 8'hxx;
                    st_pn = st_pn + 1;
                end
            end
        end
        st_n = st_n + 1;
    end
endtask

// hand out every item back to back, wait for all completions, check
task st_run;
    integer i, k, j, desc0, err0, fr0, lost0, nerr, nwbl;
    reg [31:0] w;
    begin
        desc0 = cnt_desc;
        err0 = cnt_err;
        fr0 = cnt_frames;
        lost0 = cnt_wb_lost;
        nerr = 0;
        nwbl = 0;
        for (i = 0; i < st_n; i = i + 1) nerr = nerr + ((it_st[i] & 32'h1fe) != 0);
        for (i = 0; i < st_n; i = i + 1) nwbl = nwbl + it_wbl[i];
        st_t_work0 = -1;
        for (i = 0; i < st_n; i = i + 1) begin
            work_vi = it_vi[i];
            work_q = it_q[i];
            work_va = it_dva[i];
            work_handle = dh;
            work_valid = 1'b1;
            k = 0;
            while (!work_ready) begin
                tick;
                k = k + 1;
                if (k > WATCHDOG) `XFAIL("stream: work never taken")
            end
            if (st_t_work0 < 0) st_t_work0 = cyc;
            tick;
        end
        work_valid = 1'b0;
        work_q = 1'b0;
        k = 0;
        while (st_dx < st_n || busy) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("stream: not every item completed")
        end
        repeat (5) tick;
        while (st_fx < st_n && !it_frame[st_fx]) st_fx = st_fx + 1;
        if (st_fx != st_n) `XFAIL("stream: frames missing")
        if (st_ax != st_n || st_dx != st_n) `XFAIL("stream: advances / completions")
        if (cnt_desc != desc0 + st_n) `XFAIL("stream: cnt_desc")
        if (cnt_err != err0 + nerr) `XFAIL("stream: cnt_err")
        if (cnt_wb_lost != lost0 + nwbl) `XFAIL("stream: cnt_wb_lost")
        k = 0;
        for (i = 0; i < st_n; i = i + 1) k = k + it_frame[i];
        if (cnt_frames != fr0 + k) `XFAIL("stream: cnt_frames")
        for (i = 0; i < st_n; i = i + 1) begin
            for (j = 0; j < 4; j = j + 1) w[8*j +: 8] = ram.mem[pa_of(K_D, it_dva[i] + 28 + j)];
            if (it_wbl[i] ? (w !== 32'd0) : (w !== (ST_DONE | it_st[i]))) begin
                $display("  item %0d: status 0x%0h expected 0x%0h", i, w, ST_DONE | it_st[i]);
                `XFAIL("stream: status word")
            end
            for (j = 0; j < 4; j = j + 1) mem_wr(pa_of(K_D, it_dva[i] + 28 + j), 8'd0);
        end
        st_mode = 1'b0;
        sink_clear;
    end
endtask

// a mixed stream: nitems items over every VI (VI 6 IDLE, VI 7 ERROR: half
// of its items are receives to flush, work_q 1, completed FLUSHED as
// receives and advanced on queue 1), good
// gathers of 1..4 small segments, fetch errors, lookup failures
task st_mixed;
    input integer nitems;
    integer i, kind, rd_err, j;
    reg [VI_WIDTH-1:0] v;
    reg [63:0] va;
    begin
        cx_state[6] = 2'd0;
        cx_state[7] = 2'd3;
        // the last 256 bytes of K_A are kept for one send whose data read
        // gets SLVERR (no other item reads them)
        r_len[K_A] = r_len[K_A] - 256;
        rd_err = 0;
        st_begin;
        for (i = 0; i < nitems; i = i + 1) begin
            v = {bench_random(0)} % NUM_VI;
            va = r_va[K_D] + 64'h80 * i;
            kind = {bench_random(0)} % 10;
            desc_gather(1 + {bench_random(0)} % 4, 1 + {bench_random(0)} % 400);
            if (v == 7 && kind < 5) begin
                // a receive of the VI in ERROR: flushed whatever the
                // descriptor says, completed as a receive
                b_ctrl = b_ctrl | ({bench_random(0)} % 4);   // even an RDMA op
                st_add(v, va, ST_FLUSHED | 32'h10000, 1'b0, 0);
                it_q[st_n - 1] = 1'b1;
            end else if (v == 7) begin
                st_add(v, va, ST_FLUSHED, 1'b0, 0);
            end else if (v == 6) begin
                st_add(v, va, ST_FORMAT, 1'b0, 0);
            end else if (kind == 0) begin
                b_len = b_len + 1;
                st_add(v, va, ST_LENGTH, 1'b0, 0);
            end else if (kind == 2 && rd_err == 0) begin
                rd_err = 1;
                s_addr[0] = r_va[K_A] + r_len[K_A] + 64'h40;
                s_hnd[0] = r_handle[K_A];
                s_len[0] = 150;
                b_len = 0;
                for (j = 0; j < b_segc; j = j + 1) b_len = b_len + s_len[j];
                ram.set_rd_error(pa_of(K_A, s_addr[0] + 100), pa_of(K_A, s_addr[0] + 101));
                st_add(v, va, ST_TRANSPORT, 1'b1, ST_TRANSPORT);
            end else if (kind == 1 && b_segc > 1) begin
                // a stale handle on the last segment
                s_hnd[b_segc - 1] = r_handle[K_A] + 32'h0001_0000;
                if (s_len[b_segc - 1] == 0) begin
                    s_len[b_segc - 1] = 5;
                    b_len = b_len + 5;
                end
                st_add(v, va, ST_PROTECTION, 1'b1, ST_PROTECTION);
            end else begin
                st_add(v, va, 32'd0, 1'b1, 32'd0);
            end
        end
        // one Status write in the second half gets SLVERR (nothing written,
        // cnt_wb_lost) while other writes are in flight
        it_wbl[nitems / 2] = 1'b1;
        ram.set_wr_error(pa_of(K_D, it_dva[nitems / 2]), pa_of(K_D, it_dva[nitems / 2] + 32));
        st_run;
        ram.clear_errors;
        r_len[K_A] = r_len[K_A] + 256;
        if (rd_err == 0) $display("%m: (this stream had no send with an R SLVERR)");
        cx_state[6] = 2'd1;
        cx_state[7] = 2'd1;
    end
endtask

// ------------------------------------------------------------- sequence

integer n, i, j, k, pass;
reg [63:0] dva, va;
reg [31:0] dh;
integer beats, cycles, pct;

initial begin
    finished = 1'b0;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    seed = seed * 7919 + SALT;
    sink_prob = 100;
    work_valid = 1'b0;
    work_vi = 0;
    work_va = 0;
    work_handle = 0;
    adv_ready = 1'b1;
    abort = 1'b0;
    prog_valid = 1'b0;
    prog_op = 0;
    prog_index = 0;
    prog_va = 0;
    prog_len = 0;
    prog_ptag = 0;
    prog_pl = 0;
    for (i = 0; i < NUM_VI; i = i + 1) begin
        cx_enable[i] = 1'b1;
        cx_state[i] = 2'd1;
        cx_peer[i] = {i[7:0] + 8'd1, 16'h100 + i[15:0] * 16'd3};
        cx_rw[i] = 1'b1;
    end
    for (i = 0; i < MEM_BYTES; i = i + 1) begin
        ram.mem[i] = 8'd0;
        shadow[i] = 8'd0;
    end
    free_n = 0;
    for (i = 1; i < PAGES; i = i + 1) begin
        free_pg[free_n] = i;
        free_n = free_n + 1;
    end
    while (rst !== 1'b0) tick;
    repeat (5) tick;
    k = 0;
    while (prog_busy) begin
        tick;
        k = k + 1;
    end
    region_new(K_D, 64'h0000_7000_0000_0000, 32'd8192);
    region_new(K_A, 64'h0000_5555_0000_0123, 32'd12 * 4096 - 32'h300);
    for (i = 0; i < 12; i = i + 1) begin
        for (j = 0; j < 4096; j = j + 1) mem_wr(r_pg[K_A * RPAGES + i] + j, bench_random(0));
    end
    dh = r_handle[K_D];
    vi_sel = 3'd2;

    if (MODE == 1) begin
        // ---------------- throughput: one 32 KiB segment, no back-pressure
        case_name = "throughput 32 KiB";
        ram.set_ready_prob(100);
        sink_prob = 100;
        dva = r_va[K_D] + 64'h40;
        b_next = 64'h1234_5678_9abc_de00;
        b_nh = 32'h55aa;
        b_segc = 1;
        b_ctrl = 16'h0;
        b_imm = 0;
        s_addr[0] = r_va[K_A] + 64'h35;
        s_hnd[0] = r_handle[K_A];
        s_len[0] = 32768;
        b_len = 32768;
        desc_write(dva);
        expect_good;
        run_desc(dva, dh);
        beats = (32768 + BYTES - 1) / BYTES;
        cycles = t_pay1 - t_pay0 + 1;
        pct = beats * 1000 / cycles;
        $display("%m: 32 KiB message, DATA_WIDTH %0d, read latency %0d cycles: %0d payload beats in %0d cycles (%0d.%0d %% of one beat per cycle); header to trailer %0d cycles, first data AR %0d cycles after the header",
            DATA_WIDTH, READ_LATENCY, beats, cycles, pct / 10, pct % 10, t_trl - t_hdr + 1, t_ar - t_hdr);
        if (pct < 900) `XFAIL("throughput below 90 %")
        // a second message, scattered over 16 segments, for the figure
        case_name = "throughput 16 x 2 KiB";
        desc_gather(MAX_SEGS, 4096);
        for (i = 0; i < MAX_SEGS; i = i + 1) begin
            s_len[i] = 2048;
            s_addr[i] = r_va[K_A] + 64'h11 + 2048 * i + i;
        end
        b_len = 2048 * MAX_SEGS;
        desc_write(dva);
        expect_good;
        run_desc(dva, dh);
        cycles = t_pay1 - t_pay0 + 1;
        pct = ((b_len + BYTES - 1) / BYTES) * 1000 / cycles;
        $display("%m: %0d segments of 2 KiB at odd offsets: %0d.%0d %% of one beat per cycle", MAX_SEGS, pct / 10, pct % 10);
        if (pct < 900) `XFAIL("gather throughput below 90 %")

        // ---------------- message rate: 64 x 8-byte single-segment sends of
        // one VI handed out back to back
        case_name = "message rate 64 x 8 bytes";
        st_begin;
        for (i = 0; i < NI; i = i + 1) begin
            va = r_va[K_D] + 64'h80 * i;
            desc_gather(1, 8);
            s_len[0] = 8;
            b_len = 8;
            s_addr[0] = r_va[K_A] + {bench_random(0)} % 40000;
            b_next = (i == NI - 1) ? 64'd0 : va + 64'h80;
            b_nh = (i == NI - 1) ? 32'd0 : dh;
            st_add(3'd2, va, 32'd0, 1'b1, 32'd0);
        end
        st_run;
        cycles = (st_t_last_trl - st_t_first_trl) * 10 / (NI - 1);
        pct = (st_t_last_done - st_t_work0 + 1) * 10 / NI;
        $display("%m: message rate: %0d x 8-byte sends of one VI, read latency %0d: one frame per %0d.%0d cycles (trailer to trailer), %0d.%0d cycles per descriptor from the first work item to the last done_pulse, up to %0d Status writes in flight",
            NI, READ_LATENCY, cycles / 10, cycles % 10, pct / 10, pct % 10, st_wbmax);
`ifndef VIA_VI_TX_BENCH_PIPE_STUB
        if (cycles > 200) `XFAIL("message rate: more than 20 cycles per frame")
`endif
        // ---------------- a mixed stream over several VIs
        case_name = "stream mixed";
        st_mixed(NI);
        $display("%m: mixed stream: %0d items over %0d VIs, up to %0d Status writes in flight", NI, NUM_VI, st_wbmax);
    end else begin
        // pass 0 without back-pressure, pass 1 with; +short (make test's
        // run in Icarus) runs pass 1 only
        for (pass = $test$plusargs("short") ? 1 : 0; pass < 2; pass = pass + 1) begin
            ram.set_ready_prob(pass == 0 ? 100 : READY_PROB);
            sink_prob = pass == 0 ? 100 : 50;
            // ---------------- gathers of 1..MAX_SEGS segments
            case_name = "gather";
            for (n = 1; n <= MAX_SEGS; n = n + 1) begin
                vi_sel = n % NUM_VI;
                dva = r_va[K_D] + 64'h40 * ({bench_random(0)} % 100);
                desc_gather(n, n < 4 ? 9000 : 2500);
                desc_write(dva);
                expect_good;
                run_desc(dva, dh);
            end
            vi_sel = 3'd2;
            // ---------------- zero-length message with immediate
            case_name = "zero-length";
            dva = r_va[K_D] + 64'h1fc0;   // its image crosses no page; Status at the page end
            desc_gather(0, 0);
            b_ctrl = 16'h0004;
            b_imm = 32'hfeedf00d;
            desc_write(dva);
            expect_good;
            run_desc(dva, dh);
            // zero-length segments only
            dva = r_va[K_D] + 64'h80;
            desc_gather(3, 0);
            s_len[0] = 0; s_len[1] = 0; s_len[2] = 0; b_len = 0;
            desc_write(dva);
            expect_good;
            run_desc(dva, dh);

            // ---------------- fetch errors: no frame, status written
            case_name = "fetch: reserved";
            dva = r_va[K_D] + 64'h100;
            desc_gather(2, 100); b_ctrl = b_ctrl | 16'h0100; desc_write(dva);
            expect_nofr(ST_FORMAT); run_desc(dva, dh);
            case_name = "fetch: LEN_SUM";
            desc_gather(2, 100); b_len = b_len + 1; desc_write(dva);
            expect_nofr(ST_LENGTH); run_desc(dva, dh);
            case_name = "fetch: SEG_LIMIT";
            desc_gather(2, 100); b_segc = MAX_SEGS + 1; desc_write(dva);
            expect_nofr(ST_FORMAT); run_desc(dva, dh);
            case_name = "fetch: XLAT_SEGS";
            dva = r_va[K_D] + r_len[K_D] - 64;
            desc_gather(3, 100); desc_write(dva);
            expect_nofr(ST_PROTECTION); run_desc(dva, dh);
            dva = r_va[K_D] + 64'h100;
            for (k = 0; k < 4; k = k + 1) begin
                // k 0, 1: two data segments (with or without immediate);
                // 2: none (an empty RDMA write); 3: MAX_SEGS
                case_name = "RDMA write";
                desc_gather(k == 2 ? 0 : k == 3 ? MAX_SEGS : 2, 100);
                b_ctrl = (k == 1) ? 16'h5 : 16'h1;
                for (j = b_segc; j > 0; j = j - 1) begin
                    s_addr[j] = s_addr[j-1]; s_hnd[j] = s_hnd[j-1]; s_len[j] = s_len[j-1];
                end
                b_segc = b_segc + 1;
                s_addr[0] = {bench_random(0), bench_random(0)}; s_hnd[0] = bench_random(0); s_len[0] = 0;
                desc_write(dva);
                expect_good; exp_st = OP_RDMAW; run_desc(dva, dh);
            end
            case_name = "fetch: OP 3";
            desc_gather(2, 100); b_ctrl = b_ctrl | 16'h3; desc_write(dva);
            expect_nofr(ST_FORMAT); run_desc(dva, dh);
            case_name = "fetch: LEN_MAX";
            desc_gather(1, 100); s_len[0] = 32'h0010_0001; b_len = s_len[0]; desc_write(dva);
            expect_nofr(ST_LENGTH); run_desc(dva, dh);
            case_name = "fetch: RDMA_EN (read, not enabled)";
            desc_gather(2, 100); b_ctrl = (b_ctrl & ~16'h3) | 16'h2; b_segc = 3;
            s_addr[2] = s_addr[1]; s_hnd[2] = s_hnd[1]; s_len[2] = s_len[1];
            s_addr[1] = s_addr[0]; s_hnd[1] = s_hnd[0]; s_len[1] = s_len[0];
            s_addr[0] = 64'h1000; s_hnd[0] = 32'h1; s_len[0] = 0;
            desc_write(dva);
            expect_nofr(ST_FORMAT | OP_RDMAR); run_desc(dva, dh);
            case_name = "fetch: SLVERR";
            desc_gather(2, 100); desc_write(dva);
            ram.set_rd_error(pa_of(K_D, dva + 16), pa_of(K_D, dva + 24));
            expect_nofr(ST_TRANSPORT);
            b_next = 0; b_nh = 0;   // the control segment was not read: advance with 0
            run_desc(dva, dh);
            ram.clear_errors;
            case_name = "fetch: bad handle (write-back lost too)";
            desc_gather(2, 100); desc_write(dva);
            expect_nofr(ST_PROTECTION); exp_wb = 1'b0; exp_wb_lost = 1;
            b_next = 0; b_nh = 0;   // res_ctl_valid 0: advance with 0
            run_desc(dva, dh ^ 32'h0001_0000);

            // ---------------- VI states
            case_name = "VI ERROR";
            desc_gather(3, 500); desc_write(dva);
            cx_state[vi_sel] = 2'd3;
            expect_nofr(ST_FLUSHED); run_desc(dva, dh);
            case_name = "VI IDLE";
            cx_state[vi_sel] = 2'd0;
            expect_nofr(ST_FORMAT); run_desc(dva, dh);
            case_name = "VI CONNECT_PENDING";
            cx_state[vi_sel] = 2'd2;
            expect_nofr(ST_FORMAT); run_desc(dva, dh);
            cx_state[vi_sel] = 2'd1;

            // ---------------- lookup failure on the 3rd segment
            case_name = "lookup failure seg 3";
            desc_gather(5, 3000); s_len[0] = 5000; s_len[1] = 300; b_len = 0;
            s_addr[0] = r_va[K_A] + 64'h777; s_addr[1] = r_va[K_A] + 64'h3001;
            s_hnd[2] = r_handle[K_A] + 32'h0001_0000;   // stale generation
            if (s_len[2] == 0) s_len[2] = 7;
            for (i = 0; i < 5; i = i + 1) b_len = b_len + s_len[i];
            desc_write(dva);
            expect_payload;
            exp_frame = 1; exp_trl = ST_PROTECTION; exp_st = ST_PROTECTION; exp_wb = 1'b1; exp_wb_lost = 0;
            run_desc(dva, dh);
            // the segment runs past the region's end
            desc_gather(4, 3000);
            if (s_len[2] == 0) s_len[2] = 9;
            s_addr[2] = r_va[K_A] + r_len[K_A] - s_len[2] + 1;
            b_len = 0;
            for (i = 0; i < 4; i = i + 1) b_len = b_len + s_len[i];
            desc_write(dva);
            expect_payload;
            exp_frame = 1; exp_trl = ST_PROTECTION; exp_st = ST_PROTECTION; exp_wb = 1'b1; exp_wb_lost = 0;
            run_desc(dva, dh);

            // ---------------- R SLVERR on data
            case_name = "R SLVERR";
            desc_gather(3, 3000); s_addr[1] = r_va[K_A] + 64'h2100; s_len[1] = 3000;
            b_len = s_len[0] + s_len[1] + s_len[2];
            desc_write(dva);
            ram.set_rd_error(pa_of(K_A, s_addr[1] + 1500), pa_of(K_A, s_addr[1] + 1501));
            expect_payload;
            exp_frame = 1; exp_trl = ST_TRANSPORT; exp_st = ST_TRANSPORT; exp_wb = 1'b1; exp_wb_lost = 0;
            run_desc(dva, dh);
            ram.clear_errors;

            // ---------------- bad B on the write-back
            case_name = "write-back bad B";
            desc_gather(2, 300); desc_write(dva);
            ram.set_wr_error(pa_of(K_D, dva), pa_of(K_D, dva + 32));
            expect_good; exp_wb = 1'b0; exp_wb_lost = 1;
            run_desc(dva, dh);
            ram.clear_errors;

            // ---------------- random sends
            case_name = "random";
            for (i = 0; i < RANDOM_SENDS / 2; i = i + 1) begin
                vi_sel = {bench_random(0)} % NUM_VI;
                dva = r_va[K_D] + 64'h40 * ({bench_random(0)} % 100);
                desc_gather(1 + {bench_random(0)} % MAX_SEGS, 1 + {bench_random(0)} % 3000);
                desc_write(dva);
                expect_good;
                run_desc(dva, dh);
            end
            vi_sel = 3'd2;

            // ---------------- several work items ahead, several VIs
            case_name = "stream mixed";
            st_mixed(RANDOM_SENDS);
            $display("%m: mixed stream (pass %0d): %0d items, up to %0d Status writes in flight", pass, RANDOM_SENDS, st_wbmax);
        end

        // ---------------- write-back lookup failure: the descriptor's
        // region is invalidated while the frame is held by the sink
        case_name = "write-back lookup failure";
        ram.set_ready_prob(100);
        sink_prob = 0;
        dva = r_va[K_D] + 64'h200;
        // longer than the read buffer: reads under the old epoch stay held
        desc_gather(2, 2000);
        s_addr[0] = r_va[K_A] + 64'h10; s_len[0] = 3000;
        s_addr[1] = r_va[K_A] + 64'h5003; s_len[1] = 3000;
        b_len = 6000;
        desc_write(dva);
        expect_good; exp_wb = 1'b0; exp_wb_lost = 1;
        sink_clear;
        work_vi = vi_sel; work_va = dva; work_handle = dh; work_valid = 1'b1;
        while (!work_ready) tick;
        tick;
        work_valid = 1'b0;
        k = 0;
        // the header is out and data is being read (translations of the
        // old epoch are held)
        while (!s_tvalid || t_ar < 0) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("no header")
        end
        pass = n_adv;
        prog_op = 3'd3; prog_index = K_D; prog_valid = 1'b1;
        tick;
        prog_valid = 1'b0;
        repeat (20) tick;
        // the fence: data bursts and translations taken before the
        // INVALIDATE keep it busy until their last R beat
        // (the epoch has flipped: the old one is !epoch)
        j = n_dar - n_drl;
        i = dut.xq_cnt;
        n = dut.ep_cnt0 + dut.ep_cnt1;
        if (!prog_busy) `XFAIL("bench: INVALIDATE finished at once (no data held)")
        sink_prob = 100;
        while (prog_busy) tick;
        for (k = 0; k < dut.xq_cnt; k = k + 1) begin
            if (dut.xq_ep[(dut.xq_rp + k) % 8] == !tpt.epoch_reg) `XFAIL("INVALIDATE finished while a translation of the old epoch is held")
        end
        for (k = 0; k < dut.bq_cnt; k = k + 1) begin
            if (dut.bq_ep[(dut.bq_rp + k) % 32] == !tpt.epoch_reg) `XFAIL("INVALIDATE finished while a burst of the old epoch is outstanding")
        end
        // (bursts issued after the flip run under new-epoch translations:
        // the unit's own queues are checked, white box, above)
        $display("%m: fence: INVALIDATE held while %0d bursts were outstanding and %0d translations held (epoch counts %0d; sink stopped)", j, i, n);
        while (n_adv == pass) tick;
        while (busy || prog_busy) tick;
        if (cnt_wb_lost == 0) `XFAIL("write-back lookup failure not counted")
        n_lost = n_lost + 1;
        if (rx_trl !== 0 || rx_n != b_len) `XFAIL("frame of the write-back-lost send")
        for (j = 0; j < 4; j = j + 1) if (ram.mem[pa_of(K_D, dva + 28 + j)] !== 8'd0) `XFAIL("status written after the lookup failure")
        sink_clear;
        tpt_cmd(3'd1, K_D, r_va[K_D], r_len[K_D], K_D * 256);
        r_handle[K_D] = {prog_rd_gen, 16'd1};
        dh = r_handle[K_D];

        // ---------------- abort mid-message (last: the unit is reset after it)
        case_name = "abort";
        sink_prob = 50;
        dva = r_va[K_D] + 64'h240;
        desc_gather(1, 10); s_addr[0] = r_va[K_A] + 64'h3; s_len[0] = 20000; b_len = 20000;
        desc_write(dva);
        k = n_adv;
        sink_clear;
        work_vi = vi_sel; work_va = dva; work_handle = dh; work_valid = 1'b1;
        while (!work_ready) tick;
        tick;
        work_valid = 1'b0;
        while (rx_n < 3000) tick;
        abort = 1'b1;
        j = 0;
        while (busy) begin
            tick;
            j = j + 1;
            if (j > 5000) `XFAIL("busy does not fall under abort")
        end
        repeat (20) tick;
        if (busy || inflight_epoch != 0) `XFAIL("busy/inflight after abort")
        if (n_adv != k) `XFAIL("advance under abort")
        if (s_tvalid) `XFAIL("stream valid under abort")
        for (j = 0; j < 4; j = j + 1) if (ram.mem[pa_of(K_D, dva + 28 + j)] !== 8'd0) `XFAIL("status written under abort")
        $display("%m: abort at %0d payload bytes: busy fell after the drain", rx_n);
        dut_rst_x = 1'b1;
        tick;
        tick;
        dut_rst_x = 1'b0;
        abort = 1'b0;
        frames_off = rx_frames;
        // abort at every moment of a short send (context, fetch, header,
        // data, write-back, advance): busy falls, nothing hangs; the unit is
        // reset after each
        case_name = "abort sweep";
        for (n = 0; n < 24; n = n + 1) begin
            sink_prob = (n % 2) ? 50 : 100;
            dva = r_va[K_D] + 64'h280;
            desc_gather(2, 400); desc_write(dva);
            k = n_adv;
            sink_clear;
            work_vi = vi_sel; work_va = dva; work_handle = dh; work_valid = 1'b1;
            while (!work_ready) tick;
            tick;
            work_valid = 1'b0;
            repeat (n * 9) tick;
            abort = 1'b1;
            j = 0;
            while (busy) begin
                tick;
                j = j + 1;
                if (j > 5000) `XFAIL("busy does not fall under abort")
            end
            repeat (5) tick;
            if (busy || inflight_epoch != 0 || s_tvalid || work_ready || adv_valid || d_lk_valid || f_lk_valid || d_arvalid || f_arvalid || awvalid)
                `XFAIL("activity after the abort drain")
            if (n_adv > k + 1) `XFAIL("more than one advance")
            // the Status word: not written, or written whole (the write
            // was issued before the abort)
            for (j = 0; j < 4; j = j + 1) ab_st[8*j +: 8] = ram.mem[pa_of(K_D, dva + 28 + j)];
            if (ab_st !== 32'd0 && ab_st !== ST_DONE) `XFAIL("status word under abort")
            ab_wb = ab_wb + (ab_st != 0);
            ab_adv = ab_adv + (n_adv - k);
            ab_fr = ab_fr + (rx_frames != frames_off);
            for (j = 0; j < 4; j = j + 1) mem_wr(pa_of(K_D, dva + 28 + j), 8'd0);
            dut_rst_x = 1'b1;
            tick;
            tick;
            dut_rst_x = 1'b0;
            abort = 1'b0;
            frames_off = rx_frames;
            sink_clear;
        end
        $display("%m: abort sweep: 24 aborts, %0d after a whole frame, %0d after the Status write, %0d after the advance", ab_fr, ab_wb, ab_adv);

        // abort with several descriptors in flight (items handed out back
        // to back, aborted at 12 moments): busy falls, every advance made
        // has its done_pulse, advanced descriptors have their Status, the
        // others none or a whole one; a reset follows each
        case_name = "abort stream";
        ab_adv = 0;
        ab_fr = 0;
        for (n = 0; n < 12; n = n + 1) begin
            sink_prob = (n % 3 == 2) ? 50 : 100;
            st_begin;
            for (i = 0; i < 16; i = i + 1) begin
                desc_gather(1 + {bench_random(0)} % 2, 1 + {bench_random(0)} % 300);
                st_add({bench_random(0)} % 6, r_va[K_D] + 64'h80 * i, 32'd0, 1'b1, 32'd0);
            end
            k = cyc + 40 + n * 37;
            for (i = 0; i < st_n && cyc < k; i = i + 1) begin
                work_vi = it_vi[i];
                work_va = it_dva[i];
                work_handle = dh;
                work_valid = 1'b1;
                while (!work_ready && cyc < k) tick;
                tick;
            end
            work_valid = 1'b0;
            while (cyc < k) tick;
            abort = 1'b1;
            j = 0;
            while (busy) begin
                tick;
                j = j + 1;
                if (j > 5000) `XFAIL("busy does not fall under abort (stream)")
            end
            repeat (5) tick;
            if (busy || inflight_epoch != 0 || s_tvalid || work_ready || adv_valid || d_lk_valid || f_lk_valid || d_arvalid || f_arvalid || awvalid)
                `XFAIL("activity after the abort drain (stream)")
            if (st_dx != st_ax || n_done != n_adv) `XFAIL("an advance without its done_pulse (stream abort)")
            for (i = 0; i < st_n; i = i + 1) begin
                for (j = 0; j < 4; j = j + 1) ab_st[8*j +: 8] = ram.mem[pa_of(K_D, it_dva[i] + 28 + j)];
                if (i < st_ax && ab_st !== ST_DONE) `XFAIL("advanced descriptor without its Status (stream abort)")
                if (ab_st !== 32'd0 && ab_st !== ST_DONE) `XFAIL("status word under abort (stream)")
                for (j = 0; j < 4; j = j + 1) mem_wr(pa_of(K_D, it_dva[i] + 28 + j), 8'd0);
            end
            ab_adv = ab_adv + st_ax;
            ab_fr = ab_fr + st_fx;
            st_mode = 1'b0;
            dut_rst_x = 1'b1;
            tick;
            tick;
            dut_rst_x = 1'b0;
            abort = 1'b0;
            frames_off = rx_frames;
            sink_clear;
        end
        $display("%m: abort stream: 12 aborts with up to 16 items handed out: %0d frames and %0d advances before them in all", ab_fr, ab_adv);

        // the unit works again after its reset
        case_name = "after abort";
        sink_prob = 100;
        dva = r_va[K_D] + 64'h40;
        desc_gather(4, 1000); desc_write(dva);
        expect_good;
        run_desc(dva, dh);
    end

    // nothing else in memory changed
    repeat (50) tick;
    for (i = 0; i < MEM_BYTES; i = i + 1) begin
        if (ram.mem[i] !== shadow[i]) begin
            $display("  memory byte 0x%0h: 0x%0h expected 0x%0h", i, ram.mem[i], shadow[i]);
            `XFAIL("memory changed")
        end
    end
    $display("%m: finished at %0t ns: %0d descriptors, %0d frames, %0d with an error status, %0d write-backs lost, max %0d reads outstanding",
        $time, n_done, rx_frames, n_errst, n_lost, ram.rd_outstanding_max);
    finished = 1'b1;
end

task sink_clear;
    begin
        sink_clr = 1'b1;
        tick;
        sink_clr = 1'b0;
    end
endtask

function integer keep_count;
    input [BYTES-1:0] kp;
    integer q;
    begin
        keep_count = 0;
        for (q = 0; q < BYTES; q = q + 1) keep_count = keep_count + kp[q];
    end
endfunction

endmodule
