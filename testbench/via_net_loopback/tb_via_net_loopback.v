// tb_via_net_loopback: self-checking bench for rtl/via_net_loopback.v.
//
// axis_source -> via_net_loopback's port path (s_axis -> m_axis) -> its
// engine path (e_tx -> e_rx) -> axis_sink, in series, 64-bit datapath,
// default FIFO depth (64 beats) in both:
//   1. back-pressure: sink stalled, exactly 2 x FIFO_DEPTH beats are taken
//      (both FIFOs full), then s_axis_tready stays 0; rx_frames counts the
//      complete frames taken on s_axis, tx_frames those that left m_axis;
//   2. release: everything comes out, frame counters match;
//   3. random frames (1..40 beats, partial tkeep on the last beat) with random
//      gaps and back-pressure of varying strength, with quiesce raised now and
//      then: while it is 1, s_axis_tready is 0, a beat already offered on
//      m_axis stays until taken, and then m_axis_tvalid stays 0; nothing is
//      lost;
// every beat (tdata, tkeep, tlast) out is compared with the one sent in, and
// the frame counters, read through the block's registers (NET_RX_FRAMES,
// NET_TX_FRAMES on the register-block bus), with the frames sent and
// received. The register decode: both registers hit (reads and writes; a
// write changes nothing), the words around them and in the rest of the
// register space do not and read 0; a block reset clears the counters.

`timescale 1ns / 1ps

`include "via_bar0.vh"

module tb_via_net_loopback;

localparam DATA_WIDTH = 64;
localparam KEEP_WIDTH = DATA_WIDTH / 8;
localparam FIFO_DEPTH = 64;

reg clk = 1'b0;
reg rst = 1'b1;
reg quiesce = 1'b0;

always #5 clk = ~clk;

reg [8*256-1:0] vcd_file;

initial begin
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_net_loopback);
    end
end

initial begin
    #5000000;
    $fatal(1, "tb_via_net_loopback: watchdog timeout");
end

wire [DATA_WIDTH-1:0] s_axis_tdata, m_axis_tdata;
wire [KEEP_WIDTH-1:0] s_axis_tkeep, m_axis_tkeep;
wire                  s_axis_tvalid, s_axis_tready, s_axis_tlast;
wire                  m_axis_tvalid, m_axis_tready, m_axis_tlast;
// between the port's loopback and the engine path
wire [DATA_WIDTH-1:0]   p_tdata;
wire [DATA_WIDTH/8-1:0] p_tkeep;
wire                    p_tvalid, p_tready, p_tlast;
reg  [31:0]           rx_frames, tx_frames;

// the register-block bus
reg         wr_en = 1'b0;
reg  [15:0] wr_addr = 16'd0;
reg  [31:0] wr_data = 32'd0;
reg  [3:0]  wr_strb = 4'hf;
reg         rd_en = 1'b0;
reg  [15:0] rd_addr = 16'd0;
wire        wr_hit, rd_hit;
wire [31:0] rd_data;

axis_source #(
    .DATA_WIDTH(DATA_WIDTH)
) src (
    .clk(clk),
    .rst(rst),
    .m_axis_tdata(s_axis_tdata),
    .m_axis_tkeep(s_axis_tkeep),
    .m_axis_tvalid(s_axis_tvalid),
    .m_axis_tready(s_axis_tready),
    .m_axis_tlast(s_axis_tlast)
);

