// tb_via_axil_slave: self-checking bench for rtl/via_axil_slave.v.
//
// axil_master -> via_axil_slave -> a register-port target model in this
// bench: 1024 words of memory, ack after a random 0..3 cycles (0: in the same
// cycle as the request), response chosen by address bits 13:12 (OKAY, SLVERR,
// DECERR, OKAY). The bench checks:
//   - data and strobes written, data read, responses passed through;
//   - the request stays up and stable until acked, one access at a time per
//     direction, each AXI-Lite write/read performs exactly one access;
//   - AW before W, W before AW and both in the same cycle all occur; B and R
//     see back-pressure (axil_master checks they are held);
//   - reads and writes running at the same time from two processes;
//   - the fastest settings give a write or a read every 3 to 4 cycles.

`timescale 1ns / 1ps

module tb_via_axil_slave;

localparam ADDR_WIDTH = 16;

reg clk = 1'b0;
reg rst = 1'b1;

always #5 clk = ~clk;

reg [8*256-1:0] vcd_file;

initial begin
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_axil_slave);
    end
end

initial begin
    #5000000;
    $fatal(1, "tb_via_axil_slave: watchdog timeout");
end

wire [ADDR_WIDTH-1:0] awaddr, araddr;
wire [2:0]            awprot, arprot;
wire                  awvalid, awready, wvalid, wready, bvalid, bready;
wire                  arvalid, arready, rvalid, rready;
wire [31:0]           wdata, rdata;
wire [3:0]            wstrb;
wire [1:0]            bresp, rresp;

wire [ADDR_WIDTH-1:0] reg_wr_addr, reg_rd_addr;
wire [31:0]           reg_wr_data;
wire [3:0]            reg_wr_strb;
wire                  reg_wr_en, reg_rd_en;
wire                  reg_wr_ack, reg_rd_ack;
wire [1:0]            reg_wr_resp, reg_rd_resp;
wire [31:0]           reg_rd_data;

axil_master #(
    .ADDR_WIDTH(ADDR_WIDTH),
    .MAX_DELAY(3),
    .READY_PCT(50)
) master (
    .clk(clk),
    .rst(rst),
    .m_axil_awaddr(awaddr),
    .m_axil_awprot(awprot),
    .m_axil_awvalid(awvalid),
    .m_axil_awready(awready),
    .m_axil_wdata(wdata),
    .m_axil_wstrb(wstrb),
    .m_axil_wvalid(wvalid),
    .m_axil_wready(wready),
    .m_axil_bresp(bresp),
    .m_axil_bvalid(bvalid),
    .m_axil_bready(bready),
    .m_axil_araddr(araddr),
    .m_axil_arprot(arprot),
    .m_axil_arvalid(arvalid),
    .m_axil_arready(arready),
    .m_axil_rdata(rdata),
    .m_axil_rresp(rresp),
    .m_axil_rvalid(rvalid),
    .m_axil_rready(rready)
);

via_axil_slave #(
    .ADDR_WIDTH(ADDR_WIDTH)
) dut (
    .clk(clk),
    .rst(rst),
    .s_axil_awaddr(awaddr),
    .s_axil_awprot(awprot),
    .s_axil_awvalid(awvalid),
    .s_axil_awready(awready),
    .s_axil_wdata(wdata),
    .s_axil_wstrb(wstrb),
    .s_axil_wvalid(wvalid),
    .s_axil_wready(wready),
    .s_axil_bresp(bresp),
    .s_axil_bvalid(bvalid),
    .s_axil_bready(bready),
    .s_axil_araddr(araddr),
    .s_axil_arprot(arprot),
    .s_axil_arvalid(arvalid),
    .s_axil_arready(arready),
    .s_axil_rdata(rdata),
    .s_axil_rresp(rresp),
    .s_axil_rvalid(rvalid),
    .s_axil_rready(rready),
    .reg_wr_addr(reg_wr_addr),
    .reg_wr_data(reg_wr_data),
    .reg_wr_strb(reg_wr_strb),
    .reg_wr_en(reg_wr_en),
    .reg_wr_ack(reg_wr_ack),
    .reg_wr_resp(reg_wr_resp),
    .reg_rd_addr(reg_rd_addr),
    .reg_rd_en(reg_rd_en),
    .reg_rd_ack(reg_rd_ack),
    .reg_rd_data(reg_rd_data),
    .reg_rd_resp(reg_rd_resp)
);

// ------------------------------------------------------------ target model

reg [31:0] mem [0:1023];
reg [31:0] shadow [0:1023];
integer seed;

// xorshift32 ($random(seed) degenerates in Verilator 5)
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

integer wr_lat, wr_cnt, rd_lat, rd_cnt, max_lat;
integer wr_accesses, rd_accesses;

function [1:0] resp_of;
    input [ADDR_WIDTH-1:0] addr;
    begin
        case (addr[13:12])
            2'd1: resp_of = 2'b10;
            2'd2: resp_of = 2'b11;
            default: resp_of = 2'b00;
        endcase
    end
endfunction

function [31:0] merge;
    input [31:0] old;
    input [31:0] data;
    input [3:0] strb;
    integer b;
    begin
        merge = old;
        for (b = 0; b < 4; b = b + 1) begin
            if (strb[b]) begin
                merge[b*8 +: 8] = data[b*8 +: 8];
            end
        end
    end
endfunction

assign reg_wr_ack  = reg_wr_en && wr_cnt >= wr_lat;
assign reg_wr_resp = resp_of(reg_wr_addr);
assign reg_rd_ack  = reg_rd_en && rd_cnt >= rd_lat;
assign reg_rd_data = reg_rd_ack ? mem[reg_rd_addr[11:2]] : 32'hxxxxxxxx;
assign reg_rd_resp = resp_of(reg_rd_addr);

reg                  wr_wait, rd_wait;
reg [ADDR_WIDTH-1:0] wr_wait_addr, rd_wait_addr;
reg [31:0]           wr_wait_data;
reg [3:0]            wr_wait_strb;

initial begin
    if (!$value$plusargs("seed=%d", seed)) begin
        seed = 1;
    end
    rng = seed * 32'h9e3779b1 + 32'd77;
    if (rng == 32'd0) begin
        rng = 32'h2545f491;
    end
    max_lat = 3;
    wr_lat = 0;
    wr_cnt = 0;
    rd_lat = 0;
    rd_cnt = 0;
    wr_accesses = 0;
    rd_accesses = 0;
    wr_wait = 1'b0;
    rd_wait = 1'b0;
end

always @(negedge clk) begin
    if (!rst) begin
        if (wr_wait && (!reg_wr_en || reg_wr_addr !== wr_wait_addr || reg_wr_data !== wr_wait_data
                || reg_wr_strb !== wr_wait_strb)) begin
            $fatal(1, "tb_via_axil_slave: write request dropped or changed before its ack");
        end
        if (rd_wait && (!reg_rd_en || reg_rd_addr !== rd_wait_addr)) begin
            $fatal(1, "tb_via_axil_slave: read request dropped or changed before its ack");
        end
        if (reg_wr_en && !master.wr_req_sent) begin
            $fatal(1, "tb_via_axil_slave: write request before AW and W were both accepted");
        end
        if (reg_rd_en && !master.rd_req_sent) begin
            $fatal(1, "tb_via_axil_slave: read request before AR was accepted");
        end
        wr_wait = reg_wr_en && !reg_wr_ack;
        wr_wait_addr = reg_wr_addr;
        wr_wait_data = reg_wr_data;
        wr_wait_strb = reg_wr_strb;
        rd_wait = reg_rd_en && !reg_rd_ack;
        rd_wait_addr = reg_rd_addr;
    end
end

reg [31:0] lat_r;

always @(posedge clk) begin
    if (rst) begin
        wr_cnt <= 0;
        rd_cnt <= 0;
    end else if (reg_wr_en && reg_wr_ack) begin
        if (resp_of(reg_wr_addr) == 2'b00) begin
            mem[reg_wr_addr[11:2]] <= merge(mem[reg_wr_addr[11:2]], reg_wr_data, reg_wr_strb);
        end
        wr_accesses <= wr_accesses + 1;
        wr_cnt <= 0;
        rand32(lat_r);
        wr_lat <= lat_r % (max_lat + 1);
    end else if (reg_wr_en) begin
        wr_cnt <= wr_cnt + 1;
    end
    if (rst) begin
        // nothing
    end else if (reg_rd_en && reg_rd_ack) begin
        rd_accesses <= rd_accesses + 1;
        rd_cnt <= 0;
        rand32(lat_r);
        rd_lat <= lat_r % (max_lat + 1);
    end else if (reg_rd_en) begin
        rd_cnt <= rd_cnt + 1;
    end
end

// ------------------------------------------------------------ coverage

integer aw_first, w_first, aw_w_same, b_stalls, r_stalls;
integer aw_time, w_time;
reg aw_pending, w_pending;

initial begin
    aw_first = 0;
    w_first = 0;
    aw_w_same = 0;
    b_stalls = 0;
    r_stalls = 0;
    aw_pending = 1'b0;
    w_pending = 1'b0;
end

always @(negedge clk) begin
    if (awvalid && awready && wvalid && wready) begin
        aw_w_same = aw_w_same + 1;
    end else if (awvalid && awready) begin
        if (w_pending) begin
            w_first = w_first + 1;
            w_pending = 1'b0;
        end else begin
            aw_pending = 1'b1;
        end
    end else if (wvalid && wready) begin
        if (aw_pending) begin
            aw_first = aw_first + 1;
            aw_pending = 1'b0;
        end else begin
            w_pending = 1'b1;
        end
    end
    if (bvalid && !bready) b_stalls = b_stalls + 1;
    if (rvalid && !rready) r_stalls = r_stalls + 1;
end

// ------------------------------------------------------------ test

integer i, n, t0, t1;
reg [ADDR_WIDTH-1:0] a;
reg [31:0] d, got, r;
reg [3:0] s;
reg [1:0] resp;
reg writer_done, reader_done;

initial begin
    for (i = 0; i < 1024; i = i + 1) begin
        mem[i] = i * 32'h01010101 + 32'h5a000000;
        shadow[i] = mem[i];
    end
    writer_done = 1'b0;
    reader_done = 1'b0;
    repeat (5) @(posedge clk);
    #1;
    rst = 1'b0;
    @(posedge clk);

    // 1. random writes and reads, one at a time
    for (n = 0; n < 400; n = n + 1) begin
        rand32(r);
        a = r[ADDR_WIDTH-1:0];  // also unaligned: the target sees the address as is
        rand32(d);
        rand32(r);
        s = r[3:0];
        rand32(r);
        if (r[7]) begin
            master.axil_write(a, d, s, resp_of(a));
            if (resp_of(a) == 2'b00) begin
                shadow[a[11:2]] = merge(shadow[a[11:2]], d, s);
            end
        end else begin
            master.axil_read(a, got, resp);
            if (resp !== resp_of(a) || got !== shadow[a[11:2]]) begin
                $fatal(1, "tb_via_axil_slave: read 0x%0h: 0x%08h resp %0d, expected 0x%08h resp %0d",
                    a, got, resp, shadow[a[11:2]], resp_of(a));
            end
        end
    end
    if (wr_accesses != master.writes_done || rd_accesses != master.reads_done) begin
        $fatal(1, "tb_via_axil_slave: %0d/%0d accesses for %0d/%0d transactions",
            wr_accesses, rd_accesses, master.writes_done, master.reads_done);
    end

    // 2. writes (words 0..511) and reads (512..1023) at the same time
    fork
        begin
            for (i = 0; i < 150; i = i + 1) begin
                rand32(r);
                a = r % 512 * 4;
                rand32(d);
                master.axil_write(a, d, 4'hf, 2'b00);
                shadow[a[11:2]] = d;
            end
        end
        begin
            for (n = 0; n < 150; n = n + 1) begin
                rand32(got);
                got = 512 + got % 512;
                master.axil_read_check(got * 4, shadow[got], 2'b00);
            end
        end
    join
    for (i = 0; i < 1024; i = i + 1) begin
        if (mem[i] !== shadow[i]) begin
            $fatal(1, "tb_via_axil_slave: word %0d is 0x%08h, expected 0x%08h", i, mem[i], shadow[i]);
        end
    end

    // 3. fastest: one write every 3..4 cycles with a single-cycle target
    master.max_delay = 0;
    master.ready_pct = 100;
    max_lat = 0;
    master.axil_write(16'h0040, 32'h0, 4'hf, 2'b00);
    master.axil_read_check(16'h0040, 32'h0, 2'b00);
    t0 = $time;
    master.axil_write(16'h0040, 32'h12345678, 4'hf, 2'b00);
    t1 = $time;
    if ((t1 - t0) / 10 > 5) begin
        $fatal(1, "tb_via_axil_slave: a write took %0d cycles", (t1 - t0) / 10);
    end
    master.axil_read_check(16'h0040, 32'h12345678, 2'b00);

    if (aw_first == 0 || w_first == 0 || aw_w_same == 0 || b_stalls == 0 || r_stalls == 0) begin
        $fatal(1, "tb_via_axil_slave: coverage: AW first %0d, W first %0d, same cycle %0d, B stalls %0d, R stalls %0d",
            aw_first, w_first, aw_w_same, b_stalls, r_stalls);
    end
    $display("tb_via_axil_slave: %0d writes, %0d reads; AW first %0d, W first %0d, same cycle %0d, B stalls %0d, R stalls %0d",
        master.writes_done, master.reads_done, aw_first, w_first, aw_w_same, b_stalls, r_stalls);
    $display("PASS");
    $finish;
end

endmodule
