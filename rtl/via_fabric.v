// via_fabric: the cluster's switch, PORTS nodes joined by credit-based links
// (docs/fabric.md, "The switch and the links").
//
// Every port p has a link to node p's via_link_port. The link carries
// symbols only, each delayed by the link outside this module (>= 1 cycle):
//   in_valid[p], in_data[64p+:64], in_keep[8p+:8], in_last[p]
//             beats from node p, always accepted into input buffer p
//             (IN_DEPTH beats): the node sends only with a credit;
//   in_credit[p]
//             registered pulse to node p: a slot of input buffer p was freed
//             (the node's via_link_port starts with CREDITS = IN_DEPTH);
//   out_valid[p], out_data, out_keep, out_last
//             registered beats to node p, sent only while the switch holds a
//             credit for port p (it starts with CREDITS = the node's RX_DEPTH);
//   out_credit[p]
//             pulse from node p: one slot of its receive buffer was freed.
// No output depends combinationally on an input of the links.
//
// Frames: the first beat holds dst_node (byte 0), src_node (1), dst_vi (2..3),
// src_vi (4..5), kind (6), flags (7); the last beat has tlast. The rest is
// opaque.
//
// Path of a frame through the switch:
//   1. input buffer p (via_fifo). When a frame's first beat is at its head,
//      the classifier (one, shared by all inputs, round-robin, one frame per
//      cycle) reads its header: dst_node >= PORTS (or >= the nports input) -> the frame is dropped
//      whole (counted in DROPPED of port p, no rule applies); otherwise the
//      fault rules are evaluated (below) and the decision is kept with the
//      input. This costs one cycle per frame at an input.
//   2. output arbitration: every output queue has an arbiter that grants
//      waiting inputs round-robin, one frame at a time (the grant holds
//      until the frame's last beat, so a frame's beats stay together in the
//      queue). The grant is registered (one cycle between frames).
//   3. transfer: the granted frame moves beat by beat from its input buffer
//      into the output queue as room appears (OQ_DEPTH beats per output), so
//      a frame longer than the queue still passes. Every beat that leaves an
//      input buffer returns a credit to its node. An input whose frame waits
//      for a busy output holds its buffer: head-of-line blocking, and the
//      node is back-pressured through its credits. No frame is lost unless a
//      rule drops it; frames from one input to one output stay in order
//      (unless a REORDER rule acts).
//   4. output: the queue's head goes out on the link, one beat per cycle
//      while the switch holds a credit for the port and the port's
//      bandwidth limit (token bucket, BW_NUM beats per BW_DEN cycles, as in
//      via_link_port) allows.
//
// Fault rules (NRULES, configured at run time): each has an enable, an
// action, match fields each with an enable (input port, output port =
// dst_node, dst_vi, kind) and a selection. The first enabled rule whose
// enabled fields all match (lowest index) is the frame's rule: its MATCHED
// counter counts the frame; the selection then decides whether it acts
// (ACTED counts those):
//   EVERY_N      on every Nth frame the rule matched (N = SELVAL, 0 is 1);
//   PROBABILITY  when a 16-bit pseudo-random number < P (P = SELVAL). Each
//                rule has its own generator (xorshift32, the number is its
//                upper 16 bits), advanced once per frame the rule matched,
//                loaded from SEED (mixed with the rule's index) when SEED is
//                written: the same seed and traffic give the same choices.
// Actions:
//   DROP       the frame is discarded from its input buffer (credits return);
//   CORRUPT    MASK (64 bits) is XORed into beat BEAT of the frame (0 = the
//              first beat; past the end: the last beat);
//   DUPLICATE  the frame leaves its output queue twice, back to back (it
//              must fit in the output queue: at most OQ_DEPTH beats);
//   REORDER    the frame waits in its output queue while the next frame of
//              that output goes first, then follows it (both must fit in
//              the queue together). If no next frame arrives within DELAY
//              cycles the held frame leaves alone (DELAY = 0: it waits for
//              one without limit). The overtaking frame is sent as it is
//              (an action of its own is ignored);
//   DELAY      once the frame is at the head of its output queue the port
//              waits DELAY cycles before sending it: the link is stalled,
//              frames behind it wait too.
//
// Register port: cfg_addr is a word index (32-bit registers); writes take
// effect at the clock edge with cfg_we; cfg_rdata is combinational from
// cfg_addr (the register's value in this cycle). Unlisted words read 0.
//
//   addr          name         access  bits
//   0x00          INFO         ro      [7:0] PORTS, [15:8] NRULES, [31:16] 0xFAB0
//   0x01          CTRL         wo      [0] 1: clear every counter (and the rules' EVERY_N counts)
//   0x02          SEED         rw      loads every rule's generator when written
//   0x03          STATUS       ro      [0] idle
//   0x10+16r+0    RULE_CTRL    rw      [0] enable, [3:1] action (0 DROP, 1 CORRUPT,
//                                      2 DUPLICATE, 3 REORDER, 4 DELAY; 5..7: none, the
//                                      rule matches and counts but changes nothing),
//                                      [4] selection (0 EVERY_N, 1 PROBABILITY),
//                                      [8] match input port, [9] match output port,
//                                      [10] match dst_vi, [11] match kind;
//                                      a write restarts the rule's EVERY_N count
//   0x10+16r+1    RULE_MATCH   rw      [7:0] input port, [15:8] output port (dst_node), [23:16] kind
//   0x10+16r+2    RULE_VI      rw      [15:0] dst_vi
//   0x10+16r+3    RULE_SELVAL  rw      [15:0] N (EVERY_N) or P (PROBABILITY)
//   0x10+16r+4    RULE_MASK_LO rw      CORRUPT mask bits 31..0
//   0x10+16r+5    RULE_MASK_HI rw      CORRUPT mask bits 63..32
//   0x10+16r+6    RULE_BEAT    rw      [15:0] CORRUPT beat
//   0x10+16r+7    RULE_DELAY   rw      [15:0] DELAY cycles; REORDER's wait limit
//   0x10+16r+8    RULE_MATCHED ro      frames the rule matched
//   0x10+16r+9    RULE_ACTED   ro      frames it acted on
//   0x80+4p+0     FRAMES_IN    ro      frames classified at input p (dropped ones included)
//   0x80+4p+1     FRAMES_OUT   ro      frames sent on output p (a duplicate counts twice)
//   0x80+4p+2     DROPPED      ro      frames from input p dropped for dst_node >= PORTS or nports
// (r < NRULES <= 7, p < PORTS <= 16; counters are 32 bits and wrap.)
//
// idle: no beat in any buffer or queue, no frame half moved, no beat or
// credit pulse in the output registers, no delay running. Credits still
// out on the links do not count (they come back only with traffic).

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"

