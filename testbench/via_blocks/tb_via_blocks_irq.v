// tb_via_blocks_irq: checker of via_irq_ctrl (block irq) for tb_via_blocks,
// with NUM_IRQ 5 (bits 5 and up do not exist).
//
// Reset values and decode from the generated table; IRQ_FORCE (w1s, reads
// 0, only existing bits); IRQ_STATUS w1c with byte strobes; IRQ_ENABLE rw
// with byte strobes; IRQ_PENDING = STATUS & ENABLE and irq equal to it in
// every cycle (a monitor); hardware causes (irq_set) set STATUS, win over a
// clear in the same cycle, and are ignored while reset_busy; rst clears.

`timescale 1ns / 1ps

`include "via_bar0.vh"

module tb_via_blocks_irq (
    input  wire clk,
    output reg  done
);

localparam NUM_IRQ = 5;
localparam [31:0] MASK = (32'd1 << NUM_IRQ) - 1;

`include "tb_via_blocks_bus.vh"

reg                rst = 1'b1;
reg                reset_busy = 1'b0;
reg  [NUM_IRQ-1:0] irq_set = {NUM_IRQ{1'b0}};
wire [NUM_IRQ-1:0] irq;

via_irq_ctrl #(
    .NUM_IRQ(NUM_IRQ)
) dut (
    .clk(clk),
    .rst(rst),
    .reset_busy(reset_busy),
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
    .irq_set(irq_set),
    .irq(irq)
);

// irq is IRQ_PENDING in every cycle (sampled where the bench samples)
reg [31:0] mon_word;
reg        mon_on = 1'b0;
always @(negedge clk) begin
    #1;
    if (mon_on && !rst) begin
        bus_peek(`VIA_REG_IRQ_PENDING, mon_word);
        `BLK_CHECK({{(32-NUM_IRQ){1'b0}}, irq} === mon_word, "irq differs from IRQ_PENDING")
    end
end

reg [31:0] w, st, en;

task expect_state;
    input [31:0] exp_status;
    input [31:0] exp_enable;
    begin
        bus_peek(`VIA_REG_IRQ_STATUS, st);
        bus_peek(`VIA_REG_IRQ_ENABLE, en);
        `BLK_CHECK(st === exp_status, "IRQ_STATUS")
        `BLK_CHECK(en === exp_enable, "IRQ_ENABLE")
        bus_peek(`VIA_REG_IRQ_PENDING, w);
        `BLK_CHECK(w === (exp_status & exp_enable), "IRQ_PENDING is not STATUS & ENABLE")
        bus_peek(`VIA_REG_IRQ_FORCE, w);
        `BLK_CHECK(w === 32'd0, "IRQ_FORCE does not read 0")
    end
endtask

initial begin
    done = 1'b0;
    repeat (3) @(negedge clk);
    rst = 1'b0;
    check_reset_values(`VIA_REG_IRQ_STATUS);
    check_decode(`VIA_REG_IRQ_STATUS);
    @(negedge clk);
    mon_on = 1'b1;
    expect_state(0, 0);
    `BLK_CHECK(irq === 0, "irq after reset")

    // FORCE sets the existing bits only
    bus_wr(`VIA_REG_IRQ_FORCE, 32'hffffffff, 4'hf);
    expect_state(MASK, 0);
    // w1c by byte strobe: no strobe, no clear
    bus_wr(`VIA_REG_IRQ_STATUS, 32'hffffffff, 4'he);
    expect_state(MASK, 0);
    bus_wr(`VIA_REG_IRQ_STATUS, 32'h00000005, 4'h1);
    expect_state(MASK & ~32'h5, 0);
    // ENABLE: stored bits exist only below NUM_IRQ, strobes honoured
    bus_wr(`VIA_REG_IRQ_ENABLE, 32'hffffffff, 4'he);
    expect_state(MASK & ~32'h5, 0);
    bus_wr(`VIA_REG_IRQ_ENABLE, 32'hffffff1a, 4'h1);
    expect_state(MASK & ~32'h5, 32'h1a);
    `BLK_CHECK(irq === 5'h1a, "irq = STATUS & ENABLE")
    // a hardware cause sets its bit at the next edge
    @(negedge clk);
    irq_set = 5'b00001;
    @(negedge clk);
    irq_set = 5'b00000;
    expect_state(MASK & ~32'h4, 32'h1a);
    // a clear and a hardware set of the same bit in one cycle: the set wins
    @(negedge clk);
    wr_en = 1'b1;
    wr_addr = `VIA_REG_IRQ_STATUS;
    wr_data = 32'h00000009;
    wr_strb = 4'hf;
    irq_set = 5'b00001;
    @(negedge clk);
    wr_en = 1'b0;
    irq_set = 5'b00000;
    expect_state(MASK & ~32'h4 & ~32'h8, 32'h1a);
    // while reset_busy the hardware causes are ignored
    reset_busy = 1'b1;
    bus_wr(`VIA_REG_IRQ_STATUS, MASK, 4'hf);
    @(negedge clk);
    irq_set = {NUM_IRQ{1'b1}};
    @(negedge clk);
    irq_set = 5'b00000;
    reset_busy = 1'b0;
    expect_state(0, 32'h1a);
    `BLK_CHECK(irq === 0, "irq after everything was cleared")
    // every cause on its own line
    @(negedge clk);
    irq_set = 5'b10000;
    @(negedge clk);
    irq_set = 5'b00000;
    expect_state(32'h10, 32'h1a);
    `BLK_CHECK(irq === 5'h10, "irq of the hardware cause")
    // rst clears STATUS and ENABLE
    @(negedge clk);
    rst = 1'b1;
    @(negedge clk);
    rst = 1'b0;
    expect_state(0, 0);
    `BLK_CHECK(irq === 0, "irq after rst")
    $display("%m: %0d checks ok", checks);
    done = 1'b1;
end

endmodule
