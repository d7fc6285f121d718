// tb_via_soft_reset: self-checking bench for rtl/via_soft_reset.v.
//
// Two sequencers (CYCLES 1 and 5) see the same stimulus: request pulses, the
// DMA engine's busy, handshakes of its AXI4 master and the network port's
// stall. The bench keeps its own view of what is in flight and checks:
//   - each accepted request gives exactly one one-cycle dma_abort pulse, then
//     blk_rst high for exactly CYCLES consecutive cycles, busy high from the
//     cycle after the request until blk_rst has dropped;
//   - blk_rst never rises while the engine is busy, a valid is pending, a
//     read burst lacks its last R beat, a write burst its W beats or its B
//     response (also when the engine's busy drops too early, and when W data
//     precedes AW), or an m_axis beat is stalled;
//   - requests while busy are ignored.

`timescale 1ns / 1ps

module tb_via_soft_reset;

reg clk = 1'b0;
reg rst = 1'b1;

always #5 clk = ~clk;

reg [8*256-1:0] vcd_file;

initial begin
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_soft_reset);
    end
end

initial begin
    #1000000;
    $fatal(1, "tb_via_soft_reset: watchdog timeout");
end

reg req = 1'b0;
reg dma_busy = 1'b0;
reg awvalid = 1'b0, awready = 1'b0, wvalid = 1'b0, wready = 1'b0, wlast = 1'b0;
reg bvalid = 1'b0, bready = 1'b0, arvalid = 1'b0, arready = 1'b0;
reg rvalid = 1'b0, rready = 1'b0, rlast = 1'b0;
reg net_stalled = 1'b0;

wire [1:0] busy, blk_rst, dma_abort;

via_soft_reset #(
    .CYCLES(1)
) dut1 (
    .clk(clk),
    .rst(rst),
    .req(req),
    .busy(busy[0]),
    .blk_rst(blk_rst[0]),
    .dma_abort(dma_abort[0]),
    .dma_busy(dma_busy),
    .m_axi_awvalid(awvalid),
    .m_axi_awready(awready),
    .m_axi_wvalid(wvalid),
    .m_axi_wready(wready),
    .m_axi_wlast(wlast),
    .m_axi_bvalid(bvalid),
    .m_axi_bready(bready),
    .m_axi_arvalid(arvalid),
    .m_axi_arready(arready),
    .m_axi_rvalid(rvalid),
    .m_axi_rready(rready),
    .m_axi_rlast(rlast),
    .net_stalled(net_stalled)
);

via_soft_reset #(
    .CYCLES(5)
) dut5 (
    .clk(clk),
    .rst(rst),
    .req(req),
    .busy(busy[1]),
    .blk_rst(blk_rst[1]),
    .dma_abort(dma_abort[1]),
    .dma_busy(dma_busy),
    .m_axi_awvalid(awvalid),
    .m_axi_awready(awready),
    .m_axi_wvalid(wvalid),
    .m_axi_wready(wready),
    .m_axi_wlast(wlast),
    .m_axi_bvalid(bvalid),
    .m_axi_bready(bready),
    .m_axi_arvalid(arvalid),
    .m_axi_arready(arready),
    .m_axi_rvalid(rvalid),
    .m_axi_rready(rready),
    .m_axi_rlast(rlast),
    .net_stalled(net_stalled)
);

// the bench's own view: something is in flight that a reset must not cut
reg inflight = 1'b0;

// per sequencer: cycles of the current blk_rst pulse, pulses seen, aborts
integer hold_len [0:1];
integer holds [0:1];
integer aborts [0:1];
reg     prev_blk [0:1];
reg     prev_busy [0:1];
reg     prev_req;
integer k;
integer h0;

initial begin
    for (k = 0; k < 2; k = k + 1) begin
        hold_len[k] = 0;
        holds[k] = 0;
        aborts[k] = 0;
        prev_blk[k] = 1'b0;
        prev_busy[k] = 1'b0;
    end
    prev_req = 1'b0;
end

always @(negedge clk) begin
    if (!rst) begin
        for (k = 0; k < 2; k = k + 1) begin
            if (blk_rst[k] && (inflight || dma_busy || arvalid || awvalid || wvalid || net_stalled)) begin
                $fatal(1, "tb_via_soft_reset: CYCLES=%0d: blk_rst while something is in flight", k ? 5 : 1);
            end
            if (blk_rst[k] && !busy[k]) begin
                $fatal(1, "tb_via_soft_reset: CYCLES=%0d: blk_rst without busy", k ? 5 : 1);
            end
            if (prev_req && !prev_busy[k] && !busy[k]) begin
                $fatal(1, "tb_via_soft_reset: CYCLES=%0d: busy not set the cycle after a request", k ? 5 : 1);
            end
            if (dma_abort[k]) begin
                aborts[k] = aborts[k] + 1;
            end
            if (blk_rst[k]) begin
                hold_len[k] = hold_len[k] + 1;
            end else if (prev_blk[k]) begin
                if (hold_len[k] != (k ? 5 : 1)) begin
                    $fatal(1, "tb_via_soft_reset: CYCLES=%0d: blk_rst held %0d cycles", k ? 5 : 1, hold_len[k]);
                end
                hold_len[k] = 0;
                holds[k] = holds[k] + 1;
            end
            if (prev_busy[k] && !busy[k] && (blk_rst[k] || !prev_blk[k])) begin
                $fatal(1, "tb_via_soft_reset: CYCLES=%0d: busy dropped before the end of blk_rst", k ? 5 : 1);
            end
            prev_blk[k] = blk_rst[k];
            prev_busy[k] = busy[k];
        end
        prev_req = req;
    end
end

// one cycle of the clock; stimulus changes 1 ns after the rising edge
task tick;
    begin
        @(posedge clk) #1;
    end
endtask

task pulse_req;
    begin
        req = 1'b1;
        tick();
        req = 1'b0;
    end
endtask

// wait until both sequencers are idle again, checking the counts
task wait_done;
    input integer expect_holds;
    begin
        while (busy !== 2'b00) tick();
        tick();
        if (holds[0] != expect_holds || holds[1] != expect_holds || aborts[0] != expect_holds
                || aborts[1] != expect_holds) begin
            $fatal(1, "tb_via_soft_reset: holds %0d/%0d aborts %0d/%0d, expected %0d",
                holds[0], holds[1], aborts[0], aborts[1], expect_holds);
        end
    end
endtask

// during DRAIN: nothing may happen for a while
task expect_no_reset;
    input integer cycles;
    begin
        repeat (cycles) begin
            tick();
            if (blk_rst !== 2'b00) begin
                $fatal(1, "tb_via_soft_reset: blk_rst too early");
            end
            if (busy !== 2'b11) begin
                $fatal(1, "tb_via_soft_reset: busy dropped while draining");
            end
        end
    end
endtask

initial begin
    repeat (4) tick();
    rst = 1'b0;
    tick();

    // 1. nothing in flight
    pulse_req();
    wait_done(1);

    // 2. the engine stays busy for a while
    dma_busy = 1'b1;
    pulse_req();
    expect_no_reset(20);
    dma_busy = 1'b0;
    wait_done(2);

    // 3. a read burst whose R beats are still owed, with busy already low
    arvalid = 1'b1;
    tick();
    pulse_req();               // request while arvalid is pending
    inflight = 1'b1;
    expect_no_reset(3);
    arready = 1'b1;
    tick();                    // AR accepted
    arvalid = 1'b0;
    arready = 1'b0;
    expect_no_reset(5);
    rvalid = 1'b1;
    rready = 1'b0;
    expect_no_reset(3);
    rready = 1'b1;             // first beat
    tick();
    rvalid = 1'b0;
    expect_no_reset(3);
    rvalid = 1'b1;
    rlast = 1'b1;              // last beat
    tick();
    inflight = 1'b0;
    rvalid = 1'b0;
    rlast = 1'b0;
    rready = 1'b0;
    wait_done(3);

    // 4. a write burst: AW, W beats (mid-burst pause), B
    awvalid = 1'b1;
    awready = 1'b1;
    pulse_req();               // AW accepted in the request cycle
    inflight = 1'b1;
    awvalid = 1'b0;
    awready = 1'b0;
    expect_no_reset(3);
    wvalid = 1'b1;
    wready = 1'b1;
    tick();                    // beat 0
    wvalid = 1'b0;
    expect_no_reset(4);
    wvalid = 1'b1;
    wlast = 1'b1;
    tick();                    // beat 1, last
    wvalid = 1'b0;
    wlast = 1'b0;
    wready = 1'b0;
    expect_no_reset(4);
    bvalid = 1'b1;
    expect_no_reset(2);
    bready = 1'b1;
    tick();
    inflight = 1'b0;
    bvalid = 1'b0;
    bready = 1'b0;
    wait_done(4);

    // 5. W data before AW: a first beat before the request, the rest and
    //    the AW while draining
    wvalid = 1'b1;
    wready = 1'b1;
    tick();
    wvalid = 1'b0;
    wready = 1'b0;
    inflight = 1'b1;
    pulse_req();
    expect_no_reset(4);
    wvalid = 1'b1;
    wready = 1'b1;
    wlast = 1'b1;
    tick();
    wvalid = 1'b0;
    wready = 1'b0;
    wlast = 1'b0;
    expect_no_reset(3);
    awvalid = 1'b1;
    awready = 1'b1;
    tick();
    awvalid = 1'b0;
    awready = 1'b0;
    expect_no_reset(3);
    bvalid = 1'b1;
    bready = 1'b1;
    tick();
    bvalid = 1'b0;
    bready = 1'b0;
    inflight = 1'b0;
    while (busy !== 2'b00) tick();
    tick();

    // 6. a stalled m_axis beat holds the reset back
    net_stalled = 1'b1;
    h0 = holds[0];
    pulse_req();
    expect_no_reset(10);
    net_stalled = 1'b0;
    while (busy !== 2'b00) tick();
    tick();
    if (holds[0] != h0 + 1 || holds[1] != h0 + 1) begin
        $fatal(1, "tb_via_soft_reset: no reset after the stall");
    end

    // 7. requests while busy are ignored
    h0 = holds[0];
    dma_busy = 1'b1;
    pulse_req();
    tick();
    pulse_req();
    tick();
    pulse_req();
    dma_busy = 1'b0;
    while (busy !== 2'b00) tick();
    repeat (10) tick();
    if (holds[0] != h0 + 1 || holds[1] != h0 + 1 || aborts[0] != holds[0] || aborts[1] != holds[1]) begin
        $fatal(1, "tb_via_soft_reset: requests while busy were not ignored");
    end

    // 8. back-to-back requests after the end of one reset
    pulse_req();
    while (busy !== 2'b00) tick();
    pulse_req();
    while (busy !== 2'b00) tick();
    repeat (3) tick();
    if (holds[0] != h0 + 3 || holds[1] != h0 + 3) begin
        $fatal(1, "tb_via_soft_reset: back-to-back requests: %0d holds", holds[0] - h0);
    end

    $display("tb_via_soft_reset: %0d soft resets", holds[0]);
    $display("PASS");
    $finish;
end

endmodule
