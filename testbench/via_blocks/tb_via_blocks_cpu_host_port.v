// tb_via_blocks_cpu_host_port: checker of via_cpu_host_port (block
// cpu_mem) for tb_via_blocks.
//
// Reset values and decode from the generated table; CPU_MEM_ADDR.WORD and
// .SEL stored with byte strobes; a CPU_MEM_DATA write drives one write on
// the host port in its cycle (the word at CPU_MEM_ADDR, its SEL, the data)
// and increments WORD; rd_issue (via_regfile's multi-cycle read) drives one
// read there and increments WORD; CPU_MEM_DATA through the multiplexer reads
// 0; WORD wraps at 16 bits; rst clears CPU_MEM_ADDR.

`timescale 1ns / 1ps

`include "via_bar0.vh"

module tb_via_blocks_cpu_host_port (
    input  wire clk,
    output reg  done
);

`include "tb_via_blocks_bus.vh"

reg         rst = 1'b1;
reg         rd_issue = 1'b0;
wire        host_en, host_we, host_sel;
wire [15:0] host_addr;
wire [31:0] host_wdata;

via_cpu_host_port dut (
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
    .rd_issue(rd_issue),
    .host_en(host_en),
    .host_we(host_we),
    .host_sel(host_sel),
    .host_addr(host_addr),
    .host_wdata(host_wdata)
);

// host port accesses, counted at the rising edge
integer port_writes = 0, port_reads = 0;
always @(posedge clk) begin
    if (!rst && host_en === 1'b1) begin
        if (host_we) port_writes = port_writes + 1;
        else port_reads = port_reads + 1;
    end
end

reg [31:0] w;

task expect_addr;
    input [15:0] word;
    input        sel;
    begin
        bus_peek(`VIA_REG_CPU_MEM_ADDR, w);
        `BLK_CHECK(w[`VIA_CPU_MEM_ADDR_WORD_RANGE] === word, "CPU_MEM_ADDR.WORD")
        `BLK_CHECK(w[`VIA_CPU_MEM_ADDR_SEL_LSB] === sel, "CPU_MEM_ADDR.SEL")
        `BLK_CHECK(host_addr === word && host_sel === sel, "host_addr/host_sel differ from CPU_MEM_ADDR")
    end
endtask

initial begin
    done = 1'b0;
    repeat (3) @(negedge clk);
    rst = 1'b0;
    check_reset_values(`VIA_REG_CPU_MEM_ADDR);
    check_decode(`VIA_REG_CPU_MEM_ADDR);
    expect_addr(16'd0, 1'b0);
    `BLK_CHECK(host_en === 1'b0, "host_en while idle")

    // CPU_MEM_ADDR with byte strobes
    bus_wr(`VIA_REG_CPU_MEM_ADDR, 32'h80001234, 4'h1);
    expect_addr(16'h0034, 1'b0);
    bus_wr(`VIA_REG_CPU_MEM_ADDR, 32'h80005678, 4'ha);
    expect_addr(16'h5634, 1'b1);
    bus_wr(`VIA_REG_CPU_MEM_ADDR, 32'h00000010, 4'hf);
    expect_addr(16'h0010, 1'b0);
    `BLK_CHECK(port_writes == 0 && port_reads == 0, "CPU_MEM_ADDR writes used the host port")

    // a CPU_MEM_DATA write: one write on the port in its cycle
    @(negedge clk);
    wr_en = 1'b1;
    wr_addr = `VIA_REG_CPU_MEM_DATA;
    wr_data = 32'hcafef00d;
    wr_strb = 4'hf;
    #1;
    `BLK_CHECK(host_en === 1'b1 && host_we === 1'b1 && host_addr === 16'h0010 && host_sel === 1'b0
               && host_wdata === 32'hcafef00d, "the CPU_MEM_DATA write on the host port")
    @(negedge clk);
    wr_en = 1'b0;
    `BLK_CHECK(port_writes == 1, "not one host port write")
    expect_addr(16'h0011, 1'b0);
    // a read issued by the routing: one read, WORD moves
    @(negedge clk);
    rd_issue = 1'b1;
    #1;
    `BLK_CHECK(host_en === 1'b1 && host_we === 1'b0 && host_addr === 16'h0011, "the issued read on the host port")
    @(negedge clk);
    rd_issue = 1'b0;
    `BLK_CHECK(port_reads == 1, "not one host port read")
    expect_addr(16'h0012, 1'b0);
    // through the multiplexer CPU_MEM_DATA reads 0 and has no effect
    bus_rd(`VIA_REG_CPU_MEM_DATA, 1'b1, w);
    `BLK_CHECK(w === 32'd0, "CPU_MEM_DATA through the multiplexer")
    `BLK_CHECK(port_reads == 1, "a multiplexer read used the host port")
    expect_addr(16'h0012, 1'b0);
    // WORD wraps
    bus_wr(`VIA_REG_CPU_MEM_ADDR, 32'h8000ffff, 4'hf);
    bus_wr(`VIA_REG_CPU_MEM_DATA, 32'h1, 4'hf);
    expect_addr(16'h0000, 1'b1);
    // rst clears
    @(negedge clk);
    rst = 1'b1;
    @(negedge clk);
    rst = 1'b0;
    expect_addr(16'h0000, 1'b0);
    $display("%m: %0d checks ok", checks);
    done = 1'b1;
end

endmodule
