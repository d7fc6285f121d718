// via_vi_engine: the VI data path of the vianic NIC (issue 9).
//
// Blocks (docs/vi.md, "The data path"):
//   via_vi_queues  doorbell pages and per-queue state; hands send work to
//                  the send engine and receive descriptors to the receive
//                  engine on demand
//   via_vi_ctx     per-VI context (enable, state, ptag, MaxTransferSize,
//                  RDMA enables, peer), written by the firmware
//   via_vi_tx      send engine: fetch, gather, frame out, status write-back
//   via_vi_rx      receive engine: frame in, fetch, scatter, write-back
//   via_cq         completion queues: the engines' completion events into
//                  CQ rings in host memory (issue 11; BAR0 block `cq`)
//   BAR0 block `vi` (via_bar0_vi_regs): the counters
//
// Outside: the TPT lookup ports (four: TX fetch, TX data, RX fetch, RX
// data) go to via_nic's lookup arbiter; the AXI4 masters (TX fetch, TX data
// reads, RX fetch; TX and RX writes) to via_nic's AXI4 multiplexers, each
// with its own ID (parameters); the frames go out on m_axis and come back
// in on s_axis (via_net_loopback's engine path).
//
// Context commits (the firmware's VI_CTX_CMD, through via_cpu_periph): one
// commit writes one VI's context here and its enable/state (and, with
// reset_q, empties its queues) in via_vi_queues, in the same cycle. A
// commit waits (ctx_ready 0) while some item of that VI is held: handed
// out or taken and not yet consumed, or in the queue block's work register
// (via_vi_queues' vi_held). While it waits, the queue block hands out no
// new send item of that VI (blk_*), and the receive engine gives back the
// receives of it that it took ahead and takes none (rel_*: a message
// arriving for it meanwhile is dropped and counted as VI_RX_NO_RECV). So a VI's queues are never reset under an engine that
// still works on one of its descriptors, the context an engine read stays
// the VI's for as long as it works for it, and a busy VI cannot hold a
// commit off forever. A commit for a VI index >= NUM_VI is taken and
// ignored.
//
// Advances: the two engines share via_vi_queues' advance port; when both
// ask, they take turns.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
`include "via_vip.vh"

module via_vi_engine #(
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 48,
    parameter ID_WIDTH   = 4,
    parameter NUM_VI     = 64,
    parameter VI_WIDTH   = (NUM_VI > 1) ? $clog2(NUM_VI) : 1,
    parameter MAX_DESC   = 1024,
    parameter MAX_SEGS   = 16,
    parameter MAX_BURST  = 16,
    parameter [ID_WIDTH-1:0] TX_FETCH_ID = 2,
    parameter [ID_WIDTH-1:0] TX_DATA_ID  = 3,
    parameter [ID_WIDTH-1:0] RX_FETCH_ID = 4,
    parameter [ID_WIDTH-1:0] RX_WR_ID    = 5,
    parameter NUM_CQ     = 16,
    parameter CQ_MAX_LOG2 = 12,
    parameter [ID_WIDTH-1:0] CQ_WR_ID    = 6
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

    // via_regfile's doorbell write port
    input  wire                    db_wr_valid,
    output wire                    db_wr_ready,
    input  wire [VI_WIDTH-1:0]     db_wr_vi,
    input  wire [11:0]             db_wr_offset,
    input  wire [31:0]             db_wr_data,
    input  wire [3:0]              db_wr_strb,

    // context commits (via_cpu_periph)
    input  wire                    ctx_valid,
    output wire                    ctx_ready,
    input  wire [15:0]             ctx_vi,
    input  wire                    ctx_enable,
    input  wire [1:0]              ctx_state,
    input  wire                    ctx_reset_q,
    input  wire                    ctx_rdma_write,
    input  wire                    ctx_rdma_read,
    input  wire                    ctx_reliable,   // the VI's level is reliable: errors break the connection
    input  wire [15:0]             ctx_ptag,
    input  wire [31:0]             ctx_max_transfer,
    input  wire [23:0]             ctx_peer,       // {peer node, peer VI}
    // queue state of VI ctx_q_vi (bit 0 send, bit 1 receive: posted
    // descriptors not yet completed; 0 for a VI out of range)
    input  wire [15:0]             ctx_q_vi,
    output wire [1:0]              ctx_queued,
    // reliable connections the data path found broken (via_cpu_periph's
    // VI_CTX_BREAK): the lowest pending VI, a pulse per new one, a clear
    output wire                    brk_valid,
    output wire [15:0]             brk_vi,
    output wire                    brk_new,
    input  wire                    brk_clr,
    input  wire [15:0]             brk_clr_vi,

    // TPT lookups: port 0 TX fetch, 1 TX data, 2 RX fetch, 3 RX data
    output wire [3:0]              lk_valid,
    input  wire [3:0]              lk_ready,
    output wire [4*32-1:0]         lk_handle,
    output wire [4*64-1:0]         lk_va,
    output wire [4*32-1:0]         lk_len,
    output wire [4*16-1:0]         lk_ptag,
    output wire [4*2-1:0]          lk_kind,
    input  wire [3:0]              rs_valid,
    output wire [3:0]              rs_ready,
    input  wire [4*3-1:0]          rs_err,
    input  wire [4*ADDR_WIDTH-1:0] rs_pa,
    input  wire [4*13-1:0]         rs_bytes,
    input  wire [3:0]              rs_hit,
    input  wire [3:0]              rs_epoch,
    output wire [1:0]              inflight_epoch,

    // AXI4 reads: port 0 TX fetch, 1 TX data, 2 RX fetch (packed as
    // via_axi_rd_mux takes them); R data, resp, last and id are shared
    output wire [3*ID_WIDTH-1:0]   m_axi_arid,
    output wire [3*ADDR_WIDTH-1:0] m_axi_araddr,
    output wire [3*8-1:0]          m_axi_arlen,
    output wire [3*3-1:0]          m_axi_arsize,
    output wire [3*2-1:0]          m_axi_arburst,
    output wire [2:0]              m_axi_arlock,
    output wire [3*4-1:0]          m_axi_arcache,
    output wire [3*3-1:0]          m_axi_arprot,
    output wire [2:0]              m_axi_arvalid,
    input  wire [2:0]              m_axi_arready,
    input  wire [ID_WIDTH-1:0]     m_axi_rid,
    input  wire [DATA_WIDTH-1:0]   m_axi_rdata,
    input  wire [1:0]              m_axi_rresp,
    input  wire                    m_axi_rlast,
    input  wire [2:0]              m_axi_rvalid,
    output wire [2:0]              m_axi_rready,

    // AXI4 writes: port 0 TX write-back, 1 RX, 2 completion-queue entries
    // (packed as via_axi_wr_mux takes them); B resp and id are shared
    output wire [3*ID_WIDTH-1:0]   m_axi_awid,
    output wire [3*ADDR_WIDTH-1:0] m_axi_awaddr,
    output wire [3*8-1:0]          m_axi_awlen,
    output wire [3*3-1:0]          m_axi_awsize,
    output wire [3*2-1:0]          m_axi_awburst,
    output wire [2:0]              m_axi_awlock,
    output wire [3*4-1:0]          m_axi_awcache,
    output wire [3*3-1:0]          m_axi_awprot,
    output wire [2:0]              m_axi_awvalid,
    input  wire [2:0]              m_axi_awready,
    output wire [3*DATA_WIDTH-1:0] m_axi_wdata,
    output wire [3*DATA_WIDTH/8-1:0] m_axi_wstrb,
    output wire [2:0]              m_axi_wlast,
    output wire [2:0]              m_axi_wvalid,
    input  wire [2:0]              m_axi_wready,
    input  wire [ID_WIDTH-1:0]     m_axi_bid,
    input  wire [1:0]              m_axi_bresp,
    input  wire [2:0]              m_axi_bvalid,
    output wire [2:0]              m_axi_bready,

    // frames out (send engine) and in (receive engine)
    output wire [DATA_WIDTH-1:0]   m_axis_tdata,
    output wire [DATA_WIDTH/8-1:0] m_axis_tkeep,
    output wire                    m_axis_tvalid,
    input  wire                    m_axis_tready,
    output wire                    m_axis_tlast,
    input  wire [DATA_WIDTH-1:0]   s_axis_tdata,
    input  wire [DATA_WIDTH/8-1:0] s_axis_tkeep,
    input  wire                    s_axis_tvalid,
    output wire                    s_axis_tready,
    input  wire                    s_axis_tlast,

    /* verilator lint_off SYMRSVDWORD */
    input  wire                    abort,
    /* verilator lint_on SYMRSVDWORD */
    output wire                    busy,
    output wire                    done_pulse,
    output wire                    aerr_pulse,    // an asynchronous error was queued (IRQ_STATUS.ASYNC_ERR)
    output wire [7:0]              evt_irq,       // the interrupt vectors (via_evt; IRQ_STATUS.VEC)
    output wire                    evt_busy,      // a moderation timer runs (not DMA: for via_nic's idle only)
    // the firmware's AERR_PUSH: one cycle, {CODE, VI}
    input  wire                    fw_aerr_push,
    input  wire [23:0]             fw_aerr_data
);

generate
    if (NUM_VI < 1 || NUM_VI > 1024) begin : g_bad_num_vi
        `VIA_PARAM_FAIL(("via_vi_engine: NUM_VI=%0d, must be 1..1024", NUM_VI))
    end
