// tb_via_vi_queues_env: one via_vi_queues (NUM_VI 6, MAX_DESC 8, POOL and
// MAX_INFLIGHT from the parameters) with its models and checks, for
// tb_via_vi_queues.
//
// A host model posts descriptors as vipl does (the descriptor's VA, the
// previous descriptor's Next/NextHandle written in "memory" first, a HANDLE
// write when the handle changes, then the 64-bit DOORBELL as low + high
// word, back to back), to random queues (half of them to VI 0, the busy
// VI), mixed with junk writes and state changes of the VIs. VIs 0..4
// enabled, VI 5 disabled. An engine model takes the work items with random
// back-pressure (several items of a queue at once), consumes each item in
// order after a random latency, carrying the Next it read "at fetch" (the
// handout): the real successor if the host had linked it by then, else
// garbage. An RX-engine model takes receives through the rxq port (random
// VIs, out-of-range ones included) and gives back all the receives it
// holds of a VI (rewind) a quarter of the time.
//
// The reference model mirrors the block's state: per queue the number of
// items handed out / taken and consumed, and where each post went (the
// pool while the queue has no fallback part and the pool has a free entry,
// else the fallback part): so it knows which item is available (waiting,
// address known, F < MAX_INFLIGHT, VI enabled). Checks:
//   - every work item and every found take is the oldest waiting item of
//     its queue (VA, handle, state) and was available; at the end every
//     post was consumed (none lost, none duplicated); consumes in order;
//   - a take's found equals the model's availability at the cycle the take
//     was accepted;
//   - fairness: while a send queue has an available item, no other queue is
//     handed out twice (round robin), with a few cycles of slack;
//   - vi_held: 1 whenever the model has an item of the VI in flight or in
//     the work register; 0 again a few cycles after it has none;
//   - every counter equals the model's (cnt_chained included), and after
//     every drain the pool's used entries equal the model's (no leak);
//   - directed: bad high words; overflow; rewinds of a send queue (with
//     the pool free and, where POOL is small, with the pool full: the
//     fallback item handed out, rewound, handed out again); a reset of a
//     VI's queues with items held (their consumes come back stale); many
//     resets with lists in the pool, then (POOL <= 32) the pool filled
//     completely from empty receive queues: exactly POOL posts go to the
//     pool, the rest to the fallback; disable / enable;
//   - the flush: a receive queue is handed out as work (work_q 1) only
//     while its VI is in ERROR, fairly with the other queues; directed:
//     receives queued while CONNECTED are all handed out once the VI is in
//     ERROR; qs_queued equals the model (taken, not consumed) after every
//     drain, for every VI. (The RX-engine model, like via_vi_rx, takes no
//     receive of a VI in ERROR and never rewinds a queue with an item in
//     the work register; random states are ERROR in the random phase only.)
//   - throughput: in the saturation phase (engine at full speed) the number
//     of operations per cycle the block is occupied, printed; at most 3
//     cycles per operation.

