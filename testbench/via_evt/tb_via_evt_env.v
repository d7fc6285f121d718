// tb_via_evt_env: one via_evt with a cycle-level reference model, for
// tb_via_evt.
//
// Around the block:
//   - the register bus of docs/rtl.md (tb_via_blocks_bus.vh: driven at the
//     falling edge, a write takes effect at the rising edge after it); in
//     the random rounds a driver puts a write on it in any cycle (back to
//     back too) and reads a random offset around the block every cycle;
//   - the three completion ports (the send engine's: VI and queue; the
//     receive engine's: VI; via_cq's: CQ), driven at the falling edge, any
//     combination in one cycle; the VI and CQ inputs carry garbage while
//     their strobe is 0 (and only valid VIs and CQs while it is 1).
//
// The reference model steps at every rising edge on the inputs of the
// cycle that ends. It holds every VI's and CQ's route, the arms, each
// vector's COUNT and TIME, the completions it counted since its last raise
// (how many, unsaturated, and the cycle of the first), EVT_RAISED,
// EVT_EVENTS, EVT_VSEL and the last EVT_ARM / EVT_MAP words. In cycle c
// vector v raises (irq_set[v] is 1 in cycle c+1, for one cycle) when it
// counted n > 0 completions in the cycles before c and n >= COUNT, or TIME
// is not 0 and c > first + TIME: a completion in cycle t gives irq_set in
// cycle t+2 (COUNT 0 or 1), a lone one with TIME T in cycle t+2+T. A raise
// covers the completions counted in its cycle (the count starts again
// from 0 after it) and disarms every queue and CQ routed to v; after that
// an EVT_MAP write of the cycle disarms what it routes, and an EVT_ARM
// write arms (an arm written in the cycle of a raise stays). A completion
// of a queue or CQ that is not armed (at the start of its cycle) counts
// nowhere. Writes naming a VI >= NUM_VI, a CQ >= NUM_CQ or a vector >=
// NUM_VEC do nothing but update the read-back word; EVT_MOD with EVT_VSEL
// >= NUM_VEC is ignored and it, EVT_RAISED and EVT_EVENTS read 0 then.
// Checks, every cycle: irq_set against the model; the arms (white box:
// arm_s, arm_r, arm_c) against the model's; in the random rounds also the
// word read at rd_addr (every register of the block against the model, 0
// elsewhere) and wr_hit / rd_hit.
//
// The sequence (main thread):
//   1. reset values (from the generated register table, and COUNT 1 TIME 0
//      of every vector's EVT_MOD), decode against the table (environment
//      a), EVT_CAP;
//   2. registers: EVT_ARM / EVT_MAP read back the last word written (fields
//      only, indexes and vectors out of range too), EVT_VSEL its 8 bits
//      (byte strobes), EVT_MOD per vector without aliasing, EVT_VSEL out of
//      range (EVT_MOD writes ignored, EVT_MOD / RAISED / EVENTS read 0),
//      writes to the read-only registers ignored;
//   3. directed, each with explicit expectations besides the model's:
//      COUNT 1 (and 0) latency on every port (t -> t+2, one pulse, the
//      queue disarmed, a second completion not counted); COUNT 4 with 4
//      completions in a burst (one queue counted twice, 3 in one cycle);
//      TIME expiry with a single completion (TIME 1, 2, random up to 300;
//      TIME measured from the first of two); the count's saturation
//      (COUNT 255: 253 completions, then 3 in one cycle: 255, not 0, white
//      box v_cnt); the timer's saturation (white box: v_tmr preset, then
//      TIME 0xFFFF); a raise disarms every queue and CQ of its vector and
//      no other; an arm written in the cycle of a raise stays, the
//      completions of that cycle are covered; unarmed completions (also
//      one in the cycle of its arm write) are not counted; a route change
//      disarms (VI: both queues; CQ), also in the cycle its old vector
//      raises; out-of-range arms and routes (aliasing the low bits of a
//      valid index) are ignored; EVT_RAISED and EVT_EVENTS wrap (white
//      box preset); a reset mid-run;
//   4. random rounds: random routes, moderation (COUNT 0..255, TIME
//      0..511, biased to small values), completion rates and writes
//      (EVT_ARM most, biased to arm a queue of a vector that raises in that
//      very cycle; EVT_MAP, also biased to such cycles; EVT_VSEL, EVT_MOD,
//      read-only and foreign offsets, out-of-range indexes and vectors),
//      every register of every vector compared after each round.
// At the end, that every kind of thing happened (raises by COUNT and by
// TIME, completions covered by a raise, arms and routes in the cycle of a
// raise, several ports in one cycle, unarmed completions, out-of-range
// writes). Plusargs: +short (a third of the random cycles, shorter TIME
// waits), +debug (the model's raises).

`timescale 1ns / 1ps

`include "via_bar0.vh"

module tb_via_evt_env #(
    parameter NUM_VI      = 64,
    parameter NUM_CQ      = 16,
    parameter NUM_VEC     = 8,
    parameter IRQ_LSB     = 8,
    // random rounds and cycles per round (+short: a third of the cycles)
    parameter ROUNDS      = 4,
    parameter RAND_CYCLES = 3000,
    // check the decode of the whole register space (slow in Icarus: once)
    parameter DECODE      = 0,
    parameter SALT        = 1,
    parameter NAME        = "a"
) (
    input  wire clk,
    output reg  fin = 1'b0
);

localparam VW = (NUM_VI > 1) ? $clog2(NUM_VI) : 1;
localparam CW = (NUM_CQ > 1) ? $clog2(NUM_CQ) : 1;
localparam NH = 8;      // hot VIs and CQs of a random round, at most

reg rst = 1'b1;
reg dbg = 1'b0;

