// via_vi_queues: doorbell and queue-state block of the vianic NIC (issue 9,
// version 2: several descriptors of a queue in flight).
//
// Per VI and queue (send 0, receive 1) the posted, not yet consumed
// descriptors form a sequence in post order. A prefix of it (F items,
// F <= MAX_INFLIGHT) is in flight: handed out (send) or taken (receive), not
// yet consumed; the rest waits. The sequence has two parts:
//   - the pool part (L items, oldest first): each item's (VA, db_handle) is
//     in a pool entry; a queue's entries form a linked list (head, tail) in
//     two via_ram of POOL words shared by all queues (pdata: VA 63:6 and
//     handle; pnext: the link). hp points at the oldest waiting pool item;
//   - the fallback part (docs/vi.md "Queues and doorbells"): fb (the first
//     fallback item, its address known: fb_va, fb_handle, fb_valid), succ
//     (the item after fb when its doorbell came while fb was there:
//     succ_va, succ_handle, succ_valid) and pending (items after fb, succ
//     included). Items counted without an address get it from their
//     predecessor's Next at the predecessor's consume.
// A doorbell goes to the pool when the queue has no fallback part
// (fb_valid 0, so every earlier descriptor's address is in the pool) and
// the pool has a free entry; otherwise it joins the fallback part (counted
// in cnt_chained). Of the fallback part only fb is ever handed out (at most
// one fallback item in flight), so a counted item's predecessor (succ or a
// counted item) was not yet handed out when the counted item rang: every
// fetch of the predecessor reads its link (the argument of docs/vi.md,
// "Doorbell and queue-state block"). An item is available when it waits,
// its address is known (a pool item, or fb), the VI is enabled and F <
// MAX_INFLIGHT. Free pool entries: never used ones (a counter) and a free
// list linked through pnext (a consumed entry is pushed; a reset queue's
// whole list is spliced in, one write).
//
// One via_ram word per (VI, queue), address {vi, q}: db_handle, head, tail,
// hp, L, F, fb, succ, pending. Flip-flops per queue: word_valid (the word
// was written since the queue's last reset; else it reads as zero), ready
// (an item waits with its address known and F < MAX_INFLIGHT), held
// (F > 0), queued (L, fb or pending nonzero: qs_queued tells the firmware
// whether a queue is empty, e.g. after a flush); per VI enable and state.
//
// Doorbell page (offsets in the VI's 4 KiB page; queue q at 0x10*q):
//   0x00 / 0x10  DOORBELL low word (VA 31:0, bits 5:0 ignored): latched
//   0x04 / 0x14  DOORBELL high word (VA 63:32): acts (the post), when the
//                previous write on the port was the low word of the same
//                VI and queue; otherwise it is a bad write
//   0x08 / 0x18  HANDLE: db_handle
//   anything else, or a write with db_wr_strb != 4'hF: ignored, counted in
//   cnt_bad_write (and it breaks a latched low word).
//
// Operations, one at a time; each reads the queue word in its first cycle
// (A), and writes it back in its last cycle:
//   doorbell (high word), 2 cycles: L + fallback items >= MAX_DESC: dropped
//     (cnt_overflow); else to the pool or the fallback part (above):
//     fb_valid 0: fb = (VA, db_handle); else pending 0: succ = (VA,
//     db_handle), pending 1; else pending + 1.
//   HANDLE, 2 cycles: db_handle.
//   handout (scheduler), 3 cycles: round robin over the VIs with an
//     available item (ready, VI enabled, not blk_vi while blk_valid: a
//     context commit waits for that VI) in the send queue, or in the
//     receive queue of a VI in ERROR (the flush: the send engine completes
//     those with FLUSHED; the send queue first), one item per turn, only
//     while the work register is empty; reads the item (pool entry at hp,
//     or fb) and presents it until work_ready (work_q: its queue); F + 1.
//   receive take (rxq port), 3 cycles: found = rxq_vi < NUM_VI, the VI
//     enabled, an item available; then as a handout (F + 1), the answer
//     (va, handle, the VI's state) held until rxq_rsp_ready; no take is
//     accepted while an answer is held.
//   consume (adv_keep 0), 3 cycles (2 when the item is fb): the oldest
//     in-flight item leaves: a pool item frees its entry (head moves on);
//     fb: pending > 0: fb = succ if succ_valid, else (adv_next,
//     adv_next_handle), pending - 1, succ_valid 0; else fb_valid 0. F - 1.
//   rewind (adv_keep 1), 2 cycles: F = 0, hp = head: every in-flight item
//     waits again, in order.
//   consume or rewind with F = 0: ignored at once (cnt_adv_stale).
//   An engine rewinds only a queue none of whose items sits in the work
//   register or in a held take answer (it takes them first): such an item
//   would be out while the queue's F is already 0.
//   context: sets a VI's enable and state at once; with ctx_reset_q both
//     queues of the VI are emptied and their pool lists go back to the free
//     list (3 cycles; ctx_ready is 0 meanwhile).
// Arbitration of an idle cycle: context first, then the scheduler's
// handout and the other operations alternate (consume/rewind before take
// before doorbell). Low words, bad writes and writes to a disabled VI are
// always taken at once. Throughput: one operation per 2 to 3 cycles.
//
// vi_held[v]: a queue of VI v has F > 0, or the work register holds an
// item of v. busy: an operation is in progress or a send queue has an item
// to hand out.
//
// Timing: db_wr_ready, adv_ready, rxq_ready, ctx_ready are combinational
// from the block's state and the valids.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
module via_vi_queues #(
    parameter NUM_VI       = 64,    // number of VIs (1 .. 1024)
    parameter MAX_DESC     = 1024,  // MaxDescriptorsPerQueue: outstanding posts per queue (2 .. 1024)
    parameter POOL         = 256,   // doorbell address entries shared by all queues (16 .. 1024, power of two)
    parameter MAX_INFLIGHT = 16,    // items of one queue out at once (1 .. 64)
    // derived, do not override
    parameter VI_WIDTH = (NUM_VI > 1) ? $clog2(NUM_VI) : 1
) (
    input  wire                clk,
    input  wire                rst,

    // doorbell write port (via_regfile's db_wr_*)
    input  wire                db_wr_valid,
    output wire                db_wr_ready,
    input  wire [VI_WIDTH-1:0] db_wr_vi,
    input  wire [11:0]         db_wr_offset,
    input  wire [31:0]         db_wr_data,
    input  wire [3:0]          db_wr_strb,

    // VI context port (firmware side)
    input  wire                ctx_valid,
    output wire                ctx_ready,
    input  wire [VI_WIDTH-1:0] ctx_vi,
    input  wire                ctx_enable,
    input  wire [1:0]          ctx_state,   // IDLE 0, CONNECTED 1, CONNECT_PENDING 2, ERROR 3
    input  wire                ctx_reset_q,

    // work items to the engine
    output reg                 work_valid,
    input  wire                work_ready,
    output reg  [VI_WIDTH-1:0] work_vi,
    output reg                 work_q,
    output reg  [63:0]         work_va,
    output reg  [31:0]         work_handle,
    output reg  [1:0]          work_state,

    // advance from the engine: consume the oldest in-flight item, or rewind
    input  wire                adv_valid,
    output wire                adv_ready,
    input  wire [VI_WIDTH-1:0] adv_vi,
    input  wire                adv_q,
    input  wire [63:0]         adv_next,
    input  wire [31:0]         adv_next_handle,
    input  wire                adv_keep,    // 1: rewind (every in-flight item waits again)

    // receive queue take (the RX engine, on demand)
    input  wire                rxq_valid,
    output wire                rxq_ready,
    input  wire [VI_WIDTH-1:0] rxq_vi,
    output reg                 rxq_rsp_valid,
    input  wire                rxq_rsp_ready,
    output reg                 rxq_rsp_found,
    output reg  [63:0]         rxq_rsp_va,
    output reg  [31:0]         rxq_rsp_handle,
    output reg  [1:0]          rxq_rsp_state,

    // bit v: VI v has an item in flight or in the work register
    output wire [NUM_VI-1:0]   vi_held,

    // queue state of VI qs_vi for the firmware (VI_CTX_STATUS): bit q, the
    // queue holds posted descriptors not yet consumed (combinational)
    input  wire [VI_WIDTH-1:0] qs_vi,
    output wire [1:0]          qs_queued,

    // a context commit waits for VI blk_vi: hand out no new item of it
    // (level; the integrator's, so that a busy VI cannot hold a commit off)
    input  wire                blk_valid,
    input  wire [VI_WIDTH-1:0] blk_vi,

    // counters (wrap)
    output reg  [31:0]         cnt_doorbell,
    output reg  [31:0]         cnt_db_dropped,
    output reg  [31:0]         cnt_overflow,
    output reg  [31:0]         cnt_bad_write,
    output reg  [31:0]         cnt_adv_stale,
    output reg  [31:0]         cnt_chained,
    output reg                 ovf_pulse,     // a post was dropped (cnt_overflow), one cycle
    output reg  [VI_WIDTH-1:0] ovf_vi,        // ... its VI

    // an operation is in progress or a send queue has work to hand out
    // (via_nic's idle detection: the NIC is not idle while work waits)
    output wire                busy
);