endgenerate

localparam [31:0] NUM_VI_U = NUM_VI;
// the send engine's read buffer: 2 KiB (about 1 KiB in flight at 500 ns and
// 2 GB/s, with room for the next bursts), at least one burst
localparam TX_BUF_MIN   = MAX_BURST * (DATA_WIDTH / 8);
localparam TX_BUF_BYTES = TX_BUF_MIN > 2048 ? TX_BUF_MIN : 2048;

// ------------------------------------------------------------ wiring

wire                  work_valid, work_ready, work_q;
wire [VI_WIDTH-1:0]   work_vi;
wire [63:0]           work_va;
wire [31:0]           work_handle;
wire [1:0]            work_state;

wire                  q_adv_valid, q_adv_ready, q_adv_q, q_adv_keep;
wire [VI_WIDTH-1:0]   q_adv_vi;
wire [63:0]           q_adv_next;
wire [31:0]           q_adv_next_handle;

wire                  tx_adv_valid, tx_adv_ready, tx_adv_q, tx_adv_keep;
wire [VI_WIDTH-1:0]   tx_adv_vi;
wire [63:0]           tx_adv_next;
wire [31:0]           tx_adv_next_handle;
wire                  rx_adv_valid, rx_adv_ready, rx_adv_q, rx_adv_keep;
wire [VI_WIDTH-1:0]   rx_adv_vi;
wire [63:0]           rx_adv_next;
wire [31:0]           rx_adv_next_handle;

wire                  rxq_valid, rxq_ready, rxq_rsp_valid, rxq_rsp_ready, rxq_rsp_found;
wire [VI_WIDTH-1:0]   rxq_vi;
wire [63:0]           rxq_rsp_va;
wire [31:0]           rxq_rsp_handle;
wire [1:0]            rxq_rsp_state;

wire [VI_WIDTH-1:0]   tx_ctx_vi, rx_ctx_vi;
wire                  tx_ctx_enable, rx_ctx_enable;
wire [1:0]            tx_ctx_state, rx_ctx_state;
wire [15:0]           tx_ctx_ptag, rx_ctx_ptag;
wire [31:0]           tx_ctx_mtu, rx_ctx_mtu;
wire                  tx_ctx_rw, rx_ctx_rw, tx_ctx_rr, rx_ctx_rr, tx_ctx_rel, rx_ctx_rel;
wire [23:0]           tx_ctx_peer, rx_ctx_peer;

wire [31:0] q_cnt_doorbell, q_cnt_db_dropped, q_cnt_overflow, q_cnt_bad_write, q_cnt_adv_stale, q_cnt_chained;
wire [31:0] tx_cnt_desc, tx_cnt_err, tx_cnt_frames, tx_cnt_wb_lost;
wire [31:0] rx_cnt_desc, rx_cnt_err, rx_cnt_no_recv, rx_cnt_bad_vi, rx_cnt_aborted, rx_cnt_wb_lost;
wire [31:0] rx_cnt_rdma, rx_cnt_rdma_prot;
wire [31:0] rx_cnt_rreq, rx_cnt_rresp, rx_cnt_rdrop;
wire                rx_brk, rx_brk2, tx_brk;
wire [VI_WIDTH-1:0] rx_brk_vi, rx_brk2_vi, tx_brk_vi;
// RDMA read between the engines (via_vi_rx hands requests to via_vi_tx as
// response jobs; via_vi_tx keeps the read slots the responses go into)
wire                rd_job_valid, rd_job_ready, rd_job_err;
wire [VI_WIDTH-1:0] rd_job_vi, rd_rq_vi, rd_rc_vi;
wire [23:0]         rd_job_peer;
wire [15:0]         rd_job_ptag, rd_rq_ptag;
wire [63:0]         rd_job_va, rd_rq_dva, rd_rq_next, rd_rs_addr;
wire [31:0]         rd_job_handle, rd_job_len, rd_job_tag, rd_rq_tag, rd_rq_dh, rd_rq_len, rd_rq_nh;
wire [31:0]         rd_rc_tag, rd_rs_handle, rd_rs_len, rd_done_tag;
wire                rd_rq_hit, rd_rq_claim, rd_rc_hit, rd_done_valid, rd_done_ready, rd_done_ev, rd_done_err;
wire [3:0]          rd_passed;
wire [9:0]          rd_rs_idx;
wire                rx_aerr_valid;
wire [VI_WIDTH-1:0] rx_aerr_vi;

