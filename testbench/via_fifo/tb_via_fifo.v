// tb_via_fifo: self-checking bench for rtl/via_fifo.v.
//
// Four FIFOs of different depths (2, 5, 16, 64; two of them not a power of
// two), each fed by an axis_source and drained by an axis_sink (tlast, tkeep
// and tdata packed into one entry). Per FIFO, concurrently:
//   1. fill: sink stalled, the FIFO takes exactly DEPTH entries, then s_ready
//      stays 0; the head entry is presented and stable;
//   2. drain everything, in order;
//   3. throughput: back to back in and out, one entry per cycle;
//   4. random traffic with random gaps and back-pressure;
// every entry received is compared with the one sent, and the level output
// with the entries pushed minus those popped, every cycle.

`timescale 1ns / 1ps

module tb_via_fifo;

reg clk = 1'b0;
reg rst = 1'b1;

always #5 clk = ~clk;

reg [8*256-1:0] vcd_file;

initial begin
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_fifo);
    end
end

// watchdog
initial begin
    #2000000;
    $fatal(1, "tb_via_fifo: watchdog timeout");
end

tb_via_fifo_chain #(.DEPTH(2))  ch0 (.clk(clk), .rst(rst));
tb_via_fifo_chain #(.DEPTH(5))  ch1 (.clk(clk), .rst(rst));
tb_via_fifo_chain #(.DEPTH(16)) ch2 (.clk(clk), .rst(rst));
tb_via_fifo_chain #(.DEPTH(64)) ch3 (.clk(clk), .rst(rst));

initial begin
    repeat (5) @(posedge clk);
    #1;
    rst = 1'b0;
    wait (ch0.finished && ch1.finished && ch2.finished && ch3.finished);
    $display("PASS");
    $finish;
end

endmodule

// one FIFO with its source, sink and test sequence
module tb_via_fifo_chain #(
    parameter DEPTH = 16
) (
    input wire clk,
    input wire rst
);

localparam DATA_WIDTH = 32;
localparam KEEP_WIDTH = 4;
localparam WIDTH = DATA_WIDTH + KEEP_WIDTH + 1;

wire [DATA_WIDTH-1:0] s_tdata, m_tdata;
wire [KEEP_WIDTH-1:0] s_tkeep, m_tkeep;
wire                  s_tvalid, s_tready, s_tlast;
wire                  m_tvalid, m_tready, m_tlast;

axis_source #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .SEED_SALT(DEPTH)
) src (
    .clk(clk),
    .rst(rst),
    .m_axis_tdata(s_tdata),
    .m_axis_tkeep(s_tkeep),
    .m_axis_tvalid(s_tvalid),
    .m_axis_tready(s_tready),
    .m_axis_tlast(s_tlast)
);

wire [$clog2(DEPTH + 1)-1:0] level;

via_fifo #(
    .WIDTH(WIDTH),
    .DEPTH(DEPTH)
) dut (
    .clk(clk),
    .rst(rst),
    .s_data({s_tlast, s_tkeep, s_tdata}),
    .s_valid(s_tvalid),
    .s_ready(s_tready),
    .m_data({m_tlast, m_tkeep, m_tdata}),
    .m_valid(m_tvalid),
    .m_ready(m_tready),
    .level(level)
);

// level: the entries held, checked every cycle against pushes minus pops
integer exp_level;

always @(posedge clk) begin
    if (rst) begin
        exp_level <= 0;
    end else begin
        if (level !== exp_level[$clog2(DEPTH + 1)-1:0]) begin
            $fatal(1, "tb_via_fifo: DEPTH %0d: level %0d, expected %0d", DEPTH, level, exp_level);
        end
        exp_level <= exp_level + ((s_tvalid && s_tready) ? 1 : 0) - ((m_tvalid && m_tready) ? 1 : 0);
    end
end

axis_sink #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .SEED_SALT(DEPTH)
) snk (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(m_tdata),
    .s_axis_tkeep(m_tkeep),
    .s_axis_tvalid(m_tvalid),
    .s_axis_tready(m_tready),
    .s_axis_tlast(m_tlast)
);

reg finished;
initial finished = 1'b0;
integer i, n, t0, t1;

task check_all;
    begin
        if (snk.received != src.sent) begin
            $fatal(1, "tb_via_fifo[%0d]: %0d entries out, %0d in", DEPTH, snk.received, src.sent);
        end
        for (i = 0; i < snk.received; i = i + 1) begin
            if (snk.r_data[i] !== src.q_data[i] || snk.r_keep[i] !== src.q_keep[i]
                    || snk.r_last[i] !== src.q_last[i]) begin
                $fatal(1, "tb_via_fifo[%0d]: entry %0d is %h/%h/%b, sent %h/%h/%b", DEPTH, i,
                    snk.r_data[i], snk.r_keep[i], snk.r_last[i],
                    src.q_data[i], src.q_keep[i], src.q_last[i]);
            end
        end
    end
endtask

initial begin
    src.gap_pct = 0;
    snk.ready_pct = 0;
    @(negedge rst);
    @(posedge clk);

    // 1. fill
    if (dut.m_valid !== 1'b0 || dut.s_ready !== 1'b1) begin
        $fatal(1, "tb_via_fifo[%0d]: not empty after reset", DEPTH);
    end
    src.send_frame(DEPTH + 3);
    repeat (DEPTH + 20) @(posedge clk);
    @(negedge clk);
    if (src.sent != DEPTH) begin
        $fatal(1, "tb_via_fifo[%0d]: took %0d entries while stalled", DEPTH, src.sent);
    end
    if (dut.s_ready !== 1'b0 || dut.m_valid !== 1'b1) begin
        $fatal(1, "tb_via_fifo[%0d]: full but s_ready %b m_valid %b", DEPTH, dut.s_ready, dut.m_valid);
    end
    if (m_tdata !== src.q_data[0]) begin
        $fatal(1, "tb_via_fifo[%0d]: head is %h, expected %h", DEPTH, m_tdata, src.q_data[0]);
    end

    // 2. drain
    snk.ready_pct = 100;
    src.wait_idle();
    repeat (DEPTH + 5) @(posedge clk);
    check_all();
    if (dut.m_valid !== 1'b0) begin
        $fatal(1, "tb_via_fifo[%0d]: not empty after drain", DEPTH);
    end

    // 3. throughput: 200 entries back to back in about 200 cycles
    n = snk.received;
    @(posedge clk);
    t0 = $time;
    src.send_frames(20, 10);
    while (snk.received < n + 200) @(posedge clk);
    t1 = $time;
    if ((t1 - t0) / 10 > 200 + 4) begin
        $fatal(1, "tb_via_fifo[%0d]: 200 entries took %0d cycles", DEPTH, (t1 - t0) / 10);
    end
    check_all();

    // 4. random traffic, with the back-pressure changing along the way
    src.gap_pct = 30;
    for (n = 0; n < 6; n = n + 1) begin
        snk.ready_pct = (n % 3 == 0) ? 20 : (n % 3 == 1) ? 50 : 90;
        src.send_random_frames(20, 12);
        src.wait_idle();
    end
    snk.ready_pct = 100;
    repeat (DEPTH + 5) @(posedge clk);
    check_all();
    if (snk.frames_received != src.frames_sent) begin
        $fatal(1, "tb_via_fifo[%0d]: %0d frames out, %0d in", DEPTH, snk.frames_received, src.frames_sent);
    end
    $display("tb_via_fifo: depth %0d: %0d entries ok", DEPTH, snk.received);
    finished = 1'b1;
end

endmodule
