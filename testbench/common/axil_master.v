// axil_master: AXI4-Lite master model for RTL benches (not synthesizable).
// Accepted by Verilator 5 (--binary --timing) and Icarus 11 (-g2012).
//
// Tasks (call them from one process at a time per direction; a write and a
// read may run concurrently from two processes):
//   axil_write(addr, data, strb, expect_resp)  write, $fatal on another resp
//   axil_write_resp(addr, data, strb, resp)    write, return the response
//   axil_read(addr, data, resp)                read, return data and response
//   axil_read_check(addr, expect_data, expect_resp)
//                                              read, $fatal on a mismatch
//
// Timing: AW and W are offered independently, each after a random number of
// idle cycles (0..max_delay); bready and rready are driven randomly every
// cycle (1 with probability ready_pct percent) while a response is awaited,
// so the slave sees back-pressure on B and R. max_delay and ready_pct are
// variables a bench may change at any time (max_delay 0 and ready_pct 100:
// fastest). Randomness comes from a xorshift32 generator in this model
// (Verilator 5's $random(seed) degenerates after a few dozen calls), seeded
// from the +seed=N plusarg (default 1) mixed with SEED_SALT.
//
// All outputs change 1 ns after a rising edge (so the clock's half period
// must be longer than that); the inputs are sampled on the falling edge, when
// they are stable, to see whether a handshake happens on the next rising edge.
// So the model has no race with the design in any simulator (driving right at
// the edge from a task races with the design's flip-flops in Verilator 5).
//
// Protocol checks on the slave ($fatal): X on a ready/valid after reset;
// bvalid or rvalid dropped, or bresp/rresp/rdata changed, before the master
// took them; bvalid before both AW and W were accepted; rvalid before AR was
// accepted; a response with nothing outstanding.

