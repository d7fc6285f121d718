// tb_via_blocks_admin: checker of via_admin_mbox (block admin) for
// tb_via_blocks.
//
// Reset values and decode from the generated table; ADMIN_DOORBELL while the
// core is held in reset (run 0) or while BUSY is REJECTED without an event;
// otherwise BUSY, DONE and REJECTED cleared, and exactly one admin_event the
// cycle after; complete while BUSY sets DONE, clears BUSY and raises
// done_irq in its cycle (ignored when not BUSY); run 0 clears BUSY; the
// windows: ADMIN_CMD written by the host with byte strobes, read back by the
// host and by the firmware (data the cycle after the enable); ADMIN_RSP
// written by the firmware with byte strobes and read by the host; rst
// clears the status.

`timescale 1ns / 1ps

`include "via_bar0.vh"

module tb_via_blocks_admin (
    input  wire clk,
    output reg  done
);

`include "tb_via_blocks_bus.vh"

reg         rst = 1'b1;
reg         run = 1'b0;
reg         complete = 1'b0;
wire        admin_event, done_irq;
reg         host_cmd_wr = 1'b0, host_cmd_rd = 1'b0, host_rsp_rd = 1'b0;
reg  [5:0]  host_wr_word = 6'd0, host_rd_word = 6'd0;
wire [31:0] host_cmd_rdata, host_rsp_rdata;
reg         fw_cmd_en = 1'b0;
reg  [5:0]  fw_cmd_addr = 6'd0;
wire [31:0] fw_cmd_rdata;
reg         fw_rsp_en = 1'b0;
reg  [3:0]  fw_rsp_we = 4'd0;
reg  [5:0]  fw_rsp_addr = 6'd0;
reg  [31:0] fw_rsp_wdata = 32'd0;
wire [31:0] fw_rsp_rdata;

via_admin_mbox dut (
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
    .run(run),
    .admin_event(admin_event),
    .complete(complete),
    .done_irq(done_irq),
    .host_cmd_wr(host_cmd_wr),
    .host_cmd_rd(host_cmd_rd),
    .host_rsp_rd(host_rsp_rd),
    .host_wr_word(host_wr_word),
    .host_rd_word(host_rd_word),
    .host_cmd_rdata(host_cmd_rdata),
    .host_rsp_rdata(host_rsp_rdata),
    .fw_cmd_en(fw_cmd_en),
    .fw_cmd_addr(fw_cmd_addr),
    .fw_cmd_rdata(fw_cmd_rdata),
    .fw_rsp_en(fw_rsp_en),
    .fw_rsp_we(fw_rsp_we),
    .fw_rsp_addr(fw_rsp_addr),
    .fw_rsp_wdata(fw_rsp_wdata),
    .fw_rsp_rdata(fw_rsp_rdata)
);

// admin_event and done_irq pulses, counted at the rising edge
integer events = 0, irqs = 0;
always @(posedge clk) begin
    if (!rst && admin_event === 1'b1) events = events + 1;
    if (!rst && done_irq === 1'b1) irqs = irqs + 1;
end

reg [31:0] w;

task expect_status;
    input exp_busy;
    input exp_done;
    input exp_rej;
    begin
        bus_peek(`VIA_REG_ADMIN_STATUS, w);
        `BLK_CHECK(w[`VIA_ADMIN_STATUS_BUSY_LSB] === exp_busy, "ADMIN_STATUS.BUSY")
        `BLK_CHECK(w[`VIA_ADMIN_STATUS_DONE_LSB] === exp_done, "ADMIN_STATUS.DONE")
        `BLK_CHECK(w[`VIA_ADMIN_STATUS_REJECTED_LSB] === exp_rej, "ADMIN_STATUS.REJECTED")
    end
endtask

task fw_complete;
    begin
        @(negedge clk);
        complete = 1'b1;
        #1;
        w = done_irq;
        @(negedge clk);
        complete = 1'b0;
    end
endtask