`include "tb_via_blocks_bus.vh"

// ---------------------------------------------------------------- DUT
reg                tx_done = 1'b0;
reg  [VW-1:0]      tx_done_vi = {VW{1'b0}};
reg                tx_done_q = 1'b0;
reg                rx_done = 1'b0;
reg  [VW-1:0]      rx_done_vi = {VW{1'b0}};
reg                cq_done = 1'b0;
reg  [7:0]         cq_done_cq = 8'd0;
wire [NUM_VEC-1:0] irq_set;

via_evt #(
    .NUM_VI(NUM_VI),
    .NUM_CQ(NUM_CQ),
    .NUM_VEC(NUM_VEC),
    .IRQ_LSB(IRQ_LSB)
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
    .tx_done(tx_done),
    .tx_done_vi(tx_done_vi),
    .tx_done_q(tx_done_q),
    .rx_done(rx_done),
    .rx_done_vi(rx_done_vi),
    .cq_done(cq_done),
    .cq_done_cq(cq_done_cq),
    .irq_set(irq_set)
);

// ---------------------------------------------------------------- random
// xorshift32, one state per process: rs_main for the main thread, rs_drv
// for the random driver
reg [31:0] rs_main = 32'h1, rs_drv = 32'h2;

function [31:0] rnd;
    input integer unused;
    begin
        rs_main = rs_main ^ (rs_main << 13);
        rs_main = rs_main ^ (rs_main >> 17);
        rs_main = rs_main ^ (rs_main << 5);
        rnd = rs_main ^ (unused & 0);
    end
endfunction

// 0..n-1 (main thread)
function integer urand;
    input integer n;
    begin
        urand = (rnd(0) & 32'h7FFFFFFF) % n;
    end
endfunction

function [31:0] drnd;
    input integer unused;
    begin
        rs_drv = rs_drv ^ (rs_drv << 13);
        rs_drv = rs_drv ^ (rs_drv >> 17);
        rs_drv = rs_drv ^ (rs_drv << 5);
        drnd = rs_drv ^ (unused & 0);
    end
endfunction

// a random EVT_MOD word from 64 random bits: COUNT 0..2, 3..18 or
// 0..255; TIME 0, 1..64 or 0..511; reserved bits 15:8 random
function [31:0] mod_word;
    input [63:0] r;
    reg [31:0] w;
    begin
        w = 32'd0;
        case (r[1:0])
            2'd0:    w[`VIA_EVT_MOD_COUNT_RANGE] = {6'd0, r[3:2]} % 8'd3;
            2'd3:    w[`VIA_EVT_MOD_COUNT_RANGE] = r[15:8];
            default: w[`VIA_EVT_MOD_COUNT_RANGE] = 8'd3 + {4'd0, r[7:4]};
        endcase
        case (r[17:16])
            2'd0, 2'd1: w[`VIA_EVT_MOD_TIME_RANGE] = 16'd0;
            2'd2:       w[`VIA_EVT_MOD_TIME_RANGE] = 16'd1 + {10'd0, r[23:18]};
            default:    w[`VIA_EVT_MOD_TIME_RANGE] = {7'd0, r[32:24]};
        endcase
        w[15:8] = r[47:40];
        mod_word = w;
    end
endfunction

// ---------------------------------------------------------------- model
reg  [2:0]         m_vvi [0:NUM_VI-1];      // routes
reg  [2:0]         m_vcq [0:NUM_CQ-1];
reg  [NUM_VI-1:0]  m_arm_s, m_arm_r;        // arms
reg  [NUM_CQ-1:0]  m_arm_c;
integer            m_cnt   [0:NUM_VEC-1];   // EVT_MOD
integer            m_tim   [0:NUM_VEC-1];
integer            m_pend  [0:NUM_VEC-1];   // counted since the last raise
integer            m_first [0:NUM_VEC-1];   // ... the cycle of the first
reg  [31:0]        m_raised [0:NUM_VEC-1];
reg  [31:0]        m_events [0:NUM_VEC-1];
reg  [31:0]        m_arm_word = 32'd0, m_map_word = 32'd0;
reg  [7:0]         m_vsel = 8'd0;
reg  [NUM_VEC-1:0] m_irq = {NUM_VEC{1'b0}};  // irq_set in the current cycle
// what the monitor saw of irq_set: pulses and the cycle of the last
integer            n_irq    [0:NUM_VEC-1];
integer            last_irq [0:NUM_VEC-1];

integer cyc = 0;        // the current cycle (the rising edge ending it increments it)

// coverage
integer n_comp = 0, n_hits = 0, n_unarmed = 0, n_multi = 0, n_triple = 0;
integer n_fire = 0, n_fire_cnt = 0, n_fire_time = 0, n_fire_cov = 0, n_fire_multi = 0;
integer n_arm_raise = 0, n_map_raise = 0, n_oor = 0, n_rd = 0, n_wr = 0;

integer mr_i;
task model_reset;
    begin
        for (mr_i = 0; mr_i < NUM_VI; mr_i = mr_i + 1) m_vvi[mr_i] = 3'd0;
        for (mr_i = 0; mr_i < NUM_CQ; mr_i = mr_i + 1) m_vcq[mr_i] = 3'd0;
        m_arm_s = {NUM_VI{1'b0}};
        m_arm_r = {NUM_VI{1'b0}};
        m_arm_c = {NUM_CQ{1'b0}};
        for (mr_i = 0; mr_i < NUM_VEC; mr_i = mr_i + 1) begin
            m_cnt[mr_i] = 1;
            m_tim[mr_i] = 0;
            m_pend[mr_i] = 0;
            m_first[mr_i] = 0;
            m_raised[mr_i] = 32'd0;
            m_events[mr_i] = 32'd0;
        end
        m_arm_word = 32'd0;
        m_map_word = 32'd0;
        m_vsel = 8'd0;
        m_irq = {NUM_VEC{1'b0}};
        m_fnext = {NUM_VEC{1'b0}};
    end
endtask

// the vectors that raise in the current cycle, for the random driver
// (model_step computes them for the next cycle at its end)
reg [NUM_VEC-1:0] m_fnext = {NUM_VEC{1'b0}};

// one cycle of the model, on the inputs of the cycle that ends
integer           ms_inc [0:NUM_VEC-1];
reg [NUM_VEC-1:0] ms_fire;
reg               ms_any;
integer           ms_v, ms_k, ms_hit, ms_strb;
reg [15:0]        ms_idx;
reg [2:0]         ms_vec;
task model_step;
    begin
        for (ms_v = 0; ms_v < NUM_VEC; ms_v = ms_v + 1) ms_inc[ms_v] = 0;
        ms_hit = 0;
        ms_strb = 0;
        if (tx_done) begin
            ms_strb = ms_strb + 1;
            if (tx_done_q ? m_arm_r[tx_done_vi] : m_arm_s[tx_done_vi]) begin
                ms_inc[m_vvi[tx_done_vi]] = ms_inc[m_vvi[tx_done_vi]] + 1;
                ms_hit = ms_hit + 1;
            end else begin
                n_unarmed = n_unarmed + 1;
            end
        end
        if (rx_done) begin
            ms_strb = ms_strb + 1;
            if (m_arm_r[rx_done_vi]) begin
                ms_inc[m_vvi[rx_done_vi]] = ms_inc[m_vvi[rx_done_vi]] + 1;
                ms_hit = ms_hit + 1;
            end else begin
                n_unarmed = n_unarmed + 1;
            end
        end
        if (cq_done) begin
            ms_strb = ms_strb + 1;
            if (m_arm_c[cq_done_cq[CW-1:0]]) begin
                ms_inc[m_vcq[cq_done_cq[CW-1:0]]] = ms_inc[m_vcq[cq_done_cq[CW-1:0]]] + 1;
                ms_hit = ms_hit + 1;
            end else begin
                n_unarmed = n_unarmed + 1;
            end
        end
        n_comp = n_comp + ms_strb;
        n_hits = n_hits + ms_hit;
        if (ms_hit >= 2) n_multi = n_multi + 1;
        if (ms_strb == 3) n_triple = n_triple + 1;

        // the raises, the counts
        ms_any = 1'b0;
        for (ms_v = 0; ms_v < NUM_VEC; ms_v = ms_v + 1) begin
            // (inline: a function call per vector and cycle is slow in Icarus)
            ms_fire[ms_v] = m_pend[ms_v] > 0
                && (m_pend[ms_v] >= m_cnt[ms_v] || (m_tim[ms_v] != 0 && cyc - m_first[ms_v] > m_tim[ms_v]));
            if (ms_fire[ms_v]) begin
                if (dbg) $display("tb_via_evt %0s: cycle %0d: vector %0d raises (%0d counted, first in cycle %0d; COUNT %0d TIME %0d), %0d more covered",
                    NAME, cyc, ms_v, m_pend[ms_v], m_first[ms_v], m_cnt[ms_v], m_tim[ms_v], ms_inc[ms_v]);
                n_fire = n_fire + 1;
                if (m_pend[ms_v] >= m_cnt[ms_v]) n_fire_cnt = n_fire_cnt + 1;
                else n_fire_time = n_fire_time + 1;
                if (ms_inc[ms_v] != 0) n_fire_cov = n_fire_cov + 1;
                if (ms_any) n_fire_multi = n_fire_multi + 1;
                ms_any = 1'b1;
                m_pend[ms_v] = 0;
                m_raised[ms_v] = m_raised[ms_v] + 32'd1;
            end else if (ms_inc[ms_v] != 0) begin
                if (m_pend[ms_v] == 0) m_first[ms_v] = cyc;
                m_pend[ms_v] = m_pend[ms_v] + ms_inc[ms_v];
            end
            m_events[ms_v] = m_events[ms_v] + ms_inc[ms_v];
        end
        // a raise disarms its vector's queues and CQs
        if (ms_any) begin
            for (ms_k = 0; ms_k < NUM_VI; ms_k = ms_k + 1) begin
                if (ms_fire[m_vvi[ms_k]]) begin
                    m_arm_s[ms_k] = 1'b0;
                    m_arm_r[ms_k] = 1'b0;
                end
            end
            for (ms_k = 0; ms_k < NUM_CQ; ms_k = ms_k + 1) begin
                if (ms_fire[m_vcq[ms_k]]) m_arm_c[ms_k] = 1'b0;
            end
        end

        // the register write of the cycle (EVT_ARM, EVT_MAP, EVT_MOD ignore
        // the byte strobes; EVT_VSEL is a plain register)
        if (wr_en) begin
            n_wr = n_wr + 1;
            case ({wr_addr[15:2], 2'b00})
                `VIA_REG_EVT_ARM: begin
                    m_arm_word = wr_data;
                    ms_idx = wr_data[`VIA_EVT_ARM_INDEX_RANGE];
                    if (wr_data[`VIA_EVT_ARM_CQ_LSB]) begin
                        if (ms_idx < NUM_CQ) begin
                            if (ms_fire[m_vcq[ms_idx]]) n_arm_raise = n_arm_raise + 1;
                            m_arm_c[ms_idx] = 1'b1;
                        end else begin
                            n_oor = n_oor + 1;
                        end
                    end else if (ms_idx < NUM_VI) begin
                        if (ms_fire[m_vvi[ms_idx]]) n_arm_raise = n_arm_raise + 1;
                        if (wr_data[`VIA_EVT_ARM_QUEUE_LSB]) m_arm_r[ms_idx] = 1'b1;
                        else m_arm_s[ms_idx] = 1'b1;
                    end else begin
                        n_oor = n_oor + 1;
                    end
                end
                `VIA_REG_EVT_MAP: begin
                    m_map_word = wr_data;
                    ms_idx = wr_data[`VIA_EVT_MAP_INDEX_RANGE];
                    ms_vec = wr_data[`VIA_EVT_MAP_VEC_RANGE];
                    if (ms_vec >= NUM_VEC) begin
                        n_oor = n_oor + 1;
                    end else if (wr_data[`VIA_EVT_MAP_CQ_LSB]) begin
                        if (ms_idx < NUM_CQ) begin
                            if (ms_fire[m_vcq[ms_idx]] || ms_fire[ms_vec]) n_map_raise = n_map_raise + 1;
                            m_vcq[ms_idx] = ms_vec;
                            m_arm_c[ms_idx] = 1'b0;
                        end else begin
                            n_oor = n_oor + 1;
                        end
                    end else if (ms_idx < NUM_VI) begin
                        if (ms_fire[m_vvi[ms_idx]] || ms_fire[ms_vec]) n_map_raise = n_map_raise + 1;
                        m_vvi[ms_idx] = ms_vec;
                        m_arm_s[ms_idx] = 1'b0;
                        m_arm_r[ms_idx] = 1'b0;
                    end else begin
                        n_oor = n_oor + 1;
                    end
                end
                `VIA_REG_EVT_VSEL: begin
                    if (wr_strb[0]) m_vsel = wr_data[`VIA_EVT_VSEL_VEC_RANGE];
                end
                `VIA_REG_EVT_MOD: begin
                    if (m_vsel < NUM_VEC) begin
                        m_cnt[m_vsel] = wr_data[`VIA_EVT_MOD_COUNT_RANGE];
                        m_tim[m_vsel] = wr_data[`VIA_EVT_MOD_TIME_RANGE];
                    end else begin
                        n_oor = n_oor + 1;
                    end
                end
                default: begin
                    // read-only, or not a register of the block
                end
            endcase
        end
        m_irq = ms_fire;
        for (ms_v = 0; ms_v < NUM_VEC; ms_v = ms_v + 1) begin
            m_fnext[ms_v] = m_pend[ms_v] > 0
                && (m_pend[ms_v] >= m_cnt[ms_v] || (m_tim[ms_v] != 0 && cyc + 1 - m_first[ms_v] > m_tim[ms_v]));
        end
    end
endtask

// is offset a a register of block evt?
function is_evt;
    input [15:0] a;
    reg [15:0] o;
    begin
        o = {a[15:2], 2'b00};
        is_evt = o == `VIA_REG_EVT_ARM || o == `VIA_REG_EVT_MAP || o == `VIA_REG_EVT_VSEL || o == `VIA_REG_EVT_MOD
              || o == `VIA_REG_EVT_RAISED || o == `VIA_REG_EVT_EVENTS || o == `VIA_REG_EVT_CAP;
    end
endfunction

// the word a read of offset a should return now (0: not the block's)
function [31:0] exp_rd;
    input [15:0] a;
    reg [31:0] w;
    reg        ok;
    begin
        w = 32'd0;
        ok = m_vsel < NUM_VEC;
        case ({a[15:2], 2'b00})
            `VIA_REG_EVT_ARM: begin
                w[`VIA_EVT_ARM_INDEX_RANGE] = m_arm_word[`VIA_EVT_ARM_INDEX_RANGE];
                w[`VIA_EVT_ARM_QUEUE_LSB] = m_arm_word[`VIA_EVT_ARM_QUEUE_LSB];
                w[`VIA_EVT_ARM_CQ_LSB] = m_arm_word[`VIA_EVT_ARM_CQ_LSB];
            end
            `VIA_REG_EVT_MAP: begin
                w[`VIA_EVT_MAP_INDEX_RANGE] = m_map_word[`VIA_EVT_MAP_INDEX_RANGE];
                w[`VIA_EVT_MAP_CQ_LSB] = m_map_word[`VIA_EVT_MAP_CQ_LSB];
                w[`VIA_EVT_MAP_VEC_RANGE] = m_map_word[`VIA_EVT_MAP_VEC_RANGE];
            end
            `VIA_REG_EVT_VSEL: w[`VIA_EVT_VSEL_VEC_RANGE] = m_vsel;
            `VIA_REG_EVT_MOD: begin
                if (ok) begin
                    w[`VIA_EVT_MOD_COUNT_RANGE] = m_cnt[m_vsel];
                    w[`VIA_EVT_MOD_TIME_RANGE] = m_tim[m_vsel];
                end
            end
            `VIA_REG_EVT_RAISED: if (ok) w = m_raised[m_vsel];
            `VIA_REG_EVT_EVENTS: if (ok) w = m_events[m_vsel];
            `VIA_REG_EVT_CAP: begin
                w[`VIA_EVT_CAP_NUM_RANGE] = NUM_VEC;
                w[`VIA_EVT_CAP_IRQ_LSB_RANGE] = IRQ_LSB;
                w[`VIA_EVT_CAP_CQS_RANGE] = NUM_CQ;   // (NUM_CQ mod 256)
            end
            default: w = 32'd0;
        endcase
        exp_rd = w;
    end
endfunction

// ---------------------------------------------------------------- monitor
// at the rising edge: the outputs of the cycle that ends, then the model
// steps on its inputs
reg        mon_bus = 1'b0;     // the random rounds: check every read and write hit
reg [31:0] mon_w;
reg [15:0] mon_o;
reg        mon_h;
integer    mon_v;
always @(posedge clk) begin
    if (rst) begin
        model_reset;
    end else begin
        if (irq_set !== m_irq)
            $fatal(1, "tb_via_evt %0s: cycle %0d: irq_set %b, the model expects %b", NAME, cyc, irq_set, m_irq);
        if (m_irq != {NUM_VEC{1'b0}}) begin
            for (mon_v = 0; mon_v < NUM_VEC; mon_v = mon_v + 1) begin
                if (m_irq[mon_v]) begin
                    n_irq[mon_v] = n_irq[mon_v] + 1;
                    last_irq[mon_v] = cyc;
                end
            end
        end
        // white box: the arms
        if (dut.arm_s !== m_arm_s || dut.arm_r !== m_arm_r || dut.arm_c !== m_arm_c)
            $fatal(1, "tb_via_evt %0s: cycle %0d: arms send %b receive %b CQ %b, the model's %b %b %b", NAME, cyc,
                dut.arm_s, dut.arm_r, dut.arm_c, m_arm_s, m_arm_r, m_arm_c);
        if (mon_bus) begin
            // (the block's registers are the words from EVT_ARM to EVT_CAP:
            // test_decode; inline, as a function call is slow in Icarus)
            mon_o = {wr_addr[15:2], 2'b00};
            if (wr_hit !== (mon_o >= `VIA_REG_EVT_ARM && mon_o <= `VIA_REG_EVT_CAP))
                $fatal(1, "tb_via_evt %0s: cycle %0d: wr_hit %b at offset 0x%0h", NAME, cyc, wr_hit, wr_addr);
            if (rd_en) begin
                mon_w = exp_rd(rd_addr);
                mon_o = {rd_addr[15:2], 2'b00};
                mon_h = mon_o >= `VIA_REG_EVT_ARM && mon_o <= `VIA_REG_EVT_CAP;
                if (rd_hit !== mon_h || rd_data !== mon_w)
                    $fatal(1, "tb_via_evt %0s: cycle %0d: read of 0x%0h (EVT_VSEL %0d): hit %b data 0x%0h, expected hit %b data 0x%0h",
                        NAME, cyc, rd_addr, m_vsel, rd_hit, rd_data, mon_h, mon_w);
                n_rd = n_rd + 1;
            end
        end
        model_step;
        cyc = cyc + 1;
    end
end

// ---------------------------------------------------------------- random driver
// At the falling edge while rnd_on: completions on each port with its
// probability (a hot VI or CQ most of the time), and a write with
// probability p_wr; a read of a random offset around the block every cycle.
reg     rnd_on = 1'b0;
integer p_tx = 30, p_rx = 30, p_cq = 30, p_wr = 40, p_map = 4, p_mod = 4, p_vsel = 5;
integer hot_vi [0:NH-1];
integer hot_cq [0:NH-1];
integer n_hot_vi = 1, n_hot_cq = 1;
reg [31:0] dr, dr2, dw;
integer    di, dtry;
reg        dfire_any;

function integer pick_vi;
    input [31:0] r;
    begin
        if (r[7:0] < 8'd218) pick_vi = hot_vi[r[15:8] % n_hot_vi];
        else pick_vi = r[31:16] % NUM_VI;
    end
endfunction

function integer pick_cq;
    input [31:0] r;
    begin
        if (r[7:0] < 8'd218) pick_cq = hot_cq[r[15:8] % n_hot_cq];
        else pick_cq = r[31:16] % NUM_CQ;
    end
endfunction

// an index out of range: the next power of two plus a valid one (aliasing
// its low bits), NUM itself, or anything above
function [15:0] oor_index;
    input [31:0] r;
    input integer num;
    input integer width;
    begin
        case (r[1:0])
            2'd0: oor_index = (16'd1 << width) + r[15:8] % num;
            2'd1: oor_index = num;
            default: oor_index = num + r[31:18] % (65536 - num);
        endcase
    end
endfunction

always @(negedge clk) begin
    if (rnd_on) begin
        // completions (garbage on the index inputs without their strobe)
        dr = drnd(0);
        dr2 = drnd(0);
        tx_done = dr[6:0] % 100 < p_tx;
        rx_done = dr[13:7] % 100 < p_rx;
        cq_done = dr[20:14] % 100 < p_cq;
        tx_done_vi = tx_done ? pick_vi(dr2) : dr2[VW-1:0];
        tx_done_q = dr[21];
        dr2 = drnd(0);
        rx_done_vi = rx_done ? pick_vi(dr2) : dr2[VW-1:0];
        dr2 = drnd(0);
        cq_done_cq = cq_done ? pick_cq(dr2) : dr2[7:0];
        // a read every cycle, sometimes of a neighbouring offset
        dr2 = drnd(0);
        rd_en = dr2[3:0] != 4'd0;
        rd_fire = dr2[4];
        if (dr2[7:5] == 3'd0) rd_addr = dr2[8] ? `VIA_REG_EVT_ARM - 16'd4 : `VIA_REG_EVT_CAP + 16'd4;
        else rd_addr = `VIA_REG_EVT_ARM + {10'd0, dr2[12:10] % 3'd7, 2'b00} + {14'd0, dr2[14:13]};
        // a write
        wr_en = 1'b0;
        wr_strb = 4'hF;
        dr = drnd(0);
        if (dr[6:0] % 100 < p_wr) begin
            wr_en = 1'b1;
            wr_addr = {14'd0, dr[31:30]};   // byte offset bits: ignored
            dr2 = drnd(0);
            di = dr[13:7] % 100;
            if (m_fnext != {NUM_VEC{1'b0}} && dr[29:28] == 2'd0) di = 0;   // a route in the cycle of a raise
            if (di < p_map) begin
                // EVT_MAP: a VI or a CQ to a vector (sometimes out of range)
                wr_addr = wr_addr + `VIA_REG_EVT_MAP;
                dw = dr2 & 32'hF8FD0000;            // reserved bits: random
                dw[`VIA_EVT_MAP_CQ_LSB] = dr[14];
                dw[`VIA_EVT_MAP_VEC_RANGE] = dr[17:15] < 3'd7 ? dr[20:18] % NUM_VEC : dr[20:18];
                if (dr[23:21] == 3'd0) dw[`VIA_EVT_MAP_INDEX_RANGE] = oor_index(drnd(0), dr[14] ? NUM_CQ : NUM_VI, dr[14] ? CW : VW);
                else dw[`VIA_EVT_MAP_INDEX_RANGE] = dr[14] ? pick_cq(drnd(0)) : pick_vi(drnd(0));
                wr_data = dw;
            end else if (di < p_map + p_mod) begin
                wr_addr = wr_addr + `VIA_REG_EVT_MOD;
                wr_data = mod_word({dr2, drnd(0)});
            end else if (di < p_map + p_mod + p_vsel) begin
                // EVT_VSEL: a vector, sometimes none; byte 0 not always written
                wr_addr = wr_addr + `VIA_REG_EVT_VSEL;
                wr_data = dr2;
                if (dr[16:14] != 3'd0) wr_data[7:0] = dr2[7:0] % NUM_VEC;
                wr_strb = dr[19:17] == 3'd0 ? dr[23:20] : 4'hF;
            end else if (di < p_map + p_mod + p_vsel + 2) begin
                // a read-only register, or an offset next to the block
                case (dr[16:14] % 5)
                    0: wr_addr = wr_addr + `VIA_REG_EVT_RAISED;
                    1: wr_addr = wr_addr + `VIA_REG_EVT_EVENTS;
                    2: wr_addr = wr_addr + `VIA_REG_EVT_CAP;
                    3: wr_addr = wr_addr + `VIA_REG_EVT_ARM - 16'd4;
                    default: wr_addr = wr_addr + `VIA_REG_EVT_CAP + 16'd4;
                endcase
                wr_data = dr2;
                wr_strb = dr[20:17];
            end else begin
                // EVT_ARM: a queue or CQ; when a vector raises in this
                // cycle, mostly one of its own
                wr_addr = wr_addr + `VIA_REG_EVT_ARM;
                dw = dr2 & 32'hFFFC0000;            // reserved bits: random
                dw[`VIA_EVT_ARM_CQ_LSB] = dr[14] && dr[15];
                dw[`VIA_EVT_ARM_QUEUE_LSB] = dr[16];
                if (dr[21:17] == 5'd0) begin
                    dw[`VIA_EVT_ARM_INDEX_RANGE] = oor_index(drnd(0), dw[`VIA_EVT_ARM_CQ_LSB] ? NUM_CQ : NUM_VI,
                        dw[`VIA_EVT_ARM_CQ_LSB] ? CW : VW);
                end else begin
                    dfire_any = m_fnext != {NUM_VEC{1'b0}};
                    di = dw[`VIA_EVT_ARM_CQ_LSB] ? pick_cq(drnd(0)) : pick_vi(drnd(0));
                    if (dfire_any && dr[22]) begin
                        for (dtry = 0; dtry < 4; dtry = dtry + 1) begin
                            if (!m_fnext[dw[`VIA_EVT_ARM_CQ_LSB] ? m_vcq[di] : m_vvi[di]])
                                di = dw[`VIA_EVT_ARM_CQ_LSB] ? pick_cq(drnd(0)) : pick_vi(drnd(0));
                        end
                    end
                    dw[`VIA_EVT_ARM_INDEX_RANGE] = di;
                end
                wr_data = dw;
            end
        end
    end
end

// ---------------------------------------------------------------- bench actions
// Every task returns at a falling edge with the inputs idle, except
// cyc1, which sets the inputs of the cycle that starts and returns.
task clr;
    begin
        tx_done = 1'b0;
        rx_done = 1'b0;
        cq_done = 1'b0;
        wr_en = 1'b0;
        wr_strb = 4'd0;
        rd_en = 1'b0;
        rd_fire = 1'b0;
    end
endtask

task s_idle;
    input integer n;
    integer j;
    begin
        for (j = 0; j < n; j = j + 1) begin
            @(negedge clk);
            clr;
        end
    end
endtask

// one cycle: completions (ports: bit 0 send, 1 receive, 2 CQ) and
// optionally a write; t_now is its number
integer t_now;
task s_cyc1;
    input [2:0]   ports;
    input integer tvi;
    input         tq;
    input integer rvi;
    input integer cqi;
    input         we;
    input [15:0]  wa;
    input [31:0]  wd;
    begin
        @(negedge clk);
        clr;
        tx_done = ports[0];
        tx_done_vi = tvi;
        tx_done_q = tq;
        rx_done = ports[1];
        rx_done_vi = rvi;
        cq_done = ports[2];
        cq_done_cq = cqi;
        wr_en = we;
        wr_addr = wa;
        wr_data = wd;
        wr_strb = 4'hF;
        t_now = cyc;
    end
endtask

// one completion alone
task comp_tx;
    input integer vi;
    input q;
    begin
        cyc1(3'b001, vi, q, 0, 0, 1'b0, 16'd0, 32'd0);
    end
endtask

task comp_rx;
    input integer vi;
    begin
        cyc1(3'b010, 0, 1'b0, vi, 0, 1'b0, 16'd0, 32'd0);
    end
endtask

task comp_cq;
    input integer c;
    begin
        cyc1(3'b100, 0, 1'b0, 0, c, 1'b0, 16'd0, 32'd0);
    end
endtask

function [31:0] arm_word;
    input integer idx;
    input q;
    input cq;
    begin
        arm_word = 32'd0;
        arm_word[`VIA_EVT_ARM_INDEX_RANGE] = idx;
        arm_word[`VIA_EVT_ARM_QUEUE_LSB] = q;
        arm_word[`VIA_EVT_ARM_CQ_LSB] = cq;
    end
endfunction

function [31:0] map_word;
    input integer idx;
    input cq;
    input [2:0] vec;
    begin
        map_word = 32'd0;
        map_word[`VIA_EVT_MAP_INDEX_RANGE] = idx;
        map_word[`VIA_EVT_MAP_CQ_LSB] = cq;
        map_word[`VIA_EVT_MAP_VEC_RANGE] = vec;
    end
endfunction

// EVT_VSEL, then EVT_MOD
task s_w_mod;
    input integer vec;
    input integer count;
    input integer tim;
    reg [31:0] w;
    begin
        w = 32'd0;
        w[`VIA_EVT_MOD_COUNT_RANGE] = count;
        w[`VIA_EVT_MOD_TIME_RANGE] = tim;
        bus_wr(`VIA_REG_EVT_VSEL, vec, 4'hF);
        bus_wr(`VIA_REG_EVT_MOD, w, 4'hF);
    end
endtask

// read a register now and compare with exp_v
reg [31:0] rv;
task s_rd_check;
    input [15:0] a;
    input [31:0] exp_v;
    begin
        bus_peek(a, rv);
        if (rv !== exp_v)
            $fatal(1, "tb_via_evt %0s: cycle %0d: register 0x%0h (EVT_VSEL %0d) reads 0x%0h, expected 0x%0h", NAME, cyc, a, m_vsel, rv, exp_v);
    end
endtask

// ... against the model
task s_rd_model;
    input [15:0] a;
    begin
        s_rd_check(a, exp_rd(a));
    end
endtask

// every register of every vector against the model
integer sw_v, sw_n = NUM_VEC;
task s_sweep;
    begin
        s_rd_model(`VIA_REG_EVT_ARM);
        s_rd_model(`VIA_REG_EVT_MAP);
        s_rd_model(`VIA_REG_EVT_CAP);
        for (sw_v = 0; sw_v < sw_n; sw_v = sw_v + 1) begin
            bus_wr(`VIA_REG_EVT_VSEL, sw_v, 4'hF);
            s_rd_model(`VIA_REG_EVT_VSEL);
            s_rd_model(`VIA_REG_EVT_MOD);
            s_rd_model(`VIA_REG_EVT_RAISED);
            s_rd_model(`VIA_REG_EVT_EVENTS);
        end
    end
endtask

// EVT_EVENTS / EVT_RAISED of vector v (selects it)
task s_rd_counts;
    input integer v;
    output [31:0] ev;
    output [31:0] ra;
    begin
        bus_wr(`VIA_REG_EVT_VSEL, v, 4'hF);
        bus_peek(`VIA_REG_EVT_EVENTS, ev);
        bus_peek(`VIA_REG_EVT_RAISED, ra);
        if (ev !== m_events[v] || ra !== m_raised[v])
            $fatal(1, "tb_via_evt %0s: cycle %0d: vector %0d: EVT_EVENTS %0d EVT_RAISED %0d, the model's %0d %0d", NAME, cyc, v, ev, ra, m_events[v], m_raised[v]);
    end
endtask

// The decode, as check_decode of tb_via_blocks_bus.vh does it but without
// a table search per offset (slow in Icarus): in the generated table, the
// registers of the block of EVT_ARM are exactly the 7 words from EVT_ARM
// to EVT_CAP (is_evt); every byte offset of the register space hits
// (reads and writes) exactly there, and reads 0 elsewhere and without rd_en.
integer dc_i, dc_n, dc_off;
reg     dc_exp;
task s_decode;
    begin
        dc_n = 0;
        dec_blk = via_bar0_reg_block(reg_index(`VIA_REG_EVT_ARM));
        for (dc_i = 0; dc_i < VIA_BAR0_REGS; dc_i = dc_i + 1) begin
            dc_exp = via_bar0_reg_block(dc_i) == dec_blk;
            if (dc_exp !== is_evt(via_bar0_reg_offset(dc_i)))
                $fatal(1, "tb_via_evt %0s: decode: register 0x%0h of the table: in block evt %b", NAME, via_bar0_reg_offset(dc_i), dc_exp);
            if (dc_exp) dc_n = dc_n + 1;
        end
        if (dc_n != 7 || `VIA_REG_EVT_CAP - `VIA_REG_EVT_ARM != 24)
            $fatal(1, "tb_via_evt %0s: decode: the table has %0d registers in block evt, not EVT_ARM..EVT_CAP", NAME, dc_n);
        for (dc_off = 0; dc_off < `VIA_GLOBAL_BYTES; dc_off = dc_off + 1) begin
            dc_exp = dc_off >= `VIA_REG_EVT_ARM && dc_off < `VIA_REG_EVT_CAP + 4;
            wr_addr = dc_off;
            rd_addr = dc_off;
            rd_en = 1'b1;
            #0.01;
            if (wr_hit !== dc_exp || rd_hit !== dc_exp || (!dc_exp && rd_data !== 32'd0))
                $fatal(1, "tb_via_evt %0s: decode: offset 0x%0h: wr_hit %b rd_hit %b rd_data 0x%0h, expected hit %b", NAME,
                    dc_off, wr_hit, rd_hit, rd_data, dc_exp);
            rd_en = 1'b0;
            #0.01;
            if (rd_hit !== 1'b0 || rd_data !== 32'd0)
                $fatal(1, "tb_via_evt %0s: decode: offset 0x%0h answers without rd_en", NAME, dc_off);
            checks = checks + 1;
        end
        wr_addr = 16'd0;
        rd_addr = 16'd0;
    end
endtask

// ---------------------------------------------------------------- requests
// The operations above run in one server process and the main thread's
// tasks below only post a request and wait for it (as in tb_via_cq): a
// task's whole body, and the tasks it calls, is inlined by Verilator at
// every call site of the main thread's one coroutine.
localparam OP_WR = 1, OP_RD = 2, OP_IDLE = 3, OP_CYC1 = 4, OP_COUNTS = 5, OP_SWEEP = 6,
           OP_RESET = 7, OP_DECODE = 8, OP_ARM = 9, OP_MAP = 10, OP_MOD = 11, OP_RDM = 12;
integer    srv_op = 0, srv_req = 0, srv_ack = 0;
integer    srv_a, srv_b, srv_c, srv_d;
reg        srv_q, srv_we;
reg [3:0]  srv_s;
reg [15:0] srv_addr;
reg [31:0] srv_w, srv_ev, srv_ra;

always begin
    wait (srv_req != srv_ack);
    case (srv_op)
        OP_WR:     bus_wr(srv_addr, srv_w, srv_s);
        OP_RD:     s_rd_check(srv_addr, srv_w);
        OP_IDLE:   s_idle(srv_a);
        OP_CYC1:   s_cyc1(srv_a[2:0], srv_b, srv_q, srv_c, srv_d, srv_we, srv_addr, srv_w);
        OP_COUNTS: s_rd_counts(srv_a, srv_ev, srv_ra);
        OP_SWEEP:  s_sweep;
        OP_RESET:  check_reset_values(`VIA_REG_EVT_ARM);
        OP_DECODE: s_decode;
        OP_ARM:    bus_wr(`VIA_REG_EVT_ARM, arm_word(srv_a, srv_q, srv_we), 4'hF);
        OP_MAP:    bus_wr(`VIA_REG_EVT_MAP, map_word(srv_a, srv_q, srv_b), 4'hF);
        OP_MOD:    s_w_mod(srv_a, srv_b, srv_c);
        OP_RDM:    s_rd_model(srv_addr);
        default:   $fatal(1, "tb_via_evt %0s: bench error, request %0d", NAME, srv_op);
    endcase
    srv_ack = srv_req;
end

task serve;
    input integer o;
    begin
        srv_op = o;
        srv_req = srv_req + 1;
        wait (srv_ack == srv_req);
    end
endtask

// a write (data, byte strobes)
task wr;
    input [15:0] a;
    input [31:0] d;
    input [3:0]  st;
    begin
        srv_addr = a;
        srv_w = d;
        srv_s = st;
        serve(OP_WR);
    end
endtask

task rd_check;
    input [15:0] a;
    input [31:0] exp_v;
    begin
        srv_addr = a;
        srv_w = exp_v;
        serve(OP_RD);
    end
endtask

// ... against the model
task rd_model;
    input [15:0] a;
    begin
        srv_addr = a;
        serve(OP_RDM);
    end
endtask

// EVT_ARM: a VI's queue q, or (cq) CQ idx
task w_arm;
    input integer idx;
    input q;
    input cq;
    begin
        srv_a = idx;
        srv_q = q;
        srv_we = cq;
        serve(OP_ARM);
    end
endtask

// EVT_MAP: VI or (cq) CQ idx to vector vec
task w_map;
    input integer idx;
    input cq;
    input integer vec;
    begin
        srv_a = idx;
        srv_q = cq;
        srv_b = vec;
        serve(OP_MAP);
    end
endtask

// moderation of vector vec (selects it)
task w_mod;
    input integer vec;
    input integer count;
    input integer tim;
    begin
        srv_a = vec;
        srv_b = count;
        srv_c = tim;
        serve(OP_MOD);
    end
endtask

task idle;
    input integer n;
    begin
        srv_a = n;
        serve(OP_IDLE);
    end
endtask

task cyc1;
    input [2:0]   ports;
    input integer tvi;
    input         tq;
    input integer rvi;
    input integer cqi;
    input         we;
    input [15:0]  wa;
    input [31:0]  wd;
    begin
        srv_a = ports;
        srv_b = tvi;
        srv_q = tq;
        srv_c = rvi;
        srv_d = cqi;
        srv_we = we;
        srv_addr = wa;
        srv_w = wd;
        serve(OP_CYC1);
    end
endtask

task rd_counts;
    input integer v;
    output [31:0] ev;
    output [31:0] ra;
    begin
        srv_a = v;
        serve(OP_COUNTS);
        ev = srv_ev;
        ra = srv_ra;
    end
endtask

task sweep;
    begin
        serve(OP_SWEEP);
    end
endtask

task reset_values;
    begin
        serve(OP_RESET);
    end
endtask

task decode;
    begin
        serve(OP_DECODE);
    end
endtask

// vector v raised exactly n times since the count n0, the last in cycle t
// (t < 0: not checked)
task expect_irq;
    input integer v;
    input integer n0;
    input integer n;
    input integer t;
    input [8*24-1:0] what;
    begin
        if (n_irq[v] != n0 + n || (t >= 0 && last_irq[v] != t))
            $fatal(1, "tb_via_evt %0s: %0s: vector %0d raised %0d times (last in cycle %0d), expected %0d (the last in cycle %0d)",
                NAME, what, v, n_irq[v] - n0, last_irq[v], n, t);
    end
endtask

// ---------------------------------------------------------------- phases
// loop bounds in variables: Verilator unrolls a loop with a constant bound,
// timing controls and inlined tasks included
integer nvi = NUM_VI, ncq = NUM_CQ, nvec = NUM_VEC, n_rounds = ROUNDS;
integer n_2 = 2, n_3 = 3, n_4 = 4, n_6 = 6, n_24 = 24, n_84 = 84;
reg     do_decode = 1'b1;
integer i, j, k, v, w, a, b, c, t0, tv, n0, n1;
reg [31:0] w32, ev0, ra0, ev1, ra1;
reg        short;

// 1. reset values, decode, capabilities
task test_reset;
    begin
        reset_values;
        if (DECODE != 0 && do_decode) decode;
        w32 = 32'd0;
        w32[`VIA_EVT_CAP_NUM_RANGE] = NUM_VEC;
        w32[`VIA_EVT_CAP_IRQ_LSB_RANGE] = IRQ_LSB;
        w32[`VIA_EVT_CAP_CQS_RANGE] = NUM_CQ;
        rd_check(`VIA_REG_EVT_CAP, w32);
        rd_check(`VIA_REG_EVT_ARM, 32'd0);
        rd_check(`VIA_REG_EVT_MAP, 32'd0);
        rd_check(`VIA_REG_EVT_VSEL, 32'd0);
        for (v = 0; v < nvec; v = v + 1) begin
            wr(`VIA_REG_EVT_VSEL, v, 4'hF);
            w32 = 32'd0;
            w32[`VIA_EVT_MOD_COUNT_RANGE] = 8'd1;   // COUNT 1, TIME 0
            rd_check(`VIA_REG_EVT_MOD, w32);
            rd_check(`VIA_REG_EVT_RAISED, 32'd0);
            rd_check(`VIA_REG_EVT_EVENTS, 32'd0);
        end
        if (irq_set !== {NUM_VEC{1'b0}} || dut.arm_s !== {NUM_VI{1'b0}} || dut.arm_r !== {NUM_VI{1'b0}} || dut.arm_c !== {NUM_CQ{1'b0}})
            $fatal(1, "tb_via_evt %0s: after reset: irq_set %b, arms %b %b %b", NAME, irq_set, dut.arm_s, dut.arm_r, dut.arm_c);
    end
endtask

// 2. registers
reg [31:0] tr_mod [0:7];
task test_regs;
    begin
        // EVT_ARM, EVT_MAP: the last word written, its fields (indexes and
        // vectors in and out of range, reserved bits set)
        for (i = 0; i < n_24; i = i + 1) begin
            w32 = rnd(0);
            if (i < 4) w32 = i[0] ? 32'hFFFFFFFF : 32'd0;
            wr(`VIA_REG_EVT_ARM, w32, 4'hF);
            rd_check(`VIA_REG_EVT_ARM, w32 & 32'h0003FFFF);
            rd_model(`VIA_REG_EVT_ARM);
            w32 = rnd(0);
            if (i < 4) w32 = i[0] ? 32'hFFFFFFFF : 32'd0;
            wr(`VIA_REG_EVT_MAP, w32, 4'hF);
            rd_check(`VIA_REG_EVT_MAP, w32 & 32'h0702FFFF);
            rd_model(`VIA_REG_EVT_MAP);
            rd_model(`VIA_REG_EVT_ARM);     // (unchanged by a MAP write)
        end
        // EVT_VSEL: 8 bits, byte strobes
        wr(`VIA_REG_EVT_VSEL, 32'hFFFFFF00 | (NUM_VEC - 1), 4'hF);
        rd_check(`VIA_REG_EVT_VSEL, NUM_VEC - 1);
        wr(`VIA_REG_EVT_VSEL, 32'h000000A5, 4'hE);
        rd_check(`VIA_REG_EVT_VSEL, NUM_VEC - 1);
        wr(`VIA_REG_EVT_VSEL, 32'h5A5A5AFF, 4'h1);
        rd_check(`VIA_REG_EVT_VSEL, 32'hFF);
        // EVT_MOD per vector, no aliasing; bits 15:8 read 0
        for (v = 0; v < nvec; v = v + 1) begin
            tr_mod[v] = rnd(0);
            wr(`VIA_REG_EVT_VSEL, v, 4'hF);
            wr(`VIA_REG_EVT_MOD, tr_mod[v], 4'hF);
            rd_check(`VIA_REG_EVT_MOD, tr_mod[v] & 32'hFFFF00FF);
        end
        // EVT_VSEL out of range: selects nothing
        for (i = 0; i < n_6; i = i + 1) begin
            w32 = (i == 0) ? NUM_VEC : (i == 1) ? 255 : (i == 2) ? 8 : NUM_VEC + urand(256 - NUM_VEC);
            wr(`VIA_REG_EVT_VSEL, w32, 4'hF);
            rd_check(`VIA_REG_EVT_VSEL, w32);
            wr(`VIA_REG_EVT_MOD, rnd(0), 4'hF);
            rd_check(`VIA_REG_EVT_MOD, 32'd0);
            rd_check(`VIA_REG_EVT_RAISED, 32'd0);
            rd_check(`VIA_REG_EVT_EVENTS, 32'd0);
        end
        for (v = 0; v < nvec; v = v + 1) begin
            wr(`VIA_REG_EVT_VSEL, v, 4'hF);
            rd_check(`VIA_REG_EVT_MOD, tr_mod[v] & 32'hFFFF00FF);
            rd_model(`VIA_REG_EVT_MOD);
            // read-only registers ignore writes
            wr(`VIA_REG_EVT_RAISED, rnd(0), 4'hF);
            wr(`VIA_REG_EVT_EVENTS, rnd(0), 4'hF);
            wr(`VIA_REG_EVT_CAP, rnd(0), 4'hF);
            rd_model(`VIA_REG_EVT_RAISED);
            rd_model(`VIA_REG_EVT_EVENTS);
            rd_model(`VIA_REG_EVT_CAP);
            rd_model(`VIA_REG_EVT_MOD);
        end
        // back to COUNT 1, TIME 0 everywhere; nothing raised so far (a
        // random moderation may have left a count pending: none counted,
        // as nothing completed)
        for (v = 0; v < nvec; v = v + 1) w_mod(v, 1, 0);
        idle(2);
        sweep;
        for (v = 0; v < nvec; v = v + 1) begin
            if (m_raised[v] != 0 || m_events[v] != 0 || n_irq[v] != 0)
                $fatal(1, "tb_via_evt %0s: registers: vector %0d raised before any completion", NAME, v);
        end
    end
endtask

// 3a. COUNT 1 (and 0): a completion in cycle t raises irq_set in cycle
// t+2, once; the queue is disarmed; the next completion is not counted
task lat_case;
    input integer port;     // 0 send queue 0, 1 send queue 1, 2 receive, 3 CQ
    input integer idx;
    input integer vec;
    input integer count;
    reg armed;
    begin
        w_mod(vec, count, 0);
        w_map(idx, port == 3, vec);
        w_arm(idx, port == 1 || port == 2, port == 3);
        rd_counts(vec, ev0, ra0);
        n0 = n_irq[vec];
        for (j = 0; j < n_2; j = j + 1) begin
            case (port)
                0: comp_tx(idx, 1'b0);
                1: comp_tx(idx, 1'b1);
                2: comp_rx(idx);
                default: comp_cq(idx);
            endcase
            if (j == 0) t0 = t_now;
            idle(5);
            armed = port == 3 ? dut.arm_c[idx] : (port == 0 ? dut.arm_s[idx] : dut.arm_r[idx]);
            if (armed !== 1'b0)
                $fatal(1, "tb_via_evt %0s: COUNT %0d, port %0d index %0d: still armed after the raise", NAME, count, port, idx);
            expect_irq(vec, n0, 1, t0 + 2, "COUNT 1 latency");
        end
        rd_counts(vec, ev1, ra1);
        if (ev1 != ev0 + 32'd1 || ra1 != ra0 + 32'd1)
            $fatal(1, "tb_via_evt %0s: COUNT %0d, port %0d: EVT_EVENTS +%0d EVT_RAISED +%0d, expected +1 +1", NAME, count, port, ev1 - ev0, ra1 - ra0);
    end
endtask

task test_latency;
    begin
        // (one call site: the task is inlined at each)
        for (k = 0; k < n_6; k = k + 1) begin
            // port, index, vector, COUNT
            case (k)
                0: begin a = 0; b = 0;          v = NUM_VEC - 1; c = 1; end
                1: begin a = 1; b = NUM_VI - 1; v = 0;           c = 1; end
                2: begin a = 2; b = NUM_VI / 2; v = NUM_VEC - 1; c = 0; end
                3: begin a = 3; b = NUM_CQ - 1; v = NUM_VEC - 1; c = 1; end
                4: begin a = 3; b = 0;          v = NUM_VEC / 2; c = 0; end
                default: begin a = 0; b = NUM_VI - 1; v = NUM_VEC / 2; c = 0; end
            endcase
            lat_case(a, b, v, c);
        end
    end
endtask

// 3b. COUNT 4: four completions in a burst raise once, two cycles after
// the fourth
task test_burst;
    begin
        v = NUM_VEC - 1;
        a = 0;
        c = NUM_CQ - 1;
        w_mod(v, 4, 0);
        w_map(a, 1'b0, v);
        w_map(c, 1'b1, v);
        // one queue counted twice: send, receive, CQ, send
        w_arm(a, 1'b0, 1'b0);
        w_arm(a, 1'b1, 1'b0);
        w_arm(c, 1'b0, 1'b1);
        rd_counts(v, ev0, ra0);
        n0 = n_irq[v];
        comp_tx(a, 1'b0);
        comp_rx(a);
        comp_cq(c);
        idle(4);
        expect_irq(v, n0, 0, -1, "COUNT 4, three");
        comp_tx(a, 1'b0);
        t0 = t_now;
        idle(5);
        expect_irq(v, n0, 1, t0 + 2, "COUNT 4 burst");
        if (dut.arm_s[a] !== 1'b0 || dut.arm_r[a] !== 1'b0 || dut.arm_c[c] !== 1'b0)
            $fatal(1, "tb_via_evt %0s: COUNT 4: queues still armed after the raise", NAME);
        // three in one cycle (the flushed receive on the send port), one the
        // cycle after
        w_arm(a, 1'b0, 1'b0);
        w_arm(a, 1'b1, 1'b0);
        w_arm(c, 1'b0, 1'b1);
        cyc1(3'b111, a, 1'b1, a, c, 1'b0, 16'd0, 32'd0);
        comp_tx(a, 1'b0);
        t0 = t_now;
        idle(5);
        expect_irq(v, n0, 2, t0 + 2, "COUNT 4, 3 + 1");
        // back to back, the same queue four times
        w_arm(a, 1'b0, 1'b0);
        for (i = 0; i < n_4; i = i + 1) comp_tx(a, 1'b0);
        t0 = t_now;
        idle(5);
        expect_irq(v, n0, 3, t0 + 2, "COUNT 4, one queue");
        rd_counts(v, ev1, ra1);
        if (ev1 != ev0 + 32'd12 || ra1 != ra0 + 32'd3)
            $fatal(1, "tb_via_evt %0s: COUNT 4: EVT_EVENTS +%0d EVT_RAISED +%0d, expected +12 +3", NAME, ev1 - ev0, ra1 - ra0);
    end
endtask

// 3c. TIME: a lone completion in cycle t raises in cycle t+2+TIME
task time_case;
    input integer tim;
    begin
        v = 0;
        a = NUM_VI - 1;
        w_mod(v, 8, tim);
        w_map(a, 1'b0, v);
        w_arm(a, 1'b1, 1'b0);
        n0 = n_irq[v];
        comp_rx(a);
        t0 = t_now;
        idle(tim + 1);
        expect_irq(v, n0, 0, -1, "TIME, before");
        idle(4);
        expect_irq(v, n0, 1, t0 + 2 + tim, "TIME expiry");
    end
endtask

task test_time;
    begin
        for (k = 0; k < n_3; k = k + 1) time_case(k < 2 ? k + 1 : 3 + urand(short ? 60 : 300));
        // TIME runs from the first completion: COUNT 3, TIME 10, two of them
        v = NUM_VEC - 1;
        c = 0;
        w_mod(v, 3, 10);
        w_map(c, 1'b1, v);
        w_arm(c, 1'b0, 1'b1);
        n0 = n_irq[v];
        comp_cq(c);
        t0 = t_now;
        idle(4);
        comp_cq(c);
        idle(12);
        expect_irq(v, n0, 1, t0 + 12, "TIME from the first");
        // COUNT reached before TIME
        w_arm(c, 1'b0, 1'b1);
        comp_cq(c);
        comp_cq(c);
        comp_cq(c);
        t0 = t_now;
        idle(12);
        expect_irq(v, n0, 2, t0 + 2, "COUNT before TIME");
        // TIME 0 never expires
        w_mod(v, 2, 0);
        w_arm(c, 1'b0, 1'b1);
        comp_cq(c);
        idle(short ? 100 : 400);
        expect_irq(v, n0, 2, -1, "TIME 0");
        // lowering COUNT to the count raises
        w_mod(v, 1, 0);
        t0 = cyc;
        idle(4);
        expect_irq(v, n0, 3, t0 + 1, "COUNT lowered");
    end
endtask

// 3d. saturation: COUNT 255, 253 completions then 3 in one cycle: the
// count holds 255 and raises; the timer holds 0xFFFF
task test_saturation;
    begin
        v = NUM_VEC - 1;
        a = NUM_VI - 1;
        c = NUM_CQ - 1;
        w_mod(v, 255, 0);
        w_map(a, 1'b0, v);
        w_map(c, 1'b1, v);
        w_arm(a, 1'b0, 1'b0);
        w_arm(a, 1'b1, 1'b0);
        w_arm(c, 1'b0, 1'b1);
        rd_counts(v, ev0, ra0);
        n0 = n_irq[v];
        for (i = 0; i < n_84; i = i + 1) cyc1(3'b111, a, 1'b0, a, c, 1'b0, 16'd0, 32'd0);
        comp_tx(a, 1'b1);
        idle(3);
        if (dut.v_cnt[v] !== 8'd253)
            $fatal(1, "tb_via_evt %0s: saturation: count %0d after 253", NAME, dut.v_cnt[v]);
        expect_irq(v, n0, 0, -1, "COUNT 255, 253");
        cyc1(3'b111, a, 1'b0, a, c, 1'b0, 16'd0, 32'd0);
        t0 = t_now;
        idle(1);
        if (dut.v_cnt[v] !== 8'd255)
            $fatal(1, "tb_via_evt %0s: saturation: count %0d after 256 (expected 255)", NAME, dut.v_cnt[v]);
        idle(4);
        expect_irq(v, n0, 1, t0 + 2, "COUNT 255 saturated");
        rd_counts(v, ev1, ra1);
        if (ev1 != ev0 + 32'd256 || ra1 != ra0 + 32'd1)
            $fatal(1, "tb_via_evt %0s: saturation: EVT_EVENTS +%0d EVT_RAISED +%0d, expected +256 +1", NAME, ev1 - ev0, ra1 - ra0);
        // the timer (white box: preset near its top): with TIME 0 it
        // stops at 0xFFFF; TIME 0xFFFF then raises at once
        w_arm(a, 1'b0, 1'b0);
        comp_tx(a, 1'b0);
        idle(3);
        dut.v_tmr[v] = 16'hFFF0;
        m_first[v] = cyc - 1 - 32'hFFF0;
        idle(40);
        if (dut.v_tmr[v] !== 16'hFFFF)
            $fatal(1, "tb_via_evt %0s: saturation: timer 0x%0h (expected 0xFFFF)", NAME, dut.v_tmr[v]);
        expect_irq(v, n0, 1, -1, "TIME 0, timer at its top");
        w_mod(v, 255, 65535);
        t0 = cyc;
        idle(4);
        expect_irq(v, n0, 2, t0 + 1, "TIME 0xFFFF");
    end
endtask

// 3e. a raise disarms every queue and CQ routed to its vector, no other;
// an arm written in its cycle stays; the completions of its cycle are
// covered
task test_disarm;
    begin
        v = NUM_VEC - 1;
        w = 0;
        a = 0;
        b = NUM_VI - 1;
        c = NUM_CQ - 1;
        w_mod(v, 1, 0);
        w_mod(w, 1, 0);
        w_map(a, 1'b0, v);
        w_map(b, 1'b0, v);
        w_map(c, 1'b1, v);
        if (NUM_CQ > 1) w_map(0, 1'b1, w);
        if (NUM_VI > 2) w_map(1, 1'b0, w);
        w_arm(a, 1'b0, 1'b0);
        w_arm(a, 1'b1, 1'b0);
        w_arm(b, 1'b0, 1'b0);
        w_arm(b, 1'b1, 1'b0);
        w_arm(c, 1'b0, 1'b1);
        if (NUM_CQ > 1) w_arm(0, 1'b0, 1'b1);
        if (NUM_VI > 2) w_arm(1, 1'b1, 1'b0);
        n0 = n_irq[v];
        n1 = n_irq[w];
        comp_tx(a, 1'b0);
        t0 = t_now;
        idle(4);
        tv = t0 + 2;
        expect_irq(v, n0, 1, tv, "disarm");
        if (dut.arm_s[a] !== 1'b0 || dut.arm_r[a] !== 1'b0 || dut.arm_s[b] !== 1'b0 || dut.arm_r[b] !== 1'b0 || dut.arm_c[c] !== 1'b0)
            $fatal(1, "tb_via_evt %0s: a raise left a queue of its vector armed", NAME);
        k = 1;      // (a variable: VI 1 does not exist when NUM_VI is 1)
        if (NUM_VEC > 1 && ((NUM_CQ > 1 && dut.arm_c[0] !== 1'b1) || (NUM_VI > 2 && dut.arm_r[k] !== 1'b1)))
            $fatal(1, "tb_via_evt %0s: a raise disarmed a queue of another vector", NAME);
        if (NUM_VEC > 1) begin
            expect_irq(w, n1, 0, -1, "disarm, the other vector");
            if (NUM_CQ > 1) begin
                comp_cq(0);
                t0 = t_now;
                idle(4);
                expect_irq(w, n1, 1, t0 + 2, "the other vector's CQ");
            end
        end
        // completions of the disarmed queues: not counted
        rd_counts(v, ev0, ra0);
        cyc1(3'b111, b, 1'b1, a, c, 1'b0, 16'd0, 32'd0);
        idle(4);
        rd_counts(v, ev1, ra1);
        expect_irq(v, n0, 1, tv, "disarmed");
        if (ev1 != ev0) $fatal(1, "tb_via_evt %0s: completions of disarmed queues counted", NAME);
        // an arm written in the cycle of the raise stays; the completion of
        // that cycle is covered by the raise
        w_arm(a, 1'b0, 1'b0);
        w_arm(b, 1'b1, 1'b0);
        comp_tx(a, 1'b0);
        t0 = t_now;
        cyc1(3'b010, 0, 1'b0, b, 0, 1'b1, `VIA_REG_EVT_ARM, arm_word(a, 1'b0, 1'b0));
        idle(5);
        expect_irq(v, n0, 2, t0 + 2, "arm in the raise");
        if (dut.arm_s[a] !== 1'b1 || dut.arm_r[b] !== 1'b0)
            $fatal(1, "tb_via_evt %0s: arm in the cycle of a raise: send %b (expected armed), receive %b", NAME, dut.arm_s[a], dut.arm_r[b]);
        rd_counts(v, ev1, ra1);
        if (ev1 != ev0 + 32'd2 || ra1 != ra0 + 32'd1)
            $fatal(1, "tb_via_evt %0s: arm in the raise: EVT_EVENTS +%0d EVT_RAISED +%0d, expected +2 +1", NAME, ev1 - ev0, ra1 - ra0);
        comp_tx(a, 1'b0);
        t0 = t_now;
        idle(5);
        expect_irq(v, n0, 3, t0 + 2, "re-armed in the raise");
        // unarmed: not counted, nor in the cycle of its arm write
        rd_counts(v, ev0, ra0);
        n0 = n_irq[v];
        comp_tx(a, 1'b0);
        comp_rx(b);
        cyc1(3'b001, a, 1'b0, 0, 0, 1'b1, `VIA_REG_EVT_ARM, arm_word(a, 1'b0, 1'b0));
        idle(4);
        expect_irq(v, n0, 0, -1, "unarmed");
        rd_counts(v, ev1, ra1);
        if (ev1 != ev0 || dut.arm_s[a] !== 1'b1)
            $fatal(1, "tb_via_evt %0s: unarmed completions: EVT_EVENTS +%0d (expected 0), armed %b", NAME, ev1 - ev0, dut.arm_s[a]);
        comp_tx(a, 1'b0);
        t0 = t_now;
        idle(4);
        expect_irq(v, n0, 1, t0 + 2, "armed with its completion");
    end
endtask

// 3f. a route change disarms what it routes; out-of-range arms and routes
// are ignored
task test_route;
    begin
        v = NUM_VEC - 1;
        w = 0;
        a = 0;
        c = NUM_CQ - 1;
        w_mod(v, 1, 0);
        w_mod(w, 1, 0);
        w_map(a, 1'b0, v);
        w_map(c, 1'b1, v);
        w_arm(a, 1'b0, 1'b0);
        w_arm(a, 1'b1, 1'b0);
        w_arm(c, 1'b0, 1'b1);
        n0 = n_irq[v];
        n1 = n_irq[w];
        // out of range: VIs, CQs, vectors (aliasing a valid index)
        w_map((1 << VW) + a, 1'b0, w);
        w_map(NUM_VI, 1'b0, w);
        w_map((1 << CW) + c, 1'b1, w);
        w_map(NUM_CQ, 1'b1, w);
        w_map(65535, 1'b1, w);
        if (NUM_VEC < 8) begin
            w_map(a, 1'b0, NUM_VEC);
            w_map(c, 1'b1, 7);
        end
        if (dut.arm_s[a] !== 1'b1 || dut.arm_r[a] !== 1'b1 || dut.arm_c[c] !== 1'b1 || dut.vec_vi[a] !== v || dut.vec_cq[c] !== v)
            $fatal(1, "tb_via_evt %0s: an out-of-range route changed VI %0d or CQ %0d", NAME, a, c);
        // the routes: disarmed
        w_map(a, 1'b0, w);
        if (dut.arm_s[a] !== 1'b0 || dut.arm_r[a] !== 1'b0 || dut.arm_c[c] !== 1'b1)
            $fatal(1, "tb_via_evt %0s: routing VI %0d: arms %b %b, CQ %0d %b", NAME, a, dut.arm_s[a], dut.arm_r[a], c, dut.arm_c[c]);
        w_map(c, 1'b1, v);          // (the same vector: disarmed too)
        if (dut.arm_c[c] !== 1'b0)
            $fatal(1, "tb_via_evt %0s: routing CQ %0d left it armed", NAME, c);
        rd_counts(v, ev0, ra0);
        rd_counts(w, ev1, ra1);
        cyc1(3'b111, a, 1'b0, a, c, 1'b0, 16'd0, 32'd0);
        idle(4);
        expect_irq(v, n0, 0, -1, "routed, vector v");
        expect_irq(w, n1, 0, -1, "routed, vector w");
        rd_counts(v, w32, ra0);
        if (w32 != ev0) $fatal(1, "tb_via_evt %0s: completions of queues disarmed by a route counted", NAME);
        rd_counts(w, w32, ra1);
        if (w32 != ev1) $fatal(1, "tb_via_evt %0s: completions of queues disarmed by a route counted", NAME);
        // out-of-range arms
        w_arm((1 << VW) + a, 1'b0, 1'b0);
        w_arm(NUM_VI, 1'b1, 1'b0);
        w_arm((1 << CW) + c, 1'b0, 1'b1);
        w_arm(NUM_CQ, 1'b0, 1'b1);
        w_arm(65535, 1'b1, 1'b0);
        rd_check(`VIA_REG_EVT_ARM, arm_word(65535, 1'b1, 1'b0));
        if (dut.arm_s[a] !== 1'b0 || dut.arm_r[a] !== 1'b0 || dut.arm_c[c] !== 1'b0)
            $fatal(1, "tb_via_evt %0s: an out-of-range arm armed VI %0d or CQ %0d (aliased)", NAME, a, c);
        // the new route counts for its vector
        w_arm(a, 1'b1, 1'b0);
        comp_rx(a);
        t0 = t_now;
        idle(4);
        expect_irq(w, n1, 1, t0 + 2, "new route");
        if (v != w) expect_irq(v, n0, 0, -1, "old route");
        // a route written in the cycle its old vector raises: the raise
        // is the old vector's, the queue disarmed and routed anew
        w_arm(a, 1'b0, 1'b0);
        w_arm(a, 1'b1, 1'b0);
        comp_tx(a, 1'b0);
        t0 = t_now;
        cyc1(3'b000, 0, 1'b0, 0, 0, 1'b1, `VIA_REG_EVT_MAP, map_word(a, 1'b0, v));
        idle(4);
        expect_irq(w, n1, 2, t0 + 2, "route in the raise");
        if (v != w) expect_irq(v, n0, 0, -1, "route in the raise, new vector");
        if (dut.vec_vi[a] !== v || dut.arm_s[a] !== 1'b0 || dut.arm_r[a] !== 1'b0)
            $fatal(1, "tb_via_evt %0s: route in the cycle of a raise: vector %0d, arms %b %b", NAME, dut.vec_vi[a], dut.arm_s[a], dut.arm_r[a]);
        w_arm(a, 1'b0, 1'b0);
        comp_tx(a, 1'b0);
        t0 = t_now;
        idle(4);
        expect_irq(v, v == w ? n1 : n0, v == w ? 3 : 1, t0 + 2, "routed in the raise");
    end
endtask

// 3g. EVT_RAISED and EVT_EVENTS wrap (white box: preset near the top)
task test_wrap;
    begin
        v = NUM_VEC - 1;
        a = 0;
        w_mod(v, 1, 0);
        w_map(a, 1'b0, v);
        w_arm(a, 1'b0, 1'b0);
        @(negedge clk);
        dut.v_events[v] = 32'hFFFFFFFF;
        dut.v_raised[v] = 32'hFFFFFFFF;
        m_events[v] = 32'hFFFFFFFF;
        m_raised[v] = 32'hFFFFFFFF;
        comp_tx(a, 1'b0);
        idle(4);
        rd_counts(v, ev1, ra1);
        if (ev1 != 32'd0 || ra1 != 32'd0)
            $fatal(1, "tb_via_evt %0s: wrap: EVT_EVENTS 0x%0h EVT_RAISED 0x%0h, expected 0 0", NAME, ev1, ra1);
    end
endtask

// 3h. a reset mid-run: everything back to its reset value
task test_midreset;
    begin
        v = NUM_VEC - 1;
        w_mod(v, 5, 100);
        w_map(0, 1'b0, v);
        w_arm(0, 1'b0, 1'b0);
        w_arm(0, 1'b1, 1'b0);
        comp_tx(0, 1'b0);
        idle(1);
        rst = 1'b1;
        idle(3);
        rst = 1'b0;
        idle(1);
        for (v = 0; v < nvec; v = v + 1) n_irq[v] = 0;
        do_decode = 1'b0;
        test_reset;
    end
endtask

// 4. random rounds
task random_round;
    input integer ncyc;
    begin
        // the round's traffic
        p_tx = 5 + urand(60);
        p_rx = 5 + urand(60);
        p_cq = 5 + urand(60);
        p_wr = 20 + urand(60);
        p_map = 1 + urand(6);
        p_mod = 1 + urand(5);
        p_vsel = 2 + urand(6);
        n_hot_vi = 1 + urand(NUM_VI < 6 ? NUM_VI : 6);
        n_hot_cq = 1 + urand(NUM_CQ < 4 ? NUM_CQ : 4);
        for (k = 0; k < NH; k = k + 1) begin
            hot_vi[k] = urand(NUM_VI);
            hot_cq[k] = urand(NUM_CQ);
        end
        // routes of the hot ones and moderation of every vector
        for (k = 0; k < n_hot_vi; k = k + 1) w_map(hot_vi[k], 1'b0, urand(NUM_VEC));
        for (k = 0; k < n_hot_cq; k = k + 1) w_map(hot_cq[k], 1'b1, urand(NUM_VEC));
        for (v = 0; v < nvec; v = v + 1) begin
            wr(`VIA_REG_EVT_VSEL, v, 4'hF);
            wr(`VIA_REG_EVT_MOD, mod_word({rnd(0), rnd(0)}), 4'hF);
        end
        @(negedge clk);
        mon_bus = 1'b1;
        rnd_on = 1'b1;
        for (k = 0; k < ncyc; k = k + 1) @(negedge clk);
        rnd_on = 1'b0;
        clr;
        @(negedge clk);
        mon_bus = 1'b0;
        idle(2);
        sweep;
    end
endtask

// ---------------------------------------------------------------- main
integer seed;
initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    short = $test$plusargs("short");
    dbg = $test$plusargs("debug");
    rs_main = (seed * 7919 + SALT * 104729) | 1;
    rs_drv = (seed * 31 + SALT * 1009) | 1;
    w32 = rnd(0) + drnd(0);    // (mix the seed in)
    for (v = 0; v < NUM_VEC; v = v + 1) begin
        n_irq[v] = 0;
        last_irq[v] = -1;
    end
    for (k = 0; k < NH; k = k + 1) begin
        hot_vi[k] = 0;
        hot_cq[k] = 0;
    end
    model_reset;
    repeat (10) @(posedge clk);
    @(negedge clk);
    rst = 1'b0;
    idle(2);

    test_reset;
    test_regs;
    test_latency;
    test_burst;
    test_time;
    test_saturation;
    test_disarm;
    test_route;
    test_wrap;
    test_midreset;
    $display("tb_via_evt %0s: directed tests done at cycle %0d", NAME, cyc);
    for (i = 0; i < n_rounds; i = i + 1) random_round(short ? RAND_CYCLES / 3 : RAND_CYCLES);

    // every kind of thing happened
    if (n_fire_cnt == 0 || n_fire_time == 0 || n_fire_cov == 0 || n_arm_raise == 0 || n_map_raise == 0
            || n_multi == 0 || n_triple == 0 || n_unarmed == 0 || n_oor == 0 || (NUM_VEC > 1 && n_fire_multi == 0))
        $fatal(1, "tb_via_evt %0s: coverage: raises by COUNT %0d by TIME %0d covering completions %0d two in a cycle %0d, arms in a raise %0d, routes in a raise %0d, cycles with 2+ counted %0d, all 3 ports %0d, unarmed %0d, out of range %0d",
            NAME, n_fire_cnt, n_fire_time, n_fire_cov, n_fire_multi, n_arm_raise, n_map_raise, n_multi, n_triple, n_unarmed, n_oor);
    $display("tb_via_evt %0s: %0d cycles, %0d completions (%0d counted, %0d unarmed), %0d raises (COUNT %0d, TIME %0d, covering %0d, several vectors %0d), arms in a raise %0d, routes in a raise %0d, out of range %0d, %0d writes, %0d reads checked",
        NAME, cyc, n_comp, n_hits, n_unarmed, n_fire, n_fire_cnt, n_fire_time, n_fire_cov, n_fire_multi, n_arm_raise, n_map_raise, n_oor, n_wr, n_rd);
    @(negedge clk);
    fin = 1'b1;
end

endmodule
