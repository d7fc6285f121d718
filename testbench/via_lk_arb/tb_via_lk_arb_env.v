// tb_via_lk_arb_env: one configuration of the via_lk_arb bench: PORTS
// random requesters (tb_via_lk_arb_req; port k makes N + k*N/4 lookups,
// so the last ones run alone) share a model of via_tpt's lookup
// port through via_lk_arb. The model accepts lookups with random lk_ready,
// answers them in order after a random latency (1..5 cycles, up to 6
// outstanding) with random rs_valid gaps, the answer being a hash of the
// lookup's payload (tb_via_lk_arb_answer.vh) and its tag echoed. Checked
// here, every cycle: the payload and tag the TPT sees do not change while
// lk_valid && !lk_ready; each accepted lookup is the payload of exactly one
// requester, the one whose s_lk_ready is 1, with that port's index in the
// tag's high bits and its inner tag below; m_lk_valid == some port asks
// (never idle while one asks); busy == (a lookup presented or
// accepted and not answered). finished: every requester is done and busy 0.

`timescale 1ns / 1ps

module tb_via_lk_arb_env #(
    parameter PORTS       = 2,
    parameter ADDR_WIDTH  = 48,
    parameter TAG_WIDTH   = 1,
    parameter N           = 200,
    parameter LK_PROB     = 60,    // the model's lk_ready, percent
    parameter RS_PROB     = 70,    // the model's rs_valid, percent
    parameter VALID_PROB  = 50,    // the requesters' valid gaps
    parameter SALT        = 0
) (
    input  wire clk,
    input  wire rst,
    output reg  finished = 1'b0
);

localparam PB = (PORTS <= 2) ? 1 : (PORTS <= 4) ? 2 : 3;
localparam MT = PB + TAG_WIDTH;

wire [PORTS-1:0]            s_lk_valid, s_lk_ready, s_rs_valid, s_rs_ready, s_rs_hit, s_rs_epoch, done;
wire [PORTS*32-1:0]         s_lk_handle, s_lk_len;
wire [PORTS*64-1:0]         s_lk_va;
wire [PORTS*16-1:0]         s_lk_ptag;
wire [PORTS*2-1:0]          s_lk_kind;
wire [PORTS*TAG_WIDTH-1:0]  s_lk_tag, s_rs_tag;
wire [PORTS*3-1:0]          s_rs_err;
wire [PORTS*ADDR_WIDTH-1:0] s_rs_pa;
wire [PORTS*13-1:0]         s_rs_bytes;

wire                  m_lk_valid, m_rs_ready, busy;
reg                   m_lk_ready, m_rs_valid;
wire [31:0]           m_lk_handle, m_lk_len;
wire [63:0]           m_lk_va;
wire [15:0]           m_lk_ptag;
wire [1:0]            m_lk_kind;
wire [MT-1:0]         m_lk_tag;
reg  [2:0]            m_rs_err;
reg  [ADDR_WIDTH-1:0] m_rs_pa;
reg  [12:0]           m_rs_bytes;
reg                   m_rs_hit, m_rs_epoch;
reg  [MT-1:0]         m_rs_tag;

via_lk_arb #(.PORTS(PORTS), .ADDR_WIDTH(ADDR_WIDTH), .TAG_WIDTH(TAG_WIDTH)) dut (
    .clk(clk), .rst(rst),
    .s_lk_valid(s_lk_valid), .s_lk_ready(s_lk_ready), .s_lk_handle(s_lk_handle), .s_lk_va(s_lk_va),
    .s_lk_len(s_lk_len), .s_lk_ptag(s_lk_ptag), .s_lk_kind(s_lk_kind), .s_lk_tag(s_lk_tag),
    .s_rs_valid(s_rs_valid), .s_rs_ready(s_rs_ready), .s_rs_err(s_rs_err), .s_rs_pa(s_rs_pa),
    .s_rs_bytes(s_rs_bytes), .s_rs_hit(s_rs_hit), .s_rs_epoch(s_rs_epoch), .s_rs_tag(s_rs_tag),
    .m_lk_valid(m_lk_valid), .m_lk_ready(m_lk_ready), .m_lk_handle(m_lk_handle), .m_lk_va(m_lk_va),
    .m_lk_len(m_lk_len), .m_lk_ptag(m_lk_ptag), .m_lk_kind(m_lk_kind), .m_lk_tag(m_lk_tag),
    .m_rs_valid(m_rs_valid), .m_rs_ready(m_rs_ready), .m_rs_err(m_rs_err), .m_rs_pa(m_rs_pa),
    .m_rs_bytes(m_rs_bytes), .m_rs_hit(m_rs_hit), .m_rs_epoch(m_rs_epoch), .m_rs_tag(m_rs_tag),
    .busy(busy)
);

genvar k;
generate
    for (k = 0; k < PORTS; k = k + 1) begin : g_r
        tb_via_lk_arb_req #(
            .PORT(k), .PORTS(PORTS), .ADDR_WIDTH(ADDR_WIDTH), .TAG_WIDTH(TAG_WIDTH), .N(N + k * (N / 4)),
            .VALID_PROB(VALID_PROB), .SALT(SALT)
        ) r (
            .clk(clk), .rst(rst),
            .lk_valid(s_lk_valid[k]), .lk_ready(s_lk_ready[k]), .lk_handle(s_lk_handle[k*32 +: 32]),
            .lk_va(s_lk_va[k*64 +: 64]), .lk_len(s_lk_len[k*32 +: 32]), .lk_ptag(s_lk_ptag[k*16 +: 16]),
            .lk_kind(s_lk_kind[k*2 +: 2]), .lk_tag(s_lk_tag[k*TAG_WIDTH +: TAG_WIDTH]),
            .rs_valid(s_rs_valid[k]), .rs_ready(s_rs_ready[k]), .rs_err(s_rs_err[k*3 +: 3]),
            .rs_pa(s_rs_pa[k*ADDR_WIDTH +: ADDR_WIDTH]), .rs_bytes(s_rs_bytes[k*13 +: 13]),
            .rs_hit(s_rs_hit[k]), .rs_epoch(s_rs_epoch[k]), .rs_tag(s_rs_tag[k*TAG_WIDTH +: TAG_WIDTH]),
            .lk_grant(m_lk_valid && m_lk_ready),
            .done(done[k])
        );
    end
endgenerate

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

function integer rnd;
    input integer n;
    reg [31:0] r;
    begin
        r = bench_random(0);
        rnd = (r >> 4) % n;
    end
endfunction

`define EFAIL(msg) begin $display("FAIL %m: %s (t=%0t)", msg, $time); $fatal(1, "tb_via_lk_arb_env: check failed"); end

