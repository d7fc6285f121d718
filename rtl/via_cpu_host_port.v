// via_cpu_host_port: the host's access to the control processor's memories
// (CPU_MEM_ADDR, CPU_MEM_DATA of rtl/layouts/bar0.layout, block cpu_mem):
// how the driver downloads the firmware.
//
// A write of CPU_MEM_DATA stores the word at CPU_MEM_ADDR through the core's
// host port (host_*); a host read of it is issued by via_regfile (rd_issue,
// a multi-cycle read answered with the port's rdata/rvalid there). Either
// increments CPU_MEM_ADDR.WORD (never both in one cycle: via_regfile issues
// such a read only in a cycle without a register write). Through the
// register multiplexer (the firmware's BAR0 view) CPU_MEM_DATA reads 0.
//
// Register bus: see docs/rtl.md ("Register blocks").

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"

module via_cpu_host_port (
    input  wire        clk,
    input  wire        rst,

    // register bus
    input  wire        wr_en,
    input  wire [15:0] wr_addr,
    input  wire [31:0] wr_data,
    input  wire [3:0]  wr_strb,
    output wire        wr_hit,
    input  wire        rd_en,
    input  wire [15:0] rd_addr,
    input  wire        rd_fire,
    output wire        rd_hit,
    output wire [31:0] rd_data,

    input  wire        rd_issue,     // a host read of CPU_MEM_DATA starts

    // host port of via_cpu
    output wire        host_en,
    output wire        host_we,
    output wire        host_sel,
    output wire [15:0] host_addr,
    output wire [31:0] host_wdata
);

wire addr_we;
wire data_we;

reg [15:0] word_reg, word_next;
reg        sel_reg, sel_next;

via_bar0_cpu_mem_regs regs_inst (
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
    .cpu_mem_addr_we(addr_we),
    .cpu_mem_addr_word_i(word_reg),
    .cpu_mem_addr_sel_i(sel_reg),
    .cpu_mem_data_we(data_we),
    .cpu_mem_data_i(32'd0)
);

/* verilator lint_off UNUSEDSIGNAL */
// only the WORD bytes take the mask
wire [31:0] wr_mask = {{8{wr_strb[3]}}, {8{wr_strb[2]}}, {8{wr_strb[1]}}, {8{wr_strb[0]}}};
/* verilator lint_on UNUSEDSIGNAL */

always @* begin
    word_next = word_reg;
    sel_next  = sel_reg;
    if (addr_we) begin
        word_next = (word_reg & ~wr_mask[`VIA_CPU_MEM_ADDR_WORD_RANGE]) | (wr_data[`VIA_CPU_MEM_ADDR_WORD_RANGE] & wr_mask[`VIA_CPU_MEM_ADDR_WORD_RANGE]);
        if (wr_strb[`VIA_CPU_MEM_ADDR_SEL_LSB / 8]) begin
            sel_next = wr_data[`VIA_CPU_MEM_ADDR_SEL_LSB];
        end
    end
    if (data_we || rd_issue) begin
        word_next = word_reg + 16'd1;
    end
end

always @(posedge clk) begin
    if (rst) begin
        word_reg <= 16'd0;
        sel_reg  <= 1'b0;
    end else begin
        word_reg <= word_next;
        sel_reg  <= sel_next;
    end
end

assign host_en    = data_we || rd_issue;
assign host_we    = data_we;
assign host_sel   = sel_reg;
assign host_addr  = word_reg;
assign host_wdata = wr_data;

endmodule

`default_nettype wire