via_net_loopback #(
    .DATA_WIDTH(DATA_WIDTH),
    .KEEP_WIDTH(KEEP_WIDTH),
    .FIFO_DEPTH(FIFO_DEPTH)
) dut (
    .clk(clk),
    .rst(rst),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(wr_strb),
    .wr_hit(wr_hit),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(rd_en),
    .rd_hit(rd_hit),
    .rd_data(rd_data),
    .quiesce(quiesce),
    .s_axis_tdata(s_axis_tdata),
    .s_axis_tkeep(s_axis_tkeep),
    .s_axis_tvalid(s_axis_tvalid),
    .s_axis_tready(s_axis_tready),
    .s_axis_tlast(s_axis_tlast),
    .m_axis_tdata(p_tdata),
    .m_axis_tkeep(p_tkeep),
    .m_axis_tvalid(p_tvalid),
    .m_axis_tready(p_tready),
    .m_axis_tlast(p_tlast),
    // the engine path in series: m_axis -> e_tx -> e_rx -> the sink
    .e_tx_tdata(p_tdata),
    .e_tx_tkeep(p_tkeep),
    .e_tx_tvalid(p_tvalid),
    .e_tx_tready(p_tready),
    .e_tx_tlast(p_tlast),
    .e_rx_tdata(m_axis_tdata),
    .e_rx_tkeep(m_axis_tkeep),
    .e_rx_tvalid(m_axis_tvalid),
    .e_rx_tready(m_axis_tready),
    .e_rx_tlast(m_axis_tlast),
    .e_busy()
);

axis_sink #(
    .DATA_WIDTH(DATA_WIDTH)
) snk (
    .clk(clk),
    .rst(rst),
    .s_axis_tdata(m_axis_tdata),
    .s_axis_tkeep(m_axis_tkeep),
    .s_axis_tvalid(m_axis_tvalid),
    .s_axis_tready(m_axis_tready),
    .s_axis_tlast(m_axis_tlast)
);

integer i, n;

// quiesce checks: no beat taken in, and once m_axis_tvalid is 0 it stays 0
integer quiesce_cycles = 0, quiesce_idle = 0;
reg     out_stopped = 1'b0;

