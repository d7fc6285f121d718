// tb_via_blocks_bus.vh: the register-block bus of docs/rtl.md driven from a
// checker of tb_via_blocks, and its checks. Include inside a checker module
// that has clk, a `done` output reg, and instantiates its block on wr_en,
// wr_addr, wr_data, wr_strb, wr_hit, rd_en, rd_addr, rd_fire, rd_hit,
// rd_data. Everything is driven at the falling edge and sampled 1 ns later;
// a write or a read side effect takes place at the rising edge between.
//
// A failed check prints where and what, then stops the simulation with
// $fatal: the bench prints PASS only when every checker has run through.

`include "via_bar0_reg_table.vh"

reg         wr_en = 1'b0;
reg  [15:0] wr_addr = 16'd0;
reg  [31:0] wr_data = 32'd0;
reg  [3:0]  wr_strb = 4'd0;
reg         rd_en = 1'b0;
reg  [15:0] rd_addr = 16'd0;
reg         rd_fire = 1'b0;
wire        wr_hit, rd_hit;
wire [31:0] rd_data;

integer checks = 0;

`define BLK_CHECK(cond, msg) begin checks = checks + 1; if (!(cond)) begin $display("FAIL %m: %0s", msg); $fatal(1, "tb_via_blocks: check failed"); end end

// one write (data, byte strobes), taking effect at the next rising edge
task bus_wr;
    input [15:0] a;
    input [31:0] d;
    input [3:0]  s;
    begin
        @(negedge clk);
        wr_en = 1'b1;
        wr_addr = a;
        wr_data = d;
        wr_strb = s;
        #1;
        `BLK_CHECK(wr_hit === 1'b1, "a write to a register of the block does not hit")
        @(negedge clk);
        wr_en = 1'b0;
        wr_strb = 4'd0;
    end
endtask

// one read in a cycle of its own; fire: the host consumes it (side effects
// at the rising edge after it)
task bus_rd;
    input  [15:0] a;
    input         fire;
    output [31:0] d;
    begin
        @(negedge clk);
        rd_en = 1'b1;
        rd_addr = a;
        rd_fire = fire;
        #1;
        `BLK_CHECK(rd_hit === 1'b1, "a read of a register of the block does not hit")
        d = rd_data;
        @(negedge clk);
        rd_en = 1'b0;
        rd_fire = 1'b0;
    end
endtask

// a read without a clock edge and without fire (what the firmware's view
// does): the value now
task bus_peek;
    input  [15:0] a;
    output [31:0] d;
    begin
        rd_en = 1'b1;
        rd_addr = a;
        #0.01;
        `BLK_CHECK(rd_hit === 1'b1, "a read of a register of the block does not hit")
        d = rd_data;
        rd_en = 1'b0;
        #0.01;
    end
endtask

// the table index of the register at offset a (-1: none)
function integer reg_index;
    input [15:0] a;
    integer i;
    begin
        reg_index = -1;
        for (i = 0; i < VIA_BAR0_REGS; i = i + 1) begin
            if (via_bar0_reg_offset(i) == {a[15:2], 2'b00}) reg_index = i;
        end
    end
endfunction

// The decode against the generated table: every byte offset of the register
// space hits (reads and writes) exactly when the layout puts a register of
// block `blk` (the block of register offset `any`) there; a read without
// rd_en, or of an offset the block does not hold, answers 0.
integer dec_off, dec_i, dec_blk;
reg     dec_exp;
task check_decode;
    input [15:0] any;
    begin
        dec_blk = via_bar0_reg_block(reg_index(any));
        for (dec_off = 0; dec_off < `VIA_GLOBAL_BYTES; dec_off = dec_off + 1) begin
            dec_i = reg_index(dec_off);
            dec_exp = dec_i >= 0 && via_bar0_reg_block(dec_i) == dec_blk;
            wr_addr = dec_off;
            rd_addr = dec_off;
            rd_en = 1'b1;
            #0.01;
            if (wr_hit !== dec_exp || rd_hit !== dec_exp || (!dec_exp && rd_data !== 32'd0)) begin
                $display("FAIL %m: offset 0x%0h: wr_hit %b rd_hit %b rd_data 0x%0h, expected hit %b",
                    dec_off, wr_hit, rd_hit, rd_data, dec_exp);
                $fatal(1, "tb_via_blocks: check failed");
            end
            rd_en = 1'b0;
            #0.01;
            if (rd_hit !== 1'b0 || rd_data !== 32'd0) begin
                $display("FAIL %m: offset 0x%0h answers without rd_en", dec_off);
                $fatal(1, "tb_via_blocks: check failed");
            end
            checks = checks + 1;
        end
        wr_addr = 16'd0;
        rd_addr = 16'd0;
    end
endtask

// every register of the block after reset: the bits the layout fixes
integer rst_i;
reg [31:0] rst_word;
task check_reset_values;
    input [15:0] any;
    begin
        dec_blk = via_bar0_reg_block(reg_index(any));
        for (rst_i = 0; rst_i < VIA_BAR0_REGS; rst_i = rst_i + 1) begin
            if (via_bar0_reg_block(rst_i) == dec_blk) begin
                bus_peek(via_bar0_reg_offset(rst_i), rst_word);
                if ((rst_word & via_bar0_reg_known(rst_i)) !== via_bar0_reg_reset(rst_i)) begin
                    $display("FAIL %m: register 0x%0h reads 0x%0h after reset, the layout fixes 0x%0h under mask 0x%0h",
                        via_bar0_reg_offset(rst_i), rst_word, via_bar0_reg_reset(rst_i), via_bar0_reg_known(rst_i));
                    $fatal(1, "tb_via_blocks: check failed");
                end
                checks = checks + 1;
            end
        end
    end
endtask
