`define VIA_VI_TX_BENCH_PIPE_STUB

// via_desc_pipe_stub: bench stand-in for via_desc_pipe (helper P's module)
// with its ports, built on one via_desc_fetch: one descriptor fetched at a
// time, each result and its segments copied into a slot; results in request
// order, slots released in order. Functionally the same results; not
// pipelined (slow). Used only until rtl/via_desc_pipe.v exists.

`timescale 1ns / 1ps
`default_nettype none

module via_desc_pipe #(
    parameter MAX_SEGS   = 16,
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 48,
    parameter ID_WIDTH   = 4,
    parameter [ID_WIDTH-1:0] ARID = 0,
    parameter DEPTH      = 8,
    parameter TAG_WIDTH  = 16,
    parameter SW = $clog2(DEPTH)
) (
    input  wire                    clk,
    input  wire                    rst,
    input  wire                    req_valid,
    output wire                    req_ready,
    input  wire [63:0]             req_va,
    input  wire [31:0]             req_handle,
    input  wire [15:0]             req_ptag,
    input  wire                    req_recv,
    input  wire [31:0]             req_max_transfer,
    input  wire                    req_rdma_write_en,
    input  wire                    req_rdma_read_en,
    input  wire [TAG_WIDTH-1:0]    req_tag,
    output wire                    res_valid,
    input  wire                    res_ready,
    output wire [1:0]              res_kind,
    output wire [31:0]             res_status,
    output wire [3:0]              res_check,
    output wire [2:0]              res_tpt_err,
    output wire [1:0]              res_bus_resp,
    output wire                    res_ctl_valid,
    output wire [63:0]             res_next,
    output wire [31:0]             res_next_handle,
    output wire [15:0]             res_seg_count,
    output wire [15:0]             res_control,
    output wire [31:0]             res_immediate,
    output wire [31:0]             res_length,
    output wire [TAG_WIDTH-1:0]    res_tag,
    output wire [SW-1:0]           res_slot,
    input  wire                    seg_rd_en,
    input  wire [SW-1:0]           seg_rd_slot,
    input  wire [7:0]              seg_rd_idx,
    output reg  [63:0]             seg_addr,
    output reg  [31:0]             seg_handle,
    output reg  [31:0]             seg_len,
    input  wire                    rel_valid,
    output wire                    lk_valid,
    input  wire                    lk_ready,
    output wire [31:0]             lk_handle,
    output wire [63:0]             lk_va,
    output wire [31:0]             lk_len,
    output wire [15:0]             lk_ptag,
    output wire [1:0]              lk_kind,
    input  wire                    rs_valid,
    output wire                    rs_ready,
    input  wire [2:0]              rs_err,
    input  wire [ADDR_WIDTH-1:0]   rs_pa,
    input  wire [12:0]             rs_bytes,
    input  wire                    rs_hit,
    input  wire                    rs_epoch,
    output wire [1:0]              inflight_epoch,
    output wire [ID_WIDTH-1:0]     m_axi_arid,
    output wire [ADDR_WIDTH-1:0]   m_axi_araddr,
    output wire [7:0]              m_axi_arlen,
    output wire [2:0]              m_axi_arsize,
    output wire [1:0]              m_axi_arburst,
    output wire                    m_axi_arlock,
    output wire [3:0]              m_axi_arcache,
    output wire [2:0]              m_axi_arprot,
    output wire                    m_axi_arvalid,
    input  wire                    m_axi_arready,
    input  wire [ID_WIDTH-1:0]     m_axi_rid,
    input  wire [DATA_WIDTH-1:0]   m_axi_rdata,
    input  wire [1:0]              m_axi_rresp,
    input  wire                    m_axi_rlast,
    input  wire                    m_axi_rvalid,
    output wire                    m_axi_rready,
    input  wire                    abort,
    output wire                    busy
);

localparam NS = MAX_SEGS + 2;

reg [1:0] st;          // 0 idle, 1 fetching, 2 copying
reg [7:0] cidx;
reg [SW:0] alloc, taken, freed, ready_n;
reg [TAG_WIDTH-1:0] cur_tag;

reg [1:0]  s_kind [0:DEPTH-1];
reg [31:0] s_status [0:DEPTH-1];
reg [3:0]  s_check [0:DEPTH-1];
reg [2:0]  s_tpt_err [0:DEPTH-1];
reg [1:0]  s_bus [0:DEPTH-1];
reg        s_ctlv [0:DEPTH-1];
reg [63:0] s_next [0:DEPTH-1];
reg [31:0] s_nh [0:DEPTH-1];
reg [15:0] s_segc [0:DEPTH-1];
reg [15:0] s_ctl [0:DEPTH-1];
reg [31:0] s_imm [0:DEPTH-1];
reg [31:0] s_len [0:DEPTH-1];
reg [TAG_WIDTH-1:0] s_tag [0:DEPTH-1];
reg [63:0] g_addr [0:DEPTH*NS-1];
reg [31:0] g_h [0:DEPTH*NS-1];
reg [31:0] g_len [0:DEPTH*NS-1];

wire f_req_ready, f_res_valid;
wire [1:0] f_kind, f_bus;
wire [31:0] f_status, f_nh, f_imm, f_len, f_sh, f_sl;
wire [3:0] f_check;
wire [2:0] f_terr;
wire f_ctlv;
wire [63:0] f_next, f_sa;
wire [15:0] f_segc, f_ctl;
wire room = (alloc - freed) < DEPTH;
wire f_req_valid = (st == 2'd0) && req_valid && room && !abort;
assign req_ready = (st == 2'd0) && f_req_ready && room && !abort;
wire f_res_ready = (st == 2'd2) && (cidx == NS - 1);
wire [SW-1:0] wslot = alloc[SW-1:0] - 1'b1;
wire [SW-1:0] rslot = taken[SW-1:0];

via_desc_fetch #(
    .MAX_SEGS(MAX_SEGS), .DATA_WIDTH(DATA_WIDTH), .ADDR_WIDTH(ADDR_WIDTH), .ID_WIDTH(ID_WIDTH), .ARID(ARID)
) f (
    .clk(clk), .rst(rst),
    .req_valid(f_req_valid), .req_ready(f_req_ready), .req_va(req_va), .req_handle(req_handle),
    .req_ptag(req_ptag), .req_recv(req_recv), .req_max_transfer(req_max_transfer),
    .req_rdma_write_en(req_rdma_write_en), .req_rdma_read_en(req_rdma_read_en),
    .res_valid(f_res_valid), .res_ready(f_res_ready), .res_kind(f_kind), .res_status(f_status),
    .res_check(f_check), .res_tpt_err(f_terr), .res_bus_resp(f_bus), .res_ctl_valid(f_ctlv),
    .res_next(f_next), .res_next_handle(f_nh), .res_seg_count(f_segc), .res_control(f_ctl),
    .res_immediate(f_imm), .res_length(f_len),
    .seg_idx(cidx), .seg_addr(f_sa), .seg_handle(f_sh), .seg_len(f_sl),
    .lk_valid(lk_valid), .lk_ready(lk_ready), .lk_handle(lk_handle), .lk_va(lk_va), .lk_len(lk_len),
    .lk_ptag(lk_ptag), .lk_kind(lk_kind), .rs_valid(rs_valid), .rs_ready(rs_ready), .rs_err(rs_err),
    .rs_pa(rs_pa), .rs_bytes(rs_bytes), .rs_hit(rs_hit), .rs_epoch(rs_epoch), .inflight_epoch(inflight_epoch),
    .m_axi_arid(m_axi_arid), .m_axi_araddr(m_axi_araddr), .m_axi_arlen(m_axi_arlen), .m_axi_arsize(m_axi_arsize),
    .m_axi_arburst(m_axi_arburst), .m_axi_arlock(m_axi_arlock), .m_axi_arcache(m_axi_arcache),
    .m_axi_arprot(m_axi_arprot), .m_axi_arvalid(m_axi_arvalid), .m_axi_arready(m_axi_arready),
    .m_axi_rid(m_axi_rid), .m_axi_rdata(m_axi_rdata), .m_axi_rresp(m_axi_rresp), .m_axi_rlast(m_axi_rlast),
    .m_axi_rvalid(m_axi_rvalid), .m_axi_rready(m_axi_rready)
);

assign res_valid = (ready_n != taken);
assign res_kind = s_kind[rslot];
assign res_status = s_status[rslot];
assign res_check = s_check[rslot];
assign res_tpt_err = s_tpt_err[rslot];
assign res_bus_resp = s_bus[rslot];
assign res_ctl_valid = s_ctlv[rslot];
assign res_next = s_next[rslot];
assign res_next_handle = s_nh[rslot];
assign res_seg_count = s_segc[rslot];
assign res_control = s_ctl[rslot];
assign res_immediate = s_imm[rslot];
assign res_length = s_len[rslot];
assign res_tag = s_tag[rslot];
assign res_slot = rslot;
assign busy = (st != 2'd0);

always @(posedge clk) begin
    if (seg_rd_en) begin
        seg_addr <= g_addr[seg_rd_slot * NS + seg_rd_idx];
        seg_handle <= g_h[seg_rd_slot * NS + seg_rd_idx];
        seg_len <= g_len[seg_rd_slot * NS + seg_rd_idx];
    end
    if (rst) begin
        st <= 2'd0;
        cidx <= 8'd0;
        alloc <= 0;
        taken <= 0;
        freed <= 0;
        ready_n <= 0;
    end else begin
        if (res_valid && res_ready) taken <= taken + 1'b1;
        if (rel_valid) begin
            if (freed == taken && !(res_valid && res_ready)) $fatal(1, "via_desc_pipe stub: release without a taken result");
            freed <= freed + 1'b1;
        end
        case (st)
        2'd0: if (f_req_valid && f_req_ready) begin
            st <= 2'd1;
            alloc <= alloc + 1'b1;
            cur_tag <= req_tag;
        end
        2'd1: if (f_res_valid) begin
            st <= 2'd2;
            cidx <= 8'd0;
        end
        default: begin
            g_addr[wslot * NS + cidx] <= f_sa;
            g_h[wslot * NS + cidx] <= f_sh;
            g_len[wslot * NS + cidx] <= f_sl;
            if (cidx == NS - 1) begin
                s_kind[wslot] <= f_kind;
                s_status[wslot] <= f_status;
                s_check[wslot] <= f_check;
                s_tpt_err[wslot] <= f_terr;
                s_bus[wslot] <= f_bus;
                s_ctlv[wslot] <= f_ctlv;
                s_next[wslot] <= f_next;
                s_nh[wslot] <= f_nh;
                s_segc[wslot] <= f_segc;
                s_ctl[wslot] <= f_ctl;
                s_imm[wslot] <= f_imm;
                s_len[wslot] <= f_len;
                s_tag[wslot] <= cur_tag;
                ready_n <= ready_n + 1'b1;
                st <= 2'd0;
            end else begin
                cidx <= cidx + 8'd1;
            end
        end
        endcase
    end
end

endmodule

`default_nettype wire