module via_fabric #(
    parameter PORTS    = 4,    // nodes (2 .. 16)
    parameter CREDITS  = 64,   // initial credits per output = node's RX_DEPTH (1 .. 65535)
    parameter IN_DEPTH = 64,   // input buffer per port in beats (power of two, 2 .. 65536)
    parameter OQ_DEPTH = 512,  // output queue per port in beats (power of two, 2 .. 65536)
    parameter BW_NUM   = 1,    // per output: at most BW_NUM beats ... (1 .. BW_DEN)
    parameter BW_DEN   = 1,    // ... per BW_DEN cycles (1 .. 65535)
    parameter NRULES   = 4,    // fault rules (1 .. 7)
    // One message at a time per output: once an output takes a frame with
    // FIRST and not LAST (header byte 7, bits 0 and 1), it takes only that
    // input's next frames until one with LAST, as a wormhole-routed network
    // keeps a path for a packet, so that a node reassembles one message at
    // a time. It lets go early when that input's next frame is for another
    // output or starts a new message (FIRST), when a rule drops it, or after
    // HOLD_WAIT cycles without one (the sender stopped). 0: per frame.
    parameter MSG_HOLD  = 1,
    parameter HOLD_WAIT = 4096  // cycles (1 .. 65535)
) (
    input  wire                  clk,
    input  wire                  rst,

    // links from the nodes
    input  wire [PORTS-1:0]      in_valid,
    input  wire [64*PORTS-1:0]   in_data,
    input  wire [8*PORTS-1:0]    in_keep,
    input  wire [PORTS-1:0]      in_last,
    output wire [PORTS-1:0]      in_credit,

    // links to the nodes
    output wire [PORTS-1:0]      out_valid,
    output wire [64*PORTS-1:0]   out_data,
    output wire [8*PORTS-1:0]    out_keep,
    output wire [PORTS-1:0]      out_last,
    input  wire [PORTS-1:0]      out_credit,

    // ports with a node (a static input: 2..PORTS; a frame for a port at
    // or above it is dropped as one for a port that does not exist)
    input  wire [4:0]            nports,

    // register port
    input  wire                  cfg_we,
    input  wire [7:0]            cfg_addr,
    input  wire [31:0]           cfg_wdata,
    output reg  [31:0]           cfg_rdata,

    output wire                  idle
);