always @(negedge clk) begin
    if (quiesce) begin
        quiesce_cycles = quiesce_cycles + 1;
        if (s_axis_tready !== 1'b0) begin
            $fatal(1, "tb_via_net_loopback: s_axis_tready while quiesced");
        end
        if (out_stopped && m_axis_tvalid) begin
            $fatal(1, "tb_via_net_loopback: a new beat offered while quiesced");
        end
        if (!m_axis_tvalid) begin
            out_stopped = 1'b1;
            quiesce_idle = quiesce_idle + 1;
        end
    end else begin
        out_stopped = 1'b0;
    end
end

// raise quiesce now and then during phase 3
reg quiesce_on = 1'b0;
reg [31:0] qr;

always @(posedge clk) begin
    #1;
    if (quiesce_on) begin
        src.rand32(qr);
        if (quiesce ? qr % 100 < 8 : qr % 100 < 2) begin
            quiesce = !quiesce;
        end
    end else begin
        quiesce = 1'b0;
    end
end

task check_beats;
    begin
        if (snk.received != src.sent) begin
            $fatal(1, "tb_via_net_loopback: %0d beats out, %0d in", snk.received, src.sent);
        end
        for (i = 0; i < snk.received; i = i + 1) begin
            if (snk.r_data[i] !== src.q_data[i] || snk.r_keep[i] !== src.q_keep[i]
                    || snk.r_last[i] !== src.q_last[i]) begin
                $fatal(1, "tb_via_net_loopback: beat %0d is %h/%h/%b, sent %h/%h/%b", i,
                    snk.r_data[i], snk.r_keep[i], snk.r_last[i], src.q_data[i], src.q_keep[i], src.q_last[i]);
            end
        end
    end
endtask

// one register read in the current cycle (the answer is combinational)
task reg_read;
    input  [15:0] a;
    output [31:0] d;
    output        hit;
    begin
        rd_en = 1'b1;
        rd_addr = a;
        #0.01;
        d = rd_data;
        hit = rd_hit;
        rd_en = 1'b0;
        #0.01;
        if (rd_hit !== 1'b0 || rd_data !== 32'd0) begin
            $fatal(1, "tb_via_net_loopback: the block answers a read without rd_en");
        end
    end
endtask

reg        hit_rx, hit_tx, hit;
reg [31:0] word;
integer    off;

task check_counters;
    input integer rx;
    input integer tx;
    begin
        @(negedge clk);
        reg_read(`VIA_REG_NET_RX_FRAMES, rx_frames, hit_rx);
        reg_read(`VIA_REG_NET_TX_FRAMES, tx_frames, hit_tx);
        if (!hit_rx || !hit_tx) begin
            $fatal(1, "tb_via_net_loopback: NET_RX_FRAMES/NET_TX_FRAMES do not hit");
        end
        if (rx_frames !== rx || tx_frames !== tx) begin
            $fatal(1, "tb_via_net_loopback: rx_frames %0d tx_frames %0d, expected %0d %0d", rx_frames, tx_frames, rx, tx);
        end
    end
endtask

initial begin
    src.gap_pct = 0;
    snk.ready_pct = 0;
    repeat (5) @(posedge clk);
    #1;
    rst = 1'b0;
    @(posedge clk);
    check_counters(0, 0);

    // the decode: the two registers (all byte offsets of their words), and
    // no other word of the register space; writes hit and change nothing
    for (off = 0; off < `VIA_GLOBAL_BYTES; off = off + 1) begin
        reg_read(off, word, hit);
        wr_addr = off;
        #0.01;
        if (hit !== (off[15:2] == `VIA_REG_NET_RX_FRAMES >> 2 || off[15:2] == `VIA_REG_NET_TX_FRAMES >> 2)
                || wr_hit !== hit || (!hit && word !== 32'd0)) begin
            $fatal(1, "tb_via_net_loopback: decode of offset 0x%0h: rd_hit %b wr_hit %b data 0x%0h", off, hit, wr_hit, word);
        end
    end
    @(negedge clk);
    wr_en = 1'b1;
    wr_data = 32'hffffffff;
    wr_addr = `VIA_REG_NET_RX_FRAMES;
    @(negedge clk);
    wr_addr = `VIA_REG_NET_TX_FRAMES;
    @(negedge clk);
    wr_en = 1'b0;
    check_counters(0, 0);

    // 1. back-pressure fills the FIFO
    // (both FIFOs, the port's and the engine path's, fill: 2 x FIFO_DEPTH
    // beats; 4 frames of 30 beats pass s_axis, 2 pass m_axis)
    for (n = 0; n < 5; n = n + 1) begin
        src.send_frame(30);
    end
    repeat (2 * FIFO_DEPTH + 30) @(posedge clk);
    @(negedge clk);
    if (src.sent != 2 * FIFO_DEPTH || s_axis_tready !== 1'b0 || m_axis_tvalid !== 1'b1) begin
        $fatal(1, "tb_via_net_loopback: stalled: %0d beats taken, tready %b tvalid %b",
            src.sent, s_axis_tready, m_axis_tvalid);
    end
    check_counters(4, 2);

    // 2. release
    snk.ready_pct = 100;
    src.wait_idle();
    snk.wait_frames(5);
    check_counters(5, 5);
    check_beats();

    // 3. random traffic
    src.gap_pct = 25;
    quiesce_on = 1'b1;
    for (n = 0; n < 8; n = n + 1) begin
        snk.ready_pct = (n % 4 == 0) ? 10 : (n % 4 == 1) ? 40 : (n % 4 == 2) ? 75 : 100;
        src.gap_pct = (n % 3 == 0) ? 0 : (n % 3 == 1) ? 25 : 60;
        src.send_random_frames(25, 40);
        src.wait_idle();
    end
    quiesce_on = 1'b0;
    snk.ready_pct = 100;
    snk.wait_frames(src.frames_sent);
    repeat (3) @(posedge clk);
    check_beats();
    if (quiesce_cycles == 0 || quiesce_idle == 0) begin
        $fatal(1, "tb_via_net_loopback: quiesce not exercised");
    end
    check_counters(src.frames_sent, snk.frames_received);
    if (snk.frames_received != 5 + 200) begin
        $fatal(1, "tb_via_net_loopback: %0d frames received", snk.frames_received);
    end
    // a block reset clears the counters
    @(negedge clk);
    rst = 1'b1;
    @(negedge clk);
    rst = 1'b0;
    check_counters(0, 0);

    $display("tb_via_net_loopback: %0d frames, %0d beats ok; %0d cycles quiesced", snk.frames_received,
        snk.received, quiesce_cycles);
    $display("PASS");
    $finish;
end

endmodule