generate
    if (NUM_VI < 1 || NUM_VI > 1024) begin : g_bad_num_vi
        `VIA_PARAM_FAIL(("via_vi_queues: NUM_VI=%0d, must be 1..1024", NUM_VI))
    end
    if (MAX_DESC < 2 || MAX_DESC > 1024) begin : g_bad_max_desc
        `VIA_PARAM_FAIL(("via_vi_queues: MAX_DESC=%0d, must be 2..1024", MAX_DESC))
    end
    if (POOL < 16 || POOL > 1024 || (POOL & (POOL - 1)) != 0) begin : g_bad_pool
        `VIA_PARAM_FAIL(("via_vi_queues: POOL=%0d, must be a power of two, 16..1024", POOL))
    end
    if (MAX_INFLIGHT < 1 || MAX_INFLIGHT > 64) begin : g_bad_max_inflight
        `VIA_PARAM_FAIL(("via_vi_queues: MAX_INFLIGHT=%0d, must be 1..64", MAX_INFLIGHT))
    end
    if (VI_WIDTH != ((NUM_VI > 1) ? $clog2(NUM_VI) : 1)) begin : g_bad_vi_width
        `VIA_PARAM_FAIL(("via_vi_queues: VI_WIDTH=%0d is derived, do not override", VI_WIDTH))
    end
endgenerate

localparam NQ = 2 * NUM_VI;
localparam QW = VI_WIDTH + 1;
localparam RAW = $clog2(NQ);    // RAM address bits (QW, or 1 for NUM_VI 1)
localparam PW = $clog2(POOL);   // pool index bits
localparam [QW-1:0] NUM_VI_W = NUM_VI[QW-1:0];
localparam [QW-1:0] NQ_W = NQ[QW-1:0];
localparam [PW:0]   POOL_W = POOL[PW:0];
localparam [11:0]   MAX_DESC_W = MAX_DESC[11:0];
localparam [6:0]    MAXIF_W = MAX_INFLIGHT[6:0];

// queue word: {pending, succ_handle, succ_va, succ_valid, fb_handle, fb_va,
//              fb_valid, F, L, hp, tail, head, db_handle}
localparam O_HEAD = 32;
localparam O_TAIL = O_HEAD + PW;
localparam O_HP   = O_TAIL + PW;
localparam O_L    = O_HP + PW;      // 11 bits
localparam O_F    = O_L + 11;       // 7 bits
localparam O_FBV  = O_F + 7;
localparam O_FBVA = O_FBV + 1;      // 58 bits
localparam O_FBH  = O_FBVA + 58;
localparam O_SV   = O_FBH + 32;
localparam O_SVA  = O_SV + 1;
localparam O_SH   = O_SVA + 58;
localparam O_PEND = O_SH + 32;      // 11 bits
localparam W      = O_PEND + 11;
localparam PDW    = 58 + 32;        // pool entry: {handle, VA 63:6}

localparam OP_DB = 3'd0, OP_HANDLE = 3'd1, OP_ADV = 3'd2, OP_REW = 3'd3,
           OP_SCHED = 3'd4, OP_RXQ = 3'd5, OP_CTX = 3'd6;

// ---------------------------------------------------------------- state
reg [NUM_VI-1:0] enable_reg;
reg [2*NUM_VI-1:0] state_reg;
reg [NUM_VI-1:0] err_reg;        // per VI: state_reg holds ERROR (2'd3), kept beside it for the scheduler
reg [NQ-1:0]     word_valid_reg;
reg [NUM_VI-1:0] sready_reg;     // per VI: its send queue has an available item (VI enable aside)
reg [NUM_VI-1:0] rready_reg;     // per VI: the same for its receive queue
reg [NQ-1:0]     queued_reg;     // per queue: posted descriptors not yet consumed (L, fb or pending)
reg [NUM_VI-1:0] held_s_reg;     // per VI: send queue F > 0
reg [NUM_VI-1:0] held_r_reg;     // per VI: receive queue F > 0

reg              lat_valid_reg;
reg [QW-1:0]     lat_qa_reg;
reg [25:0]       lat_lo_reg;     // VA bits 31:6

reg              busy_reg;       // an operation past its first cycle
reg              ph2_reg;        // its third cycle
reg [2:0]        op_reg;
reg              op_inrange_reg; // RXQ: rxq_vi < NUM_VI
reg [QW-1:0]     op_qa_reg;
reg [63:0]       op_data_reg;    // DB: VA; HANDLE: handle in 31:0; ADV: Next
reg [31:0]       op_handle_reg;  // ADV: NextHandle
reg              sched_turn_reg;
reg [QW-1:0]     rr_ptr_reg;

// pool allocation: never used entries fresh..POOL-1, and a free list
reg [PW:0]       fresh_reg;
reg [PW-1:0]     fl_head_reg;
reg [PW:0]       fl_cnt_reg;

wire [W-1:0] ram_rd;
reg          ram_rd_en;
reg [QW-1:0] ram_rd_addr;
reg          ram_wr_en;
reg [W-1:0]  ram_wr_data;

wire [RAW-1:0] ram_wr_addr = op_qa_reg[RAW-1:0];
// for NUM_VI 1 the VI bit of the address is always 0
wire [QW-1:0]  unused_rd_addr = ram_rd_addr;

via_ram #(.WIDTH(W), .WORDS(NQ)) u_ram (
    .clk     (clk),
    .wr_en   (ram_wr_en),
    .wr_addr (ram_wr_addr),
    .wr_data (ram_wr_data),
    .rd_en   (ram_rd_en),
    .rd_addr (ram_rd_addr[RAW-1:0]),
    .rd_data (ram_rd)
);

wire [PDW-1:0] pd_rd;
reg            pd_rd_en;
reg  [PW-1:0]  pd_rd_addr;
reg            pd_wr_en;
reg  [PW-1:0]  pd_wr_addr;
reg  [PDW-1:0] pd_wr_data;

via_ram #(.WIDTH(PDW), .WORDS(POOL)) u_pdata (
    .clk     (clk),
    .wr_en   (pd_wr_en),
    .wr_addr (pd_wr_addr),
    .wr_data (pd_wr_data),
    .rd_en   (pd_rd_en),
    .rd_addr (pd_rd_addr),
    .rd_data (pd_rd)
);

wire [PW-1:0]  pn_rd;
reg            pn_rd_en;
reg  [PW-1:0]  pn_rd_addr;
reg            pn_wr_en;
reg  [PW-1:0]  pn_wr_addr;
reg  [PW-1:0]  pn_wr_data;

via_ram #(.WIDTH(PW), .WORDS(POOL)) u_pnext (
    .clk     (clk),
    .wr_en   (pn_wr_en),
    .wr_addr (pn_wr_addr),
    .wr_data (pn_wr_data),
    .rd_en   (pn_rd_en),
    .rd_addr (pn_rd_addr),
    .rd_data (pn_rd)
);

// ---------------------------------------------------------------- decode
// a VI index as an index of the per-VI vectors (in range for any NUM_VI)
function integer vix(input [VI_WIDTH-1:0] v);
    vix = {{(32-VI_WIDTH){1'b0}}, v} % NUM_VI;
endfunction

// a (VI, queue) index as an index of the per-queue vectors
function integer qix(input [QW-1:0] v);
    qix = {{(32-QW){1'b0}}, v} % NQ;
endfunction

// offset bits 1:0 are always 0 (via_regfile aligns the write)
wire [1:0] unused_offset = db_wr_offset[1:0];
wire [QW-1:0] db_qa     = {db_wr_vi, db_wr_offset[4]};
wire          db_in_vi  = ({1'b0, db_wr_vi} < NUM_VI_W);
wire          db_full   = (db_wr_strb == 4'hF);
wire          db_is_lo  = db_full && db_wr_offset[11:5] == 7'd0 && db_wr_offset[3:2] == 2'd0;
wire          db_is_hi  = db_full && db_wr_offset[11:5] == 7'd0 && db_wr_offset[3:2] == 2'd1;
wire          db_is_h   = db_full && db_wr_offset[11:5] == 7'd0 && db_wr_offset[3:2] == 2'd2;
wire          db_hi_ok  = db_is_hi && lat_valid_reg && lat_qa_reg == db_qa;
wire          db_vi_en  = db_in_vi && enable_reg[vix(db_wr_vi)];
// a write that needs the RAM: a good high word or a HANDLE on an enabled VI
wire          db_needs_ram = (db_hi_ok || db_is_h) && db_vi_en;

wire [QW-1:0] adv_qa    = {adv_vi, adv_q};
wire          adv_in_vi = ({1'b0, adv_vi} < NUM_VI_W);
wire          adv_live  = adv_in_vi && (adv_q ? held_r_reg[vix(adv_vi)] : held_s_reg[vix(adv_vi)]);

wire [QW-1:0] rxq_qa    = {rxq_vi, 1'b1};
wire          rxq_in_vi = ({1'b0, rxq_vi} < NUM_VI_W);
wire          rxq_want  = rxq_valid && !rxq_rsp_valid;

// scheduler: eligible queues (send queues, and the receive queues of VIs
// in ERROR) and the round-robin pick over the queues. Vector operations on
// one bit per VI and a logarithmic search, not a loop over the queues:
// this logic settles every cycle.
localparam [NUM_VI-1:0] VI_ONE = {{(NUM_VI-1){1'b0}}, 1'b1};
wire [NUM_VI-1:0] blk_mask = blk_valid ? (VI_ONE << blk_vi) : {NUM_VI{1'b0}};
// the scheduler hands out send queues (q 0), and the receive queues (q 1)
// of VIs in ERROR, whose receives the send engine flushes; receive queues
// of other VIs are taken on demand through the rxq port
wire [NUM_VI-1:0] el_s = sready_reg & enable_reg & ~blk_mask;
wire [NUM_VI-1:0] el_r = rready_reg & enable_reg & err_reg & ~blk_mask;
wire              pick_found = |el_s || |el_r;
// the round-robin pointer is a queue index (2 * VI + q): queues at or
// after it come first. A send queue is there when its VI >= ceil(ptr / 2),
// a receive queue when its VI >= floor(ptr / 2)
wire [VI_WIDTH:0]   s_from = {1'b0, rr_ptr_reg[QW-1:1]} + {{VI_WIDTH{1'b0}}, rr_ptr_reg[0]};
wire [VI_WIDTH-1:0] r_from = rr_ptr_reg[QW-1:1];
wire [NUM_VI-1:0] s_hi = el_s & ~((VI_ONE << s_from) - VI_ONE);
wire [NUM_VI-1:0] r_hi = el_r & ~((VI_ONE << r_from) - VI_ONE);
wire              any_hi = |s_hi || |r_hi;
wire [NUM_VI-1:0] s_c = any_hi ? s_hi : el_s;
wire [NUM_VI-1:0] r_c = any_hi ? r_hi : el_r;
wire [VI_WIDTH-1:0] s_v = lowest_v(s_c);
wire [VI_WIDTH-1:0] r_v = lowest_v(r_c);
// the lower queue index of the two candidates (send 2 * s_v, receive
// 2 * r_v + 1); with nothing eligible, what a search of an empty vector
// gives (PICK_NONE: the RAM's read address in idle cycles stays as it was)
wire              take_s = !(|r_c) || (|s_c && s_v <= r_v);
wire [QW-1:0]     pick = !pick_found ? PICK_NONE : take_s ? {s_v, 1'b0} : {r_v, 1'b1};

// the search's result for an empty vector: every step below n (NQ)
function [QW-1:0] pick_none(input integer n);
    integer s;
    begin
        pick_none = {QW{1'b0}};
        for (s = QW - 1; s >= 0; s = s - 1) begin
            if ((1 << s) < n) pick_none = pick_none | (1 << s);
        end
    end
endfunction
localparam [QW-1:0] PICK_NONE = pick_none(NQ);

// index of the lowest set bit of x (0 if none): halves the range each step
function [VI_WIDTH-1:0] lowest_v(input [NUM_VI-1:0] x);
    reg [NUM_VI-1:0] v;
    reg [31:0]       step;
    integer          s;
    begin
        v = x;
        lowest_v = {VI_WIDTH{1'b0}};
        for (s = VI_WIDTH - 1; s >= 0; s = s - 1) begin
            step = 32'd1 << s;
            if (step < NUM_VI && (v & ((VI_ONE << step) - VI_ONE)) == {NUM_VI{1'b0}}) begin
                v = v >> step;
                lowest_v = lowest_v | step[VI_WIDTH-1:0];
            end
        end
    end
endfunction

// per VI: a descriptor of either queue handed out and not yet advanced
// (F > 0), or the RMW unit's work item
assign vi_held = held_s_reg | held_r_reg | (work_valid ? (VI_ONE << work_vi) : {NUM_VI{1'b0}});

wire idle       = !busy_reg;
assign busy     = busy_reg || pick_found;
wire sched_want = pick_found && !work_valid;
wire grant_ctx  = idle && ctx_valid;
wire free1      = idle && !ctx_valid;
wire sched_first = sched_turn_reg && sched_want;
wire grant_adv  = free1 && !sched_first && adv_valid;
wire grant_rxq  = free1 && !sched_first && !adv_valid && rxq_want;
wire grant_db   = free1 && !sched_first && !adv_valid && !rxq_want && db_wr_valid && db_needs_ram;
wire grant_sched = free1 && sched_want && (sched_first || (!adv_valid && !rxq_want && !(db_wr_valid && db_needs_ram)));

assign ctx_ready   = idle;
assign adv_ready   = grant_adv;
assign rxq_ready   = grant_rxq;
assign db_wr_ready = db_needs_ram ? grant_db : 1'b1;

wire db_fire = db_wr_valid && db_wr_ready;
wire ctx_in_vi = ({1'b0, ctx_vi} < NUM_VI_W);

// ---------------------------------------------------------------- the word
wire [W-1:0]  rd_word = word_valid_reg[qix(op_qa_reg)] ? ram_rd : {W{1'b0}};
wire [31:0]   r_dbh  = rd_word[31:0];
wire [PW-1:0] r_head = rd_word[O_HEAD +: PW];
wire [PW-1:0] r_tail = rd_word[O_TAIL +: PW];
wire [PW-1:0] r_hp   = rd_word[O_HP +: PW];
wire [10:0]   r_l    = rd_word[O_L +: 11];
wire [6:0]    r_f    = rd_word[O_F +: 7];
wire          r_fbv  = rd_word[O_FBV];
wire [57:0]   r_fbva = rd_word[O_FBVA +: 58];
wire [31:0]   r_fbh  = rd_word[O_FBH +: 32];
wire          r_sv   = rd_word[O_SV];
wire [57:0]   r_sva  = rd_word[O_SVA +: 58];
wire [31:0]   r_sh   = rd_word[O_SH +: 32];
wire [10:0]   r_pend = rd_word[O_PEND +: 11];

wire [11:0]   r_total   = {1'b0, r_l} + {11'd0, r_fbv} + {1'b0, r_pend};
wire          r_f_lt_l  = {4'd0, r_f} < r_l;
wire          r_avail   = (r_f_lt_l || ({4'd0, r_f} == r_l && r_fbv)) && r_f < MAXIF_W;
wire          op_vi_en  = enable_reg[vix(op_qa_reg[QW-1:1])];
// handout / take: an item available (the scheduler's pick always is)
wire          take_ok   = r_avail && op_vi_en && (op_reg == OP_SCHED || op_inrange_reg);
wire          pool_free = (fl_cnt_reg != {(PW+1){1'b0}}) || (fresh_reg != POOL_W);
wire [PW-1:0] alloc_idx = (fl_cnt_reg != {(PW+1){1'b0}}) ? fl_head_reg : fresh_reg[PW-1:0];
wire          ctx_splice = word_valid_reg[qix(op_qa_reg)] && r_l != 11'd0;

// the second RMW cycle (ph2_reg 0) or the third (ph2_reg 1)
reg [31:0]   n_dbh;
reg [PW-1:0] n_head, n_tail, n_hp;
reg [10:0]   n_l;
reg [6:0]    n_f;
reg          n_fbv, n_sv;
reg [57:0]   n_fbva, n_sva;
reg [31:0]   n_fbh, n_sh;
reg [10:0]   n_pend;
reg          n_overflow;
reg          n_chained;
reg          op_done;       // the operation's last cycle
reg          n_alloc_fl;    // an entry taken from the free list
reg          n_alloc_fresh; // a never used entry taken
reg          n_free1;       // one entry (r_head) pushed on the free list
reg          n_splice;      // the word's list spliced into the free list
reg [57:0]   item_va;
reg [31:0]   item_h;
always @* begin
    n_dbh  = r_dbh;  n_head = r_head; n_tail = r_tail; n_hp = r_hp;
    n_l    = r_l;    n_f    = r_f;
    n_fbv  = r_fbv;  n_fbva = r_fbva; n_fbh  = r_fbh;
    n_sv   = r_sv;   n_sva  = r_sva;  n_sh   = r_sh;
    n_pend = r_pend;
    n_overflow = 1'b0;
    n_chained = 1'b0;
    op_done = 1'b0;
    n_alloc_fl = 1'b0;
    n_alloc_fresh = 1'b0;
    n_free1 = 1'b0;
    n_splice = 1'b0;
    ram_wr_en = 1'b0;
    pd_rd_en = 1'b0;
    pd_rd_addr = r_hp;
    pd_wr_en = 1'b0;
    pd_wr_addr = alloc_idx;
    pd_wr_data = {r_dbh, op_data_reg[63:6]};
    pn_rd_en = 1'b0;
    pn_rd_addr = r_hp;
    pn_wr_en = 1'b0;
    pn_wr_addr = r_tail;
    pn_wr_data = alloc_idx;
    item_va = r_fbva;
    item_h  = r_fbh;
    if (r_f_lt_l) begin
        item_va = pd_rd[57:0];
        item_h  = pd_rd[89:58];
    end
    if (busy_reg) begin
        case (op_reg)
            OP_DB: begin
                op_done = 1'b1;
                ram_wr_en = 1'b1;
                if (r_total >= MAX_DESC_W) begin
                    n_overflow = 1'b1;
                    ram_wr_en  = 1'b0;
                end else if (!r_fbv && pool_free) begin
                    // to the pool: append to the queue's list
                    n_alloc_fl    = (fl_cnt_reg != {(PW+1){1'b0}});
                    n_alloc_fresh = !n_alloc_fl;
                    pd_wr_en = 1'b1;
                    if (r_l != 11'd0) begin
                        pn_wr_en = 1'b1;   // next[tail] = the new entry
                    end else begin
                        n_head = alloc_idx;
                    end
                    if ({4'd0, r_f} == r_l) begin
                        n_hp = alloc_idx;
                    end
                    n_tail = alloc_idx;
                    n_l    = r_l + 11'd1;
                end else begin
                    n_chained = 1'b1;
                    if (!r_fbv) begin
                        n_fbv  = 1'b1;
                        n_fbva = op_data_reg[63:6];
                        n_fbh  = r_dbh;
                        n_pend = 11'd0;
                        n_sv   = 1'b0;
                    end else if (r_pend == 11'd0) begin
                        n_pend = 11'd1;
                        n_sva  = op_data_reg[63:6];
                        n_sh   = r_dbh;
                        n_sv   = 1'b1;
                    end else begin
                        n_pend = r_pend + 11'd1;
                    end
                end
            end
            OP_HANDLE: begin
                op_done = 1'b1;
                ram_wr_en = 1'b1;
                n_dbh = op_data_reg[31:0];
            end
            OP_REW: begin
                op_done = 1'b1;
                ram_wr_en = 1'b1;
                n_f  = 7'd0;
                n_hp = r_head;
            end
            OP_ADV: begin
                if (r_l != 11'd0) begin
                    // the oldest in-flight item is the pool's head
                    if (!ph2_reg) begin
                        pn_rd_en   = 1'b1;
                        pn_rd_addr = r_head;
                    end else begin
                        op_done   = 1'b1;
                        ram_wr_en = 1'b1;
                        n_head    = pn_rd;
                        n_l       = r_l - 11'd1;
                        n_f       = r_f - 7'd1;
                        n_free1   = 1'b1;
                        pn_wr_en   = 1'b1;   // next[head] = the free list
                        pn_wr_addr = r_head;
                        pn_wr_data = fl_head_reg;
                    end
                end else begin
                    // it is fb: the advance rule of version 1
                    op_done   = 1'b1;
                    ram_wr_en = 1'b1;
                    n_f       = r_f - 7'd1;
                    if (r_pend != 11'd0) begin
                        if (r_sv) begin
                            n_fbva = r_sva;
                            n_fbh  = r_sh;
                        end else begin
                            n_fbva = op_data_reg[63:6];
                            n_fbh  = op_handle_reg;
                        end
                        n_pend = r_pend - 11'd1;
                        n_sv   = 1'b0;
                    end else begin
                        n_fbv = 1'b0;
                    end
                end
            end
            OP_SCHED, OP_RXQ: begin
                if (!ph2_reg) begin
                    pd_rd_en   = 1'b1;
                    pd_rd_addr = r_hp;
                    pn_rd_en   = 1'b1;
                    pn_rd_addr = r_hp;
                end else begin
                    op_done   = 1'b1;
                    ram_wr_en = take_ok;
                    n_f       = r_f + 7'd1;
                    if (r_f_lt_l) begin
                        n_hp = pn_rd;
                    end
                end
            end
            OP_CTX: begin
                // second cycle: queue 0's word, third: queue 1's
                op_done  = ph2_reg;
                n_splice = ctx_splice;
                pn_wr_en   = ctx_splice;   // next[tail] = the free list
                pn_wr_addr = r_tail;
                pn_wr_data = fl_head_reg;
            end
            default: ;
        endcase
    end
    if (grant_db) begin
        // a doorbell's first cycle also reads the free list's link
        pn_rd_en   = 1'b1;
        pn_rd_addr = fl_head_reg;
    end
    ram_wr_data = {n_pend, n_sh, n_sva, n_sv, n_fbh, n_fbva, n_fbv, n_f, n_l,
                   n_hp, n_tail, n_head, n_dbh};
end

// the queue's flags after the write
wire n_ready = ((({4'd0, n_f} < n_l) || ({4'd0, n_f} == n_l && n_fbv)) && n_f < MAXIF_W);
wire n_held  = (n_f != 7'd0);
wire n_queued = (n_l != 11'd0) || n_fbv || (n_pend != 11'd0);

assign qs_queued = ({1'b0, qs_vi} < NUM_VI_W) ?
    {queued_reg[qix({qs_vi, 1'b1})], queued_reg[qix({qs_vi, 1'b0})]} : 2'b00;

always @* begin
    ram_rd_en   = 1'b0;
    ram_rd_addr = pick;
    if (grant_ctx) begin
        ram_rd_en   = ctx_reset_q;
        ram_rd_addr = {ctx_vi, 1'b0};
    end else if (grant_adv) begin
        ram_rd_en   = 1'b1;
        ram_rd_addr = adv_qa;
    end else if (grant_rxq) begin
        ram_rd_en   = 1'b1;
        ram_rd_addr = rxq_qa;
    end else if (grant_db) begin
        ram_rd_en   = 1'b1;
        ram_rd_addr = db_qa;
    end else if (grant_sched) begin
        ram_rd_en   = 1'b1;
        ram_rd_addr = pick;
    end else if (busy_reg && op_reg == OP_CTX && !ph2_reg) begin
        // the reset's second word
        ram_rd_en   = 1'b1;
        ram_rd_addr = {op_qa_reg[QW-1:1], 1'b1};
    end
end


// ---------------------------------------------------------------- registers
always @(posedge clk) begin
    if (rst) begin
        enable_reg     <= {NUM_VI{1'b0}};
        state_reg      <= {2*NUM_VI{1'b0}};
        err_reg        <= {NUM_VI{1'b0}};
        word_valid_reg <= {NQ{1'b0}};
        sready_reg     <= {NUM_VI{1'b0}};
        rready_reg     <= {NUM_VI{1'b0}};
        queued_reg     <= {NQ{1'b0}};
        held_s_reg     <= {NUM_VI{1'b0}};
        held_r_reg     <= {NUM_VI{1'b0}};
        lat_valid_reg  <= 1'b0;
        lat_qa_reg     <= {QW{1'b0}};
        lat_lo_reg     <= 26'd0;
        busy_reg       <= 1'b0;
        ph2_reg        <= 1'b0;
        op_reg         <= OP_DB;
        op_inrange_reg <= 1'b0;
        rxq_rsp_valid  <= 1'b0;
        rxq_rsp_found  <= 1'b0;
        rxq_rsp_va     <= 64'd0;
        rxq_rsp_handle <= 32'd0;
        rxq_rsp_state  <= 2'd0;
        op_qa_reg      <= {QW{1'b0}};
        op_data_reg    <= 64'd0;
        op_handle_reg  <= 32'd0;
        sched_turn_reg <= 1'b0;
        rr_ptr_reg     <= {QW{1'b0}};
        fresh_reg      <= {(PW+1){1'b0}};
        fl_head_reg    <= {PW{1'b0}};
        fl_cnt_reg     <= {(PW+1){1'b0}};
        work_valid     <= 1'b0;
        work_vi        <= {VI_WIDTH{1'b0}};
        work_q         <= 1'b0;
        work_va        <= 64'd0;
        work_handle    <= 32'd0;
        work_state     <= 2'd0;
        cnt_doorbell   <= 32'd0;
        cnt_db_dropped <= 32'd0;
        cnt_overflow   <= 32'd0;
        ovf_pulse      <= 1'b0;
        ovf_vi         <= {VI_WIDTH{1'b0}};
        cnt_bad_write  <= 32'd0;
        cnt_adv_stale  <= 32'd0;
        cnt_chained    <= 32'd0;
    end else begin
        ovf_pulse <= 1'b0;
        if (work_valid && work_ready) begin
            work_valid <= 1'b0;
        end
        if (rxq_rsp_valid && rxq_rsp_ready) begin
            rxq_rsp_valid <= 1'b0;
        end

        // later cycles of an operation
        if (busy_reg) begin
            if (op_done) begin
                busy_reg <= 1'b0;
                ph2_reg  <= 1'b0;
            end else begin
                ph2_reg  <= 1'b1;
            end
            if (ram_wr_en) begin
                word_valid_reg[qix(op_qa_reg)] <= 1'b1;
                queued_reg[qix(op_qa_reg)] <= n_queued;
                if (op_qa_reg[0]) begin
                    rready_reg[vix(op_qa_reg[QW-1:1])] <= n_ready;
                    held_r_reg[vix(op_qa_reg[QW-1:1])] <= n_held;
                end else begin
                    sready_reg[vix(op_qa_reg[QW-1:1])] <= n_ready;
                    held_s_reg[vix(op_qa_reg[QW-1:1])] <= n_held;
                end
            end
            if (n_overflow) begin
                cnt_overflow <= cnt_overflow + 32'd1;
                ovf_pulse <= 1'b1;
                ovf_vi <= op_qa_reg[QW-1:1];
            end
            if (n_chained) begin
                cnt_chained <= cnt_chained + 32'd1;
            end
            // pool allocation
            if (n_alloc_fresh) begin
                fresh_reg <= fresh_reg + 1'b1;
            end
            if (n_alloc_fl) begin
                fl_head_reg <= pn_rd;
                fl_cnt_reg  <= fl_cnt_reg - 1'b1;
            end
            if (n_free1) begin
                fl_head_reg <= r_head;
                fl_cnt_reg  <= fl_cnt_reg + 1'b1;
            end
            if (n_splice) begin
                fl_head_reg <= r_head;
                fl_cnt_reg  <= fl_cnt_reg + r_l[PW:0];
            end
            if (op_reg == OP_CTX) begin
                // the next cycle reads queue 1's word
                op_qa_reg <= {op_qa_reg[QW-1:1], 1'b1};
                if (op_done) begin
                    word_valid_reg[qix({op_qa_reg[QW-1:1], 1'b0})] <= 1'b0;
                    word_valid_reg[qix({op_qa_reg[QW-1:1], 1'b1})] <= 1'b0;
                    queued_reg[qix({op_qa_reg[QW-1:1], 1'b0})] <= 1'b0;
                    queued_reg[qix({op_qa_reg[QW-1:1], 1'b1})] <= 1'b0;
                    sready_reg[vix(op_qa_reg[QW-1:1])] <= 1'b0;
                    rready_reg[vix(op_qa_reg[QW-1:1])] <= 1'b0;
                    held_s_reg[vix(op_qa_reg[QW-1:1])] <= 1'b0;
                    held_r_reg[vix(op_qa_reg[QW-1:1])] <= 1'b0;
                end
            end
            if (op_reg == OP_SCHED && op_done && take_ok) begin
                work_valid    <= 1'b1;
                work_vi       <= op_qa_reg[QW-1:1];
                work_q        <= op_qa_reg[0];
                work_va       <= {item_va, 6'd0};
                work_handle   <= item_h;
                work_state    <= state_reg[2 * vix(op_qa_reg[QW-1:1]) +: 2];
            end
            if (op_reg == OP_RXQ && op_done) begin
                rxq_rsp_valid  <= 1'b1;
                rxq_rsp_found  <= take_ok;
                rxq_rsp_va     <= {item_va, 6'd0};
                rxq_rsp_handle <= item_h;
                rxq_rsp_state  <= state_reg[2 * vix(op_qa_reg[QW-1:1]) +: 2];
            end
        end

        // first cycle: the read
        if (grant_adv || grant_rxq || grant_db || grant_sched) begin
            busy_reg       <= 1'b1;
            sched_turn_reg <= !grant_sched;
        end
        if (grant_adv) begin
            op_reg        <= adv_keep ? OP_REW : OP_ADV;
            op_qa_reg     <= adv_qa;
            op_data_reg   <= adv_next;
            op_handle_reg <= adv_next_handle;
        end else if (grant_rxq) begin
            op_reg         <= OP_RXQ;
            op_qa_reg      <= rxq_qa;
            op_inrange_reg <= rxq_in_vi;
        end else if (grant_db) begin
            op_reg      <= db_is_h ? OP_HANDLE : OP_DB;
            op_qa_reg   <= db_qa;
            op_data_reg <= db_is_h ? {32'd0, db_wr_data} : {db_wr_data, lat_lo_reg, 6'd0};
        end else if (grant_sched) begin
            op_reg     <= OP_SCHED;
            op_qa_reg  <= pick;
            rr_ptr_reg <= (pick == NQ_W - 1'b1) ? {QW{1'b0}} : pick + 1'b1;
        end

        // a consume or rewind of a queue with nothing in flight: ignored
        if (grant_adv && !adv_live) begin
            cnt_adv_stale <= cnt_adv_stale + 32'd1;
            busy_reg      <= 1'b0;
        end

        // doorbell port
        if (db_fire) begin
            lat_valid_reg <= db_is_lo;
            if (db_is_lo) begin
                lat_qa_reg <= db_qa;
                lat_lo_reg <= db_wr_data[31:6];
            end
            if (!(db_is_lo || db_hi_ok || db_is_h) || !db_in_vi) begin
                cnt_bad_write <= cnt_bad_write + 32'd1;
            end else if (db_hi_ok || db_is_h) begin
                if (!db_vi_en) begin
                    cnt_db_dropped <= cnt_db_dropped + 32'd1;
                end else if (db_hi_ok) begin
                    cnt_doorbell <= cnt_doorbell + 32'd1;
                end
            end
        end

        // context
        if (grant_ctx && ctx_in_vi) begin
            enable_reg[vix(ctx_vi)] <= ctx_enable;
            state_reg[2 * vix(ctx_vi) +: 2] <= ctx_state;
            err_reg[vix(ctx_vi)] <= ctx_state == 2'd3;
            if (ctx_reset_q) begin
                // the queues' lists go back to the free list (two more
                // cycles), then the words read as zero
                busy_reg  <= 1'b1;
                op_reg    <= OP_CTX;
                op_qa_reg <= {ctx_vi, 1'b0};
                sready_reg[vix(ctx_vi)] <= 1'b0;
                rready_reg[vix(ctx_vi)] <= 1'b0;
                held_s_reg[vix(ctx_vi)] <= 1'b0;
                held_r_reg[vix(ctx_vi)] <= 1'b0;
            end
        end
    end
end

endmodule

`default_nettype wire
