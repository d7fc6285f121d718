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
// and a directed check of R and B routing for every ID value, IDs no port
// has included (they go to port 0).
// Plusargs: +seed=N (default 1), +vcd=PATH, +short (a third of every
// master's reads and writes, for make test's run in Icarus; the run in the
// other simulator stays whole). Prints PASS when every environment has
// finished; any failure is a $fatal.

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

// directed: R and B routing for every ID value, including IDs no port has
// (they go to port 0), on 3-port muxes with IDs 2, 5, 9 (combinational;
// their busy outputs are meaningless here: the fake beats match no burst)
reg  [3:0] dir_id = 4'd0;
reg        dir_valid = 1'b0;
reg  [2:0] dir_ready = 3'b000;
wire [2:0] dir_rvalid, dir_bvalid, dir_arready, dir_awready, dir_wready, dir_rbusy, dir_wbusy;
wire       dir_rready, dir_bready;
via_axi_rd_mux #(.PORTS(3), .ADDR_WIDTH(32), .ID_WIDTH(4), .IDS(12'h952)) dir_rd (
    .clk(clk), .rst(rst),
    .s_axi_arid(12'h952), .s_axi_araddr(96'd0), .s_axi_arlen(24'd0), .s_axi_arsize(9'd0), .s_axi_arburst(6'd0),
    .s_axi_arlock(3'd0), .s_axi_arcache(12'd0), .s_axi_arprot(9'd0), .s_axi_arvalid(3'd0), .s_axi_arready(dir_arready),
    .s_axi_rvalid(dir_rvalid), .s_axi_rready(dir_ready),
    .m_axi_arid(), .m_axi_araddr(), .m_axi_arlen(), .m_axi_arsize(), .m_axi_arburst(), .m_axi_arlock(),
    .m_axi_arcache(), .m_axi_arprot(), .m_axi_arvalid(), .m_axi_arready(1'b0),
    .m_axi_rid(dir_id), .m_axi_rlast(1'b0), .m_axi_rvalid(dir_valid), .m_axi_rready(dir_rready),
    .busy(dir_rbusy)
);
via_axi_wr_mux #(.PORTS(3), .ADDR_WIDTH(32), .DATA_WIDTH(32), .ID_WIDTH(4), .IDS(12'h952)) dir_wr (
    .clk(clk), .rst(rst),
    .s_axi_awid(12'h952), .s_axi_awaddr(96'd0), .s_axi_awlen(24'd0), .s_axi_awsize(9'd0), .s_axi_awburst(6'd0),
    .s_axi_awlock(3'd0), .s_axi_awcache(12'd0), .s_axi_awprot(9'd0), .s_axi_awvalid(3'd0), .s_axi_awready(dir_awready),
    .s_axi_wdata(96'd0), .s_axi_wstrb(12'd0), .s_axi_wlast(3'd0), .s_axi_wvalid(3'd0), .s_axi_wready(dir_wready),
    .s_axi_bvalid(dir_bvalid), .s_axi_bready(dir_ready),
    .m_axi_awid(), .m_axi_awaddr(), .m_axi_awlen(), .m_axi_awsize(), .m_axi_awburst(), .m_axi_awlock(),
    .m_axi_awcache(), .m_axi_awprot(), .m_axi_awvalid(), .m_axi_awready(1'b0),
    .m_axi_wdata(), .m_axi_wstrb(), .m_axi_wlast(), .m_axi_wvalid(), .m_axi_wready(1'b1),
    .m_axi_bid(dir_id), .m_axi_bvalid(dir_valid), .m_axi_bready(dir_bready),
    .busy(dir_wbusy)
);
integer dir_i, dir_r, dir_port;
initial begin
    wait (rst === 1'b0);
    @(posedge clk);
    for (dir_i = 0; dir_i < 16; dir_i = dir_i + 1) begin
        dir_port = dir_i == 2 ? 0 : dir_i == 5 ? 1 : dir_i == 9 ? 2 : 0;
        for (dir_r = 0; dir_r < 16; dir_r = dir_r + 1) begin
            dir_id = dir_i;
            dir_valid = dir_r[3];
            dir_ready = dir_r[2:0];
            #1;
            if (dir_rvalid !== (dir_valid ? 3'b001 << dir_port : 3'b000) || dir_rready !== dir_ready[dir_port] ||
                dir_bvalid !== (dir_valid ? 3'b001 << dir_port : 3'b000) || dir_bready !== dir_ready[dir_port])
                $fatal(1, "tb_via_axi_mux: directed routing: ID %0d valid %b ready %b: rvalid %b rready %b bvalid %b bready %b (port %0d expected)",
                       dir_i, dir_valid, dir_ready, dir_rvalid, dir_rready, dir_bvalid, dir_bready, dir_port);
        end
    end
    dir_valid = 1'b0;
    $display("tb_via_axi_mux: directed R/B routing of all 16 IDs (IDs 2, 5, 9; others to port 0): ok");
end

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
