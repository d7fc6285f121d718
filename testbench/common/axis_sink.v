// axis_sink: AXI-Stream sink model for RTL benches (not synthesizable).
// Accepted by Verilator 5 (--binary --timing) and Icarus 11 (-g2012).
//
// Drives tready randomly every cycle (1 with probability ready_pct percent, a
// variable benches may change: 100 never stalls, 0 stalls until changed) and
// captures every accepted beat into r_data/r_keep/r_last[0..received-1] (no
// wrap: at most MAX_BEATS per run); frames_received counts beats with tlast.
// wait_frames(n) blocks until n frames have arrived.
//
// Protocol checks ($fatal): X on tvalid after reset; once tvalid is 1 without
// tready, tvalid must stay 1 and tdata/tkeep/tlast must not change until the
// beat is taken; X on tdata/tkeep/tlast of a beat taken (tdata only on lanes
// whose tkeep bit is 1).
//
// Randomness comes from a xorshift32 generator in this model (Verilator 5's
// $random(seed) degenerates after a few dozen calls), seeded from the
// +seed=N plusarg (default 1) mixed with SEED_SALT.
//
// tready changes 1 ns after a rising edge (the clock's half period must be
// longer); the stream is sampled on the falling edge, so there is no race with
// the design in any simulator.

`timescale 1ns / 1ps

module axis_sink #(
    // tdata bits (a multiple of 8)
    parameter DATA_WIDTH = 64,
    // tkeep bits
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // beats that can be captured in one run
    parameter MAX_BEATS = 8192,
    // percent of cycles tready is 1 (initial value of ready_pct)
    parameter READY_PCT = 70,
    // mixed into the +seed value so several instances use different sequences
    parameter SEED_SALT = 0
) (
    input  wire                  clk,
    input  wire                  rst,

    input  wire [DATA_WIDTH-1:0] s_axis_tdata,
    input  wire [KEEP_WIDTH-1:0] s_axis_tkeep,
    input  wire                  s_axis_tvalid,
    output reg                   s_axis_tready,
    input  wire                  s_axis_tlast
);

reg [DATA_WIDTH-1:0] r_data [0:MAX_BEATS-1];
reg [KEEP_WIDTH-1:0] r_keep [0:MAX_BEATS-1];
reg                  r_last [0:MAX_BEATS-1];

integer received;         // beats captured so far
integer frames_received;  // frames (beats with tlast) captured so far
integer ready_pct;
integer seed;

// xorshift32 state and step
reg [31:0] rng;

task rand32;
    output [31:0] r;
    begin
        rng = rng ^ (rng << 13);
        rng = rng ^ (rng >> 17);
        rng = rng ^ (rng << 5);
        r = rng;
    end
endtask

// 1 with probability pct percent
task rand_pct;
    input integer pct;
    output ok;
    reg [31:0] r;
    begin
        if (pct >= 100) begin
            ok = 1'b1;
        end else if (pct <= 0) begin
            ok = 1'b0;
        end else begin
            rand32(r);
            ok = (r % 100) < pct;
        end
    end
endtask

initial begin
    if (!$value$plusargs("seed=%d", seed)) begin
        seed = 1;
    end
    rng = seed * 32'h9e3779b1 + SEED_SALT * 32'h1b873593 + 32'd11;
    if (rng == 32'd0) begin
        rng = 32'h2545f491;
    end
    ready_pct = READY_PCT;
    received = 0;
    frames_received = 0;
    s_axis_tready = 1'b0;
end

// Wait until at least n frames have been received.
task wait_frames;
    input integer n;
    begin
        while (frames_received < n) begin
            @(posedge clk);
        end
    end
endtask

reg                  stall;
reg [DATA_WIDTH-1:0] stall_data;
reg [KEEP_WIDTH-1:0] stall_keep;
reg                  stall_last;

initial begin
    stall = 1'b0;
end

// the byte lanes of tdata that tkeep marks, X elsewhere masked to 0
function [DATA_WIDTH-1:0] kept;
    input [DATA_WIDTH-1:0] data;
    input [KEEP_WIDTH-1:0] keep;
    integer l;
    begin
        kept = {DATA_WIDTH{1'b0}};
        for (l = 0; l < KEEP_WIDTH; l = l + 1) begin
            if (keep[l]) begin
                kept[l*8 +: 8] = data[l*8 +: 8];
            end
        end
    end
endfunction

always @(negedge clk) begin
    if (rst) begin
        stall = 1'b0;
    end else begin
        if ((^s_axis_tvalid) === 1'bx) begin
            $fatal(1, "axis_sink %m: X on tvalid");
        end
        if (stall) begin
            if (!s_axis_tvalid) begin
                $fatal(1, "axis_sink %m: tvalid dropped before tready (beat %0d)", received);
            end
            if (s_axis_tdata !== stall_data || s_axis_tkeep !== stall_keep || s_axis_tlast !== stall_last) begin
                $fatal(1, "axis_sink %m: tdata/tkeep/tlast changed while waiting for tready (beat %0d)", received);
            end
        end
        if (s_axis_tvalid && s_axis_tready) begin
            if ((^{s_axis_tkeep, s_axis_tlast}) === 1'bx || (^kept(s_axis_tdata, s_axis_tkeep)) === 1'bx) begin
                $fatal(1, "axis_sink %m: X on a beat taken (beat %0d)", received);
            end
            if (received >= MAX_BEATS) begin
                $fatal(1, "axis_sink %m: more than MAX_BEATS=%0d beats received", MAX_BEATS);
            end
            r_data[received] = s_axis_tdata;
            r_keep[received] = s_axis_tkeep;
            r_last[received] = s_axis_tlast;
            received = received + 1;
            if (s_axis_tlast) begin
                frames_received = frames_received + 1;
            end
        end
        stall = s_axis_tvalid && !s_axis_tready;
        stall_data = s_axis_tdata;
        stall_keep = s_axis_tkeep;
        stall_last = s_axis_tlast;
    end
end

reg rdy;

always @(posedge clk) begin
    #1;
    rand_pct(ready_pct, rdy);
    s_axis_tready <= rdy && !rst;
end

endmodule
