// via_tpt_probe: BAR0 block `tpt` (probe and counters of the translation
// and protection table) and the TPT's lookup arbiter.
//
// Registers (rtl/generated/via_bar0_tpt_regs.v, instantiated here; the bus
// is the register-block bus of docs/rtl.md, routed by via_regfile):
//   TPT_PROBE_HANDLE/VA/LEN/CTRL  the probe's input (rw)
//   TPT_PROBE_GO                  a write runs one lookup with that input,
//                                 as a DMA engine would, without moving
//                                 data; ignored while BUSY. It clears the
//                                 result (DONE, HIT, ERR, PA, BYTES) and
//                                 latches the input, so writes to the input
//                                 registers during the lookup change nothing.
//   TPT_PROBE_STATUS/PA/BYTES     the result, latched from the response
//   TPT_LOOKUPS/HITS/MISSES/ERRORS
//                                 32-bit wrapping counts of via_tpt's st_*
//                                 pulses (every lookup, the DMA engine's too)
//
// Lookup arbiter: via_tpt has one lookup port; the DMA diagnostic engine
// (d_lk_*, d_rs_*) and the probe share it. A request presented to the TPT
// (lk_valid without lk_ready) keeps the port until accepted; between
// requests the two alternate when both ask. The tag sent to the TPT is
// {requester, requester's tag}: bit TAG_WIDTH-1 is 1 for the probe; the
// engine's own tag (d_lk_tag, TAG_WIDTH-1 bits) comes back in d_rs_tag. The
// TPT answers in order, so a response is routed by its tag alone: the
// probe's is always accepted, the engine's when d_rs_ready.
//
// lk_pending: a lookup is presented or accepted and not yet answered (for
// the soft reset's drain and the NIC's idle output); busy: a probe is in
// progress.
//
// Timing: the arbiter is combinational (d_lk_valid to lk_valid, lk_ready to
// d_lk_ready, rs_valid/rs_tag to d_rs_valid, d_rs_ready to rs_ready); the
// probe's request, result and the counters are registers. Reset: rst (the
// NIC's block reset) clears everything.

`timescale 1ns / 1ps
`default_nettype none

`include "via_bar0.vh"
`include "via_param_check.vh"

module via_tpt_probe #(
    parameter ADDR_WIDTH = 48,   // physical address bits of a response (32..64)
    parameter TAG_WIDTH  = 2     // via_tpt's lookup tag bits (2..8); the engine gets TAG_WIDTH-1
) (
    input  wire                  clk,
    input  wire                  rst,

    // register bus (docs/rtl.md, "Register blocks")
    input  wire                  wr_en,
    input  wire [15:0]           wr_addr,
    input  wire [31:0]           wr_data,
    input  wire [3:0]            wr_strb,
    output wire                  wr_hit,
    input  wire                  rd_en,
    input  wire [15:0]           rd_addr,
    input  wire                  rd_fire,
    output wire                  rd_hit,
    output wire [31:0]           rd_data,

    // the DMA diagnostic engine's lookups
    input  wire                  d_lk_valid,
    output wire                  d_lk_ready,
    input  wire [31:0]           d_lk_handle,
    input  wire [63:0]           d_lk_va,
    input  wire [31:0]           d_lk_len,
    input  wire [15:0]           d_lk_ptag,
    input  wire [1:0]            d_lk_kind,
    input  wire [TAG_WIDTH-2:0]  d_lk_tag,
    output wire                  d_rs_valid,
    input  wire                  d_rs_ready,
    output wire [2:0]            d_rs_err,
    output wire [ADDR_WIDTH-1:0] d_rs_pa,
    output wire [12:0]           d_rs_bytes,
    output wire                  d_rs_hit,
    output wire                  d_rs_epoch,
    output wire [TAG_WIDTH-2:0]  d_rs_tag,

    // via_tpt's lookup port
    output wire                  lk_valid,
    input  wire                  lk_ready,
    output wire [31:0]           lk_handle,
    output wire [63:0]           lk_va,
    output wire [31:0]           lk_len,
    output wire [15:0]           lk_ptag,
    output wire [1:0]            lk_kind,
    output wire [TAG_WIDTH-1:0]  lk_tag,
    input  wire                  rs_valid,
    output wire                  rs_ready,
    input  wire [2:0]            rs_err,
    input  wire [ADDR_WIDTH-1:0] rs_pa,
    input  wire [12:0]           rs_bytes,
    input  wire                  rs_hit,
    input  wire                  rs_epoch,
    input  wire [TAG_WIDTH-1:0]  rs_tag,

    // via_tpt's statistics pulses
    input  wire                  st_lookup,
    input  wire                  st_hit,
    input  wire                  st_miss,
    input  wire                  st_error,

    output wire                  busy,
    output wire                  lk_pending
);