`timescale 1ns / 1ps

module axil_master #(
    // AXI-Lite address bits
    parameter ADDR_WIDTH = 20,
    // idle cycles before each valid, at most (initial value of max_delay)
    parameter MAX_DELAY = 3,
    // percent of cycles bready/rready are 1 (initial value of ready_pct)
    parameter READY_PCT = 60,
    // mixed into the +seed value so several instances use different sequences
    parameter SEED_SALT = 0
) (
    input  wire                  clk,
    input  wire                  rst,

    output reg  [ADDR_WIDTH-1:0] m_axil_awaddr,
    output reg  [2:0]            m_axil_awprot,
    output reg                   m_axil_awvalid,
    input  wire                  m_axil_awready,
    output reg  [31:0]           m_axil_wdata,
    output reg  [3:0]            m_axil_wstrb,
    output reg                   m_axil_wvalid,
    input  wire                  m_axil_wready,
    input  wire [1:0]            m_axil_bresp,
    input  wire                  m_axil_bvalid,
    output reg                   m_axil_bready,
    output reg  [ADDR_WIDTH-1:0] m_axil_araddr,
    output reg  [2:0]            m_axil_arprot,
    output reg                   m_axil_arvalid,
    input  wire                  m_axil_arready,
    input  wire [31:0]           m_axil_rdata,
    input  wire [1:0]            m_axil_rresp,
    input  wire                  m_axil_rvalid,
    output reg                   m_axil_rready
);

integer max_delay;
integer ready_pct;
integer seed;

// transactions seen, for benches
integer writes_done;
integer reads_done;

// state shared with the checker
reg wr_req_sent;   // AW and W accepted, B not yet taken
reg rd_req_sent;   // AR accepted, R not yet taken

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
    rng = seed * 32'h9e3779b1 + SEED_SALT * 32'h7f4a7c15 + 32'd3;
    if (rng == 32'd0) begin
        rng = 32'h2545f491;
    end
    max_delay = MAX_DELAY;
    ready_pct = READY_PCT;
    writes_done = 0;
    reads_done = 0;
    wr_req_sent = 1'b0;
    rd_req_sent = 1'b0;
    m_axil_awaddr = {ADDR_WIDTH{1'b0}};
    m_axil_awprot = 3'd0;
    m_axil_awvalid = 1'b0;
    m_axil_wdata = 32'd0;
    m_axil_wstrb = 4'd0;
    m_axil_wvalid = 1'b0;
    m_axil_bready = 1'b0;
    m_axil_araddr = {ADDR_WIDTH{1'b0}};
    m_axil_arprot = 3'd0;
    m_axil_arvalid = 1'b0;
    m_axil_rready = 1'b0;
end

// random idle cycles 0..max_delay
task rand_delay;
    output integer n;
    reg [31:0] r;
    begin
        if (max_delay <= 0) begin
            n = 0;
        end else begin
            rand32(r);
            n = r % (max_delay + 1);
        end
    end
endtask

// 1 with probability ready_pct percent
task rand_ready;
    output r;
    begin
        rand_pct(ready_pct, r);
    end
endtask

task do_write;
    input  [ADDR_WIDTH-1:0] addr;
    input  [31:0]           data;
    input  [3:0]            strb;
    output [1:0]            resp;
    integer aw_wait, w_wait;
    reg aw_done, w_done, aw_hs, w_hs, b_hs, rdy;
    begin
        rand_delay(aw_wait);
        rand_delay(w_wait);
        aw_done = 1'b0;
        w_done = 1'b0;
        @(posedge clk) #1;
        while (!(aw_done && w_done)) begin
            if (!aw_done && !m_axil_awvalid) begin
                if (aw_wait == 0) begin
                    m_axil_awaddr <= addr;
                    m_axil_awprot <= 3'b000;
                    m_axil_awvalid <= 1'b1;
                end else begin
                    aw_wait = aw_wait - 1;
                end
            end
            if (!w_done && !m_axil_wvalid) begin
                if (w_wait == 0) begin
                    m_axil_wdata <= data;
                    m_axil_wstrb <= strb;
                    m_axil_wvalid <= 1'b1;
                end else begin
                    w_wait = w_wait - 1;
                end
            end
            @(negedge clk);
            aw_hs = m_axil_awvalid && m_axil_awready;
            w_hs = m_axil_wvalid && m_axil_wready;
            @(posedge clk) #1;
            if (aw_hs) begin
                aw_done = 1'b1;
                m_axil_awvalid <= 1'b0;
            end
            if (w_hs) begin
                w_done = 1'b1;
                m_axil_wvalid <= 1'b0;
            end
        end
        wr_req_sent = 1'b1;
        b_hs = 1'b0;
        while (!b_hs) begin
            rand_ready(rdy);
            m_axil_bready <= rdy;
            @(negedge clk);
            b_hs = m_axil_bvalid && m_axil_bready;
            resp = m_axil_bresp;
            @(posedge clk) #1;
        end
        m_axil_bready <= 1'b0;
        wr_req_sent = 1'b0;
        writes_done = writes_done + 1;
    end
endtask

// The bus work is done by two server processes, one per direction, so that
// each call site of the public tasks below stays small (Verilator inlines a
// task at every call site).
reg [ADDR_WIDTH-1:0] wq_addr;
reg [31:0]           wq_data;
reg [3:0]            wq_strb;
reg [1:0]            wq_resp;
integer              wq_req, wq_ack;
reg [ADDR_WIDTH-1:0] rq_addr;
reg [31:0]           rq_data;
reg [1:0]            rq_resp;
integer              rq_req, rq_ack;

initial begin
    wq_req = 0;
    wq_ack = 0;
    rq_req = 0;
    rq_ack = 0;
end

always begin
    wait (wq_req != wq_ack);
    do_write(wq_addr, wq_data, wq_strb, wq_resp);
    wq_ack = wq_ack + 1;
end

always begin
    wait (rq_req != rq_ack);
    do_read(rq_addr, rq_data, rq_resp);
    rq_ack = rq_ack + 1;
end

task axil_write_resp;
    input  [ADDR_WIDTH-1:0] addr;
    input  [31:0]           data;
    input  [3:0]            strb;
    output [1:0]            resp;
    begin
        wait (wq_req == wq_ack);
        wq_addr = addr;
        wq_data = data;
        wq_strb = strb;
        wq_req = wq_req + 1;
        wait (wq_req == wq_ack);
        resp = wq_resp;
    end
endtask

task axil_read;
    input  [ADDR_WIDTH-1:0] addr;
    output [31:0]           data;
    output [1:0]            resp;
    begin
        wait (rq_req == rq_ack);
        rq_addr = addr;
        rq_req = rq_req + 1;
        wait (rq_req == rq_ack);
        data = rq_data;
        resp = rq_resp;
    end
endtask

task axil_write;
    input [ADDR_WIDTH-1:0] addr;
    input [31:0]           data;
    input [3:0]            strb;
    input [1:0]            expect_resp;
    reg [1:0] resp;
    begin
        axil_write_resp(addr, data, strb, resp);
        if (resp !== expect_resp) begin
            $fatal(1, "axil_master %m: write 0x%0h = 0x%08h strb %b: bresp %0d, expected %0d",
                addr, data, strb, resp, expect_resp);
        end
    end
endtask

task do_read;
    input  [ADDR_WIDTH-1:0] addr;
    output [31:0]           data;
    output [1:0]            resp;
    integer ar_wait;
    reg ar_hs, r_hs, rdy;
    begin
        rand_delay(ar_wait);
        @(posedge clk) #1;
        repeat (ar_wait) begin
            @(posedge clk) #1;
        end
        m_axil_araddr <= addr;
        m_axil_arprot <= 3'b000;
        m_axil_arvalid <= 1'b1;
        ar_hs = 1'b0;
        while (!ar_hs) begin
            @(negedge clk);
            ar_hs = m_axil_arvalid && m_axil_arready;
            @(posedge clk) #1;
        end
        m_axil_arvalid <= 1'b0;
        rd_req_sent = 1'b1;
        r_hs = 1'b0;
        while (!r_hs) begin
            rand_ready(rdy);
            m_axil_rready <= rdy;
            @(negedge clk);
            r_hs = m_axil_rvalid && m_axil_rready;
            data = m_axil_rdata;
            resp = m_axil_rresp;
            @(posedge clk) #1;
        end
        m_axil_rready <= 1'b0;
        rd_req_sent = 1'b0;
        reads_done = reads_done + 1;
    end
endtask

task axil_read_check;
    input [ADDR_WIDTH-1:0] addr;
    input [31:0]           expect_data;
    input [1:0]            expect_resp;
    reg [31:0] data;
    reg [1:0] resp;
    begin
        axil_read(addr, data, resp);
        if (resp !== expect_resp || data !== expect_data) begin
            $fatal(1, "axil_master %m: read 0x%0h: 0x%08h resp %0d, expected 0x%08h resp %0d",
                addr, data, resp, expect_data, expect_resp);
        end
    end
endtask

// ------------------------------------------------------------ checker

reg        b_stall, r_stall;
reg [1:0]  b_stall_resp, r_stall_resp;
reg [31:0] r_stall_data;

initial begin
    b_stall = 1'b0;
    r_stall = 1'b0;
end

always @(negedge clk) begin
    if (rst) begin
        b_stall = 1'b0;
        r_stall = 1'b0;
    end else begin
        if ((^{m_axil_awready, m_axil_wready, m_axil_bvalid, m_axil_arready, m_axil_rvalid}) === 1'bx) begin
            $fatal(1, "axil_master %m: X on a slave handshake signal (awready %b wready %b bvalid %b arready %b rvalid %b)",
                m_axil_awready, m_axil_wready, m_axil_bvalid, m_axil_arready, m_axil_rvalid);
        end
        if (b_stall && !m_axil_bvalid) begin
            $fatal(1, "axil_master %m: bvalid dropped before bready");
        end
        if (b_stall && m_axil_bresp !== b_stall_resp) begin
            $fatal(1, "axil_master %m: bresp changed while waiting for bready");
        end
        if (r_stall && !m_axil_rvalid) begin
            $fatal(1, "axil_master %m: rvalid dropped before rready");
        end
        if (r_stall && (m_axil_rresp !== r_stall_resp || m_axil_rdata !== r_stall_data)) begin
            $fatal(1, "axil_master %m: rdata/rresp changed while waiting for rready");
        end
        if (m_axil_bvalid && !wr_req_sent) begin
            $fatal(1, "axil_master %m: bvalid without a write whose AW and W were both accepted");
        end
        if (m_axil_rvalid && !rd_req_sent) begin
            $fatal(1, "axil_master %m: rvalid without an accepted read");
        end
        if (m_axil_bvalid && (^m_axil_bresp) === 1'bx) begin
            $fatal(1, "axil_master %m: X on bresp");
        end
        if (m_axil_rvalid && (^{m_axil_rresp, m_axil_rdata}) === 1'bx) begin
            $fatal(1, "axil_master %m: X on rresp/rdata: 0x%08h", m_axil_rdata);
        end
        b_stall = m_axil_bvalid && !m_axil_bready;
        b_stall_resp = m_axil_bresp;
        r_stall = m_axil_rvalid && !m_axil_rready;
        r_stall_resp = m_axil_rresp;
        r_stall_data = m_axil_rdata;
    end
end

endmodule