initial begin
    done = 1'b0;
    repeat (3) @(negedge clk);
    rst = 1'b0;
    check_reset_values(`VIA_REG_ADMIN_STATUS);
    check_decode(`VIA_REG_ADMIN_STATUS);
    expect_status(1'b0, 1'b0, 1'b0);

    // run 0: rejected
    bus_wr(`VIA_REG_ADMIN_DOORBELL, 32'h0, 4'hf);
    repeat (2) @(negedge clk);
    expect_status(1'b0, 1'b0, 1'b1);
    `BLK_CHECK(events == 0, "an event for a rejected doorbell")
    // accepted: one event the cycle after the write
    run = 1'b1;
    @(negedge clk);
    wr_en = 1'b1;
    wr_addr = `VIA_REG_ADMIN_DOORBELL;
    wr_data = 32'h12345678;
    wr_strb = 4'hf;
    @(negedge clk);
    wr_en = 1'b0;
    `BLK_CHECK(admin_event === 1'b1, "no admin_event the cycle after the doorbell")
    @(negedge clk);
    `BLK_CHECK(admin_event === 1'b0 && events == 1, "not exactly one admin_event")
    expect_status(1'b1, 1'b0, 1'b0);
    // while BUSY: rejected, BUSY stays, no event
    bus_wr(`VIA_REG_ADMIN_DOORBELL, 32'h0, 4'hf);
    repeat (2) @(negedge clk);
    expect_status(1'b1, 1'b0, 1'b1);
    `BLK_CHECK(events == 1, "an event for a doorbell while BUSY")
    // complete: DONE, done_irq in its cycle
    fw_complete;
    `BLK_CHECK(w === 1, "done_irq not in the cycle of complete")
    expect_status(1'b0, 1'b1, 1'b1);
    `BLK_CHECK(irqs == 1, "not one done_irq")
    // complete when not BUSY: ignored
    fw_complete;
    `BLK_CHECK(irqs == 1 && w === 0, "done_irq for a complete while not BUSY")
    expect_status(1'b0, 1'b1, 1'b1);
    // a new command clears DONE and REJECTED; run 0 abandons it
    bus_wr(`VIA_REG_ADMIN_DOORBELL, 32'h0, 4'hf);
    @(negedge clk);
    expect_status(1'b1, 1'b0, 1'b0);
    `BLK_CHECK(events == 2, "no event for the second command")
    run = 1'b0;
    @(negedge clk);
    expect_status(1'b0, 1'b0, 1'b0);
    fw_complete;
    `BLK_CHECK(irqs == 1, "done_irq for an abandoned command")
    // status writes change nothing
    bus_wr(`VIA_REG_ADMIN_STATUS, 32'hffffffff, 4'hf);
    expect_status(1'b0, 1'b0, 1'b0);

    // command window: host writes word 5 with strobes, host and firmware read
    @(negedge clk);
    host_cmd_wr = 1'b1;
    host_wr_word = 6'd5;
    wr_data = 32'haabbccdd;
    wr_strb = 4'hf;
    @(negedge clk);
    wr_data = 32'h11223344;
    wr_strb = 4'h5;
    @(negedge clk);
    host_cmd_wr = 1'b0;
    wr_strb = 4'h0;
    host_cmd_rd = 1'b1;
    host_rd_word = 6'd5;
    fw_cmd_en = 1'b1;
    fw_cmd_addr = 6'd5;
    @(negedge clk);
    host_cmd_rd = 1'b0;
    fw_cmd_en = 1'b0;
    `BLK_CHECK(host_cmd_rdata === 32'haa22cc44, "ADMIN_CMD word read back by the host")
    `BLK_CHECK(fw_cmd_rdata === 32'haa22cc44, "ADMIN_CMD word read by the firmware")
    // response window: the firmware writes word 63 with strobes, the host reads
    @(negedge clk);
    fw_rsp_en = 1'b1;
    fw_rsp_we = 4'hf;
    fw_rsp_addr = 6'd63;
    fw_rsp_wdata = 32'h01020304;
    @(negedge clk);
    fw_rsp_we = 4'h8;
    fw_rsp_wdata = 32'hf0000000;
    @(negedge clk);
    fw_rsp_en = 1'b0;
    fw_rsp_we = 4'h0;
    host_rsp_rd = 1'b1;
    host_rd_word = 6'd63;
    @(negedge clk);
    host_rsp_rd = 1'b0;
    `BLK_CHECK(host_rsp_rdata === 32'hf0020304, "ADMIN_RSP word read by the host")

    // rst clears the status
    run = 1'b1;
    bus_wr(`VIA_REG_ADMIN_DOORBELL, 32'h0, 4'hf);
    @(negedge clk);
    rst = 1'b1;
    @(negedge clk);
    rst = 1'b0;
    expect_status(1'b0, 1'b0, 1'b0);
    $display("%m: %0d checks ok", checks);
    done = 1'b1;
end

endmodule