generate
    if (ADDR_WIDTH < 32 || ADDR_WIDTH > 64) begin : g_bad_addr_width
        `VIA_PARAM_FAIL(("via_tpt_probe: ADDR_WIDTH=%0d, must be 32..64", ADDR_WIDTH))
    end
    if (TAG_WIDTH < 2 || TAG_WIDTH > 8) begin : g_bad_tag_width
        `VIA_PARAM_FAIL(("via_tpt_probe: TAG_WIDTH=%0d, must be 2..8", TAG_WIDTH))
    end
endgenerate

// ------------------------------------------------------------ registers

wire [31:0] in_handle;
wire [31:0] in_va_lo;
wire [31:0] in_va_hi;
wire [31:0] in_len;
wire [15:0] in_ptag;
wire [1:0]  in_kind;
wire        go;

reg         busy_reg;
reg         done_reg;
reg         hit_reg;
reg  [2:0]  err_reg;
reg  [63:0] pa_reg;
reg  [12:0] bytes_reg;
reg  [31:0] lookups_reg;
reg  [31:0] hits_reg;
reg  [31:0] misses_reg;
reg  [31:0] errors_reg;

via_bar0_tpt_regs regs_inst (
    .clk(clk),
    .rst(rst),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(wr_strb),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(rd_fire),
    .wr_hit(wr_hit),
    .rd_hit(rd_hit),
    .rd_data(rd_data),
    .tpt_probe_handle_q(in_handle),
    .tpt_probe_va_lo_q(in_va_lo),
    .tpt_probe_va_hi_q(in_va_hi),
    .tpt_probe_len_q(in_len),
    .tpt_probe_ctrl_ptag_q(in_ptag),
    .tpt_probe_ctrl_kind_q(in_kind),
    .tpt_probe_go_we(go),
    .tpt_probe_status_busy_i(busy_reg),
    .tpt_probe_status_done_i(done_reg),
    .tpt_probe_status_hit_i(hit_reg),
    .tpt_probe_status_err_i(err_reg),
    .tpt_probe_pa_lo_i(pa_reg[31:0]),
    .tpt_probe_pa_hi_i(pa_reg[63:32]),
    .tpt_probe_bytes_i({19'd0, bytes_reg}),
    .tpt_lookups_i(lookups_reg),
    .tpt_hits_i(hits_reg),
    .tpt_misses_i(misses_reg),
    .tpt_errors_i(errors_reg)
);

// ------------------------------------------------------------ probe request

// the probe's request (latched at GO), presented until accepted
reg         p_valid_reg;
reg  [31:0] p_handle_reg;
reg  [63:0] p_va_reg;
reg  [31:0] p_len_reg;
reg  [15:0] p_ptag_reg;
reg  [1:0]  p_kind_reg;

// ------------------------------------------------------------ arbiter

reg lock_reg;       // a presented request keeps the port
reg lock_sel_reg;   // its owner (1: probe)
reg rr_reg;         // 1: the probe goes first when both ask

wire sel = lock_reg ? lock_sel_reg :
           (d_lk_valid && p_valid_reg) ? rr_reg :
           p_valid_reg;

localparam [TAG_WIDTH-2:0] PROBE_SUBTAG = {(TAG_WIDTH-1){1'b0}};

assign lk_valid   = sel ? p_valid_reg  : d_lk_valid;
assign lk_handle  = sel ? p_handle_reg : d_lk_handle;
assign lk_va      = sel ? p_va_reg     : d_lk_va;
assign lk_len     = sel ? p_len_reg    : d_lk_len;
assign lk_ptag    = sel ? p_ptag_reg   : d_lk_ptag;
assign lk_kind    = sel ? p_kind_reg   : d_lk_kind;
assign lk_tag     = sel ? {1'b1, PROBE_SUBTAG} : {1'b0, d_lk_tag};
assign d_lk_ready = !sel && lk_ready;

wire rs_probe = rs_tag[TAG_WIDTH-1];
assign d_rs_valid = rs_valid && !rs_probe;
assign rs_ready   = rs_probe ? 1'b1 : d_rs_ready;
assign d_rs_err   = rs_err;
assign d_rs_pa    = rs_pa;
assign d_rs_bytes = rs_bytes;
assign d_rs_hit   = rs_hit;
assign d_rs_epoch = rs_epoch;
assign d_rs_tag   = rs_tag[TAG_WIDTH-2:0];

wire lk_fire   = lk_valid && lk_ready;
wire rs_fire   = rs_valid && rs_ready;
wire p_rs_fire = rs_valid && rs_probe;

// lookups accepted and not answered (the TPT's pipeline is short; 8 bits
// cover any depth it could have)
reg [7:0] out_reg;

assign busy       = busy_reg;
assign lk_pending = lk_valid || out_reg != 8'd0;

always @(posedge clk) begin
    if (rst) begin
        lock_reg     <= 1'b0;
        lock_sel_reg <= 1'b0;
        rr_reg       <= 1'b0;
        out_reg      <= 8'd0;
        p_valid_reg  <= 1'b0;
        p_handle_reg <= 32'd0;
        p_va_reg     <= 64'd0;
        p_len_reg    <= 32'd0;
        p_ptag_reg   <= 16'd0;
        p_kind_reg   <= 2'd0;
        busy_reg     <= 1'b0;
        done_reg     <= 1'b0;
        hit_reg      <= 1'b0;
        err_reg      <= 3'd0;
        pa_reg       <= 64'd0;
        bytes_reg    <= 13'd0;
        lookups_reg  <= 32'd0;
        hits_reg     <= 32'd0;
        misses_reg   <= 32'd0;
        errors_reg   <= 32'd0;
    end else begin
        lock_reg     <= lk_valid && !lk_ready;
        lock_sel_reg <= sel;
        if (lk_fire) begin
            rr_reg <= !sel;
        end
        out_reg <= out_reg + {7'd0, lk_fire} - {7'd0, rs_fire};

        if (go && !busy_reg) begin
            p_valid_reg  <= 1'b1;
            p_handle_reg <= in_handle;
            p_va_reg     <= {in_va_hi, in_va_lo};
            p_len_reg    <= in_len;
            p_ptag_reg   <= in_ptag;
            p_kind_reg   <= in_kind;
            busy_reg     <= 1'b1;
            done_reg     <= 1'b0;
            hit_reg      <= 1'b0;
            err_reg      <= 3'd0;
            pa_reg       <= 64'd0;
            bytes_reg    <= 13'd0;
        end
        if (lk_fire && sel) begin
            p_valid_reg <= 1'b0;
        end
        if (p_rs_fire) begin
            busy_reg  <= 1'b0;
            done_reg  <= 1'b1;
            hit_reg   <= rs_hit;
            err_reg   <= rs_err;
            pa_reg    <= 64'd0;
            pa_reg[ADDR_WIDTH-1:0] <= rs_pa;
            bytes_reg <= rs_bytes;
        end

        lookups_reg <= lookups_reg + {31'd0, st_lookup};
        hits_reg    <= hits_reg + {31'd0, st_hit};
        misses_reg  <= misses_reg + {31'd0, st_miss};
        errors_reg  <= errors_reg + {31'd0, st_error};
    end
end

endmodule

`default_nettype wire
