// tb_via_dma_diag: self-checking bench of the DMA diagnostic engine.
//
// Runs the test sequence of tb_via_dma_diag_env on three configurations of
// via_dma_diag side by side, each against its own axi_ram_model:
//   a: the NIC's default (64-bit, 48-bit addresses, bursts of 16, 4 reads
//      in flight)
//   b: widest datapath (512-bit, 32-bit addresses, bursts up to 256, so
//      limited by the 4 KiB page, one read in flight)
//   c: 128-bit, full 64-bit addresses, bursts of 2, 15 reads in flight
// Each sequence runs without and with random back-pressure on every AXI
// handshake. Two more environments run translated copies through a real
// via_tpt (tb_via_dma_diag_xlat_env): d with the NIC's default engine,
// e with a 128-bit engine, bursts of 2 and 15 reads in flight.
// Plusargs: +seed=N (default 1), +vcd=PATH (dump a waveform), +short (for
// waveform checks that need handshakes, not the whole sequence twice: only
// the pass with back-pressure, every third step of it, and a dump of the
// environments' own nets and env_a's engine only).
// Prints PASS when every environment has finished; any failure is a $fatal.

`timescale 1ns / 1ps

module tb_via_dma_diag;

// clock cycles after which the bench declares a hang
localparam TIMEOUT_CYCLES = 2000000;

reg clk = 1'b0;
reg rst = 1'b1;
wire fin_a, fin_b, fin_c, fin_d, fin_e;

always #5 clk = ~clk;

// An environment that has finished gets no more clock edges: its idle engine
// and memory model would cost a simulator as much per cycle as busy ones.
wire clk_a = clk & (fin_a !== 1'b1);
wire clk_b = clk & (fin_b !== 1'b1);
wire clk_c = clk & (fin_c !== 1'b1);
wire clk_d = clk & (fin_d !== 1'b1);
wire clk_e = clk & (fin_e !== 1'b1);

tb_via_dma_diag_env #(
    .DATA_WIDTH(64),
    .ADDR_WIDTH(48),
    .MAX_BURST(16),
    .MAX_OUTSTANDING(4),
    .MEM_BYTES(131072),
    .READ_LATENCY(20),
    .WRITE_LATENCY(4),
    .READY_PROB(50),
    .RANDOM_COPIES(6),
    .SALT(1)
) env_a (
    .clk(clk_a),
    .rst(rst),
    .finished(fin_a)
);

tb_via_dma_diag_env #(
    .DATA_WIDTH(512),
    .ADDR_WIDTH(32),
    .MAX_BURST(256),
    .MAX_OUTSTANDING(1),
    .MEM_BYTES(131072),
    .READ_LATENCY(10),
    .WRITE_LATENCY(1),
    .READY_PROB(50),
    .RANDOM_COPIES(4),
    .SALT(2)
) env_b (
    .clk(clk_b),
    .rst(rst),
    .finished(fin_b)
);

tb_via_dma_diag_env #(
    .DATA_WIDTH(128),
    .ADDR_WIDTH(64),
    .MAX_BURST(2),
    .MAX_OUTSTANDING(15),
    .MEM_BYTES(131072),
    .READ_LATENCY(30),
    .WRITE_LATENCY(8),
    .READY_PROB(40),
    .RANDOM_COPIES(4),
    .SALT(3)
) env_c (
    .clk(clk_c),
    .rst(rst),
    .finished(fin_c)
);

// translated mode, through a real via_tpt (tb_via_dma_diag_xlat_env)
tb_via_dma_diag_xlat_env #(
    .DATA_WIDTH(64),
    .ADDR_WIDTH(48),
    .MAX_BURST(16),
    .MAX_OUTSTANDING(4),
    .READ_LATENCY(12),
    .WRITE_LATENCY(4),
    .READY_PROB(50),
    .RANDOM_COPIES(8),
    .SALT(4)
) env_d (
    .clk(clk_d),
    .rst(rst),
    .finished(fin_d)
);

tb_via_dma_diag_xlat_env #(
    .DATA_WIDTH(128),
    .ADDR_WIDTH(40),
    .MAX_BURST(2),
    .MAX_OUTSTANDING(15),
    .READ_LATENCY(20),
    .WRITE_LATENCY(6),
    .READY_PROB(40),
    .RANDOM_COPIES(4),
    .SALT(5)
) env_e (
    .clk(clk_e),
    .rst(rst),
    .finished(fin_e)
);

reg [1023:0] vcd_path;

initial begin
    if ($value$plusargs("vcd=%s", vcd_path)) begin
        $dumpfile(vcd_path);
        if ($test$plusargs("short")) begin
            // what a waveform check reads: every environment's own nets
            // (its AXI channels) and the first engine's insides
            $dumpvars(1, env_a, env_b, env_c, env_d, env_e);
            $dumpvars(0, env_a.dut);
        end else begin
            $dumpvars(0, tb_via_dma_diag);
        end
    end
    repeat (10) @(posedge clk);
    #1 rst = 1'b0;
end

initial begin
    // (after reset: the environments clear `finished` at time 0, but a
    // simulator's random initial values may show 1 before they run)
    wait (rst === 1'b0);
    wait (fin_a === 1'b1 && fin_b === 1'b1 && fin_c === 1'b1 && fin_d === 1'b1 && fin_e === 1'b1);
    repeat (2) @(posedge clk);
    $display("PASS");
    $finish;
end

// watchdog: no hang may outlive this (counted in cycles: a long # delay
// overflows 32 bits in Verilator)
integer cycle_count = 0;
always @(posedge clk) begin
    cycle_count <= cycle_count + 1;
    if (cycle_count >= TIMEOUT_CYCLES) begin
        $fatal(1, "tb_via_dma_diag: timeout after %0d cycles (finished: a %b b %b c %b d %b e %b)", TIMEOUT_CYCLES, fin_a, fin_b, fin_c, fin_d, fin_e);
    end
end

endmodule