generate
    if (PORTS < 2 || PORTS > 16) begin : g_bad_ports
        `VIA_PARAM_FAIL(("via_fabric: PORTS=%0d, must be 2..16", PORTS))
    end
    if (CREDITS < 1 || CREDITS > 65535) begin : g_bad_credits
        `VIA_PARAM_FAIL(("via_fabric: CREDITS=%0d, must be 1..65535", CREDITS))
    end
    if (IN_DEPTH < 2 || IN_DEPTH > 65536 || (IN_DEPTH & (IN_DEPTH - 1)) != 0) begin : g_bad_in_depth
        `VIA_PARAM_FAIL(("via_fabric: IN_DEPTH=%0d, must be a power of two 2..65536", IN_DEPTH))
    end
    if (OQ_DEPTH < 2 || OQ_DEPTH > 65536 || (OQ_DEPTH & (OQ_DEPTH - 1)) != 0) begin : g_bad_oq_depth
        `VIA_PARAM_FAIL(("via_fabric: OQ_DEPTH=%0d, must be a power of two 2..65536", OQ_DEPTH))
    end
    if (BW_DEN < 1 || BW_DEN > 65535) begin : g_bad_bw_den
        `VIA_PARAM_FAIL(("via_fabric: BW_DEN=%0d, must be 1..65535", BW_DEN))
    end
    if (BW_NUM < 1 || BW_NUM > BW_DEN) begin : g_bad_bw_num
        `VIA_PARAM_FAIL(("via_fabric: BW_NUM=%0d, must be 1..BW_DEN", BW_NUM))
    end
    if (MSG_HOLD != 0 && MSG_HOLD != 1) begin : g_bad_msg_hold
        `VIA_PARAM_FAIL(("via_fabric: MSG_HOLD=%0d, must be 0 or 1", MSG_HOLD))
    end
    if (HOLD_WAIT < 1 || HOLD_WAIT > 65535) begin : g_bad_hold_wait
        `VIA_PARAM_FAIL(("via_fabric: HOLD_WAIT=%0d, must be 1..65535", HOLD_WAIT))
    end
    if (NRULES < 1 || NRULES > 7) begin : g_bad_nrules
        `VIA_PARAM_FAIL(("via_fabric: NRULES=%0d, must be 1..7", NRULES))
    end
endgenerate

// ------------------------------------------------------------------ constants
localparam PW  = $clog2(PORTS) > 0 ? $clog2(PORTS) : 1;    // port index width
localparam RW  = $clog2(NRULES) > 0 ? $clog2(NRULES) : 1;  // rule index width
localparam BW  = 73;                                 // a buffered beat: {last, keep, data}
localparam FW  = 3 + RW;                             // a frame's flags: {rule, delay, reorder, dup}
localparam QW  = BW + FW;                            // an output queue entry
localparam OPW = (OQ_DEPTH > 2) ? $clog2(OQ_DEPTH) : 1;  // output queue index

localparam [31:0] PORTS32    = PORTS;
localparam [15:0] HOLD_WAIT16 = HOLD_WAIT;
localparam [31:0] NRULES32   = NRULES;
localparam [31:0] OQ_DEPTH32 = OQ_DEPTH;
localparam [OPW:0]  OQ_FULL   = OQ_DEPTH32[OPW:0];

// actions
localparam [2:0] A_DROP    = 3'd0;
localparam [2:0] A_CORRUPT = 3'd1;
localparam [2:0] A_DUP     = 3'd2;
localparam [2:0] A_REORDER = 3'd3;
localparam [2:0] A_DELAY   = 3'd4;
localparam [2:0] A_NONE    = 3'd7;

// input states
localparam [1:0] S_HDR   = 2'd0;  // waiting for a first beat to classify
localparam [1:0] S_READY = 2'd1;  // classified, waiting for the output's grant
localparam [1:0] S_XFER  = 2'd2;  // granted: moving beats into the output queue
localparam [1:0] S_DROP  = 2'd3;  // discarding the frame

// output reader modes
localparam [2:0] M_HEAD  = 3'd0;  // at a frame's first beat
localparam [2:0] M_SEND  = 3'd1;  // sending, freeing each beat
localparam [2:0] M_DELAY = 3'd2;  // DELAY: waiting before the frame
localparam [2:0] M_DUP1  = 3'd3;  // DUPLICATE: first copy, beats kept
localparam [2:0] M_SKIP  = 3'd4;  // REORDER: stepping over the held frame
localparam [2:0] M_WAIT  = 3'd5;  // REORDER: waiting for the next frame
localparam [2:0] M_NEXT  = 3'd6;  // REORDER: sending the next frame, beats kept
localparam [2:0] M_HELD  = 3'd7;  // REORDER: sending the held frame, then freeing both

integer k;

// -------------------------------------------------------- register port state
reg [NRULES-1:0]    r_en_reg;
reg [3*NRULES-1:0]  r_act_reg;
reg [NRULES-1:0]    r_sel_reg;
reg [4*NRULES-1:0]  r_men_reg;      // match enables {kind, vi, out, in}
reg [24*NRULES-1:0] r_match_reg;    // {kind, out, in}
reg [16*NRULES-1:0] r_vi_reg;
reg [16*NRULES-1:0] r_selval_reg;
reg [64*NRULES-1:0] r_mask_reg;
reg [16*NRULES-1:0] r_beat_reg;
reg [16*NRULES-1:0] r_delay_reg;
reg [32*NRULES-1:0] r_matched_reg;
reg [32*NRULES-1:0] r_acted_reg;
reg [16*NRULES-1:0] r_count_reg;    // EVERY_N: matched frames since the last act
reg [32*NRULES-1:0] r_rng_reg;      // PROBABILITY generators
reg [31:0]          seed_reg;

reg [32*PORTS-1:0]  cnt_in_reg;
reg [32*PORTS-1:0]  cnt_drop_reg;
wire [32*PORTS-1:0] cnt_out;

wire cfg_clear = cfg_we && cfg_addr == 8'h01 && cfg_wdata[0];

// ------------------------------------------------------- per-input signals
wire [PORTS-1:0]      ih_valid;      // input buffer's head
wire [BW*PORTS-1:0]   ih_beat;
wire [BW*PORTS-1:0]   ic_beat;       // the head with CORRUPT applied
wire [FW*PORTS-1:0]   i_flags;       // the frame's flags for the output queue
wire [2*PORTS-1:0]    i_state;
wire [PW*PORTS-1:0]   i_dst;
wire [PORTS-1:0]      i_first;       // the classified frame's FIRST flag
wire [PORTS-1:0]      i_lastm;       // and its LAST flag
wire [PORTS-1:0]      i_pop;

wire [PORTS*PORTS-1:0] o_grant;      // [o*PORTS+i]: output o grants input i
wire [PORTS*PORTS-1:0] o_pop;        // [o*PORTS+i]: output o takes a beat of input i
wire [PORTS-1:0]       o_idle;

// classifier result (for the input it picks)
reg [PORTS-1:0] cls_pick;            // one-hot, none when nothing to classify
reg [PW-1:0]    cls_idx;
reg             cls_found;
reg             cls_bad;
reg             cls_hit;             // a rule matched
reg [RW-1:0]    cls_rule;
reg             cls_act;             // and acts
reg [2:0]       cls_action;          // A_NONE when nothing acts
reg [PW-1:0]    cls_rr_reg;
reg [31:0]      cls_rng_next;
reg [15:0]      cls_count_next;

// ------------------------------------------------------------------ inputs
genvar gi, go;
generate
for (gi = 0; gi < PORTS; gi = gi + 1) begin : g_in
    /* verilator lint_off UNUSEDSIGNAL */
    // credits guarantee room; the level is not needed
    wire       buf_ready_unused;
    wire [$clog2(IN_DEPTH + 1)-1:0] buf_level_unused;
    /* verilator lint_on UNUSEDSIGNAL */

    via_fifo #(
        .WIDTH(BW),
        .DEPTH(IN_DEPTH)
    ) u_buf (
        .clk(clk),
        .rst(rst),
        .s_data({in_last[gi], in_keep[8*gi +: 8], in_data[64*gi +: 64]}),
        .s_valid(in_valid[gi]),
        .s_ready(buf_ready_unused),
        .m_data(ih_beat[BW*gi +: BW]),
        .m_valid(ih_valid[gi]),
        .m_ready(i_pop[gi]),
        .level(buf_level_unused)
    );

    reg [1:0]    st_reg, st_next;
    reg [2:0]    act_reg, act_next;
    reg [RW-1:0] rule_reg, rule_next;
    reg [PW-1:0] dst_reg, dst_next;
    reg [1:0]    fl_reg, fl_next;    // {LAST, FIRST} of the frame
    reg [15:0]   beat_reg, beat_next;
    reg          credit_reg;
    reg          granted, taken, pop;
    reg          corrupt;
    reg [15:0]   cbeat;

    wire head_last = ih_beat[BW*gi + 72];

    always @* begin
        granted = 1'b0;
        taken = 1'b0;
        for (k = 0; k < PORTS; k = k + 1) begin
            granted = granted | o_grant[k*PORTS + gi];
            taken = taken | o_pop[k*PORTS + gi];
        end
        pop = taken || (st_reg == S_DROP && ih_valid[gi]);

        st_next = st_reg;
        act_next = act_reg;
        rule_next = rule_reg;
        dst_next = dst_reg;
        fl_next = fl_reg;
        beat_next = beat_reg;
        case (st_reg)
            S_HDR: begin
                if (cls_pick[gi]) begin
                    st_next = (cls_bad || cls_action == A_DROP) ? S_DROP : S_READY;
                    act_next = cls_action;
                    rule_next = cls_rule;
                    dst_next = ih_beat[BW*gi +: PW];
                    fl_next = ih_beat[BW*gi + 56 +: 2];
                end
            end
            S_READY: begin
                if (granted) begin
                    st_next = S_XFER;
                end
            end
            default: begin  // S_XFER, S_DROP
                if (pop && head_last) begin
                    st_next = S_HDR;
                end
            end
        endcase
        if (pop) begin
            if (head_last) begin
                beat_next = 16'd0;
            end else if (beat_reg != 16'hffff) begin
                beat_next = beat_reg + 16'd1;
            end
        end

        // CORRUPT: beat BEAT, or the last one when the frame is shorter
        cbeat = r_beat_reg[16*rule_reg +: 16];
        corrupt = act_reg == A_CORRUPT && (beat_reg == cbeat || (head_last && beat_reg < cbeat));
    end

    always @(posedge clk) begin
        if (rst) begin
            st_reg <= S_HDR;
            act_reg <= A_NONE;
            rule_reg <= {RW{1'b0}};
            dst_reg <= {PW{1'b0}};
            fl_reg <= 2'b00;
            beat_reg <= 16'd0;
            credit_reg <= 1'b0;
        end else begin
            st_reg <= st_next;
            act_reg <= act_next;
            rule_reg <= rule_next;
            dst_reg <= dst_next;
            fl_reg <= fl_next;
            beat_reg <= beat_next;
            credit_reg <= pop;
        end
    end

    assign i_pop[gi] = pop;
    assign in_credit[gi] = credit_reg;
    assign i_state[2*gi +: 2] = st_reg;
    assign i_dst[PW*gi +: PW] = dst_reg;
    assign i_first[gi] = fl_reg[0];
    assign i_lastm[gi] = fl_reg[1];
    assign ic_beat[BW*gi +: BW] = {ih_beat[BW*gi + 64 +: 9],
                                   ih_beat[BW*gi +: 64] ^ (corrupt ? r_mask_reg[64*rule_reg +: 64] : 64'd0)};
    assign i_flags[FW*gi +: FW] = {rule_reg, act_reg == A_DELAY, act_reg == A_REORDER, act_reg == A_DUP};
end
endgenerate

// -------------------------------------------------------------- classifier
// One frame per cycle: round-robin among the inputs with an unclassified
// first beat at their head.
function [31:0] xorshift32;
    input [31:0] x;
    reg [31:0] y;
    begin
        y = x ^ (x << 13);
        y = y ^ (y >> 17);
        xorshift32 = y ^ (y << 5);
    end
endfunction

reg [7:0]  cls_dst;
reg [15:0] cls_vi;
reg [7:0]  cls_kind;
reg [7:0]  cls_in;
reg [PW-1:0] cls_cand;
reg [PW:0] cls_sum;
reg cls_m;

always @* begin
    cls_found = 1'b0;
    cls_idx = cls_rr_reg;
    for (k = 1; k <= PORTS; k = k + 1) begin
        cls_sum = {1'b0, cls_rr_reg} + k[PW:0];
        if (cls_sum >= PORTS32[PW:0]) begin
            cls_sum = cls_sum - PORTS32[PW:0];
        end
        cls_cand = cls_sum[PW-1:0];
        if (!cls_found && i_state[2*cls_cand +: 2] == S_HDR && ih_valid[cls_cand]) begin
            cls_found = 1'b1;
            cls_idx = cls_cand;
        end
    end
    cls_pick = {PORTS{1'b0}};
    if (cls_found) begin
        cls_pick[cls_idx] = 1'b1;
    end

    cls_dst = ih_beat[BW*cls_idx +: 8];
    cls_vi = ih_beat[BW*cls_idx + 16 +: 16];
    cls_kind = ih_beat[BW*cls_idx + 48 +: 8];
    cls_in = 8'd0;
    cls_in[PW-1:0] = cls_idx;
    cls_bad = {24'd0, cls_dst} >= PORTS32 || {24'd0, cls_dst} >= {27'd0, nports};

    // the first enabled rule that matches
    cls_hit = 1'b0;
    cls_rule = {RW{1'b0}};
    for (k = NRULES - 1; k >= 0; k = k - 1) begin
        cls_m = r_en_reg[k]
            && (!r_men_reg[4*k + 0] || r_match_reg[24*k +: 8] == cls_in)
            && (!r_men_reg[4*k + 1] || r_match_reg[24*k + 8 +: 8] == cls_dst)
            && (!r_men_reg[4*k + 2] || r_vi_reg[16*k +: 16] == cls_vi)
            && (!r_men_reg[4*k + 3] || r_match_reg[24*k + 16 +: 8] == cls_kind);
        if (cls_m) begin
            cls_hit = 1'b1;
            cls_rule = k[RW-1:0];
        end
    end
    if (!cls_found || cls_bad) begin
        cls_hit = 1'b0;
    end

    // its selection
    cls_rng_next = xorshift32(r_rng_reg[32*cls_rule +: 32]);
    cls_count_next = r_count_reg[16*cls_rule +: 16] + 16'd1;
    if (r_sel_reg[cls_rule]) begin
        cls_act = cls_rng_next[31:16] < r_selval_reg[16*cls_rule +: 16];
    end else begin
        cls_act = cls_count_next >= r_selval_reg[16*cls_rule +: 16];
        if (cls_act) begin
            cls_count_next = 16'd0;
        end
    end
    cls_action = A_NONE;
    if (cls_hit && cls_act && r_act_reg[3*cls_rule +: 3] <= A_DELAY) begin
        cls_action = r_act_reg[3*cls_rule +: 3];
    end
end

// ------------------------------------------------ registers and counters
always @(posedge clk) begin
    if (rst) begin
        cls_rr_reg <= {PW{1'b0}};
        r_en_reg <= {NRULES{1'b0}};
        r_act_reg <= {3*NRULES{1'b0}};
        r_sel_reg <= {NRULES{1'b0}};
        r_men_reg <= {4*NRULES{1'b0}};
        r_match_reg <= {24*NRULES{1'b0}};
        r_vi_reg <= {16*NRULES{1'b0}};
        r_selval_reg <= {16*NRULES{1'b0}};
        r_mask_reg <= {64*NRULES{1'b0}};
        r_beat_reg <= {16*NRULES{1'b0}};
        r_delay_reg <= {16*NRULES{1'b0}};
        r_matched_reg <= {32*NRULES{1'b0}};
        r_acted_reg <= {32*NRULES{1'b0}};
        r_count_reg <= {16*NRULES{1'b0}};
        r_rng_reg <= {NRULES{32'h1}};
        seed_reg <= 32'd1;
        cnt_in_reg <= {32*PORTS{1'b0}};
        cnt_drop_reg <= {32*PORTS{1'b0}};
    end else begin
        if (cls_found) begin
            cls_rr_reg <= cls_idx;
            cnt_in_reg[32*cls_idx +: 32] <= cnt_in_reg[32*cls_idx +: 32] + 32'd1;
            if (cls_bad) begin
                cnt_drop_reg[32*cls_idx +: 32] <= cnt_drop_reg[32*cls_idx +: 32] + 32'd1;
            end
        end
        if (cls_hit) begin
            r_matched_reg[32*cls_rule +: 32] <= r_matched_reg[32*cls_rule +: 32] + 32'd1;
            r_rng_reg[32*cls_rule +: 32] <= cls_rng_next;
            r_count_reg[16*cls_rule +: 16] <= cls_count_next;
            if (cls_act) begin
                r_acted_reg[32*cls_rule +: 32] <= r_acted_reg[32*cls_rule +: 32] + 32'd1;
            end
        end
        if (cfg_clear) begin
            cnt_in_reg <= {32*PORTS{1'b0}};
            cnt_drop_reg <= {32*PORTS{1'b0}};
            r_matched_reg <= {32*NRULES{1'b0}};
            r_acted_reg <= {32*NRULES{1'b0}};
            r_count_reg <= {16*NRULES{1'b0}};
        end
        if (cfg_we && cfg_addr == 8'h02) begin
            seed_reg <= cfg_wdata;
            for (k = 0; k < NRULES; k = k + 1) begin
                r_rng_reg[32*k +: 32] <= seed_mix(cfg_wdata, k[RW-1:0]);
            end
        end
        for (k = 0; k < NRULES; k = k + 1) begin
            if (cfg_we && cfg_addr == 8'h10 + 8'd16 * k[7:0]) begin
                r_en_reg[k] <= cfg_wdata[0];
                r_act_reg[3*k +: 3] <= cfg_wdata[3:1];
                r_sel_reg[k] <= cfg_wdata[4];
                r_men_reg[4*k +: 4] <= cfg_wdata[11:8];
                r_count_reg[16*k +: 16] <= 16'd0;
            end
            if (cfg_we && cfg_addr == 8'h11 + 8'd16 * k[7:0]) begin
                r_match_reg[24*k +: 24] <= cfg_wdata[23:0];
            end
            if (cfg_we && cfg_addr == 8'h12 + 8'd16 * k[7:0]) begin
                r_vi_reg[16*k +: 16] <= cfg_wdata[15:0];
            end
            if (cfg_we && cfg_addr == 8'h13 + 8'd16 * k[7:0]) begin
                r_selval_reg[16*k +: 16] <= cfg_wdata[15:0];
            end
            if (cfg_we && cfg_addr == 8'h14 + 8'd16 * k[7:0]) begin
                r_mask_reg[64*k +: 32] <= cfg_wdata;
            end
            if (cfg_we && cfg_addr == 8'h15 + 8'd16 * k[7:0]) begin
                r_mask_reg[64*k + 32 +: 32] <= cfg_wdata;
            end
            if (cfg_we && cfg_addr == 8'h16 + 8'd16 * k[7:0]) begin
                r_beat_reg[16*k +: 16] <= cfg_wdata[15:0];
            end
            if (cfg_we && cfg_addr == 8'h17 + 8'd16 * k[7:0]) begin
                r_delay_reg[16*k +: 16] <= cfg_wdata[15:0];
            end
        end
    end
end

// a rule's generator state from SEED: never zero (xorshift would stay there)
function [31:0] seed_mix;
    input [31:0]   seed;
    input [RW-1:0] rule;
    reg [31:0] m;
    begin
        m = seed ^ ({29'd0, rule} * 32'h9e3779b9);
        seed_mix = (m == 32'd0) ? 32'h6d2b79f5 : m;
    end
endfunction

// --------------------------------------------------------------- outputs
generate
for (go = 0; go < PORTS; go = go + 1) begin : g_out
    localparam [PW-1:0] OIDX = go;

    reg [QW-1:0] mem [0:OQ_DEPTH-1];

    reg          busy_reg, busy_next;
    reg [PW-1:0] owner_reg, owner_next;
    reg          hold_reg, hold_next;    // keeping the output for owner_reg's message
    reg [15:0]   hwait_reg, hwait_next;  // cycles waited for its next frame
    reg          hold_free;              // the hold ends without a grant
    reg [PW-1:0] rr_reg, rr_next;
    reg [PORTS-1:0] req, grant, take;
    reg          found, move;
    reg [PW-1:0] cand;
    reg [PW:0]   sum;

    reg [OPW:0]  wr_reg, rd_reg, rd_next, pk_reg, pk_next, skip_reg, skip_next;
    reg [2:0]    mode_reg, mode_next;
    reg [15:0]   timer_reg, timer_next;
    wire         may_send;           // a credit and a token (via_link_gate)
    wire         bucket_full;        // its token bucket is full
    reg [31:0]   frames_reg;
    reg          send;
    reg          ovalid_reg;
    reg [BW-1:0] obeat_reg;

    wire [OPW:0] used = wr_reg - rd_reg;
    wire         room = used != OQ_FULL;
    wire         avail = wr_reg != pk_reg;
    wire [QW-1:0] head = mem[pk_reg[OPW-1:0]];
    wire          h_last = head[72];
    wire          h_dup = head[BW];
    wire          h_reo = head[BW + 1];
    wire          h_dly = head[BW + 2];
    wire [RW-1:0] h_rule = head[BW + 3 +: RW];
    wire [15:0]   h_delay = r_delay_reg[16*h_rule +: 16];
    wire          can = avail && may_send;

    // arbiter and transfer into the queue
    always @* begin
        for (k = 0; k < PORTS; k = k + 1) begin
            req[k] = i_state[2*k +: 2] == S_READY && i_dst[PW*k +: PW] == OIDX;
        end
        grant = {PORTS{1'b0}};
        busy_next = busy_reg;
        owner_next = owner_reg;
        rr_next = rr_reg;
        found = 1'b0;
        sum = {(PW+1){1'b0}};
        cand = {PW{1'b0}};
        hold_next = hold_reg;
        hwait_next = 16'd0;
        // the owner's next frame is classified for another output or starts
        // a new message, or is being dropped, or it took too long
        hold_free = (i_state[2*owner_reg +: 2] == S_READY &&
                     (i_dst[PW*owner_reg +: PW] != OIDX || i_first[owner_reg])) ||
                    i_state[2*owner_reg +: 2] == S_DROP || hwait_reg >= HOLD_WAIT16;
        if (!busy_reg && hold_reg && !hold_free) begin
            // only the rest of the owner's message
            hwait_next = hwait_reg + 16'd1;
            if (req[owner_reg]) begin
                found = 1'b1;
                owner_next = owner_reg;
                grant[owner_reg] = 1'b1;
                busy_next = 1'b1;
                hold_next = !i_lastm[owner_reg];
                hwait_next = 16'd0;
            end
        end else if (!busy_reg) begin
            for (k = 1; k <= PORTS; k = k + 1) begin
                sum = {1'b0, rr_reg} + k[PW:0];
                if (sum >= PORTS32[PW:0]) begin
                    sum = sum - PORTS32[PW:0];
                end
                cand = sum[PW-1:0];
                if (!found && req[cand]) begin
                    found = 1'b1;
                    owner_next = cand;
                end
            end
            hold_next = 1'b0;
            if (found) begin
                grant[owner_next] = 1'b1;
                busy_next = 1'b1;
                rr_next = owner_next;
                // a message of several frames: keep the output for it
                hold_next = MSG_HOLD != 0 && i_first[owner_next] && !i_lastm[owner_next];
            end
        end
        move = busy_reg && ih_valid[owner_reg] && room;
        take = {PORTS{1'b0}};
        if (move) begin
            take[owner_reg] = 1'b1;
            if (ih_beat[BW*owner_reg + 72]) begin
                busy_next = 1'b0;
            end
        end
    end

    always @(posedge clk) begin
        if (move) begin
            mem[wr_reg[OPW-1:0]] <= {i_flags[FW*owner_reg +: FW], ic_beat[BW*owner_reg +: BW]};
        end
    end

    // reader: the queue's head to the link
    always @* begin
        send = 1'b0;
        rd_next = rd_reg;
        pk_next = pk_reg;
        skip_next = skip_reg;
        mode_next = mode_reg;
        timer_next = timer_reg;
        case (mode_reg)
            M_HEAD: begin
                if (avail) begin
                    if (h_dly && h_delay != 16'd0) begin
                        mode_next = M_DELAY;
                        timer_next = h_delay;
                    end else if (h_dup) begin
                        mode_next = M_DUP1;
                    end else if (h_reo) begin
                        mode_next = M_SKIP;
                    end else if (can) begin
                        send = 1'b1;
                        pk_next = pk_reg + 1'b1;
                        rd_next = rd_reg + 1'b1;
                        if (!h_last) begin
                            mode_next = M_SEND;
                        end
                    end
                end
            end
            M_SEND: begin
                if (can) begin
                    send = 1'b1;
                    pk_next = pk_reg + 1'b1;
                    rd_next = rd_reg + 1'b1;
                    if (h_last) begin
                        mode_next = M_HEAD;
                    end
                end
            end
            M_DELAY: begin
                timer_next = timer_reg - 16'd1;
                if (timer_reg <= 16'd1) begin
                    timer_next = 16'd0;
                    mode_next = M_SEND;
                end
            end
            M_DUP1: begin
                if (can) begin
                    send = 1'b1;
                    pk_next = pk_reg + 1'b1;
                    if (h_last) begin
                        pk_next = rd_reg;
                        mode_next = M_SEND;
                    end
                end
            end
            M_SKIP: begin
                if (avail) begin
                    pk_next = pk_reg + 1'b1;
                    if (h_last) begin
                        mode_next = M_WAIT;
                        timer_next = h_delay;
                    end
                end
            end
            M_WAIT: begin
                if (avail) begin
                    mode_next = M_NEXT;
                    timer_next = 16'd0;
                end else if (timer_reg != 16'd0) begin
                    timer_next = timer_reg - 16'd1;
                    if (timer_reg == 16'd1) begin
                        pk_next = rd_reg;
                        mode_next = M_SEND;
                    end
                end
            end
            M_NEXT: begin
                if (can) begin
                    send = 1'b1;
                    pk_next = pk_reg + 1'b1;
                    if (h_last) begin
                        skip_next = pk_reg + 1'b1;
                        pk_next = rd_reg;
                        mode_next = M_HELD;
                    end
                end
            end
            default: begin  // M_HELD
                if (can) begin
                    send = 1'b1;
                    pk_next = pk_reg + 1'b1;
                    if (h_last) begin
                        pk_next = skip_reg;
                        rd_next = skip_reg;
                        mode_next = M_HEAD;
                    end
                end
            end
        endcase
    end

    via_link_gate #(
        .CREDITS(CREDITS),
        .BW_NUM(BW_NUM),
        .BW_DEN(BW_DEN)
    ) u_gate (
        .clk(clk),
        .rst(rst),
        .send(send),
        .credit(out_credit[go]),
        .may_send(may_send),
        .full(bucket_full)
    );

    always @(posedge clk) begin
        if (rst) begin
            busy_reg <= 1'b0;
            owner_reg <= {PW{1'b0}};
            hold_reg <= 1'b0;
            hwait_reg <= 16'd0;
            rr_reg <= OIDX;
            wr_reg <= {(OPW+1){1'b0}};
            rd_reg <= {(OPW+1){1'b0}};
            pk_reg <= {(OPW+1){1'b0}};
            skip_reg <= {(OPW+1){1'b0}};
            mode_reg <= M_HEAD;
            timer_reg <= 16'd0;
            frames_reg <= 32'd0;
            ovalid_reg <= 1'b0;
        end else begin
            busy_reg <= busy_next;
            owner_reg <= owner_next;
            hold_reg <= hold_next;
            hwait_reg <= hwait_next;
            rr_reg <= rr_next;
            if (move) begin
                wr_reg <= wr_reg + 1'b1;
            end
            rd_reg <= rd_next;
            pk_reg <= pk_next;
            skip_reg <= skip_next;
            mode_reg <= mode_next;
            timer_reg <= timer_next;
            ovalid_reg <= send;
            if (cfg_clear) begin
                frames_reg <= 32'd0;
            end else if (send && h_last) begin
                frames_reg <= frames_reg + 32'd1;
            end
        end
    end

    always @(posedge clk) begin
        if (send) begin
            obeat_reg <= head[BW-1:0];
        end
    end

    assign o_grant[go*PORTS +: PORTS] = grant;
    assign o_pop[go*PORTS +: PORTS] = take;
    assign out_valid[go] = ovalid_reg;
    assign out_data[64*go +: 64] = obeat_reg[63:0];
    assign out_keep[8*go +: 8] = obeat_reg[71:64];
    assign out_last[go] = obeat_reg[72];
    assign cnt_out[32*go +: 32] = frames_reg;
    // (a hold counts its wait: not idle while it lasts)
    assign o_idle[go] = !busy_reg && !hold_reg && used == {(OPW+1){1'b0}} && mode_reg == M_HEAD && !ovalid_reg && bucket_full;
end
endgenerate

// -------------------------------------------------------------------- idle
reg idle_in;
always @* begin
    idle_in = 1'b1;
    for (k = 0; k < PORTS; k = k + 1) begin
        if (ih_valid[k] || i_state[2*k +: 2] != S_HDR || in_credit[k]) begin
            idle_in = 1'b0;
        end
    end
end
assign idle = idle_in && &o_idle;

// ------------------------------------------------------------- read port
reg [3:0] rd_word;
always @* begin
    cfg_rdata = 32'd0;
    rd_word = cfg_addr[3:0];
    if (cfg_addr == 8'h00) begin
        cfg_rdata = {16'hfab0, NRULES32[7:0], PORTS32[7:0]};
    end else if (cfg_addr == 8'h02) begin
        cfg_rdata = seed_reg;
    end else if (cfg_addr == 8'h03) begin
        cfg_rdata = {31'd0, idle};
    end
    for (k = 0; k < NRULES; k = k + 1) begin
        if (cfg_addr[7:4] == k[3:0] + 4'd1) begin
            case (rd_word)
                4'h0: cfg_rdata = {20'd0, r_men_reg[4*k +: 4], 3'd0, r_sel_reg[k], r_act_reg[3*k +: 3], r_en_reg[k]};
                4'h1: cfg_rdata = {8'd0, r_match_reg[24*k +: 24]};
                4'h2: cfg_rdata = {16'd0, r_vi_reg[16*k +: 16]};
                4'h3: cfg_rdata = {16'd0, r_selval_reg[16*k +: 16]};
                4'h4: cfg_rdata = r_mask_reg[64*k +: 32];
                4'h5: cfg_rdata = r_mask_reg[64*k + 32 +: 32];
                4'h6: cfg_rdata = {16'd0, r_beat_reg[16*k +: 16]};
                4'h7: cfg_rdata = {16'd0, r_delay_reg[16*k +: 16]};
                4'h8: cfg_rdata = r_matched_reg[32*k +: 32];
                4'h9: cfg_rdata = r_acted_reg[32*k +: 32];
                default: cfg_rdata = 32'd0;
            endcase
        end
    end
    for (k = 0; k < PORTS; k = k + 1) begin
        if (cfg_addr[7:6] == 2'b10 && cfg_addr[5:2] == k[3:0]) begin
            case (cfg_addr[1:0])
                2'd0: cfg_rdata = cnt_in_reg[32*k +: 32];
                2'd1: cfg_rdata = cnt_out[32*k +: 32];
                2'd2: cfg_rdata = cnt_drop_reg[32*k +: 32];
                default: cfg_rdata = 32'd0;
            endcase
        end
    end
end

endmodule

`default_nettype wire
