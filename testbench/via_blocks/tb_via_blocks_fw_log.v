// tb_via_blocks_fw_log: checker of via_fw_log (block fw_log) for
// tb_via_blocks, with DEPTH 3.
//
// Reset values and decode from the generated table; pushes fill the FIFO
// (LEVEL.WORDS, space), pushes into a full FIFO are dropped and counted in
// LEVEL.DROPPED; a read of FW_LOG that is not consumed (rd_fire 0: the
// firmware's view) shows the head without popping, a consumed one pops, in
// order, and an empty log reads 0; a consumed read of FW_LOG_LEVEL clears
// DROPPED (an unconsumed one does not), a drop in the cycle of the clear
// counts after it; writes change nothing; rst empties the log.

`timescale 1ns / 1ps

`include "via_bar0.vh"

module tb_via_blocks_fw_log (
    input  wire clk,
    output reg  done
);

localparam DEPTH = 3;

`include "tb_via_blocks_bus.vh"

reg         rst = 1'b1;
reg         push = 1'b0;
reg  [31:0] push_data = 32'd0;
wire [15:0] space;

via_fw_log #(
    .DEPTH(DEPTH)
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
    .rd_fire(rd_fire),
    .rd_hit(rd_hit),
    .rd_data(rd_data),
    .push(push),
    .push_data(push_data),
    .space(space)
);

reg [31:0] w;
integer k;

task do_push;
    input [31:0] d;
    begin
        @(negedge clk);
        push = 1'b1;
        push_data = d;
        @(negedge clk);
        push = 1'b0;
    end
endtask

task expect_level;
    input integer words;
    input integer dropped;
    begin
        bus_peek(`VIA_REG_FW_LOG_LEVEL, w);
        `BLK_CHECK(w[`VIA_FW_LOG_LEVEL_WORDS_RANGE] === words, "FW_LOG_LEVEL.WORDS")
        `BLK_CHECK(w[`VIA_FW_LOG_LEVEL_DROPPED_RANGE] === dropped, "FW_LOG_LEVEL.DROPPED")
        `BLK_CHECK(space === DEPTH - words, "space is not DEPTH - WORDS")
    end
endtask

initial begin
    done = 1'b0;
    repeat (3) @(negedge clk);
    rst = 1'b0;
    check_reset_values(`VIA_REG_FW_LOG);
    check_decode(`VIA_REG_FW_LOG);
    expect_level(0, 0);
    bus_rd(`VIA_REG_FW_LOG, 1'b1, w);
    `BLK_CHECK(w === 32'd0, "an empty log reads 0")
    expect_level(0, 0);

    // fill, then two drops
    for (k = 0; k < DEPTH + 2; k = k + 1) begin
        do_push(32'h10203040 + k);
    end
    expect_level(DEPTH, 2);
    // writes (ro registers) change nothing
    bus_wr(`VIA_REG_FW_LOG, 32'hffffffff, 4'hf);
    bus_wr(`VIA_REG_FW_LOG_LEVEL, 32'hffffffff, 4'hf);
    expect_level(DEPTH, 2);
    // the firmware's view: the head, no pop, no clear
    bus_rd(`VIA_REG_FW_LOG, 1'b0, w);
    `BLK_CHECK(w === 32'h10203040, "unconsumed FW_LOG read: not the head word")
    bus_rd(`VIA_REG_FW_LOG_LEVEL, 1'b0, w);
    expect_level(DEPTH, 2);
    // a consumed FW_LOG_LEVEL read clears DROPPED; a drop in the same cycle
    // counts after the clear
    @(negedge clk);
    rd_en = 1'b1;
    rd_addr = `VIA_REG_FW_LOG_LEVEL;
    rd_fire = 1'b1;
    push = 1'b1;
    push_data = 32'hdeadbeef;
    @(negedge clk);
    rd_en = 1'b0;
    rd_fire = 1'b0;
    push = 1'b0;
    expect_level(DEPTH, 1);
    bus_rd(`VIA_REG_FW_LOG_LEVEL, 1'b1, w);
    expect_level(DEPTH, 0);
    // consumed reads pop in order
    for (k = 0; k < DEPTH; k = k + 1) begin
        bus_rd(`VIA_REG_FW_LOG, 1'b1, w);
        `BLK_CHECK(w === 32'h10203040 + k, "FW_LOG pops out of order")
        expect_level(DEPTH - 1 - k, 0);
    end
    bus_rd(`VIA_REG_FW_LOG, 1'b1, w);
    `BLK_CHECK(w === 32'd0, "an emptied log reads 0")
    expect_level(0, 0);
    // a push and a pop in the same cycle
    do_push(32'h0000aaaa);
    @(negedge clk);
    rd_en = 1'b1;
    rd_addr = `VIA_REG_FW_LOG;
    rd_fire = 1'b1;
    push = 1'b1;
    push_data = 32'h0000bbbb;
    #1;
    `BLK_CHECK(rd_data === 32'h0000aaaa, "FW_LOG head")
    @(negedge clk);
    rd_en = 1'b0;
    rd_fire = 1'b0;
    push = 1'b0;
    expect_level(1, 0);
    bus_peek(`VIA_REG_FW_LOG, w);
    `BLK_CHECK(w === 32'h0000bbbb, "the word pushed while popping")
    // rst empties the log
    do_push(32'h1);
    @(negedge clk);
    rst = 1'b1;
    @(negedge clk);
    rst = 1'b0;
    expect_level(0, 0);
    $display("%m: %0d checks ok", checks);
    done = 1'b1;
end

endmodule
