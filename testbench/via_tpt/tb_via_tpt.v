// tb_via_tpt: self-checking bench of the translation and protection table.
//
// Runs the test sequence of tb_via_tpt_env on three configurations of via_tpt
// side by side, each against its own axi_ram_model holding the page lists:
//   a: the NIC's defaults (1024 regions, 512 cached entries, 48-bit
//      addresses, 64-bit fetch port: 8 beats per line)
//   b: 16 regions, 64 cached entries (8 lines: many evictions), 40-bit
//      addresses, 256-bit fetch port (2 beats per line), 3-bit tags
//   c: 64 regions, 128 cached entries, 64-bit addresses, 512-bit fetch port
//      (one beat per line), 1-bit tags
// Plusargs: +seed=N (default 1), +vcd=PATH (dump a waveform).
// Prints PASS when all environments have finished; any failure is a $fatal.

`timescale 1ns / 1ps

module tb_via_tpt;

localparam TIMEOUT_CYCLES = 3000000;

reg clk = 1'b0;
reg rst = 1'b1;
wire fin_a, fin_b, fin_c;

always #5 clk = ~clk;

tb_via_tpt_env #(
    .REGIONS(1024),
    .CACHE_ENTRIES(512),
    .ADDR_WIDTH(48),
    .DATA_WIDTH(64),
    .TAG_WIDTH(2),
    .MEM_BYTES(262144),
    .READ_LATENCY(12),
    .LOOKUPS(6000),
    .SALT(1)
) env_a (
    .clk(clk),
    .rst(rst),
    .finished(fin_a)
);

tb_via_tpt_env #(
    .REGIONS(16),
    .CACHE_ENTRIES(64),
    .ADDR_WIDTH(40),
    .DATA_WIDTH(256),
    .TAG_WIDTH(3),
    .MEM_BYTES(131072),
    .READ_LATENCY(5),
    .LOOKUPS(5000),
    .SALT(2)
) env_b (
    .clk(clk),
    .rst(rst),
    .finished(fin_b)
);

tb_via_tpt_env #(
    .REGIONS(64),
    .CACHE_ENTRIES(128),
    .ADDR_WIDTH(64),
    .DATA_WIDTH(512),
    .TAG_WIDTH(1),
    .MEM_BYTES(131072),
    .READ_LATENCY(3),
    .LOOKUPS(3000),
    .SALT(3)
) env_c (
    .clk(clk),
    .rst(rst),
    .finished(fin_c)
);

reg [1023:0] vcd_path;

initial begin
    if ($value$plusargs("vcd=%s", vcd_path)) begin
        $dumpfile(vcd_path);
        $dumpvars(0, tb_via_tpt);
    end
    repeat (10) @(posedge clk);
    #1 rst = 1'b0;
end

initial begin
    wait (rst === 1'b0);
    wait (fin_a === 1'b1 && fin_b === 1'b1 && fin_c === 1'b1);
    repeat (2) @(posedge clk);
    $display("PASS");
    $finish;
end

integer cycle_count = 0;
always @(posedge clk) begin
    cycle_count <= cycle_count + 1;
    if (cycle_count >= TIMEOUT_CYCLES) begin
        $fatal(1, "tb_via_tpt: timeout after %0d cycles (finished: a %b b %b c %b)", TIMEOUT_CYCLES, fin_a, fin_b, fin_c);
    end
end

endmodule