// the model TPT: accepted lookups, answered in order
localparam QN = 8;
reg [145:0]  q_req [0:QN-1];
reg [MT-1:0] q_tag [0:QN-1];
integer      q_due [0:QN-1];
integer q_head, q_count, cycles, n_acc, n_ans, j, owner, n_owner, contended;
reg p_valid;
reg [145+MT:0] p_payload;
reg [PB-1:0] port_field;

initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    seed = seed * 31 + SALT * 7 + 99;
end

always @(posedge clk) begin
    if (rst) begin
        m_lk_ready <= 1'b0; m_rs_valid <= 1'b0;
        m_rs_err <= 0; m_rs_pa <= 0; m_rs_bytes <= 0; m_rs_hit <= 0; m_rs_epoch <= 0; m_rs_tag <= 0;
        q_head = 0; q_count = 0; cycles = 0; n_acc = 0; n_ans = 0; contended = 0;
        p_valid = 1'b0;
    end else begin
        cycles = cycles + 1;
        // busy (before this edge): presented, or accepted and not answered
        if (busy !== ((|s_lk_valid) || q_count != 0)) `EFAIL("busy wrong")
        // stability of what the TPT sees
        if (p_valid && (!m_lk_valid || p_payload !== {m_lk_handle, m_lk_va, m_lk_len, m_lk_ptag, m_lk_kind, m_lk_tag}))
            `EFAIL("lookup dropped or changed while lk_valid && !lk_ready")
        // work conserving: the TPT sees a lookup whenever a port asks
        if (m_lk_valid !== (|s_lk_valid)) `EFAIL("m_lk_valid differs from 'some port asks'")
        p_valid = m_lk_valid && !m_lk_ready;
        p_payload = {m_lk_handle, m_lk_va, m_lk_len, m_lk_ptag, m_lk_kind, m_lk_tag};
        if (m_lk_valid && $countones(s_lk_valid) > 1) contended = contended + 1;
        // response handshake
        if (m_rs_valid && m_rs_ready) begin
            q_head = (q_head + 1) % QN;
            q_count = q_count - 1;
            n_ans = n_ans + 1;
            m_rs_valid <= 1'b0;
        end
        // lookup handshake: exactly the granted requester's payload and tag
        if (m_lk_valid && m_lk_ready) begin
            n_owner = 0;
            owner = 0;
            for (j = 0; j < PORTS; j = j + 1) begin
                if (s_lk_ready[j]) begin
                    n_owner = n_owner + 1;
                    owner = j;
                end
            end
            if (n_owner != 1) `EFAIL("lookup accepted with not exactly one s_lk_ready")
            if (!s_lk_valid[owner]) `EFAIL("s_lk_ready to a port without s_lk_valid")
            port_field = m_lk_tag[MT-1 -: PB];
            if (port_field != owner) `EFAIL("tag's port field is not the granted port")
            if ({m_lk_handle, m_lk_va, m_lk_len, m_lk_ptag, m_lk_kind, m_lk_tag[TAG_WIDTH-1:0]} !==
                {s_lk_handle[owner*32 +: 32], s_lk_va[owner*64 +: 64], s_lk_len[owner*32 +: 32],
                 s_lk_ptag[owner*16 +: 16], s_lk_kind[owner*2 +: 2], s_lk_tag[owner*TAG_WIDTH +: TAG_WIDTH]})
                `EFAIL("lookup payload is not the granted port's")
            if (q_count == QN) `EFAIL("model queue overflow")
            q_req[(q_head + q_count) % QN] = {m_lk_handle, m_lk_va, m_lk_len, m_lk_ptag, m_lk_kind};
            q_tag[(q_head + q_count) % QN] = m_lk_tag;
            q_due[(q_head + q_count) % QN] = cycles + 1 + rnd(5);
            q_count = q_count + 1;
            n_acc = n_acc + 1;
        end else if (|(s_lk_ready)) begin
            `EFAIL("s_lk_ready without a TPT handshake")
        end
        m_lk_ready <= q_count < 6 && rnd(100) < LK_PROB;
        // present the head's answer (held until taken)
        if (!(m_rs_valid && !m_rs_ready) && q_count > 0 && cycles >= q_due[q_head] &&
            !(m_rs_valid && m_rs_ready && q_count == 0) && rnd(100) < RS_PROB) begin
            {m_rs_err, m_rs_pa, m_rs_bytes, m_rs_hit, m_rs_epoch} <= answer(q_req[q_head]);
            m_rs_tag <= q_tag[q_head];
            m_rs_valid <= 1'b1;
        end
        if (&done && !finished) begin
            if (busy !== 1'b0) `EFAIL("busy after every requester is done")
            if (n_acc != PORTS * N + (N / 4) * PORTS * (PORTS - 1) / 2 || n_ans != n_acc) `EFAIL("lookup counts wrong")
            $display("%m: PORTS %0d TAG_WIDTH %0d ADDR_WIDTH %0d: %0d lookups in %0d cycles, %0d cycles with several ports asking",
                     PORTS, TAG_WIDTH, ADDR_WIDTH, n_acc, cycles, contended);
            finished <= 1'b1;
        end
    end
end

endmodule
