// via_vi_ctx: the per-VI context table of the descriptor engine (issue 9).
//
// Holds what the send and receive engines need to know about a VI and the
// doorbell block does not: enable, state, ptag, MaxTransferSize, the RDMA
// enables and the peer of the connection (its node and VI). The firmware writes one VI's
// whole context at a time through the context port (via_cpu_periph's
// VI_CTX_* registers; the same commit goes to via_vi_queues). Two read
// ports, one per engine: the engine drives rdN_vi, and in the next cycle
// rdN_* hold that VI's context (a registered read every cycle, no enable).
//
// Storage: enable in flip-flops (reset to 0: no VI exists after a reset);
// the rest in via_ram (no reset; a VI's word is always written by the commit
// that enables it). A read of the VI written in the same cycle returns the
// new context (write-first bypass), so an engine never sees a stale word.
// A read of an index >= NUM_VI returns enable 0.
//
// docs/vi.md ("The descriptor engine") describes how the engines use it.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"

module via_vi_ctx #(
    parameter NUM_VI   = 64,
    parameter VI_WIDTH = (NUM_VI > 1) ? $clog2(NUM_VI) : 1
) (
    input  wire                clk,
    input  wire                rst,

    // write: one VI's context (wr_en is a one-cycle strobe)
    input  wire                wr_en,
    input  wire [15:0]         wr_vi,
    input  wire                wr_enable,
    input  wire [1:0]          wr_state,
    input  wire [15:0]         wr_ptag,
    input  wire [31:0]         wr_max_transfer,
    input  wire                wr_rdma_write,
    input  wire                wr_rdma_read,
    input  wire                wr_reliable,
    input  wire [23:0]         wr_peer,    // {node, VI}

    // read port 0
    input  wire [VI_WIDTH-1:0] rd0_vi,
    output wire                rd0_enable,
    output wire [1:0]          rd0_state,
    output wire [15:0]         rd0_ptag,
    output wire [31:0]         rd0_max_transfer,
    output wire                rd0_rdma_write,
    output wire                rd0_rdma_read,
    output wire                rd0_reliable,
    output wire [23:0]         rd0_peer,

    // read port 1
    input  wire [VI_WIDTH-1:0] rd1_vi,
    output wire                rd1_enable,
    output wire [1:0]          rd1_state,
    output wire [15:0]         rd1_ptag,
    output wire [31:0]         rd1_max_transfer,
    output wire                rd1_rdma_write,
    output wire                rd1_rdma_read,
    output wire                rd1_reliable,
    output wire [23:0]         rd1_peer
);

generate
    if (NUM_VI < 1 || NUM_VI > 1024) begin : g_bad_num_vi
        `VIA_PARAM_FAIL(("via_vi_ctx: NUM_VI=%0d, must be 1..1024", NUM_VI))
    end
endgenerate

localparam WORDS = (NUM_VI > 1) ? (1 << VI_WIDTH) : 2;
localparam AW    = $clog2(WORDS);
localparam W     = 2 + 16 + 32 + 1 + 1 + 1 + 24;
localparam [31:0] NUM_VI_U = NUM_VI;

wire          wr_in_range = ({16'd0, wr_vi} < NUM_VI_U);
wire [AW-1:0] wr_addr     = wr_vi[AW-1:0];
wire [W-1:0]  wr_word     = {wr_state, wr_ptag, wr_max_transfer, wr_rdma_write, wr_rdma_read, wr_reliable, wr_peer};

reg  [NUM_VI-1:0] enable_reg;

always @(posedge clk) begin
    if (rst) begin
        enable_reg <= {NUM_VI{1'b0}};
    end else if (wr_en && wr_in_range) begin
        enable_reg[wr_vi[VI_WIDTH-1:0]] <= wr_enable;
    end
end

// one read port each: two RAM copies written together
wire [AW-1:0] rd0_addr = {{(AW-VI_WIDTH){1'b0}}, rd0_vi};
wire [AW-1:0] rd1_addr = {{(AW-VI_WIDTH){1'b0}}, rd1_vi};
wire [W-1:0]  ram0_q;
wire [W-1:0]  ram1_q;

via_ram #(.WIDTH(W), .WORDS(WORDS)) ram0_inst (
    .clk(clk), .wr_en(wr_en && wr_in_range), .wr_addr(wr_addr), .wr_data(wr_word),
    .rd_en(1'b1), .rd_addr(rd0_addr), .rd_data(ram0_q)
);

via_ram #(.WIDTH(W), .WORDS(WORDS)) ram1_inst (
    .clk(clk), .wr_en(wr_en && wr_in_range), .wr_addr(wr_addr), .wr_data(wr_word),
    .rd_en(1'b1), .rd_addr(rd1_addr), .rd_data(ram1_q)
);

// write-first bypass and the enable bit, registered with the read
reg          byp0_reg;
reg          byp1_reg;
reg  [W-1:0] byp_word_reg;
reg          en0_reg;
reg          en1_reg;

always @(posedge clk) begin
    byp0_reg     <= wr_en && wr_in_range && (wr_addr == rd0_addr);
    byp1_reg     <= wr_en && wr_in_range && (wr_addr == rd1_addr);
    byp_word_reg <= wr_word;
    if (rst) begin
        en0_reg <= 1'b0;
        en1_reg <= 1'b0;
    end else begin
        en0_reg <= ({{(32-VI_WIDTH){1'b0}}, rd0_vi} < NUM_VI_U) &&
                   ((wr_en && wr_in_range && wr_addr == rd0_addr) ? wr_enable : enable_reg[rd0_vi]);
        en1_reg <= ({{(32-VI_WIDTH){1'b0}}, rd1_vi} < NUM_VI_U) &&
                   ((wr_en && wr_in_range && wr_addr == rd1_addr) ? wr_enable : enable_reg[rd1_vi]);
    end
end

wire [W-1:0] q0 = byp0_reg ? byp_word_reg : ram0_q;
wire [W-1:0] q1 = byp1_reg ? byp_word_reg : ram1_q;

assign rd0_enable = en0_reg;
assign {rd0_state, rd0_ptag, rd0_max_transfer, rd0_rdma_write, rd0_rdma_read, rd0_reliable, rd0_peer} = q0;
assign rd1_enable = en1_reg;
assign {rd1_state, rd1_ptag, rd1_max_transfer, rd1_rdma_write, rd1_rdma_read, rd1_reliable, rd1_peer} = q1;

endmodule

`default_nettype wire