wire       tx_busy, rx_busy, tx_done, rx_done, q_busy;
wire       tx_done_q, tx_done_ev, cq_done_ready, cq_busy, cq_entry, cq_aerr;
wire [VI_WIDTH-1:0] tx_done_vi, rx_done_vi;
wire [7:0] cq_aerr_cq, cq_entry_cq;
wire                q_ovf, tx_wbl, rx_wbl;
wire [VI_WIDTH-1:0] q_ovf_vi, tx_wbl_vi, rx_wbl_vi;
wire       vi_wr_hit, vi_rd_hit, cq_wr_hit, cq_rd_hit, evt_wr_hit, evt_rd_hit;
wire [31:0] vi_rd_data, cq_rd_data, evt_rd_data;
wire [1:0] tx_epoch, rx_epoch;

// ------------------------------------------------------------ context commits

wire [NUM_VI-1:0]   q_vi_held;
wire                ctx_in_range = {16'd0, ctx_vi} < NUM_VI_U;
wire [1:0]          q_queued;
assign ctx_queued = ({16'd0, ctx_q_vi} < NUM_VI_U) ? q_queued : 2'b00;
wire [VI_WIDTH-1:0] ctx_vi_w    = ctx_vi[VI_WIDTH-1:0];
wire ctx_held = ctx_in_range && q_vi_held[{{(32-VI_WIDTH){1'b0}}, ctx_vi_w} % NUM_VI];
wire q_ctx_ready;
wire q_ctx_valid = ctx_valid && ctx_in_range && !ctx_held;
assign ctx_ready = ctx_in_range ? (!ctx_held && q_ctx_ready) : 1'b1;
wire ctx_fire = q_ctx_valid && q_ctx_ready;
// a commit waiting for its VI: no new items of it, receives taken ahead back
wire ctx_wait = ctx_valid && ctx_in_range;

via_vi_ctx #(
    .NUM_VI(NUM_VI),
    .VI_WIDTH(VI_WIDTH)
) ctx_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(ctx_fire),
    .wr_vi(ctx_vi),
    .wr_enable(ctx_enable),
    .wr_state(ctx_state),
    .wr_ptag(ctx_ptag),
    .wr_max_transfer(ctx_max_transfer),
    .wr_rdma_write(ctx_rdma_write),
    .wr_rdma_read(ctx_rdma_read),
    .wr_reliable(ctx_reliable),
    .wr_peer(ctx_peer),
    .rd0_vi(tx_ctx_vi),
    .rd0_enable(tx_ctx_enable),
    .rd0_state(tx_ctx_state),
    .rd0_ptag(tx_ctx_ptag),
    .rd0_max_transfer(tx_ctx_mtu),
    .rd0_rdma_write(tx_ctx_rw),
    .rd0_rdma_read(tx_ctx_rr),
    .rd0_reliable(tx_ctx_rel),
    .rd0_peer(tx_ctx_peer),
    .rd1_vi(rx_ctx_vi),
    .rd1_enable(rx_ctx_enable),
    .rd1_state(rx_ctx_state),
    .rd1_ptag(rx_ctx_ptag),
    .rd1_max_transfer(rx_ctx_mtu),
    .rd1_rdma_write(rx_ctx_rw),
    .rd1_rdma_read(rx_ctx_rr),
    .rd1_reliable(rx_ctx_rel),
    .rd1_peer(rx_ctx_peer)
);

// ------------------------------------------------------------ queues

via_vi_queues #(
    .NUM_VI(NUM_VI),
    .MAX_DESC(MAX_DESC),
    .VI_WIDTH(VI_WIDTH)
) queues_inst (
    .clk(clk),
    .rst(rst),
    .db_wr_valid(db_wr_valid),
    .db_wr_ready(db_wr_ready),
    .db_wr_vi(db_wr_vi),
    .db_wr_offset(db_wr_offset),
    .db_wr_data(db_wr_data),
    .db_wr_strb(db_wr_strb),
    .ctx_valid(q_ctx_valid),
    .ctx_ready(q_ctx_ready),
    .ctx_vi(ctx_vi_w),
    .ctx_enable(ctx_enable),
    .ctx_state(ctx_state),
    .ctx_reset_q(ctx_reset_q),
    .work_valid(work_valid),
    .work_ready(work_ready),
    .work_vi(work_vi),
    .work_q(work_q),
    .work_va(work_va),
    .work_handle(work_handle),
    .work_state(work_state),
    .adv_valid(q_adv_valid),
    .adv_ready(q_adv_ready),
    .adv_vi(q_adv_vi),
    .adv_q(q_adv_q),
    .adv_next(q_adv_next),
    .adv_next_handle(q_adv_next_handle),
    .adv_keep(q_adv_keep),
    .rxq_valid(rxq_valid),
    .rxq_ready(rxq_ready),
    .rxq_vi(rxq_vi),
    .rxq_rsp_valid(rxq_rsp_valid),
    .rxq_rsp_ready(rxq_rsp_ready),
    .rxq_rsp_found(rxq_rsp_found),
    .rxq_rsp_va(rxq_rsp_va),
    .rxq_rsp_handle(rxq_rsp_handle),
    .rxq_rsp_state(rxq_rsp_state),
    .cnt_doorbell(q_cnt_doorbell),
    .cnt_db_dropped(q_cnt_db_dropped),
    .cnt_overflow(q_cnt_overflow),
    .ovf_pulse(q_ovf),
    .ovf_vi(q_ovf_vi),
    .cnt_bad_write(q_cnt_bad_write),
    .cnt_adv_stale(q_cnt_adv_stale),
    .cnt_chained(q_cnt_chained),
    .vi_held(q_vi_held),
    .qs_vi(ctx_q_vi[VI_WIDTH-1:0]),
    .qs_queued(q_queued),
    .blk_valid(ctx_wait),
    .blk_vi(ctx_vi_w),
    .busy(q_busy)
);

// the advance port: the engines take turns when both ask
reg  adv_turn_rx_reg;
wire adv_pick_rx = rx_adv_valid && (!tx_adv_valid || adv_turn_rx_reg);

assign q_adv_valid       = tx_adv_valid || rx_adv_valid;
assign q_adv_vi          = adv_pick_rx ? rx_adv_vi : tx_adv_vi;
assign q_adv_q           = adv_pick_rx ? rx_adv_q : tx_adv_q;
assign q_adv_next        = adv_pick_rx ? rx_adv_next : tx_adv_next;
assign q_adv_next_handle = adv_pick_rx ? rx_adv_next_handle : tx_adv_next_handle;
assign q_adv_keep        = adv_pick_rx ? rx_adv_keep : tx_adv_keep;
assign tx_adv_ready      = q_adv_ready && !adv_pick_rx;
assign rx_adv_ready      = q_adv_ready && adv_pick_rx;

always @(posedge clk) begin
    if (rst) begin
        adv_turn_rx_reg <= 1'b0;
    end else if (q_adv_valid && q_adv_ready) begin
        adv_turn_rx_reg <= !adv_pick_rx;
    end
end

// ------------------------------------------------------------ send engine

via_vi_tx #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .NUM_VI(NUM_VI),
    .VI_WIDTH(VI_WIDTH),
    .MAX_SEGS(MAX_SEGS),
    .MAX_BURST(MAX_BURST),
    .RD_BUF_BYTES(TX_BUF_BYTES),
    .FETCH_ID(TX_FETCH_ID),
    .DATA_ID(TX_DATA_ID)
) tx_inst (
    .clk(clk),
    .rst(rst),
    .work_valid(work_valid),
    .work_ready(work_ready),
    .work_vi(work_vi),
    .work_q(work_q),
    .work_va(work_va),
    .work_handle(work_handle),
    .work_state(work_state),
    .adv_valid(tx_adv_valid),
    .adv_ready(tx_adv_ready),
    .adv_vi(tx_adv_vi),
    .adv_q(tx_adv_q),
    .adv_next(tx_adv_next),
    .adv_next_handle(tx_adv_next_handle),
    .adv_keep(tx_adv_keep),
    .ctx_rd_vi(tx_ctx_vi),
    .ctx_rd_enable(tx_ctx_enable),
    .ctx_rd_state(tx_ctx_state),
    .ctx_rd_ptag(tx_ctx_ptag),
    .ctx_rd_max_transfer(tx_ctx_mtu),
    .ctx_rd_rdma_write(tx_ctx_rw),
    .ctx_rd_rdma_read(tx_ctx_rr),
    .ctx_rd_reliable(tx_ctx_rel),
    .ctx_rd_peer(tx_ctx_peer),
    .f_lk_valid(lk_valid[0]),
    .f_lk_ready(lk_ready[0]),
    .f_lk_handle(lk_handle[0*32 +: 32]),
    .f_lk_va(lk_va[0*64 +: 64]),
    .f_lk_len(lk_len[0*32 +: 32]),
    .f_lk_ptag(lk_ptag[0*16 +: 16]),
    .f_lk_kind(lk_kind[0*2 +: 2]),
    .f_rs_valid(rs_valid[0]),
    .f_rs_ready(rs_ready[0]),
    .f_rs_err(rs_err[0*3 +: 3]),
    .f_rs_pa(rs_pa[0*ADDR_WIDTH +: ADDR_WIDTH]),
    .f_rs_bytes(rs_bytes[0*13 +: 13]),
    .f_rs_hit(rs_hit[0]),
    .f_rs_epoch(rs_epoch[0]),
    .d_lk_valid(lk_valid[1]),
    .d_lk_ready(lk_ready[1]),
    .d_lk_handle(lk_handle[1*32 +: 32]),
    .d_lk_va(lk_va[1*64 +: 64]),
    .d_lk_len(lk_len[1*32 +: 32]),
    .d_lk_ptag(lk_ptag[1*16 +: 16]),
    .d_lk_kind(lk_kind[1*2 +: 2]),
    .d_rs_valid(rs_valid[1]),
    .d_rs_ready(rs_ready[1]),
    .d_rs_err(rs_err[1*3 +: 3]),
    .d_rs_pa(rs_pa[1*ADDR_WIDTH +: ADDR_WIDTH]),
    .d_rs_bytes(rs_bytes[1*13 +: 13]),
    .d_rs_hit(rs_hit[1]),
    .d_rs_epoch(rs_epoch[1]),
    .f_axi_arid(m_axi_arid[0*ID_WIDTH +: ID_WIDTH]),
    .f_axi_araddr(m_axi_araddr[0*ADDR_WIDTH +: ADDR_WIDTH]),
    .f_axi_arlen(m_axi_arlen[0*8 +: 8]),
    .f_axi_arsize(m_axi_arsize[0*3 +: 3]),
    .f_axi_arburst(m_axi_arburst[0*2 +: 2]),
    .f_axi_arlock(m_axi_arlock[0]),
    .f_axi_arcache(m_axi_arcache[0*4 +: 4]),
    .f_axi_arprot(m_axi_arprot[0*3 +: 3]),
    .f_axi_arvalid(m_axi_arvalid[0]),
    .f_axi_arready(m_axi_arready[0]),
    .f_axi_rid(m_axi_rid),
    .f_axi_rdata(m_axi_rdata),
    .f_axi_rresp(m_axi_rresp),
    .f_axi_rlast(m_axi_rlast),
    .f_axi_rvalid(m_axi_rvalid[0]),
    .f_axi_rready(m_axi_rready[0]),
    .d_axi_arid(m_axi_arid[1*ID_WIDTH +: ID_WIDTH]),
    .d_axi_araddr(m_axi_araddr[1*ADDR_WIDTH +: ADDR_WIDTH]),
    .d_axi_arlen(m_axi_arlen[1*8 +: 8]),
    .d_axi_arsize(m_axi_arsize[1*3 +: 3]),
    .d_axi_arburst(m_axi_arburst[1*2 +: 2]),
    .d_axi_arlock(m_axi_arlock[1]),
    .d_axi_arcache(m_axi_arcache[1*4 +: 4]),
    .d_axi_arprot(m_axi_arprot[1*3 +: 3]),
    .d_axi_arvalid(m_axi_arvalid[1]),
    .d_axi_arready(m_axi_arready[1]),
    .d_axi_rid(m_axi_rid),
    .d_axi_rdata(m_axi_rdata),
    .d_axi_rresp(m_axi_rresp),
    .d_axi_rlast(m_axi_rlast),
    .d_axi_rvalid(m_axi_rvalid[1]),
    .d_axi_rready(m_axi_rready[1]),
    .w_axi_awid(m_axi_awid[0*ID_WIDTH +: ID_WIDTH]),
    .w_axi_awaddr(m_axi_awaddr[0*ADDR_WIDTH +: ADDR_WIDTH]),
    .w_axi_awlen(m_axi_awlen[0*8 +: 8]),
    .w_axi_awsize(m_axi_awsize[0*3 +: 3]),
    .w_axi_awburst(m_axi_awburst[0*2 +: 2]),
    .w_axi_awlock(m_axi_awlock[0]),
    .w_axi_awcache(m_axi_awcache[0*4 +: 4]),
    .w_axi_awprot(m_axi_awprot[0*3 +: 3]),
    .w_axi_awvalid(m_axi_awvalid[0]),
    .w_axi_awready(m_axi_awready[0]),
    .w_axi_wdata(m_axi_wdata[0*DATA_WIDTH +: DATA_WIDTH]),
    .w_axi_wstrb(m_axi_wstrb[0*(DATA_WIDTH/8) +: DATA_WIDTH/8]),
    .w_axi_wlast(m_axi_wlast[0]),
    .w_axi_wvalid(m_axi_wvalid[0]),
    .w_axi_wready(m_axi_wready[0]),
    .w_axi_bid(m_axi_bid),
    .w_axi_bresp(m_axi_bresp),
    .w_axi_bvalid(m_axi_bvalid[0]),
    .w_axi_bready(m_axi_bready[0]),
    .m_axis_tdata(m_axis_tdata),
    .m_axis_tkeep(m_axis_tkeep),
    .m_axis_tvalid(m_axis_tvalid),
    .m_axis_tready(m_axis_tready),
    .m_axis_tlast(m_axis_tlast),
    .inflight_epoch(tx_epoch),
    .abort(abort),
    .busy(tx_busy),
    .done_pulse(tx_done),
    .done_vi(tx_done_vi),
    .done_q(tx_done_q),
    .done_ev(tx_done_ev),
    .done_ready(cq_done_ready),
    .cnt_desc(tx_cnt_desc),
    .cnt_err(tx_cnt_err),
    .cnt_frames(tx_cnt_frames),
    .cnt_wb_lost(tx_cnt_wb_lost),
    .wbl_pulse(tx_wbl),
    .wbl_vi(tx_wbl_vi),
    .job_valid(rd_job_valid),
    .job_ready(rd_job_ready),
    .job_vi(rd_job_vi),
    .job_peer(rd_job_peer),
    .job_ptag(rd_job_ptag),
    .job_va(rd_job_va),
    .job_handle(rd_job_handle),
    .job_len(rd_job_len),
    .job_tag(rd_job_tag),
    .job_err(rd_job_err),
    .rq_tag(rd_rq_tag),
    .rq_vi(rd_rq_vi),
    .rq_hit(rd_rq_hit),
    .rq_dva(rd_rq_dva),
    .rq_dh(rd_rq_dh),
    .rq_ptag(rd_rq_ptag),
    .rq_len(rd_rq_len),
    .rq_next(rd_rq_next),
    .rq_next_handle(rd_rq_nh),
    .rq_claim(rd_rq_claim),
    .rc_vi(rd_rc_vi),
    .rc_hit(rd_rc_hit),
    .rc_tag(rd_rc_tag),
    .rd_passed(rd_passed),
    .rs_idx(rd_rs_idx),
    .rs_addr(rd_rs_addr),
    .rs_handle(rd_rs_handle),
    .rs_len(rd_rs_len),
    .rd_done_valid(rd_done_valid),
    .rd_done_ready(rd_done_ready),
    .rd_done_tag(rd_done_tag),
    .rd_done_ev(rd_done_ev),
    .rd_done_err(rd_done_err),
    .brk_pulse(tx_brk),
    .brk_vi(tx_brk_vi)
);

// ------------------------------------------------------------ receive engine

via_vi_rx #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .NUM_VI(NUM_VI),
    .VI_WIDTH(VI_WIDTH),
    .MAX_SEGS(MAX_SEGS),
    .MAX_BURST(MAX_BURST),
    .FETCH_ID(RX_FETCH_ID),
    .WR_ID(RX_WR_ID)
) rx_inst (
    .clk(clk),
    .rst(rst),
    .rel_valid(ctx_wait),
    .rel_vi(ctx_vi_w),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tlast(s_axis_tlast),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .rxq_valid(rxq_valid),
    .rxq_ready(rxq_ready),
    .rxq_vi(rxq_vi),
    .rxq_rsp_valid(rxq_rsp_valid),
    .rxq_rsp_ready(rxq_rsp_ready),
    .rxq_rsp_found(rxq_rsp_found),
    .rxq_rsp_va(rxq_rsp_va),
    .rxq_rsp_handle(rxq_rsp_handle),
    .rxq_rsp_state(rxq_rsp_state),
    .adv_valid(rx_adv_valid),
    .adv_ready(rx_adv_ready),
    .adv_vi(rx_adv_vi),
    .adv_q(rx_adv_q),
    .adv_next(rx_adv_next),
    .adv_next_handle(rx_adv_next_handle),
    .adv_keep(rx_adv_keep),
    .ctx_rd_vi(rx_ctx_vi),
    .ctx_rd_enable(rx_ctx_enable),
    .ctx_rd_state(rx_ctx_state),
    .ctx_rd_ptag(rx_ctx_ptag),
    .ctx_rd_max_transfer(rx_ctx_mtu),
    .ctx_rd_rdma_write(rx_ctx_rw),
    .ctx_rd_rdma_read(rx_ctx_rr),
    .ctx_rd_reliable(rx_ctx_rel),
    .ctx_rd_peer(rx_ctx_peer),
    .f_lk_valid(lk_valid[2]),
    .f_lk_ready(lk_ready[2]),
    .f_lk_handle(lk_handle[2*32 +: 32]),
    .f_lk_va(lk_va[2*64 +: 64]),
    .f_lk_len(lk_len[2*32 +: 32]),
    .f_lk_ptag(lk_ptag[2*16 +: 16]),
    .f_lk_kind(lk_kind[2*2 +: 2]),
    .f_rs_valid(rs_valid[2]),
    .f_rs_ready(rs_ready[2]),
    .f_rs_err(rs_err[2*3 +: 3]),
    .f_rs_pa(rs_pa[2*ADDR_WIDTH +: ADDR_WIDTH]),
    .f_rs_bytes(rs_bytes[2*13 +: 13]),
    .f_rs_hit(rs_hit[2]),
    .f_rs_epoch(rs_epoch[2]),
    .d_lk_valid(lk_valid[3]),
    .d_lk_ready(lk_ready[3]),
    .d_lk_handle(lk_handle[3*32 +: 32]),
    .d_lk_va(lk_va[3*64 +: 64]),
    .d_lk_len(lk_len[3*32 +: 32]),
    .d_lk_ptag(lk_ptag[3*16 +: 16]),
    .d_lk_kind(lk_kind[3*2 +: 2]),
    .d_rs_valid(rs_valid[3]),
    .d_rs_ready(rs_ready[3]),
    .d_rs_err(rs_err[3*3 +: 3]),
    .d_rs_pa(rs_pa[3*ADDR_WIDTH +: ADDR_WIDTH]),
    .d_rs_bytes(rs_bytes[3*13 +: 13]),
    .d_rs_hit(rs_hit[3]),
    .d_rs_epoch(rs_epoch[3]),
    .f_axi_arid(m_axi_arid[2*ID_WIDTH +: ID_WIDTH]),
    .f_axi_araddr(m_axi_araddr[2*ADDR_WIDTH +: ADDR_WIDTH]),
    .f_axi_arlen(m_axi_arlen[2*8 +: 8]),
    .f_axi_arsize(m_axi_arsize[2*3 +: 3]),
    .f_axi_arburst(m_axi_arburst[2*2 +: 2]),
    .f_axi_arlock(m_axi_arlock[2]),
    .f_axi_arcache(m_axi_arcache[2*4 +: 4]),
    .f_axi_arprot(m_axi_arprot[2*3 +: 3]),
    .f_axi_arvalid(m_axi_arvalid[2]),
    .f_axi_arready(m_axi_arready[2]),
    .f_axi_rid(m_axi_rid),
    .f_axi_rdata(m_axi_rdata),
    .f_axi_rresp(m_axi_rresp),
    .f_axi_rlast(m_axi_rlast),
    .f_axi_rvalid(m_axi_rvalid[2]),
    .f_axi_rready(m_axi_rready[2]),
    .w_axi_awid(m_axi_awid[1*ID_WIDTH +: ID_WIDTH]),
    .w_axi_awaddr(m_axi_awaddr[1*ADDR_WIDTH +: ADDR_WIDTH]),
    .w_axi_awlen(m_axi_awlen[1*8 +: 8]),
    .w_axi_awsize(m_axi_awsize[1*3 +: 3]),
    .w_axi_awburst(m_axi_awburst[1*2 +: 2]),
    .w_axi_awlock(m_axi_awlock[1]),
    .w_axi_awcache(m_axi_awcache[1*4 +: 4]),
    .w_axi_awprot(m_axi_awprot[1*3 +: 3]),
    .w_axi_awvalid(m_axi_awvalid[1]),
    .w_axi_awready(m_axi_awready[1]),
    .w_axi_wdata(m_axi_wdata[1*DATA_WIDTH +: DATA_WIDTH]),
    .w_axi_wstrb(m_axi_wstrb[1*(DATA_WIDTH/8) +: DATA_WIDTH/8]),
    .w_axi_wlast(m_axi_wlast[1]),
    .w_axi_wvalid(m_axi_wvalid[1]),
    .w_axi_wready(m_axi_wready[1]),
    .w_axi_bid(m_axi_bid),
    .w_axi_bresp(m_axi_bresp),
    .w_axi_bvalid(m_axi_bvalid[1]),
    .w_axi_bready(m_axi_bready[1]),
    .inflight_epoch(rx_epoch),
    .abort(abort),
    .busy(rx_busy),
    .done_pulse(rx_done),
    .done_vi(rx_done_vi),
    .done_ready(cq_done_ready),
    .cnt_desc(rx_cnt_desc),
    .cnt_err(rx_cnt_err),
    .cnt_drop_no_recv(rx_cnt_no_recv),
    .cnt_drop_bad_vi(rx_cnt_bad_vi),
    .cnt_drop_aborted(rx_cnt_aborted),
    .cnt_wb_lost(rx_cnt_wb_lost),
    .wbl_pulse(rx_wbl),
    .wbl_vi(rx_wbl_vi),
    .cnt_rdma(rx_cnt_rdma),
    .cnt_rdma_prot(rx_cnt_rdma_prot),
    .aerr_valid(rx_aerr_valid),
    .aerr_vi(rx_aerr_vi),
    .job_valid(rd_job_valid),
    .job_ready(rd_job_ready),
    .job_vi(rd_job_vi),
    .job_peer(rd_job_peer),
    .job_ptag(rd_job_ptag),
    .job_va(rd_job_va),
    .job_handle(rd_job_handle),
    .job_len(rd_job_len),
    .job_tag(rd_job_tag),
    .job_err(rd_job_err),
    .rq_tag(rd_rq_tag),
    .rq_vi(rd_rq_vi),
    .rq_hit(rd_rq_hit),
    .rq_dva(rd_rq_dva),
    .rq_dh(rd_rq_dh),
    .rq_ptag(rd_rq_ptag),
    .rq_len(rd_rq_len),
    .rq_next(rd_rq_next),
    .rq_next_handle(rd_rq_nh),
    .rq_claim(rd_rq_claim),
    .rc_vi(rd_rc_vi),
    .rc_hit(rd_rc_hit),
    .rc_tag(rd_rc_tag),
    .rd_passed(rd_passed),
    .rs_idx(rd_rs_idx),
    .rs_addr(rd_rs_addr),
    .rs_handle(rd_rs_handle),
    .rs_len(rd_rs_len),
    .rd_done_valid(rd_done_valid),
    .rd_done_ready(rd_done_ready),
    .rd_done_tag(rd_done_tag),
    .rd_done_ev(rd_done_ev),
    .rd_done_err(rd_done_err),
    .cnt_rreq(rx_cnt_rreq),
    .cnt_rresp(rx_cnt_rresp),
    .cnt_rdrop(rx_cnt_rdrop),
    .brk_pulse(rx_brk),
    .brk_vi(rx_brk_vi),
    .brk2_pulse(rx_brk2),
    .brk2_vi(rx_brk2_vi)
);

// ------------------------------------------------------------ broken reliable connections
// one pending bit per VI, set by the receive engine (an RDMA read that
// completed with an error other than FLUSHED), read by the firmware
// through VI_CTX_BREAK (the lowest pending VI; brk_new announces a new
// one), cleared by its store of the VI's index
reg  [NUM_VI-1:0] brk_bits;
reg               brk_new_r;
reg  [15:0]       brk_low;
integer           bk;
always @(*) begin
    brk_low = 16'd0;
    if (|brk_bits) begin
        for (bk = NUM_VI - 1; bk >= 0; bk = bk - 1)
            if (brk_bits[bk]) brk_low = bk[15:0];
    end
end
// (three sources: the receive engine's completions and front end, the
// send engine's completions)
reg  [NUM_VI-1:0] brk_set;
// (one-hot decodes, not a loop over the VIs: this settles every cycle)
localparam [NUM_VI-1:0] BRK_ONE = {{(NUM_VI-1){1'b0}}, 1'b1};
always @(*) begin
    brk_set = {NUM_VI{1'b0}};
    if (rx_brk)  brk_set = brk_set | (BRK_ONE << rx_brk_vi);
    if (rx_brk2) brk_set = brk_set | (BRK_ONE << rx_brk2_vi);
    if (tx_brk)  brk_set = brk_set | (BRK_ONE << tx_brk_vi);
end
wire [31:0] brk_clr_vi32 = {16'd0, brk_clr_vi};
always @(posedge clk) begin
    if (rst) begin
        brk_bits <= {NUM_VI{1'b0}};
        brk_new_r <= 1'b0;
    end else begin
        brk_new_r <= |(brk_set & ~brk_bits);
        brk_bits <= (brk_bits & ~((brk_clr && brk_clr_vi32 < NUM_VI_U) ? (BRK_ONE << (brk_clr_vi32 % NUM_VI)) : {NUM_VI{1'b0}})) | brk_set;
    end
end
assign brk_valid = |brk_bits;
assign brk_vi = brk_low;
assign brk_new = brk_new_r;

// ------------------------------------------------------------ asynchronous errors
// errors the data path finds outside any call, queued for the driver:
// VI_AERR pops them, IRQ_STATUS.ASYNC_ERR says one was queued; a full
// queue drops and counts (VI_AERR_LOST). The receive engine's refused
// plain RDMA writes (VIP_ERROR_RDMAW_PROT for the target VI) go first,
// the other sources after them (below)
localparam [31:0] AERR_RDMAW_PROT32 = `VIA_VIP_ERROR_RDMAW_PROT;
localparam [31:0] AERR_CATA32       = `VIA_VIP_ERROR_CATASTROPHIC;
localparam [31:0] AERR_OVERRUN32    = `VIA_VIP_ERROR_VI_OVERRUN;
localparam [31:0] AERR_COMP_PROT32  = `VIA_VIP_ERROR_COMP_PROT;
localparam [31:0] RES_VI32          = `VIA_VIP_RESOURCE_VI;
localparam [31:0] RES_CQ32          = `VIA_VIP_RESOURCE_CQ;
// entries: {RESOURCE (4), CODE (8), VI or CQ (16)}
wire                aerr_s_ready;
wire [27:0]         aerr_head;
wire                aerr_head_valid;
wire                aerr_re;
reg  [31:0]         aerr_lost;
wire [15:0]         rx_aerr_vi16 = {{(16-VI_WIDTH){1'b0}}, rx_aerr_vi};
/* verilator lint_off UNUSEDSIGNAL */
wire [4:0]          aerr_level;   // for waveforms
/* verilator lint_on UNUSEDSIGNAL */
// the other sources wait in holding registers (one each) until the queue
// takes them, in this order after the receive engine's refused RDMA
// writes: the completion queues' errors (CQ overflow, a failed entry
// write), a post dropped because its queue was full (VI_OVERRUN), a
// Status write-back the TPT refused, send then receive (COMP_PROT: the
// error could not be reported in the descriptor), the firmware's pushes
// (AERR_PUSH); a second event of a source whose register is still full is
// dropped and counted (VI_AERR_LOST)
localparam NSRC = 5;
wire [15:0] q_ovf_vi16  = {{(16-VI_WIDTH){1'b0}}, q_ovf_vi};
wire [15:0] tx_wbl_vi16 = {{(16-VI_WIDTH){1'b0}}, tx_wbl_vi};
wire [15:0] rx_wbl_vi16 = {{(16-VI_WIDTH){1'b0}}, rx_wbl_vi};
// by priority (index 0 first): {RESOURCE, CODE, VI or CQ}
wire [NSRC-1:0]    src_push = {fw_aerr_push, rx_wbl, tx_wbl, q_ovf, cq_aerr};
wire [28*NSRC-1:0] src_data = {{RES_VI32[3:0], fw_aerr_data},
                               {RES_VI32[3:0], AERR_COMP_PROT32[7:0], rx_wbl_vi16},
                               {RES_VI32[3:0], AERR_COMP_PROT32[7:0], tx_wbl_vi16},
                               {RES_VI32[3:0], AERR_OVERRUN32[7:0], q_ovf_vi16},
                               {RES_CQ32[3:0], AERR_CATA32[7:0], 8'd0, cq_aerr_cq}};
reg  [NSRC-1:0] held;
reg  [27:0]     held_data [0:NSRC-1];
// the first held source goes into the queue when the receive engine does not
reg  [NSRC-1:0] taken;
reg  [27:0]     head_data;
reg             any_held;
integer si;
always @* begin
    taken = {NSRC{1'b0}};
    head_data = 28'd0;
    any_held = 1'b0;
    for (si = 0; si < NSRC; si = si + 1) begin
        if (held[si] && !any_held) begin
            any_held = 1'b1;
            head_data = held_data[si];
            taken[si] = !rx_aerr_valid && aerr_s_ready;
        end
    end
end
wire [NSRC-1:0] src_drop = src_push & held & ~taken;
// (counts the drops of one cycle: at most NSRC + 1)
reg  [2:0]      n_lost;
always @* begin
    n_lost = {2'd0, rx_aerr_valid && !aerr_s_ready};
    for (si = 0; si < NSRC; si = si + 1) begin
        n_lost = n_lost + {2'd0, src_drop[si]};
    end
end
via_fifo #(.WIDTH(28), .DEPTH(16)) aerr_fifo (
    .clk(clk),
    .rst(rst),
    .s_data(rx_aerr_valid ? {RES_VI32[3:0], AERR_RDMAW_PROT32[7:0], rx_aerr_vi16} : head_data),
    .s_valid(rx_aerr_valid || any_held),
    .s_ready(aerr_s_ready),
    .m_data(aerr_head),
    .m_valid(aerr_head_valid),
    .m_ready(aerr_re),
    .level(aerr_level)
);
always @(posedge clk) begin
    if (rst) begin
        aerr_lost <= 32'd0;
        held <= {NSRC{1'b0}};
        for (si = 0; si < NSRC; si = si + 1) held_data[si] <= 28'd0;
    end else begin
        aerr_lost <= aerr_lost + {29'd0, n_lost};
        for (si = 0; si < NSRC; si = si + 1) begin
            if (src_push[si] && (!held[si] || taken[si])) begin
                held[si] <= 1'b1;
                held_data[si] <= src_data[28*si +: 28];
            end else if (taken[si]) begin
                held[si] <= 1'b0;
            end
        end
    end
end
assign aerr_pulse = rx_aerr_valid || |taken;

// ------------------------------------------------------------ registers, status

via_bar0_vi_regs regs_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(wr_strb),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(rd_fire),
    .wr_hit(vi_wr_hit),
    .rd_hit(vi_rd_hit),
    .rd_data(vi_rd_data),
    .vi_doorbells_i(q_cnt_doorbell),
    .vi_db_dropped_i(q_cnt_db_dropped),
    .vi_db_overflow_i(q_cnt_overflow),
    .vi_db_bad_i(q_cnt_bad_write),
    .vi_adv_stale_i(q_cnt_adv_stale),
    .vi_db_chained_i(q_cnt_chained),
    .vi_tx_desc_i(tx_cnt_desc),
    .vi_tx_errors_i(tx_cnt_err),
    .vi_tx_frames_i(tx_cnt_frames),
    .vi_rx_desc_i(rx_cnt_desc),
    .vi_rx_errors_i(rx_cnt_err),
    .vi_rx_no_recv_i(rx_cnt_no_recv),
    .vi_rx_bad_vi_i(rx_cnt_bad_vi),
    .vi_rx_aborted_i(rx_cnt_aborted),
    .vi_wb_lost_i(tx_cnt_wb_lost + rx_cnt_wb_lost),
    .vi_rx_rdma_i(rx_cnt_rdma),
    .vi_rx_rdma_prot_i(rx_cnt_rdma_prot),
    .vi_aerr_vi_i(aerr_head_valid ? aerr_head[15:0] : 16'd0),
    .vi_aerr_code_i(aerr_head_valid ? aerr_head[23:16] : 8'd0),
    .vi_aerr_resource_i(aerr_head_valid ? aerr_head[27:24] : 4'd0),
    .vi_aerr_valid_i(aerr_head_valid),
    .vi_aerr_re(aerr_re),
    .vi_aerr_lost_i(aerr_lost),
    .vi_rx_rreq_i(rx_cnt_rreq),
    .vi_rx_rresp_i(rx_cnt_rresp),
    .vi_rx_rdrop_i(rx_cnt_rdrop)
);

assign inflight_epoch = tx_epoch | rx_epoch;
// busy: an engine works, the queue block has an operation in progress or
// send work to hand out, a work item waits, or a context commit is pending
assign busy       = tx_busy || rx_busy || q_busy || work_valid || ctx_valid || cq_busy;
// VI_DONE: a descriptor completed, or a CQ entry is in memory
assign done_pulse = tx_done || rx_done || cq_entry;

assign wr_hit  = vi_wr_hit || cq_wr_hit || evt_wr_hit;
assign rd_hit  = vi_rd_hit || cq_rd_hit || evt_rd_hit;
assign rd_data = vi_rd_data | cq_rd_data | evt_rd_data;

// ------------------------------------------------------------ completion queues

via_cq #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .NUM_VI(NUM_VI),
    .VI_WIDTH(VI_WIDTH),
    .NUM_CQ(NUM_CQ),
    .MAX_LOG2(CQ_MAX_LOG2),
    .WR_ID(CQ_WR_ID)
) cq_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(wr_strb),
    .wr_hit(cq_wr_hit),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(rd_fire),
    .rd_hit(cq_rd_hit),
    .rd_data(cq_rd_data),
    .tx_done(tx_done_ev),
    .tx_done_vi(tx_done_vi),
    .tx_done_q(tx_done_q),
    .rx_done(rx_done),
    .rx_done_vi(rx_done_vi),
    .done_ready(cq_done_ready),
    .m_axi_awid(m_axi_awid[2*ID_WIDTH +: ID_WIDTH]),
    .m_axi_awaddr(m_axi_awaddr[2*ADDR_WIDTH +: ADDR_WIDTH]),
    .m_axi_awlen(m_axi_awlen[2*8 +: 8]),
    .m_axi_awsize(m_axi_awsize[2*3 +: 3]),
    .m_axi_awburst(m_axi_awburst[2*2 +: 2]),
    .m_axi_awlock(m_axi_awlock[2]),
    .m_axi_awcache(m_axi_awcache[2*4 +: 4]),
    .m_axi_awprot(m_axi_awprot[2*3 +: 3]),
    .m_axi_awvalid(m_axi_awvalid[2]),
    .m_axi_awready(m_axi_awready[2]),
    .m_axi_wdata(m_axi_wdata[2*DATA_WIDTH +: DATA_WIDTH]),
    .m_axi_wstrb(m_axi_wstrb[2*(DATA_WIDTH/8) +: DATA_WIDTH/8]),
    .m_axi_wlast(m_axi_wlast[2]),
    .m_axi_wvalid(m_axi_wvalid[2]),
    .m_axi_wready(m_axi_wready[2]),
    .m_axi_bresp(m_axi_bresp),
    .m_axi_bvalid(m_axi_bvalid[2]),
    .m_axi_bready(m_axi_bready[2]),
    .abort(abort),
    .busy(cq_busy),
    .entry_pulse(cq_entry),
    .entry_cq(cq_entry_cq),
    .aerr_pulse(cq_aerr),
    .aerr_cq(cq_aerr_cq)
);

// ------------------------------------------------------------ interrupt vectors
// the same completions as via_cq's events (send engine: those whose Status
// write was issued, after its response), and via_cq's entries

via_evt #(
    .NUM_VI(NUM_VI),
    .VI_WIDTH(VI_WIDTH),
    .NUM_CQ(NUM_CQ),
    .NUM_VEC(8)
) evt_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(wr_strb),
    .wr_hit(evt_wr_hit),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(rd_fire),
    .rd_hit(evt_rd_hit),
    .rd_data(evt_rd_data),
    .tx_done(tx_done_ev),
    .tx_done_vi(tx_done_vi),
    .tx_done_q(tx_done_q),
    .rx_done(rx_done),
    .rx_done_vi(rx_done_vi),
    .cq_done(cq_entry),
    .cq_done_cq(cq_entry_cq),
    .irq_set(evt_irq),
    .busy(evt_busy)
);

endmodule

`default_nettype wire
