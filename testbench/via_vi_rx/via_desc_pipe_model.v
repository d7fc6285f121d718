// via_desc_pipe_model: a stand-in for rtl/via_desc_pipe.v (helper P's, not
// yet merged) for tb_via_vi_rx only: the interface of the shared note, one
// rtl/via_desc_fetch behind a request queue, so descriptors are fetched one
// at a time (correct results in order, not the performance). Results of
// requests in flight at an abort still come. Not synthesizable as written
// (behavioural copies), bench use only.

`timescale 1ns / 1ps

module via_desc_pipe #(
    parameter MAX_SEGS   = 16,
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 48,
    parameter ID_WIDTH   = 4,
    parameter [ID_WIDTH-1:0] ARID = 0,
    parameter DEPTH      = 8,
    parameter TAG_WIDTH  = 16,
    parameter SW         = $clog2(DEPTH)
) (
    input  wire                  clk,
    input  wire                  rst,
    input  wire                  req_valid,
    output wire                  req_ready,
    input  wire [63:0]           req_va,
    input  wire [31:0]           req_handle,
    input  wire [15:0]           req_ptag,
    input  wire                  req_recv,
    input  wire [31:0]           req_max_transfer,
    input  wire                  req_rdma_write_en,
    input  wire                  req_rdma_read_en,
    input  wire [TAG_WIDTH-1:0]  req_tag,
    output wire                  res_valid,
    input  wire                  res_ready,
    output wire [1:0]            res_kind,
    output wire [31:0]           res_status,
    output wire [3:0]            res_check,
    output wire [2:0]            res_tpt_err,
    output wire [1:0]            res_bus_resp,
    output wire                  res_ctl_valid,
    output wire [63:0]           res_next,
    output wire [31:0]           res_next_handle,
    output wire [15:0]           res_seg_count,
    output wire [15:0]           res_control,
    output wire [31:0]           res_immediate,
    output wire [31:0]           res_length,
    output wire [TAG_WIDTH-1:0]  res_tag,
    output wire [SW-1:0]         res_slot,
    input  wire                  seg_rd_en,
    input  wire [SW-1:0]         seg_rd_slot,
    input  wire [7:0]            seg_rd_idx,
    output reg  [63:0]           seg_addr,
    output reg  [31:0]           seg_handle,
    output reg  [31:0]           seg_len,
    input  wire                  rel_valid,
    output wire                  lk_valid,
    input  wire                  lk_ready,
    output wire [31:0]           lk_handle,
    output wire [63:0]           lk_va,
    output wire [31:0]           lk_len,
    output wire [15:0]           lk_ptag,
    output wire [1:0]            lk_kind,
    input  wire                  rs_valid,
    output wire                  rs_ready,
    input  wire [2:0]            rs_err,
    input  wire [ADDR_WIDTH-1:0] rs_pa,
    input  wire [12:0]           rs_bytes,
    input  wire                  rs_hit,
    input  wire                  rs_epoch,
    output wire [1:0]            inflight_epoch,
    output wire [ID_WIDTH-1:0]   m_axi_arid,
    output wire [ADDR_WIDTH-1:0] m_axi_araddr,
    output wire [7:0]            m_axi_arlen,
    output wire [2:0]            m_axi_arsize,
    output wire [1:0]            m_axi_arburst,
    output wire                  m_axi_arlock,
    output wire [3:0]            m_axi_arcache,
    output wire [2:0]            m_axi_arprot,
    output wire                  m_axi_arvalid,
    input  wire                  m_axi_arready,
    input  wire [ID_WIDTH-1:0]   m_axi_rid,
    input  wire [DATA_WIDTH-1:0] m_axi_rdata,
    input  wire [1:0]            m_axi_rresp,
    input  wire                  m_axi_rlast,
    input  wire                  m_axi_rvalid,
    output wire                  m_axi_rready,
    input  wire                  abort,
    output wire                  busy
);

localparam NS = MAX_SEGS + 1;
reg [63:0] q_va [0:DEPTH-1];
reg [31:0] q_handle [0:DEPTH-1];
reg [15:0] q_ptag [0:DEPTH-1];
reg        q_recv [0:DEPTH-1], q_we [0:DEPTH-1], q_re [0:DEPTH-1];
reg [31:0] q_max [0:DEPTH-1];
reg [TAG_WIDTH-1:0] q_tag [0:DEPTH-1];
reg        q_done [0:DEPTH-1];
reg [1:0]  r_kind [0:DEPTH-1];
reg [31:0] r_status [0:DEPTH-1];
reg [3:0]  r_check [0:DEPTH-1];
reg [2:0]  r_tpt [0:DEPTH-1];
reg [1:0]  r_bus [0:DEPTH-1];
reg        r_ctl [0:DEPTH-1];
reg [63:0] r_next [0:DEPTH-1];
reg [31:0] r_nh [0:DEPTH-1];
reg [15:0] r_sc [0:DEPTH-1];
reg [15:0] r_control [0:DEPTH-1];
reg [31:0] r_imm [0:DEPTH-1];
reg [31:0] r_len [0:DEPTH-1];
reg [63:0] s_addr [0:DEPTH*NS-1];
reg [31:0] s_handle [0:DEPTH*NS-1];
reg [31:0] s_len [0:DEPTH*NS-1];

integer n_req = 0, n_res = 0, n_rel = 0, n_fetch = 0;
reg     f_busy = 0;       // the fetch unit has a request
reg     f_req_valid = 0;
reg     f_copy = 0;
reg     f_res_ready = 0;
reg [7:0] f_seg_idx = 0;
wire    f_req_ready, f_res_valid;
wire [1:0]  f_kind, f_bus;
wire [31:0] f_status, f_nh, f_imm, f_len, f_sh, f_sl;
wire [3:0]  f_check;
wire [2:0]  f_tpt;
wire        f_ctl;
wire [63:0] f_next, f_sa;
wire [15:0] f_sc, f_control;
wire [SW-1:0] fs = n_fetch % DEPTH;

assign req_ready = (n_req - n_rel < DEPTH) && !abort;
wire [SW-1:0] rs_s = n_res % DEPTH;
assign res_valid = (n_res < n_req) && q_done[rs_s];
assign res_kind = r_kind[rs_s];
assign res_status = r_status[rs_s];
assign res_check = r_check[rs_s];
assign res_tpt_err = r_tpt[rs_s];
assign res_bus_resp = r_bus[rs_s];
assign res_ctl_valid = r_ctl[rs_s];
assign res_next = r_next[rs_s];
assign res_next_handle = r_nh[rs_s];
assign res_seg_count = r_sc[rs_s];
assign res_control = r_control[rs_s];
assign res_immediate = r_imm[rs_s];
assign res_length = r_len[rs_s];
assign res_tag = q_tag[rs_s];
assign res_slot = rs_s;
assign busy = (n_res < n_req) || f_busy;

via_desc_fetch #(.MAX_SEGS(MAX_SEGS), .DATA_WIDTH(DATA_WIDTH), .ADDR_WIDTH(ADDR_WIDTH),
                 .ID_WIDTH(ID_WIDTH), .ARID(ARID)) u_f (
    .clk(clk), .rst(rst),
    .req_valid(f_req_valid), .req_ready(f_req_ready), .req_va(q_va[fs]), .req_handle(q_handle[fs]),
    .req_ptag(q_ptag[fs]), .req_recv(q_recv[fs]), .req_max_transfer(q_max[fs]),
    .req_rdma_write_en(q_we[fs]), .req_rdma_read_en(q_re[fs]),
    .res_valid(f_res_valid), .res_ready(f_res_ready), .res_kind(f_kind), .res_status(f_status),
    .res_check(f_check), .res_tpt_err(f_tpt), .res_bus_resp(f_bus), .res_ctl_valid(f_ctl),
    .res_next(f_next), .res_next_handle(f_nh), .res_seg_count(f_sc), .res_control(f_control),
    .res_immediate(f_imm), .res_length(f_len),
    .seg_idx(f_seg_idx), .seg_addr(f_sa), .seg_handle(f_sh), .seg_len(f_sl),
    .lk_valid(lk_valid), .lk_ready(lk_ready), .lk_handle(lk_handle), .lk_va(lk_va), .lk_len(lk_len),
    .lk_ptag(lk_ptag), .lk_kind(lk_kind), .rs_valid(rs_valid), .rs_ready(rs_ready), .rs_err(rs_err),
    .rs_pa(rs_pa), .rs_bytes(rs_bytes), .rs_hit(rs_hit), .rs_epoch(rs_epoch),
    .inflight_epoch(inflight_epoch),
    .m_axi_arid(m_axi_arid), .m_axi_araddr(m_axi_araddr), .m_axi_arlen(m_axi_arlen),
    .m_axi_arsize(m_axi_arsize), .m_axi_arburst(m_axi_arburst), .m_axi_arlock(m_axi_arlock),
    .m_axi_arcache(m_axi_arcache), .m_axi_arprot(m_axi_arprot), .m_axi_arvalid(m_axi_arvalid),
    .m_axi_arready(m_axi_arready), .m_axi_rid(m_axi_rid), .m_axi_rdata(m_axi_rdata),
    .m_axi_rresp(m_axi_rresp), .m_axi_rlast(m_axi_rlast), .m_axi_rvalid(m_axi_rvalid),
    .m_axi_rready(m_axi_rready)
);

integer k;
always @(posedge clk) begin
    if (rst) begin
        n_req = 0; n_res = 0; n_rel = 0; n_fetch = 0;
        f_busy <= 0; f_req_valid <= 0; f_copy <= 0; f_res_ready <= 0; f_seg_idx <= 0;
        for (k = 0; k < DEPTH; k = k + 1) q_done[k] = 0;
    end else begin
        if (seg_rd_en) begin
            seg_addr <= s_addr[seg_rd_slot * NS + seg_rd_idx];
            seg_handle <= s_handle[seg_rd_slot * NS + seg_rd_idx];
            seg_len <= s_len[seg_rd_slot * NS + seg_rd_idx];
        end
        f_res_ready <= 0;
        if (res_valid && res_ready) n_res = n_res + 1;
        if (rel_valid) begin
            if (n_rel >= n_res) $fatal(1, "via_desc_pipe model: release of a slot whose result was not taken");
            q_done[n_rel % DEPTH] = 0;
            n_rel = n_rel + 1;
        end
        if (req_valid && req_ready) begin
            q_va[n_req % DEPTH] = req_va; q_handle[n_req % DEPTH] = req_handle;
            q_ptag[n_req % DEPTH] = req_ptag; q_recv[n_req % DEPTH] = req_recv;
            q_max[n_req % DEPTH] = req_max_transfer; q_we[n_req % DEPTH] = req_rdma_write_en;
            q_re[n_req % DEPTH] = req_rdma_read_en; q_tag[n_req % DEPTH] = req_tag;
            q_done[n_req % DEPTH] = 0;
            n_req = n_req + 1;
        end
        // the fetch unit, one request at a time
        if (!f_busy && n_fetch < n_req) begin
            f_busy <= 1; f_req_valid <= 1;
        end
        if (f_req_valid && f_req_ready) f_req_valid <= 0;
        if (f_busy && !f_req_valid && f_res_valid && !f_copy && !f_res_ready) begin
            r_kind[fs] = f_kind; r_status[fs] = f_status; r_check[fs] = f_check; r_tpt[fs] = f_tpt;
            r_bus[fs] = f_bus; r_ctl[fs] = f_ctl; r_next[fs] = f_next; r_nh[fs] = f_nh;
            r_sc[fs] = f_sc; r_control[fs] = f_control; r_imm[fs] = f_imm; r_len[fs] = f_len;
            f_copy <= 1; f_seg_idx <= 0;
        end
        if (f_copy) begin
            s_addr[fs * NS + f_seg_idx] = f_sa;
            s_handle[fs * NS + f_seg_idx] = f_sh;
            s_len[fs * NS + f_seg_idx] = f_sl;
            if (f_seg_idx == NS - 1) begin
                f_copy <= 0; f_res_ready <= 1; f_busy <= 0;
                q_done[fs] = 1;
                n_fetch = n_fetch + 1;
            end else begin
                f_seg_idx <= f_seg_idx + 1;
            end
        end
    end
end

endmodule
