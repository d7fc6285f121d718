// axis_source: AXI-Stream source model for RTL benches (not synthesizable).
// Accepted by Verilator 5 (--binary --timing) and Icarus 11 (-g2012).
//
// Frames are queued with send_frame (random data), send_frames (several of
// one length), send_random_frames (several of random lengths) or send_beat
// (given data);
// a background process sends the queue in order, with a random idle cycle
// before each beat with probability gap_pct percent (a variable benches may
// change; 0 sends back to back). Once offered, a beat stays on the bus
// unchanged until tready. wait_idle blocks until everything queued was sent.
//
// Every queued beat stays in q_data/q_keep/q_last[0..queued-1] (no wrap: at
// most MAX_BEATS per run), so a bench can compare what a sink received with
// q_*[i]. sent counts beats accepted by the sink side, frames_sent frames.
//
// send_frame(nbeats) fills each beat with random data; tkeep is all ones
// except on the last beat, which keeps a random number (1..KEEP_WIDTH) of
// low bytes, as a packet of arbitrary byte length would.
//
// Randomness comes from a xorshift32 generator in this model (Verilator 5's
// $random(seed) degenerates after a few dozen calls), seeded from the
// +seed=N plusarg (default 1) mixed with SEED_SALT.
//
// All outputs change 1 ns after a rising edge (the clock's half period must be
// longer); tready is sampled on the falling edge, so there is no race with the
// design in any simulator.

`timescale 1ns / 1ps

module axis_source #(
    // tdata bits (a multiple of 8)
    parameter DATA_WIDTH = 64,
    // tkeep bits
    parameter KEEP_WIDTH = DATA_WIDTH / 8,
    // beats that can be queued in one run
    parameter MAX_BEATS = 8192,
    // percent of beats preceded by an idle cycle (initial value of gap_pct)
    parameter GAP_PCT = 30,
    // mixed into the +seed value so several instances use different sequences
    parameter SEED_SALT = 0
) (
    input  wire                  clk,
    input  wire                  rst,

    output reg  [DATA_WIDTH-1:0] m_axis_tdata,
    output reg  [KEEP_WIDTH-1:0] m_axis_tkeep,
    output reg                   m_axis_tvalid,
    input  wire                  m_axis_tready,
    output reg                   m_axis_tlast
);

reg [DATA_WIDTH-1:0] q_data [0:MAX_BEATS-1];
reg [KEEP_WIDTH-1:0] q_keep [0:MAX_BEATS-1];
reg                  q_last [0:MAX_BEATS-1];

integer queued;       // beats queued so far
integer sent;         // beats accepted so far
integer frames_sent;  // frames (beats with tlast) accepted so far
integer gap_pct;
integer seed;
// the sending process is paused while 1 (tvalid held low between beats)
reg     pause;

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
    rng = seed * 32'h9e3779b1 + SEED_SALT * 32'h6c8e9cf5 + 32'd5;
    if (rng == 32'd0) begin
        rng = 32'h2545f491;
    end
    gap_pct = GAP_PCT;
    queued = 0;
    sent = 0;
    frames_sent = 0;
    pause = 1'b0;
    m_axis_tdata = {DATA_WIDTH{1'b0}};
    m_axis_tkeep = {KEEP_WIDTH{1'b0}};
    m_axis_tvalid = 1'b0;
    m_axis_tlast = 1'b0;
end

// Queue one beat.
task send_beat;
    input [DATA_WIDTH-1:0] data;
    input [KEEP_WIDTH-1:0] keep;
    input                  last;
    begin
        if (queued >= MAX_BEATS) begin
            $fatal(1, "axis_source %m: more than MAX_BEATS=%0d beats queued", MAX_BEATS);
        end
        q_data[queued] = data;
        q_keep[queued] = keep;
        q_last[queued] = last;
        queued = queued + 1;
    end
endtask

// Queue a frame of nbeats (>= 1) beats of random data.
task send_frame;
    input integer nbeats;
    integer b, i, nkeep;
    reg [DATA_WIDTH+31:0] data;
    reg [KEEP_WIDTH-1:0] keep;
    reg [31:0] r;
    begin
        for (b = 0; b < nbeats; b = b + 1) begin
            for (i = 0; i < DATA_WIDTH; i = i + 32) begin
                rand32(r);
                data[i +: 32] = r;
            end
            keep = {KEEP_WIDTH{1'b1}};
            if (b == nbeats - 1) begin
                rand32(r);
                nkeep = 1 + r % KEEP_WIDTH;
                for (i = 0; i < KEEP_WIDTH; i = i + 1) begin
                    keep[i] = i < nkeep;
                end
            end
            send_beat(data[DATA_WIDTH-1:0], keep, b == nbeats - 1);
        end
    end
endtask

// Queue count frames of nbeats beats each. (Loops over frames belong in
// here rather than at the call site: Verilator unrolls short constant loops
// and inlines tasks, which makes benches slow to build.)
task send_frames;
    input integer count;
    input integer nbeats;
    integer f;
    begin
        for (f = 0; f < count; f = f + 1) begin
            send_frame(nbeats);
        end
    end
endtask

// Queue count frames of random lengths 1..max_beats.
task send_random_frames;
    input integer count;
    input integer max_beats;
    integer f;
    reg [31:0] r;
    begin
        for (f = 0; f < count; f = f + 1) begin
            rand32(r);
            send_frame(1 + r % max_beats);
        end
    end
endtask

// Wait until every queued beat has been accepted.
task wait_idle;
    begin
        while (sent < queued) begin
            @(posedge clk);
        end
    end
endtask

reg hs, gap;

always begin
    @(negedge clk);
    hs = m_axis_tvalid && m_axis_tready;
    if ((^m_axis_tready) === 1'bx && !rst) begin
        $fatal(1, "axis_source %m: X on tready");
    end
    @(posedge clk) #1;
    if (rst) begin
        m_axis_tvalid <= 1'b0;
    end else begin
        if (hs) begin
            sent = sent + 1;
            if (m_axis_tlast) begin
                frames_sent = frames_sent + 1;
            end
        end
        rand_pct(gap_pct, gap);
        if (m_axis_tvalid && !hs) begin
            // offered and not taken: hold
        end else if (sent < queued && !pause && !gap) begin
            m_axis_tdata <= q_data[sent];
            m_axis_tkeep <= q_keep[sent];
            m_axis_tlast <= q_last[sent];
            m_axis_tvalid <= 1'b1;
        end else begin
            m_axis_tvalid <= 1'b0;
        end
    end
end

endmodule
