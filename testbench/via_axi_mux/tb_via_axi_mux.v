// tb_via_axi_mux: self-checking bench of via_axi_rd_mux and via_axi_wr_mux.
//
// Runs tb_via_axi_mux_env (PORTS random masters, the two muxes, an AXI4
// memory model with random back-pressure) in five configurations side by
// side:
//   a: 2 ports, 64-bit data, IDs 0 and 1 (the defaults)
//   b: 5 ports, 64-bit data, scattered 4-bit IDs, order FIFO depth 2
//      (AWs held back by a full FIFO), slow memory, very slow arready and
//      awready (presented requests held while others ask)
//   c: 8 ports, 32-bit data, 3-bit IDs (all of them used), 32-bit addresses,
//      slow arready
//   d: 3 ports, 512-bit data, 2-bit IDs, 40-bit addresses, a memory and masters without
//      back-pressure or valid gaps (most contention)
//   e: 4 ports asking seldom, a memory taking AR and AW seldom (requests
//      presented while other ports start asking: the lock matters)
// Plusargs: +seed=N (default 1), +vcd=PATH. Prints PASS when every
// environment has finished; any failure is a $fatal.

`timescale 1ns / 1ps

module tb_via_axi_mux;

localparam TIMEOUT_CYCLES = 2000000;

reg clk = 1'b0;
reg rst = 1'b1;
wire fin_a, fin_b, fin_c, fin_d, fin_e;

always #5 clk = ~clk;

wire clk_a = clk & (fin_a !== 1'b1);
wire clk_b = clk & (fin_b !== 1'b1);
wire clk_c = clk & (fin_c !== 1'b1);
wire clk_d = clk & (fin_d !== 1'b1);
wire clk_e = clk & (fin_e !== 1'b1);

tb_via_axi_mux_env #(
    .PORTS(2), .DATA_WIDTH(64), .ADDR_WIDTH(48), .ID_WIDTH(4), .IDS(8'h10),
    .READY_PROB(60), .VALID_PROB(60), .N_READS(150), .N_WRITES(150), .SALT(1)
) env_a (.clk(clk_a), .rst(rst), .finished(fin_a));

tb_via_axi_mux_env #(
    .PORTS(5), .DATA_WIDTH(64), .ADDR_WIDTH(48), .ID_WIDTH(4), .IDS(20'h9E375),
    .FIFO_DEPTH(2), .READY_PROB(35), .AR_PROB(10), .AW_PROB(20), .VALID_PROB(70), .N_READS(80), .N_WRITES(80), .SALT(2)
) env_b (.clk(clk_b), .rst(rst), .finished(fin_b));

tb_via_axi_mux_env #(
    .PORTS(8), .DATA_WIDTH(32), .ADDR_WIDTH(32), .ID_WIDTH(3), .IDS(24'h6741D5),
    .READY_PROB(70), .AR_PROB(30), .VALID_PROB(50), .N_READS(60), .N_WRITES(60), .SALT(3)
) env_c (.clk(clk_c), .rst(rst), .finished(fin_c));

tb_via_axi_mux_env #(
    .PORTS(3), .DATA_WIDTH(512), .ADDR_WIDTH(40), .ID_WIDTH(2), .IDS(6'b01_11_10),
    .READY_PROB(100), .VALID_PROB(100), .N_READS(60), .N_WRITES(60), .SALT(4)
) env_d (.clk(clk_d), .rst(rst), .finished(fin_d));

tb_via_axi_mux_env #(
    .PORTS(4), .DATA_WIDTH(64), .ADDR_WIDTH(48), .ID_WIDTH(4), .IDS(16'h6543),
    .READY_PROB(80), .AR_PROB(8), .AW_PROB(8), .VALID_PROB(10), .N_READS(25), .N_WRITES(25), .SALT(5)
) env_e (.clk(clk_e), .rst(rst), .finished(fin_e));

reg [1023:0] vcd_path;

initial begin
    if ($value$plusargs("vcd=%s", vcd_path)) begin
        $dumpfile(vcd_path);
        $dumpvars(0, tb_via_axi_mux);
    end
    repeat (10) @(posedge clk);
    #1 rst = 1'b0;
end

initial begin
    wait (rst === 1'b0 && fin_a === 1'b1 && fin_b === 1'b1 && fin_c === 1'b1 && fin_d === 1'b1 && fin_e === 1'b1);
    repeat (2) @(posedge clk);
    $display("PASS");
    $finish;
end

integer cycle_count = 0;
always @(posedge clk) begin
    cycle_count <= cycle_count + 1;
    if (cycle_count >= TIMEOUT_CYCLES) begin
        $fatal(1, "tb_via_axi_mux: timeout after %0d cycles (finished: a %b b %b c %b d %b e %b)", TIMEOUT_CYCLES, fin_a, fin_b, fin_c, fin_d, fin_e);
    end
end

endmodule
