// tb_via_lk_arb_req: one behavioural lookup requester of the via_lk_arb
// bench (not synthesizable). Issues N random lookups (at most MAX_OUT
// outstanding, random valid gaps, payload held until accepted), takes the
// responses with short random rs_ready gaps (the docs/vi.md lookup rule) and
// checks each: it arrives at this port only when one is outstanding, in
// issue order, with this lookup's inner tag and the model TPT's answer for
// this lookup's payload. Fairness: a presented lookup waits for at most
// PORTS-1 grants to other ports.

`timescale 1ns / 1ps

module tb_via_lk_arb_req #(
    parameter PORT       = 0,
    parameter PORTS      = 2,
    parameter ADDR_WIDTH = 48,
    parameter TAG_WIDTH  = 1,
    parameter N          = 200,
    parameter MAX_OUT    = 4,
    parameter VALID_PROB = 50,
    parameter READY_PROB = 85,
    parameter SALT       = 0
) (
    input  wire                  clk,
    input  wire                  rst,
    output reg                   lk_valid,
    input  wire                  lk_ready,
    output reg  [31:0]           lk_handle,
    output reg  [63:0]           lk_va,
    output reg  [31:0]           lk_len,
    output reg  [15:0]           lk_ptag,
    output reg  [1:0]            lk_kind,
    output reg  [TAG_WIDTH-1:0]  lk_tag,
    input  wire                  rs_valid,
    output reg                   rs_ready,
    input  wire [2:0]            rs_err,
    input  wire [ADDR_WIDTH-1:0] rs_pa,
    input  wire [12:0]           rs_bytes,
    input  wire                  rs_hit,
    input  wire                  rs_epoch,
    input  wire [TAG_WIDTH-1:0]  rs_tag,
    input  wire                  lk_grant,   // the TPT's lookup handshake (any port)
    output reg                   done
);

integer seed;
`include "bench_random.vh"
// (the same in tb_via_lk_arb_req and tb_via_lk_arb_env)
// answer(req): the model TPT's response payload {err, pa, bytes, hit,
// epoch} for a lookup {handle 32, va 64, len 32, ptag 16, kind 2}, a hash of
// every field (so a response given to the wrong lookup shows). Needs
// ADDR_WIDTH.
function [ADDR_WIDTH+18-1:0] answer;
    input [145:0] req;
    reg [63:0] h;
    reg [127:0] hh;
    begin
        h = req[145:82] ^ {req[81:50], req[49:18]} ^ {req[17:0], 46'd0} ^ 64'h9e3779b97f4a7c15;
        h = h ^ (h >> 29);
        h = h * 64'hbf58476d1ce4e5b9;
        h = h ^ (h >> 32);
        hh = {h, h} >> 7;
        answer = {h[2:0], hh[ADDR_WIDTH-1:0], h[63:51], h[40], h[41]};
    end
endfunction

function integer rnd;  // 0..n-1
    input integer n;
    reg [31:0] r;
    begin
        r = bench_random(0);
        rnd = (r >> 4) % n;
    end
endfunction

`define RFAIL(msg) begin $display("FAIL %m port %0d: %s (t=%0t)", PORT, msg, $time); $fatal(1, "tb_via_lk_arb_req: check failed"); end

localparam QN = 8;
reg [145:0]          q_req [0:QN-1];   // {handle, va, len, ptag, kind}
reg [TAG_WIDTH-1:0]  q_tag [0:QN-1];
integer q_head, q_count, started, answered, waits;
reg [31:0] h32;
reg [63:0] r64;
reg [TAG_WIDTH+ADDR_WIDTH+18-1:0] expv;

initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    seed = seed * 7919 + SALT * 104729 + PORT * 1299709 + 3;
end

always @(posedge clk) begin
    if (rst) begin
        lk_valid <= 1'b0; rs_ready <= 1'b0; done <= 1'b0;
        lk_handle <= 0; lk_va <= 0; lk_len <= 0; lk_ptag <= 0; lk_kind <= 0; lk_tag <= 0;
        q_head = 0; q_count = 0; started = 0; answered = 0; waits = 0;
    end else begin
        if (lk_valid && lk_ready) begin
            lk_valid <= 1'b0;
            waits = 0;
        end else if (lk_valid && lk_grant) begin
            waits = waits + 1;
            if (waits > PORTS - 1) `RFAIL("lookup waited for more than PORTS-1 grants")
        end
        if (rs_valid) begin
            if (q_count == 0) `RFAIL("response with no lookup outstanding")
        end
        if (rs_valid && rs_ready) begin
            expv = {q_tag[q_head], answer(q_req[q_head])};
            if ({rs_tag, rs_err, rs_pa, rs_bytes, rs_hit, rs_epoch} !== expv) begin
                $display("FAIL port %0d: got tag %h err %h pa %h bytes %h hit %b epoch %b, expected %h",
                         PORT, rs_tag, rs_err, rs_pa, rs_bytes, rs_hit, rs_epoch, expv);
                `RFAIL("wrong response (lost, duplicated, misrouted or out of order)")
            end
            q_head = (q_head + 1) % QN;
            q_count = q_count - 1;
            answered = answered + 1;
        end
        rs_ready <= rnd(100) < READY_PROB;
        if (!(lk_valid && !lk_ready) && started < N && q_count < MAX_OUT && rnd(100) < VALID_PROB) begin
            h32 = bench_random(0);
            r64 = {bench_random(0), bench_random(0)};
            q_req[(q_head + q_count) % QN] = {h32, r64, bench_random(0), h32[15:0] ^ 16'h1234, h32[1:0] ^ h32[9:8]};
            q_tag[(q_head + q_count) % QN] = started;
            lk_handle <= h32; lk_va <= r64;
            lk_len <= q_req[(q_head + q_count) % QN][49:18];
            lk_ptag <= h32[15:0] ^ 16'h1234; lk_kind <= h32[1:0] ^ h32[9:8];
            lk_tag <= started;
            lk_valid <= 1'b1;
            q_count = q_count + 1;
            started = started + 1;
        end
        if (started == N && answered == N) done <= 1'b1;
    end
end

endmodule
