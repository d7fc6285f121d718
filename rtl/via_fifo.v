// via_fifo: synchronous first-word-fall-through FIFO with valid/ready ports.
//
// The entry at the head is presented on m_data while m_valid is 1; it leaves
// on a cycle with m_valid && m_ready. An entry enters on s_valid && s_ready.
// Full throughput (one in, one out per cycle). s_ready is 0 while the FIFO is
// full, even if an entry leaves in the same cycle: this keeps s_ready a pure
// function of state (no combinational path from m_ready to s_ready).
// Storage is a plain array without reset, written synchronously and read
// asynchronously, so synthesis can map it to distributed RAM or flip-flops.
// Any DEPTH >= 2 works; it need not be a power of two. level is the number
// of entries held (from a flip-flop).
//
// This is the one FIFO of the NIC: the network loopback, the firmware log
// (via_fw_log) and the control processor's event queue (via_cpu_periph) use
// it.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"

module via_fifo #(
    parameter WIDTH = 8,   // bits per entry (>= 1)
    parameter DEPTH = 16,  // entries (2 .. 2**24)
    // derived, do not override
    parameter LEVEL_WIDTH = $clog2(DEPTH + 1)
) (
    input  wire             clk,
    input  wire             rst,

    // input (write) side
    input  wire [WIDTH-1:0] s_data,
    input  wire             s_valid,
    output wire             s_ready,

    // output (read) side
    output wire [WIDTH-1:0] m_data,
    output wire             m_valid,
    input  wire             m_ready,

    // entries held
    output wire [LEVEL_WIDTH-1:0] level
);

generate
    if (WIDTH < 1) begin : g_bad_width
        `VIA_PARAM_FAIL(("via_fifo: WIDTH=%0d, must be >= 1", WIDTH))
    end
    if (DEPTH < 2 || DEPTH > (1 << 24)) begin : g_bad_depth
        `VIA_PARAM_FAIL(("via_fifo: DEPTH=%0d, must be 2 .. 2**24", DEPTH))
    end
    if (LEVEL_WIDTH != $clog2(DEPTH + 1)) begin : g_bad_level_width
        `VIA_PARAM_FAIL(("via_fifo: LEVEL_WIDTH=%0d is derived, must be $clog2(DEPTH+1)", LEVEL_WIDTH))
    end
endgenerate

// at least 1, so that an out-of-range DEPTH still elaborates up to its check
localparam PTR_WIDTH = (DEPTH > 2) ? $clog2(DEPTH) : 1;
localparam [31:0] DEPTH32 = DEPTH;
localparam [31:0] DEPTH32_M1 = DEPTH - 1;
localparam [PTR_WIDTH-1:0] PTR_LAST = DEPTH32_M1[PTR_WIDTH-1:0];
localparam [LEVEL_WIDTH-1:0] COUNT_FULL = DEPTH32[LEVEL_WIDTH-1:0];

reg [WIDTH-1:0] mem [0:DEPTH-1];

reg [PTR_WIDTH-1:0] wr_ptr_reg;
reg [PTR_WIDTH-1:0] rd_ptr_reg;
reg [LEVEL_WIDTH-1:0] count_reg;

wire push = s_valid && s_ready;
wire pop  = m_valid && m_ready;

assign s_ready = count_reg != COUNT_FULL;
assign m_valid = count_reg != {LEVEL_WIDTH{1'b0}};
assign m_data  = mem[rd_ptr_reg];
assign level   = count_reg;

always @(posedge clk) begin
    if (push) begin
        mem[wr_ptr_reg] <= s_data;
    end
end

always @(posedge clk) begin
    if (rst) begin
        wr_ptr_reg <= {PTR_WIDTH{1'b0}};
        rd_ptr_reg <= {PTR_WIDTH{1'b0}};
        count_reg  <= {LEVEL_WIDTH{1'b0}};
    end else begin
        if (push) begin
            wr_ptr_reg <= (wr_ptr_reg == PTR_LAST) ? {PTR_WIDTH{1'b0}} : wr_ptr_reg + 1'b1;
        end
        if (pop) begin
            rd_ptr_reg <= (rd_ptr_reg == PTR_LAST) ? {PTR_WIDTH{1'b0}} : rd_ptr_reg + 1'b1;
        end
        if (push && !pop) begin
            count_reg <= count_reg + 1'b1;
        end else if (pop && !push) begin
            count_reg <= count_reg - 1'b1;
        end
    end
end

endmodule

`default_nettype wire