`timescale 1ns / 1ps

module tb_via_vi_queues_env #(
    parameter POOL  = 256,
    parameter MAXIF = 4,
    parameter SALT  = 1,
    parameter NAME  = "a"
) (
    input  wire        clk,
    input  wire [31:0] seed,
    output reg         fin = 1'b0
);

localparam NUM_VI   = 6;
localparam MAX_DESC = 8;
localparam VW       = 3;
localparam NQ       = 2 * NUM_VI;
localparam MP       = 2048;         // list entries per queue
localparam LAG      = 8;            // fairness slack (cycles)
localparam NPOSTS   = 1500;         // random phase (+short: a third)
localparam INF      = 32'h7FFFFFFF;

localparam K_LOW = 0, K_POST = 1, K_HANDLE = 2, K_BAD = 3, K_POSTOVF = 4;

reg rst = 1'b1;

// ---------------------------------------------------------------- DUT
reg           db_wr_valid = 0;
wire          db_wr_ready;
reg  [VW-1:0] db_wr_vi = 0;
reg  [11:0]   db_wr_offset = 0;
reg  [31:0]   db_wr_data = 0;
reg  [3:0]    db_wr_strb = 0;
reg           ctx_valid = 0;
wire          ctx_ready;
reg  [VW-1:0] ctx_vi = 0;
reg           ctx_enable = 0;
reg  [1:0]    ctx_state = 0;
reg           ctx_reset_q = 0;
wire          work_valid;
reg           work_ready = 0;
wire [VW-1:0] work_vi;
wire          work_q;
wire [63:0]   work_va;
wire [31:0]   work_handle;
wire [1:0]    work_state;
reg           adv_valid = 0;
wire          adv_ready;
reg  [VW-1:0] adv_vi = 0;
reg           adv_q = 0;
reg  [63:0]   adv_next = 0;
reg  [31:0]   adv_next_handle = 0;
reg           adv_keep = 0;
reg           rxq_valid = 0;
wire          rxq_ready;
reg  [VW-1:0] rxq_vi = 0;
wire          rxq_rsp_valid;
reg           rxq_rsp_ready = 0;
wire          rxq_rsp_found;
wire [63:0]   rxq_rsp_va;
wire [31:0]   rxq_rsp_handle;
wire [1:0]    rxq_rsp_state;
wire [NUM_VI-1:0] vi_held;
reg  [VW-1:0] qs_vi = 0;
wire [1:0]    qs_queued;
integer       flushed_rx = 0;   // receive items handed out as work (VI in ERROR)
wire [31:0]   cnt_doorbell, cnt_db_dropped, cnt_overflow, cnt_bad_write, cnt_adv_stale, cnt_chained;
wire          busy;

via_vi_queues #(.NUM_VI(NUM_VI), .MAX_DESC(MAX_DESC), .POOL(POOL), .MAX_INFLIGHT(MAXIF)) dut (
    .clk(clk), .rst(rst),
    .db_wr_valid(db_wr_valid), .db_wr_ready(db_wr_ready), .db_wr_vi(db_wr_vi),
    .db_wr_offset(db_wr_offset), .db_wr_data(db_wr_data), .db_wr_strb(db_wr_strb),
    .ctx_valid(ctx_valid), .ctx_ready(ctx_ready), .ctx_vi(ctx_vi), .ctx_enable(ctx_enable),
    .ctx_state(ctx_state), .ctx_reset_q(ctx_reset_q),
    .work_valid(work_valid), .work_ready(work_ready), .work_vi(work_vi), .work_q(work_q),
    .work_va(work_va), .work_handle(work_handle), .work_state(work_state),
    .adv_valid(adv_valid), .adv_ready(adv_ready), .adv_vi(adv_vi), .adv_q(adv_q),
    .adv_next(adv_next), .adv_next_handle(adv_next_handle), .adv_keep(adv_keep),
    .rxq_valid(rxq_valid), .rxq_ready(rxq_ready), .rxq_vi(rxq_vi),
    .rxq_rsp_valid(rxq_rsp_valid), .rxq_rsp_ready(rxq_rsp_ready), .rxq_rsp_found(rxq_rsp_found),
    .rxq_rsp_va(rxq_rsp_va), .rxq_rsp_handle(rxq_rsp_handle), .rxq_rsp_state(rxq_rsp_state),
    .vi_held(vi_held),
    .qs_vi(qs_vi),
    .qs_queued(qs_queued),
    .blk_valid(1'b0),
    .blk_vi({VW{1'b0}}),
    .cnt_doorbell(cnt_doorbell), .cnt_db_dropped(cnt_db_dropped), .cnt_overflow(cnt_overflow),
    .cnt_bad_write(cnt_bad_write), .cnt_adv_stale(cnt_adv_stale), .cnt_chained(cnt_chained),
    .busy(busy)
);

// ---------------------------------------------------------------- models
// host write FIFO
reg [VW-1:0] hw_vi   [0:63];
reg [11:0]   hw_off  [0:63];
reg [31:0]   hw_data [0:63];
reg [3:0]    hw_strb [0:63];
reg [2:0]    hw_kind [0:63];
integer hw_rd = 0, hw_wr = 0;

// per queue: the host's list ("memory"), the model's view
reg [63:0] it_va  [0:NQ*MP-1];
reg [31:0] it_h   [0:NQ*MP-1];
reg        linked [0:NQ*MP-1];
integer gen_cnt [0:NQ-1];   // posts issued (list entries)
reg [31:0] gen_h [0:NQ-1];  // last handle the host wrote
integer posted  [0:NQ-1];   // posts taken by the block
integer head    [0:NQ-1];   // items handed out / taken (F = head - advd)
integer advd    [0:NQ-1];   // items consumed
integer m_l     [0:NQ-1];   // items in the pool part
integer m_fb    [0:NQ-1];   // items in the fallback part
integer pool_used = 0;
reg [31:0] mdl_dbh [0:NQ-1];
reg     mdl_en [0:NUM_VI-1];
reg [1:0] mdl_state [0:NUM_VI-1];

// engine
integer    eng_taken [0:NQ-1];      // items taken from the work register / rxq answer
integer    eng_stale_n [0:NQ-1];    // stale consumes still to send
integer    eng_untaken [0:NQ-1];    // work items of a reset queue not yet taken
integer    eng_due [0:NQ*MP-1];
reg [63:0] eng_next [0:NQ*MP-1];
reg [31:0] eng_nh [0:NQ*MP-1];
reg        eng_hold [0:NQ-1];
reg        rew_req [0:NQ-1];        // directed: rewind this send queue
reg        adv_stale = 0;           // the advance offered is a stale one
// rx take model
reg        rx_pend = 0;         // take accepted, response expected
reg        rx_exp = 0;          // expected found
reg        rx_stall = 0;        // no takes
integer    rx_q = 0;
integer    rx_found = 0, rx_miss = 0, rx_oor = 0, rx_kept = 0;
integer    eng_lat = 20;
reg        eng_stall = 0;
reg        eng_fast = 0;    // work_ready always 1
reg        keep_h0 = 0;     // post() keeps a zero handle (no HANDLE write)
integer    backlog = 8;     // host FIFO fill limit
integer    adv_qa = 0;

// fairness
reg        elig_prev [0:NQ-1];
integer    te [0:NQ-1];
reg        served [0:NQ*NQ-1];

// vi_held
integer    held_quiet [0:NUM_VI-1];

// expected counters
integer x_db = 0, x_drop = 0, x_ovf = 0, x_bad = 0, x_stale = 0, x_chained = 0;
integer collisions = 0, garbage_next = 0, loads = 0, max_wait = 0, rewinds = 0, multi = 0;
integer cyc = 0;
reg     prev_wv = 0, prev_wfire = 0;
// throughput
reg     meas = 0;
integer m_ops = 0, m_busy = 0, m_cyc = 0;

integer i, j, k, qa, r;

function [63:0] rnd64(input integer dummy);
    rnd64 = {rnd(0), rnd(0)};
endfunction

// xorshift32: the same sequence in both simulators
reg [31:0] rng_state = 32'h1;
function [31:0] rnd(input integer dummy);
    begin
        rng_state = rng_state ^ (rng_state << 13);
        rng_state = rng_state ^ (rng_state >> 17);
        rng_state = rng_state ^ (rng_state << 5);
        rnd = rng_state;
    end
endfunction

function integer urand(input integer n);
    urand = (rnd(0) & 32'h7FFFFFFF) % n;
endfunction

task push_wr(input [VW-1:0] vi, input [11:0] off, input [31:0] data, input [3:0] strb, input [2:0] kind);
    begin
        hw_vi[hw_wr % 64] = vi; hw_off[hw_wr % 64] = off; hw_data[hw_wr % 64] = data;
        hw_strb[hw_wr % 64] = strb; hw_kind[hw_wr % 64] = kind;
        hw_wr = hw_wr + 1;
    end
endtask

// one post to queue q as vipl does it; ovf: the block will refuse it
task post(input integer q, input reg ovf);
    reg [63:0] va;
    reg [31:0] h;
    integer n;
    begin
        va = rnd64(0) & ~64'h3F;
        h = gen_h[q];
        if (!keep_h0 && ((rnd(0) & 3) == 0 || h == 0)) h = rnd(0) | 1;
        if (!ovf && mdl_en[q / 2]) begin
            n = gen_cnt[q];
            if (n >= MP) $fatal(1, "tb %s: bench error, list of q %0d full", NAME, q);
            it_va[q*MP + n] = va; it_h[q*MP + n] = h; linked[q*MP + n] = 0;
            if (n > 0) linked[q*MP + n - 1] = 1;
            gen_cnt[q] = n + 1;
        end
        if (h != gen_h[q]) begin
            push_wr(q / 2, 12'h008 + 12'h010 * (q % 2), h, 4'hF, K_HANDLE);
            gen_h[q] = h;
        end
        push_wr(q / 2, 12'h000 + 12'h010 * (q % 2), va[31:0], 4'hF, K_LOW);
        push_wr(q / 2, 12'h004 + 12'h010 * (q % 2), va[63:32], 4'hF, ovf ? K_POSTOVF : K_POST);
    end
endtask

task junk;
    reg [11:0] off;
    begin
        r = rnd(0) & 7;
        case (r)
            0: push_wr(urand(NUM_VI), 12'h00C, rnd(0), 4'hF, K_BAD);
            1: push_wr(urand(NUM_VI), 12'h01C, rnd(0), 4'hF, K_BAD);
            2: begin
                off = 12'h020 + ((rnd(0) & 12'h3F7) << 2);
                push_wr(urand(NUM_VI), off & 12'hFFC, rnd(0), 4'hF, K_BAD);
            end
            3: push_wr(urand(NUM_VI), 12'h008 + 12'h010 * (rnd(0) & 1), rnd(0), 4'h3, K_BAD);
            4: push_wr(urand(NUM_VI), 12'h000, rnd(0), 4'h1, K_BAD);
            5: push_wr(urand(NUM_VI), 12'h004 + 12'h010 * (rnd(0) & 1), rnd(0), 4'hF, K_BAD);
            6: push_wr(6 + (rnd(0) & 1), 12'h008, rnd(0), 4'hF, K_BAD);
            default: push_wr(6 + (rnd(0) & 1), 12'h004, rnd(0), 4'hF, K_BAD);
        endcase
    end
endtask

// the model's availability: the oldest waiting item has a known address
// (a pool item, or the fallback part's first item) and F < MAX_INFLIGHT
function avail(input integer q);
    integer f;
    begin
        f = head[q] - advd[q];
        avail = mdl_en[q / 2] && posted[q] > head[q] && f < MAXIF &&
                (f < m_l[q] || (f == m_l[q] && m_fb[q] > 0));
    end
endfunction

// the scheduler serves send queues, and the receive queues of VIs in ERROR
// (the flush)
function elig(input integer q);
    elig = (q % 2 == 0 || mdl_state[q / 2] == 2'd3) && avail(q);
endfunction

function rx_avail(input integer vi);
    rx_avail = vi < NUM_VI && avail(vi * 2 + 1);
endfunction

// outstanding posts of a queue as the host sees them (issued, not consumed)
function integer outstanding(input integer q);
    outstanding = gen_cnt[q] - advd[q];
endfunction

// fairness bookkeeping: a queue that becomes eligible starts waiting now
task fair_update;
    integer fi, fj;
    begin
        for (fi = 0; fi < NQ; fi = fi + 1) begin
            if (elig(fi) && !elig_prev[fi]) begin
                te[fi] = cyc;
                for (fj = 0; fj < NQ; fj = fj + 1) served[fi*NQ + fj] = 0;
            end
            elig_prev[fi] = elig(fi);
        end
    end
endtask

// the engine's fetch of item head[q]: Next as it is in memory now
task fetch_next(input integer q);
    integer x;
    begin
        x = q*MP + head[q];
        if (linked[x]) begin
            eng_next[x] = it_va[x + 1];
            eng_nh[x] = it_h[x + 1];
        end else begin
            eng_next[x] = rnd64(0) & ~64'h3F;
            eng_nh[x] = rnd(0);
            garbage_next = garbage_next + 1;
        end
    end
endtask

// ---------------------------------------------------------------- clocked model
integer fq, vv;
reg     mh;
always @(posedge clk) begin
    if (!rst) begin
        cyc = cyc + 1;
        // vi_held: never 0 while the model has an item of the VI out; 0
        // again a few cycles after the model has none
        for (vv = 0; vv < NUM_VI; vv = vv + 1) begin
            mh = (head[2*vv] != advd[2*vv]) || (head[2*vv+1] != advd[2*vv+1]) ||
                 (work_valid && work_vi == vv);
            if (mh && !vi_held[vv]) $fatal(1, "tb %s: vi_held[%0d] 0 with an item out", NAME, vv);
            if (mh || !vi_held[vv]) held_quiet[vv] = 0;
            else begin
                held_quiet[vv] = held_quiet[vv] + 1;
                if (held_quiet[vv] > 6) $fatal(1, "tb %s: vi_held[%0d] 1 with nothing out", NAME, vv);
            end
        end
        // throughput: operations and the cycles the block is occupied
        if (meas) begin
            m_cyc = m_cyc + 1;
            if (dut.busy_reg || dut.grant_adv || dut.grant_rxq || dut.grant_db || dut.grant_sched)
                m_busy = m_busy + 1;
            if (dut.grant_adv || dut.grant_rxq || dut.grant_db || dut.grant_sched)
                m_ops = m_ops + 1;
        end
        // a doorbell and an advance of the same queue offered in the same cycle
        if (db_wr_valid && adv_valid && hw_kind[hw_rd % 64] == K_POST &&
            {adv_vi, adv_q} == hw_vi[hw_rd % 64] * 2 + hw_off[hw_rd % 64][4])
            collisions = collisions + 1;
        // doorbell port
        if (db_wr_valid && db_wr_ready) begin
            k = hw_rd % 64;
            qa = hw_vi[k] * 2 + hw_off[k][4];
            case (hw_kind[k])
                K_BAD: x_bad = x_bad + 1;
                K_HANDLE: if (!mdl_en[hw_vi[k]]) x_drop = x_drop + 1;
                          else mdl_dbh[qa] = hw_data[k];
                K_POST, K_POSTOVF: if (!mdl_en[hw_vi[k]]) x_drop = x_drop + 1;
                    else begin
                        x_db = x_db + 1;
                        if (posted[qa] - advd[qa] >= MAX_DESC) begin
                            if (hw_kind[k] != K_POSTOVF)
                                $fatal(1, "tb %s: bench error, unexpected overflow q %0d", NAME, qa);
                            x_ovf = x_ovf + 1;
                        end else begin
                            if (hw_kind[k] == K_POSTOVF)
                                $fatal(1, "tb %s: bench error, expected overflow q %0d", NAME, qa);
                            if (mdl_dbh[qa] != it_h[qa*MP + posted[qa]] || {hw_data[k], hw_data[(k+63)%64]} != it_va[qa*MP + posted[qa]])
                                $fatal(1, "tb %s: bench error, post mismatch q %0d", NAME, qa);
                            posted[qa] = posted[qa] + 1;
                            // where the address goes
                            if (m_fb[qa] == 0 && pool_used < POOL) begin
                                m_l[qa] = m_l[qa] + 1;
                                pool_used = pool_used + 1;
                            end else begin
                                m_fb[qa] = m_fb[qa] + 1;
                                x_chained = x_chained + 1;
                            end
                        end
                    end
                default: ;
            endcase
            hw_rd = hw_rd + 1;
        end
        fair_update;
        // a new work item (loaded at the previous edge)
        if (work_valid && (!prev_wv || prev_wfire)) begin
            qa = work_vi * 2 + work_q;
            loads = loads + 1;
            if ($test$plusargs("debug")) $display("%s %0d load q %0d rr %0d ready %b en %b F0 %0d posted0 %0d l0 %0d fb0 %0d", NAME, cyc, qa, dut.rr_ptr_reg, dut.sready_reg, dut.enable_reg, head[0]-advd[0], posted[0], m_l[0], m_fb[0]);
            if (work_q != 0 && mdl_state[work_vi] != 2'd3)
                $fatal(1, "tb %s: work for a receive queue of VI %0d in state %0d", NAME, work_vi, mdl_state[work_vi]);
            if (work_q != 0) flushed_rx = flushed_rx + 1;
            if (work_vi >= NUM_VI) $fatal(1, "tb %s: work for VI %0d out of range", NAME, work_vi);
            if (!avail(qa)) $fatal(1, "tb %s: work for q %0d with no item available: posted %0d head %0d advd %0d l %0d fb %0d en %0d",
                                   NAME, qa, posted[qa], head[qa], advd[qa], m_l[qa], m_fb[qa], mdl_en[work_vi]);
            if (work_va != it_va[qa*MP + head[qa]] || work_handle != it_h[qa*MP + head[qa]])
                $fatal(1, "tb %s: q %0d item %0d: got %h/%h, expected %h/%h", NAME, qa, head[qa], work_va, work_handle,
                       it_va[qa*MP + head[qa]], it_h[qa*MP + head[qa]]);
            if (work_state != mdl_state[work_vi]) $fatal(1, "tb %s: q %0d state %0d, expected %0d", NAME, qa, work_state, mdl_state[work_vi]);
            // fairness
            for (i = 0; i < NQ; i = i + 1) begin
                if (i != qa && elig(i) && cyc >= te[i] + LAG) begin
                    if (served[i*NQ + qa])
                        $fatal(1, "tb %s: unfair: q %0d served twice while q %0d waited since cycle %0d", NAME, qa, i, te[i]);
                    served[i*NQ + qa] = 1;
                end
            end
            if (cyc - te[qa] > max_wait) max_wait = cyc - te[qa];
            // served: its wait starts over (it may stay eligible)
            te[qa] = cyc;
            for (i = 0; i < NQ; i = i + 1) served[qa*NQ + i] = 0;
            if (head[qa] != advd[qa]) multi = multi + 1;
            fetch_next(qa);
            head[qa] = head[qa] + 1;
        end
        prev_wv = work_valid;
        prev_wfire = work_valid && work_ready;
        if (work_valid && work_ready) begin
            qa = work_vi * 2 + work_q;
            if (eng_untaken[qa] > 0) begin
                // handed out before its queue's reset: consumed stale
                eng_untaken[qa] = eng_untaken[qa] - 1;
                eng_stale_n[qa] = eng_stale_n[qa] + 1;
            end else begin
                if (eng_taken[qa] >= head[qa]) $fatal(1, "tb %s: bench error, take of q %0d", NAME, qa);
                eng_due[qa*MP + eng_taken[qa]] = cyc + urand(eng_lat);
                eng_taken[qa] = eng_taken[qa] + 1;
            end
        end
        // rx take: the response appears after the take
        if (rx_pend && rxq_rsp_valid) begin
            rx_pend = 0;
            if (rxq_rsp_found !== rx_exp)
                $fatal(1, "tb %s: rx take q %0d: found %0d, expected %0d", NAME, rx_q, rxq_rsp_found, rx_exp);
            if (rx_exp) begin
                qa = rx_q;
                if (rxq_rsp_va != it_va[qa*MP + head[qa]] || rxq_rsp_handle != it_h[qa*MP + head[qa]])
                    $fatal(1, "tb %s: rx q %0d item %0d: got %h/%h, expected %h/%h", NAME, qa, head[qa], rxq_rsp_va, rxq_rsp_handle,
                           it_va[qa*MP + head[qa]], it_h[qa*MP + head[qa]]);
                if (rxq_rsp_state != mdl_state[qa / 2]) $fatal(1, "tb %s: rx q %0d state %0d, expected %0d", NAME, qa, rxq_rsp_state, mdl_state[qa / 2]);
                if (head[qa] != advd[qa]) multi = multi + 1;
                fetch_next(qa);
                eng_due[qa*MP + head[qa]] = INF;   // until the response is taken
                head[qa] = head[qa] + 1;
                rx_found = rx_found + 1;
            end else begin
                rx_miss = rx_miss + 1;
            end
        end
        if (rxq_rsp_valid && rxq_rsp_ready && rxq_rsp_found) begin
            if (eng_taken[rx_q] >= head[rx_q]) $fatal(1, "tb %s: bench error, rx take of q %0d", NAME, rx_q);
            eng_due[rx_q*MP + eng_taken[rx_q]] = cyc + urand(eng_lat);
            eng_taken[rx_q] = eng_taken[rx_q] + 1;
        end
        if (rxq_valid && rxq_ready) begin
            rx_pend = 1;
            rx_q = rxq_vi * 2 + 1;
            rx_exp = rx_avail(rxq_vi);
            if (rxq_vi >= NUM_VI) rx_oor = rx_oor + 1;
            rxq_valid <= 0;
        end
        // advance taken
        if (adv_valid && adv_ready) begin
            if (head[adv_qa] == advd[adv_qa]) begin
                if (!adv_stale) $fatal(1, "tb %s: bench error, advance of q %0d with nothing out", NAME, adv_qa);
                x_stale = x_stale + 1;
            end else if (adv_stale) begin
                $fatal(1, "tb %s: bench error, stale advance of q %0d with items out", NAME, adv_qa);
            end else if (adv_keep) begin
                // rewind: every in-flight item waits again, the engine drops them
                head[adv_qa] = advd[adv_qa];
                eng_taken[adv_qa] = advd[adv_qa];
                rewinds = rewinds + 1;
                if (adv_qa % 2 == 1) rx_kept = rx_kept + 1;
            end else begin
                if (m_l[adv_qa] > 0) begin
                    m_l[adv_qa] = m_l[adv_qa] - 1;
                    pool_used = pool_used - 1;
                end else begin
                    m_fb[adv_qa] = m_fb[adv_qa] - 1;
                end
                advd[adv_qa] = advd[adv_qa] + 1;
            end
            if (adv_stale) eng_stale_n[adv_qa] = eng_stale_n[adv_qa] - 1;
            adv_valid <= 0;
        end
        // context
        if (ctx_valid && ctx_ready) begin
            if ($test$plusargs("debug")) $display("%s %0d ctx vi %0d en %0d st %0d rq %0d", NAME, cyc, ctx_vi, ctx_enable, ctx_state, ctx_reset_q);
            mdl_en[ctx_vi] = ctx_enable;
            mdl_state[ctx_vi] = ctx_state;
            if (ctx_reset_q) begin
                for (i = ctx_vi * 2; i < ctx_vi * 2 + 2; i = i + 1) begin
                    // the engine's items become stale, so does a work item
                    // not yet taken
                    eng_stale_n[i] = eng_stale_n[i] + eng_taken[i] - advd[i];
                    eng_untaken[i] = eng_untaken[i] + head[i] - eng_taken[i];
                    if (i % 2 == 1 && (rx_pend || rxq_rsp_valid) && rx_q == i)
                        $fatal(1, "tb %s: bench error, reset with a take pending", NAME);
                    pool_used = pool_used - m_l[i];
                    m_l[i] = 0; m_fb[i] = 0;
                    gen_cnt[i] = 0; posted[i] = 0; head[i] = 0; advd[i] = 0; eng_taken[i] = 0;
                    mdl_dbh[i] = 0; gen_h[i] = 0;
                end
            end
            ctx_valid <= 0;
        end
        fair_update;
        // drive: doorbell port
        if (hw_rd != hw_wr) begin
            k = hw_rd % 64;
            db_wr_valid <= 1;
            db_wr_vi <= hw_vi[k]; db_wr_offset <= hw_off[k]; db_wr_data <= hw_data[k]; db_wr_strb <= hw_strb[k];
        end else begin
            db_wr_valid <= 0;
        end
        // drive: rx take (half the time a VI with a posted receive)
        rxq_rsp_ready <= (rnd(0) & 1) != 0;
        if (!rxq_valid && !rx_pend && !rxq_rsp_valid && !eng_stall && !rx_stall && (rnd(0) & 3) == 0) begin
            r = urand(8);
            if ((rnd(0) & 1) != 0) begin
                for (i = 0; i < NUM_VI; i = i + 1)
                    if (posted[((r + i) % NUM_VI) * 2 + 1] > head[((r + i) % NUM_VI) * 2 + 1]) r = (r + i) % NUM_VI;
            end
            // (as the receive engine: no take for a VI in ERROR)
            if (r >= NUM_VI || mdl_state[r] != 2'd3) begin
                rxq_valid <= 1;
                rxq_vi <= r;
            end
        end
        // drive: work_ready
        r = rnd(0);
        work_ready <= !eng_stall && (eng_fast || (r & 3) != 0);
        // drive: advance (stale consumes first, then due items, in order)
        if (!adv_valid || adv_ready) begin
            if ((rnd(0) & 3) != 0 || eng_fast) begin
                fq = -1;
                r = urand(NQ);
                for (i = 0; i < NQ; i = i + 1) begin
                    j = (r + i) % NQ;
                    if (fq < 0 && eng_stale_n[j] > 0) fq = j;
                end
                for (i = 0; i < NQ; i = i + 1) begin
                    j = (r + i) % NQ;
                    if (fq < 0 && eng_taken[j] > advd[j] && (rew_req[j] ||
                        (!eng_hold[j] && eng_due[j*MP + advd[j]] <= cyc)))
                        fq = j;
                end
                if (fq >= 0) begin
                    adv_qa = fq;
                    adv_valid <= 1;
                    adv_vi <= fq / 2; adv_q <= fq % 2;
                    if (eng_stale_n[fq] > 0) begin
                        adv_stale = 1;
                        adv_keep <= 0;
                        adv_next <= rnd64(0); adv_next_handle <= rnd(0);
                    end else begin
                        adv_stale = 0;
                        adv_next <= eng_next[fq*MP + advd[fq]]; adv_next_handle <= eng_nh[fq*MP + advd[fq]];
                        // receives: give back all held a quarter of the
                        // time, unless a take of the queue is under way
                        if (rew_req[fq])
                            adv_keep <= 1;
                        else
                            adv_keep <= (fq % 2 == 1) && (rnd(0) & 3) == 0 &&
                                        !((rx_pend || rxq_rsp_valid || rxq_valid) && rx_q == fq) &&
                                        // as the receive engine: never for a
                                        // VI in ERROR (the scheduler hands its
                                        // receives out), nor with an item of
                                        // the queue in the work register
                                        mdl_state[fq / 2] != 2'd3 &&
                                        !(work_valid && work_vi * 2 + work_q == fq);
                        rew_req[fq] = 0;
                    end
                end
            end
        end
    end
end

task ctx_op(input integer vi, input reg en, input [1:0] st, input reg rq);
    begin
        @(negedge clk);
        ctx_valid <= 1; ctx_vi <= vi; ctx_enable <= en; ctx_state <= st; ctx_reset_q <= rq;
        @(posedge clk);
        while (ctx_valid) @(posedge clk);
    end
endtask

task wait_fifo(input integer room);
    begin
        while (hw_wr - hw_rd > 64 - room) @(posedge clk);
    end
endtask

task drain;
    integer bz;
    begin
        bz = 1;
        while (bz) begin
            @(posedge clk);
            bz = (hw_rd != hw_wr) || adv_valid || work_valid || rxq_valid || rx_pend || rxq_rsp_valid;
            for (i = 0; i < NQ; i = i + 1)
                if (head[i] != posted[i] || advd[i] != posted[i] || eng_stale_n[i] != 0 || eng_untaken[i] != 0 ||
                    (mdl_en[i/2] && posted[i] != gen_cnt[i])) bz = 1;
        end
        repeat (10) @(posedge clk);
    end
endtask

task check_counters;
    begin
        if (cnt_doorbell != x_db || cnt_db_dropped != x_drop || cnt_overflow != x_ovf ||
            cnt_bad_write != x_bad || cnt_adv_stale != x_stale || cnt_chained != x_chained)
            $fatal(1, "tb %s: counters db %0d drop %0d ovf %0d bad %0d stale %0d chained %0d, expected %0d %0d %0d %0d %0d %0d",
                   NAME, cnt_doorbell, cnt_db_dropped, cnt_overflow, cnt_bad_write, cnt_adv_stale, cnt_chained,
                   x_db, x_drop, x_ovf, x_bad, x_stale, x_chained);
        // the pool: entries in use = the model's (no leak)
        if (dut.fresh_reg - dut.fl_cnt_reg != pool_used)
            $fatal(1, "tb %s: pool entries in use %0d, expected %0d", NAME, dut.fresh_reg - dut.fl_cnt_reg, pool_used);
        check_queued;
    end
endtask

// qs_queued of every VI (and one out of range) against the model: a queue
// holds items the block took and nobody consumed
task check_queued;
    integer v;
    begin
        for (v = 0; v <= NUM_VI; v = v + 1) begin
            qs_vi = v;
            #1;
            if (qs_queued !== (v >= NUM_VI ? 2'b00 : {posted[2*v+1] > advd[2*v+1], posted[2*v] > advd[2*v]}))
                $fatal(1, "tb %s: qs_queued of VI %0d is %b, posted %0d/%0d consumed %0d/%0d", NAME, v, qs_queued,
                       posted[2*v], posted[2*v+1], advd[2*v], advd[2*v+1]);
        end
    end
endtask

// items of a send queue out to the engine: all taken, the work register free of it
task wait_taken(input integer q, input integer n);
    begin
        while (eng_taken[q] - advd[q] < n || head[q] != eng_taken[q] || hw_rd != hw_wr || work_valid) @(posedge clk);
        repeat (5) @(posedge clk);
    end
endtask

// a send queue: post n (> MAX_INFLIGHT), the engine takes what it may,
// holds it, rewinds, then everything is consumed in order
task rewind_test(input integer q, input integer n);
    integer t, nr;
    begin
        eng_hold[q] = 1;
        for (t = 0; t < n; t = t + 1) begin wait_fifo(4); @(negedge clk); post(q, 0); end
        nr = rewinds;
        // twice: the items come again from the oldest
        for (t = 0; t < 2; t = t + 1) begin
            while (hw_rd != hw_wr) @(posedge clk);
            repeat (40) @(posedge clk);
            if (eng_taken[q] == advd[q]) $fatal(1, "tb %s: rewind test: nothing handed out of q %0d", NAME, q);
            wait_taken(q, 1);
            rew_req[q] = 1;
            while (rew_req[q] || adv_valid) @(posedge clk);
            if (head[q] != advd[q]) $fatal(1, "tb %s: bench error, rewind not taken", NAME);
        end
        if (rewinds != nr + 2) $fatal(1, "tb %s: rewind test: %0d rewinds", NAME, rewinds - nr);
        eng_hold[q] = 0;
        drain;
        check_counters;
    end
endtask

// no take under way, none started until rx_stall is 0 again
task rx_quiet;
    begin
        rx_stall = 1;
        @(posedge clk);
        while (rxq_valid || rx_pend || rxq_rsp_valid) @(posedge clk);
    end
endtask

integer n, p, q0, h0, c0, v0, rr;
initial begin
    fin = 0;
    for (i = 0; i < NQ; i = i + 1) begin
        gen_cnt[i] = 0; gen_h[i] = 0; posted[i] = 0; head[i] = 0; advd[i] = 0; mdl_dbh[i] = 0;
        m_l[i] = 0; m_fb[i] = 0;
        eng_taken[i] = 0; eng_stale_n[i] = 0; eng_untaken[i] = 0; eng_hold[i] = 0; rew_req[i] = 0;
        elig_prev[i] = 0; te[i] = 0;
    end
    for (i = 0; i < NUM_VI; i = i + 1) begin mdl_en[i] = 0; mdl_state[i] = 0; held_quiet[i] = 0; end
    repeat (5) @(posedge clk);
    // seeded after time 0 (the top sets seed in its own initial block)
    rng_state = (seed + SALT * 7919) * 32'h9E3779B1 + 32'h1234567;
    if (rng_state == 0) rng_state = 1;
    #1 rst = 1'b0;
    // VIs 0..4 enabled, random states; VI 5 disabled
    for (n = 0; n < 5; n = n + 1) ctx_op(n, 1, rnd(0), 1);
    ctx_op(5, 0, 0, 1);
    if ($test$plusargs("debug")) $display("%s init done at %0d", NAME, cyc);

    // random phase
    p = 0;
    while (p < ($test$plusargs("short") ? NPOSTS / 3 : NPOSTS)) begin
        @(negedge clk);
        if (hw_wr - hw_rd < backlog) begin
            r = rnd(0) & 15;
            if (r < 2) junk;
            else if (r == 2 && (rnd(0) & 7) == 0) begin
                fork ctx_op(urand(5), 1, rnd(0), 0); join_none
            end else begin
                // half the posts to VI 0 (busy), the rest anywhere, VI 5 included
                if (r < 9) q0 = rnd(0) & 1;
                else q0 = urand(NQ);
                if (outstanding(q0) < MAX_DESC || !mdl_en[q0 / 2]) begin
                    post(q0, 0);
                    p = p + 1;
                end
            end
            if ((p % 300) == 299) begin
                eng_lat = 1 + (rnd(0) & 63);
                backlog = 4 + (rnd(0) & 31);
            end
        end
    end
    drain;
    check_counters;
    // saturation: engine at full speed, VI 0 posting without a pause; the
    // block's throughput is measured here
    eng_lat = 1; eng_fast = 1; backlog = 56;
    p = 0;
    meas = 1;
    while (p < 400) begin
        @(negedge clk);
        if (hw_wr - hw_rd < backlog) begin
            r = rnd(0) & 15;
            // VI 0 most, VIs 1 and 2 often, 3 and 4 rarely
            if (r < 7) q0 = r & 1;
            else if (r < 13) q0 = 2 + urand(4);
            else q0 = 6 + urand(4);
            if (outstanding(q0) < MAX_DESC) begin
                post(q0, 0);
                p = p + 1;
            end
        end
    end
    drain;
    meas = 0;
    check_counters;
    $display("tb_via_vi_queues %s: throughput (saturation): %0d operations in %0d cycles, block occupied %0d cycles: %0d.%02d cycles per operation",
             NAME, m_ops, m_cyc, m_busy, m_busy / m_ops, (m_busy * 100 / m_ops) % 100);
    if (m_busy > 3 * m_ops) $fatal(1, "tb %s: more than 3 cycles per operation", NAME);
    // starvation attempt: VIs 0..2 loaded with MAX_DESC - 1 posts per
    // queue, VI 4 with 2, engine stalled then released at full speed: the
    // scheduler is the bottleneck, and VI 4 must still get its turns
    eng_stall = 1;
    for (n = 0; n < MAX_DESC - 1; n = n + 1)
        for (q0 = 0; q0 < 6; q0 = q0 + 1) begin wait_fifo(4); @(negedge clk); post(q0, 0); end
    for (n = 0; n < 2; n = n + 1)
        for (q0 = 8; q0 < 10; q0 = q0 + 1) begin wait_fifo(4); @(negedge clk); post(q0, 0); end
    while (hw_rd != hw_wr) @(posedge clk);
    repeat (5) @(posedge clk);
    eng_stall = 0;
    drain;
    check_counters;
    eng_fast = 0; backlog = 8; eng_lat = 20;
    $display("tb_via_vi_queues %s: random, saturation, starvation phases: %0d loads (%0d with items of the queue out), %0d collisions, %0d garbage Next, %0d chained, %0d rewinds, max wait %0d cycles",
             NAME, loads, multi, collisions, garbage_next, x_chained, rewinds, max_wait);
    if (collisions == 0) $fatal(1, "tb %s: no doorbell/advance collision happened", NAME);
    if (garbage_next == 0) $fatal(1, "tb %s: no fetch before the successor was linked", NAME);
    if (multi == 0) $fatal(1, "tb %s: never two items of a queue out", NAME);
    if (POOL <= 32 && x_chained == 0) $fatal(1, "tb %s: the fallback never happened", NAME);
    if (POOL > 12 * MAX_DESC && x_chained != 0) $fatal(1, "tb %s: fallback with a pool that cannot fill", NAME);

    // the directed phases keep receives queued: no VI in ERROR (whose
    // receives the scheduler would flush) until the flush phase
    rx_quiet;
    for (n = 0; n < 5; n = n + 1) ctx_op(n, 1, (mdl_state[n] == 2'd3) ? 2'd1 : mdl_state[n], 0);
    rx_stall = 0;

    // directed: low word, junk, high word: the high word is bad
    @(negedge clk);
    push_wr(0, 12'h000, 32'h1000, 4'hF, K_LOW);
    push_wr(0, 12'h020, 32'h0, 4'hF, K_BAD);
    push_wr(0, 12'h004, 32'h0, 4'hF, K_BAD);
    // low word of queue 0 then high word of queue 1: bad
    push_wr(1, 12'h000, 32'h1000, 4'hF, K_LOW);
    push_wr(1, 12'h014, 32'h0, 4'hF, K_BAD);
    // low word of VI 1 then high word of VI 2: bad
    push_wr(1, 12'h010, 32'h1000, 4'hF, K_LOW);
    push_wr(2, 12'h014, 32'h0, 4'hF, K_BAD);
    drain;
    check_counters;

    // directed: overflow, engine stalled
    eng_stall = 1;
    q0 = 2 * 2 + 1;
    for (n = 0; n < MAX_DESC; n = n + 1) begin wait_fifo(4); @(negedge clk); post(q0, 0); end
    wait_fifo(4); @(negedge clk); post(q0, 1);
    while (hw_rd != hw_wr) @(posedge clk);
    repeat (10) @(posedge clk);
    check_counters;
    if (x_ovf != 1) $fatal(1, "tb %s: bench error, no overflow", NAME);
    eng_stall = 0;
    drain;
    check_counters;

    // directed: rewinds of a send queue with the pool free
    rewind_test(2 * 2, MAXIF + 2);

    // directed: the succ race with the pool full (small pools): X takes the
    // pool's last entry and is handed out before Y is posted (its fetched
    // Next is garbage); Y finds the pool full (fb, its address kept), is
    // handed out before Z is posted (garbage again); Z goes to succ, W is
    // counted and gets its address from Z's Next
    if (POOL <= 32) begin
        rx_quiet;
        c0 = x_chained;
        for (n = 0; n < POOL - 1; n = n + 1) begin
            q0 = 1 + 2 * (n % 4);
            wait_fifo(4); @(negedge clk); post(q0, 0);
        end
        eng_hold[4] = 1;
        h0 = garbage_next;
        wait_fifo(4); @(negedge clk); post(4, 0);
        wait_taken(4, 1);
        wait_fifo(4); @(negedge clk); post(4, 0);
        wait_taken(4, 2);
        if (garbage_next != h0 + 2) $fatal(1, "tb %s: bench error, succ race not set up (%0d)", NAME, garbage_next - h0);
        for (n = 0; n < 2; n = n + 1) begin wait_fifo(4); @(negedge clk); post(4, 0); end
        while (hw_rd != hw_wr) @(posedge clk);
        repeat (40) @(posedge clk);
        if (x_chained != c0 + 3) $fatal(1, "tb %s: bench error, %0d chained in the succ race", NAME, x_chained - c0);
        if (eng_taken[4] - advd[4] != 2) $fatal(1, "tb %s: succ race: %0d items out, expected 2", NAME, eng_taken[4] - advd[4]);
        eng_hold[4] = 0;
        rx_stall = 0;
        drain;
        check_counters;
    end

    // directed: the same with the pool full (small pools): receives of
    // VIs 0 and 1, not taken, fill it; the send queue goes to the fallback
    if (POOL <= 32) begin
        rx_stall = 1;
        c0 = x_chained;
        for (n = 0; n < POOL; n = n + 1) begin
            q0 = 1 + 2 * (n % 4);
            wait_fifo(4); @(negedge clk); post(q0, 0);
        end
        while (hw_rd != hw_wr) @(posedge clk);
        repeat (5) @(posedge clk);
        if (pool_used != POOL || x_chained != c0) $fatal(1, "tb %s: bench error, pool not filled", NAME);
        eng_hold[4] = 1;
        for (n = 0; n < 5; n = n + 1) begin wait_fifo(4); @(negedge clk); post(4, 0); end
        while (hw_rd != hw_wr) @(posedge clk);
        repeat (40) @(posedge clk);
        // only the fallback's first item is out
        if (eng_taken[4] - advd[4] != 1) $fatal(1, "tb %s: %0d items of a fallback queue out", NAME, eng_taken[4] - advd[4]);
        rew_req[4] = 1;
        while (rew_req[4] || adv_valid) @(posedge clk);
        repeat (40) @(posedge clk);
        if (eng_taken[4] - advd[4] != 1) $fatal(1, "tb %s: after the rewind, %0d items out", NAME, eng_taken[4] - advd[4]);
        eng_hold[4] = 0;
        rx_stall = 0;
        drain;
        check_counters;
        if (x_chained != c0 + 5) $fatal(1, "tb %s: bench error, %0d chained", NAME, x_chained - c0);
    end

    // directed: reset of a VI's queues with items held (they come back stale)
    q0 = 1 * 2 + 0;
    eng_hold[q0] = 1;
    c0 = x_stale;
    for (n = 0; n < 3; n = n + 1) begin wait_fifo(4); @(negedge clk); post(q0, 0); end
    wait_taken(q0, (MAXIF < 3) ? MAXIF : 3);
    rx_quiet;
    ctx_op(1, 1, 2'd1, 1);
    eng_hold[q0] = 0;
    while (eng_stale_n[q0] != 0 || eng_stale_n[q0 + 1] != 0) @(posedge clk);
    rx_stall = 0;
    // db_handle was reset to 0: the first post writes no HANDLE
    keep_h0 = 1;
    for (n = 0; n < 2; n = n + 1) begin wait_fifo(4); @(negedge clk); post(q0, 0); end
    keep_h0 = 0;
    drain;
    check_counters;
    if (x_stale == c0) $fatal(1, "tb %s: bench error, no stale advance", NAME);
    if (head[q0] != 2) $fatal(1, "tb %s: after the reset, %0d items of q %0d handed out, expected 2", NAME, head[q0], q0);

    // directed: many resets of VIs with lists in the pool (and, for small
    // pools, in the fallback), items held by the engine; then the pool
    // must be whole
    for (rr = 0; rr < 40; rr = rr + 1) begin
        v0 = urand(5);
        rx_quiet;
        eng_hold[2*v0] = 1; eng_hold[2*v0+1] = 1;
        n = urand(MAX_DESC + 1);
        for (p = 0; p < n; p = p + 1) begin wait_fifo(4); @(negedge clk); post(2*v0 + (rnd(0) & 1), 0); end
        while (hw_rd != hw_wr) @(posedge clk);
        repeat (30) @(posedge clk);
        while (work_valid) @(posedge clk);
        ctx_op(v0, 1, rnd(0) % 3, 1);
        eng_hold[2*v0] = 0; eng_hold[2*v0+1] = 0;
        while (eng_stale_n[2*v0] != 0 || eng_untaken[2*v0] != 0 || eng_stale_n[2*v0+1] != 0) @(posedge clk);
        rx_stall = 0;
        repeat (urand(20)) @(posedge clk);
    end
    drain;
    check_counters;
    if (pool_used != 0) $fatal(1, "tb %s: bench error, pool in use after the resets", NAME);

    // fill the pool completely from empty receive queues (small pools):
    // exactly POOL posts go to the pool
    if (POOL <= 32) begin
        rx_stall = 1;
        c0 = x_chained;
        h0 = cnt_chained;
        for (n = 0; n < POOL + 6; n = n + 1) begin
            q0 = 1 + 2 * (n % 5);
            wait_fifo(4); @(negedge clk); post(q0, 0);
        end
        while (hw_rd != hw_wr) @(posedge clk);
        repeat (5) @(posedge clk);
        if (cnt_chained - h0 != 6 || x_chained - c0 != 6)
            $fatal(1, "tb %s: pool fill: %0d posts chained, expected 6", NAME, cnt_chained - h0);
        if (dut.fresh_reg - dut.fl_cnt_reg != POOL) $fatal(1, "tb %s: pool fill: %0d entries used", NAME, dut.fresh_reg - dut.fl_cnt_reg);
        rx_stall = 0;
        drain;
        check_counters;
    end

    // directed: the flush. Receives posted to VI 2 while CONNECTED stay
    // queued (qs_queued, no work); once VI 2 is in ERROR the scheduler hands
    // every one of them to the engine, in order (work_q 1), with its send
    // queue's items
    rx_quiet;
    ctx_op(2, 1, 2'd1, 0);
    eng_stall = 1;
    h0 = flushed_rx;
    for (n = 0; n < 5; n = n + 1) begin wait_fifo(4); @(negedge clk); post(2 * 2 + 1, 0); end
    for (n = 0; n < 2; n = n + 1) begin wait_fifo(4); @(negedge clk); post(2 * 2, 0); end
    while (hw_rd != hw_wr) @(posedge clk);
    repeat (10) @(posedge clk);
    check_queued;
    if (qs_queued !== 2'b00) $fatal(1, "tb %s: bench error, qs_vi left at %0d", NAME, qs_vi);
    qs_vi = 2;
    #1;
    if (qs_queued !== 2'b11) $fatal(1, "tb %s: VI 2's queues show %b with posts in both", NAME, qs_queued);
    ctx_op(2, 1, 2'd3, 0);
    eng_stall = 0;
    drain;
    check_counters;
    if (flushed_rx - h0 != 5) $fatal(1, "tb %s: %0d receives of VI 2 flushed, expected 5", NAME, flushed_rx - h0);
    ctx_op(2, 1, 2'd1, 0);
    rx_stall = 0;

    // disable a VI with work, then enable it: nothing handed out meanwhile
    eng_stall = 1;
    eng_lat = 1;
    q0 = 3 * 2 + 1;
    h0 = head[q0];
    for (n = 0; n < 2; n = n + 1) begin wait_fifo(4); @(negedge clk); post(q0, 0); end
    while (hw_rd != hw_wr) @(posedge clk);
    ctx_op(3, 0, 2'd3, 0);
    ctx_op(1, 0, 2'd0, 0);
    eng_stall = 0;
    repeat (200) @(posedge clk);
    // the first item may have been taken before the disable: at most one out
    if (head[q0] - h0 > 1) $fatal(1, "tb %s: %0d items of disabled VI 3 handed out", NAME, head[q0] - h0);
    ctx_op(3, 1, 2'd3, 0);
    ctx_op(1, 1, 2'd0, 0);
    drain;
    check_counters;
    $display("tb_via_vi_queues %s: rx takes: %0d found, %0d not found (%0d out of range), %0d given back; %0d rewinds; %0d receives flushed",
             NAME, rx_found, rx_miss, rx_oor, rx_kept, rewinds, flushed_rx);
    if (rx_found == 0 || rx_miss == 0 || rx_oor == 0 || rx_kept == 0)
        $fatal(1, "tb %s: an rx take case did not happen", NAME);
    $display("tb_via_vi_queues %s: POOL %0d MAX_INFLIGHT %0d seed %0d: %0d work items, counters db %0d drop %0d ovf %0d bad %0d stale %0d chained %0d",
             NAME, POOL, MAXIF, seed, loads, x_db, x_drop, x_ovf, x_bad, x_stale, x_chained);
    fin = 1;
end

endmodule
