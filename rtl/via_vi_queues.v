// via_vi_queues: doorbell and queue-state block of the vianic NIC (issue 9).
//
// Keeps, per VI and per queue (send 0, receive 1), the queue state of
// docs/vi.md ("Queues and doorbells"): cur_va (VA bits 63:6), cur_handle,
// cur_valid, pending, db_handle; plus succ_va/succ_handle/succ_valid, the
// successor of cur when its doorbell rang while cur was current (see the
// advance rule below). The wide fields live in one via_ram word per
// (VI, queue) (address {vi, q}); only cur_valid, in_flight, word_valid (2
// bits each per VI), enable and the VI state (3 bits per VI) are flip-flops.
// docs/vi.md, "Doorbell and queue-state block", is the reference.
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
// Operations (one at a time: every one that touches the RAM is a
// read-modify-write of two cycles, read then write, so no read ever sees a
// word written in the same cycle). Arbitration of an idle cycle: context
// first, then the scheduler's read and the other two alternate (advance
// before doorbell): the ports have ready, so a doorbell and an advance of
// the same queue in the same cycle are both taken, one after the other.
//   doorbell (high word): cur_valid 0: cur = (VA, db_handle), cur_valid 1;
//     else pending 0: pending 1 and succ = (VA, db_handle), succ_valid 1;
//     else pending < MAX_DESC-1: pending + 1; else dropped (cnt_overflow).
//   advance (the engine fetched cur): pending > 0: cur = succ if
//     succ_valid, else the descriptor's (Next, NextHandle); pending - 1,
//     succ_valid 0; else cur_valid 0. An advance of a queue with no work
//     handed out (in_flight 0) is ignored and counted (cnt_adv_stale).
//   advance with adv_keep 1 (the RX engine gives back a receive it did
//     not consume): clears in flight only; cur and pending stay.
//   schedule: round robin over the SEND queues (q 0) with cur_valid, not
//     in flight, VI enabled; reads the word and presents the work item
//     until work_ready (work_q is always 0); the queue is then in flight
//     until its advance.
//   receive take (rxq port, the RX engine, on demand): reads the receive
//     queue's word of rxq_vi; rxq_rsp_found = rxq_vi < NUM_VI, the VI
//     enabled, its receive queue's cur_valid and not in flight; found marks
//     the queue in flight (as a handout). The response (va, handle, the
//     VI's state) is held until rxq_rsp_ready; no take is accepted while a
//     response is held. Arbitration: as an advance's peer, after the
//     advance and before a doorbell.
//   context: sets a VI's enable and state; with ctx_reset_q also empties
//     both its queues (cur_valid, in_flight, the RAM words read as zero).
//
// Timing: db_wr_ready, adv_ready, rxq_ready, ctx_ready are combinational from the
// block's state and the valids (low words and bad writes are always taken
// at once); a doorbell takes effect two cycles after it is taken.

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
module via_vi_queues #(
    parameter NUM_VI   = 64,    // number of VIs (1 .. 1024)
    parameter MAX_DESC = 1024,  // MaxDescriptorsPerQueue: cur + pending (2 .. 1024)
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

    // advance from the engine (the descriptor at cur was fetched)
    input  wire                adv_valid,
    output wire                adv_ready,
    input  wire [VI_WIDTH-1:0] adv_vi,
    input  wire                adv_q,
    input  wire [63:0]         adv_next,
    input  wire [31:0]         adv_next_handle,
    input  wire                adv_keep,    // 1: clear in flight only (a receive given back)

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

    // counters (wrap)
    output reg  [31:0]         cnt_doorbell,
    output reg  [31:0]         cnt_db_dropped,
    output reg  [31:0]         cnt_overflow,
    output reg  [31:0]         cnt_bad_write,
    output reg  [31:0]         cnt_adv_stale,

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
    if (VI_WIDTH != ((NUM_VI > 1) ? $clog2(NUM_VI) : 1)) begin : g_bad_vi_width
        `VIA_PARAM_FAIL(("via_vi_queues: VI_WIDTH=%0d is derived, do not override", VI_WIDTH))
    end
endgenerate

localparam NQ = 2 * NUM_VI;
localparam QW = VI_WIDTH + 1;
localparam RAW = $clog2(NQ);    // RAM address bits (QW, or 1 for NUM_VI 1)
localparam [QW-1:0] NUM_VI_W = NUM_VI[QW-1:0];
localparam [QW-1:0] NQ_W = NQ[QW-1:0];
// RAM word: {succ_valid, succ_handle, succ_va, db_handle, pending, cur_handle, cur_va}
localparam W  = 1 + 32 + 58 + 32 + 11 + 32 + 58;

localparam OP_DB = 3'd0, OP_HANDLE = 3'd1, OP_ADV = 3'd2, OP_SCHED = 3'd3, OP_RXQ = 3'd4;

// ---------------------------------------------------------------- state
reg [NUM_VI-1:0] enable_reg;
reg [2*NUM_VI-1:0] state_reg;
reg [NQ-1:0]     cur_valid_reg;
reg [NQ-1:0]     in_flight_reg;
reg [NQ-1:0]     word_valid_reg;

reg              lat_valid_reg;
reg [QW-1:0]     lat_qa_reg;
reg [25:0]       lat_lo_reg;     // VA bits 31:6

reg              busy_reg;       // second cycle of a read-modify-write
reg [2:0]        op_reg;
reg              op_keep_reg;    // ADV: adv_keep
reg              op_inrange_reg; // RXQ: rxq_vi < NUM_VI
reg [QW-1:0]     op_qa_reg;
reg [63:0]       op_data_reg;    // DB: VA; HANDLE: handle in 31:0; ADV: Next
reg [31:0]       op_handle_reg;  // ADV: NextHandle
reg              sched_turn_reg;
reg [QW-1:0]     rr_ptr_reg;

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
wire          adv_live  = adv_in_vi && in_flight_reg[qix(adv_qa)];

wire [QW-1:0] rxq_qa    = {rxq_vi, 1'b1};
wire          rxq_in_vi = ({1'b0, rxq_vi} < NUM_VI_W);
wire          rxq_want  = rxq_valid && !rxq_rsp_valid;

// scheduler: eligible queues and the round-robin pick
reg  [NQ-1:0] elig;
reg  [QW-1:0] pick;
reg           pick_found;
reg           pick_hi;
integer       i;
always @* begin
    for (i = 0; i < NQ; i = i + 1) begin
        // the scheduler hands out send queues (q 0) only; receive queues
        // are taken on demand through the rxq port
        elig[i] = (i % 2 == 0) && cur_valid_reg[i] && !in_flight_reg[i] && enable_reg[i / 2];
    end
    pick = {QW{1'b0}};
    pick_found = 1'b0;
    pick_hi = 1'b0;
    for (i = NQ - 1; i >= 0; i = i - 1) begin
        if (elig[i]) begin
            pick_found = 1'b1;
            if (i >= rr_ptr_reg) begin
                pick = i[QW-1:0];
                pick_hi = 1'b1;
            end else if (!pick_hi) begin
                pick = i[QW-1:0];
            end
        end
    end
end

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

// ---------------------------------------------------------------- RMW
wire [W-1:0] rd_word = word_valid_reg[qix(op_qa_reg)] ? ram_rd : {W{1'b0}};
wire [57:0]  rd_cur_va      = rd_word[57:0];
wire [31:0]  rd_cur_handle  = rd_word[89:58];
wire [10:0]  rd_pending     = rd_word[100:90];
wire [31:0]  rd_db_handle   = rd_word[132:101];
wire [57:0]  rd_succ_va     = rd_word[190:133];
wire [31:0]  rd_succ_handle = rd_word[222:191];
wire         rd_succ_valid  = rd_word[223];
wire         op_cur_valid   = cur_valid_reg[qix(op_qa_reg)];
wire         rxq_found      = op_inrange_reg && enable_reg[vix(op_qa_reg[QW-1:1])] &&
                              op_cur_valid && !in_flight_reg[qix(op_qa_reg)];

localparam [10:0] PEND_MAX = MAX_DESC[10:0] - 11'd1;

reg [57:0] n_cur_va;
reg [31:0] n_cur_handle;
reg [10:0] n_pending;
reg [31:0] n_db_handle;
reg [57:0] n_succ_va;
reg [31:0] n_succ_handle;
reg        n_succ_valid;
reg        n_cur_valid;
reg        n_overflow;
always @* begin
    n_cur_va      = rd_cur_va;
    n_cur_handle  = rd_cur_handle;
    n_pending     = rd_pending;
    n_db_handle   = rd_db_handle;
    n_succ_va     = rd_succ_va;
    n_succ_handle = rd_succ_handle;
    n_succ_valid  = rd_succ_valid;
    n_cur_valid   = op_cur_valid;
    n_overflow    = 1'b0;
    ram_wr_en     = 1'b0;
    if (busy_reg) begin
        case (op_reg)
            OP_DB: begin
                ram_wr_en = 1'b1;
                if (!op_cur_valid) begin
                    n_cur_va     = op_data_reg[63:6];
                    n_cur_handle = rd_db_handle;
                    n_cur_valid  = 1'b1;
                    n_pending    = 11'd0;
                    n_succ_valid = 1'b0;
                end else if (rd_pending == 11'd0) begin
                    n_pending     = 11'd1;
                    n_succ_va     = op_data_reg[63:6];
                    n_succ_handle = rd_db_handle;
                    n_succ_valid  = 1'b1;
                end else if (rd_pending < PEND_MAX) begin
                    n_pending = rd_pending + 11'd1;
                end else begin
                    n_overflow = 1'b1;
                    ram_wr_en  = 1'b0;
                end
            end
            OP_HANDLE: begin
                ram_wr_en   = 1'b1;
                n_db_handle = op_data_reg[31:0];
            end
            OP_ADV: begin
                ram_wr_en = !op_keep_reg;
                if (op_keep_reg) begin
                    // given back: cur and pending stay
                end else if (rd_pending != 11'd0) begin
                    if (rd_succ_valid) begin
                        n_cur_va     = rd_succ_va;
                        n_cur_handle = rd_succ_handle;
                    end else begin
                        n_cur_va     = op_data_reg[63:6];
                        n_cur_handle = op_handle_reg;
                    end
                    n_pending    = rd_pending - 11'd1;
                    n_succ_valid = 1'b0;
                end else begin
                    n_cur_valid = 1'b0;
                end
            end
            default: ; // OP_SCHED, OP_RXQ: no write
        endcase
    end
    ram_wr_data = {n_succ_valid, n_succ_handle, n_succ_va, n_db_handle,
                   n_pending, n_cur_handle, n_cur_va};
end

always @* begin
    ram_rd_en   = 1'b0;
    ram_rd_addr = pick;
    if (grant_adv) begin
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
    end
end

// ---------------------------------------------------------------- registers
always @(posedge clk) begin
    if (rst) begin
        enable_reg     <= {NUM_VI{1'b0}};
        state_reg      <= {2*NUM_VI{1'b0}};
        cur_valid_reg  <= {NQ{1'b0}};
        in_flight_reg  <= {NQ{1'b0}};
        word_valid_reg <= {NQ{1'b0}};
        lat_valid_reg  <= 1'b0;
        lat_qa_reg     <= {QW{1'b0}};
        lat_lo_reg     <= 26'd0;
        busy_reg       <= 1'b0;
        op_reg         <= OP_DB;
        op_keep_reg    <= 1'b0;
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
        work_valid     <= 1'b0;
        work_vi        <= {VI_WIDTH{1'b0}};
        work_q         <= 1'b0;
        work_va        <= 64'd0;
        work_handle    <= 32'd0;
        work_state     <= 2'd0;
        cnt_doorbell   <= 32'd0;
        cnt_db_dropped <= 32'd0;
        cnt_overflow   <= 32'd0;
        cnt_bad_write  <= 32'd0;
        cnt_adv_stale  <= 32'd0;
    end else begin
        if (work_valid && work_ready) begin
            work_valid <= 1'b0;
        end
        if (rxq_rsp_valid && rxq_rsp_ready) begin
            rxq_rsp_valid <= 1'b0;
        end

        // second cycle of an operation: the write
        if (busy_reg) begin
            busy_reg <= 1'b0;
            if (ram_wr_en) begin
                word_valid_reg[qix(op_qa_reg)] <= 1'b1;
            end
            cur_valid_reg[qix(op_qa_reg)] <= n_cur_valid;
            if (n_overflow) begin
                cnt_overflow <= cnt_overflow + 32'd1;
            end
            if (op_reg == OP_ADV) begin
                in_flight_reg[qix(op_qa_reg)] <= 1'b0;
            end
            if (op_reg == OP_SCHED) begin
                work_valid    <= 1'b1;
                work_vi       <= op_qa_reg[QW-1:1];
                work_q        <= op_qa_reg[0];
                work_va       <= {rd_cur_va, 6'd0};
                work_handle   <= rd_cur_handle;
                work_state    <= state_reg[2 * vix(op_qa_reg[QW-1:1]) +: 2];
                in_flight_reg[qix(op_qa_reg)] <= 1'b1;
            end
            if (op_reg == OP_RXQ) begin
                // found: the same rule as a handout (enabled, cur_valid,
                // not in flight); then the queue is in flight
                rxq_rsp_valid  <= 1'b1;
                rxq_rsp_found  <= rxq_found;
                rxq_rsp_va     <= {rd_cur_va, 6'd0};
                rxq_rsp_handle <= rd_cur_handle;
                rxq_rsp_state  <= state_reg[2 * vix(op_qa_reg[QW-1:1]) +: 2];
                if (rxq_found) begin
                    in_flight_reg[qix(op_qa_reg)] <= 1'b1;
                end
            end
        end

        // first cycle: the read
        if (grant_adv || grant_rxq || grant_db || grant_sched) begin
            busy_reg       <= 1'b1;
            sched_turn_reg <= !grant_sched;
        end
        if (grant_adv) begin
            op_reg        <= OP_ADV;
            op_qa_reg     <= adv_qa;
            op_data_reg   <= adv_next;
            op_handle_reg <= adv_next_handle;
            op_keep_reg   <= adv_keep;
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

        // an advance of a queue with nothing in flight: ignored
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
        if (grant_ctx && ({1'b0, ctx_vi} < NUM_VI_W)) begin
            enable_reg[vix(ctx_vi)] <= ctx_enable;
            state_reg[2 * vix(ctx_vi) +: 2] <= ctx_state;
            if (ctx_reset_q) begin
                cur_valid_reg[qix({ctx_vi, 1'b0})]  <= 1'b0;
                cur_valid_reg[qix({ctx_vi, 1'b1})]  <= 1'b0;
                in_flight_reg[qix({ctx_vi, 1'b0})]  <= 1'b0;
                in_flight_reg[qix({ctx_vi, 1'b1})]  <= 1'b0;
                word_valid_reg[qix({ctx_vi, 1'b0})] <= 1'b0;
                word_valid_reg[qix({ctx_vi, 1'b1})] <= 1'b0;
            end
        end
    end
end

endmodule

`default_nettype wire
