// tb_via_dma_diag_xlat_env: translated copies of via_dma_diag through a real
// via_tpt. The engine and the TPT's page-list fetch share the memory's read
// channels through via_axi_rd_arb (as in via_nic); the TPT's lookups come
// straight from the engine (tag bit 1 = 0). The bench programs the regions
// on via_tpt's prog port and writes their page lists into the memory model.
//
// Memory: MEM_BYTES of 4 KiB pages; page 0 holds the page lists, the data
// pages of the regions are a random permutation of the others (scattered,
// out of order). Checks:
//   1. random translated copies (page-crossing, unaligned region bases,
//      64-bit virtual addresses, both access kinds allowed on each side,
//      random burst limits, with and without back-pressure): every byte of
//      the destination region compared with the source through the bench's
//      own translation, the whole memory compared with a shadow (nothing
//      else written), done without error, bytes = length;
//   2. every TPT error class through the engine (HANDLE: handle 0, an
//      unregistered index, an index beyond REGIONS; STALE; PTAG; ACCESS on
//      either side; BOUNDS below, beyond and at the end of the VA space;
//      FETCH: a page list outside the memory): error, XLAT_ERR, the code, the
//      side, err_addr = the VA looked up, nothing written, no burst issued;
//   3. deregistration (INVALIDATE) of the source, then of the destination,
//      during a long copy: the copy ends with STALE on that side, exactly the
//      acknowledged prefix of the destination is written (and equals the
//      source), and INVALIDATE's BUSY does not fall before every burst the
//      engine had issued before the command has completed (the fence); a
//      copy with the old handle then fails with STALE before moving
//      anything;
//   4. inflight_epoch is 0 whenever the engine is idle; an ABORT in the
//      middle of a translated copy drains it (prefix written, no
//      translation error);
//   5. bandwidth: an 8-page translated copy (scattered pages, no
//      back-pressure) against a physical copy of the same length, both
//      printed (the cycles of the translated one must stay within 10% of the
//      physical one).

`timescale 1ns / 1ps

`define XFAIL(msg) begin $display("FAIL %m: %0s", msg); failed = 1'b1; #1; end

module tb_via_dma_diag_xlat_env #(
    parameter DATA_WIDTH = 64,
    parameter ADDR_WIDTH = 48,
    parameter ID_WIDTH = 4,
    parameter MAX_BURST = 16,
    parameter MAX_OUTSTANDING = 4,
    parameter MEM_BYTES = 262144,
    parameter READ_LATENCY = 12,
    parameter WRITE_LATENCY = 4,
    parameter READY_PROB = 50,
    parameter RANDOM_COPIES = 8,
    parameter SALT = 7
) (
    input  wire clk,
    input  wire rst,
    output reg  finished
);

localparam BYTES = DATA_WIDTH / 8;
localparam PAGES = MEM_BYTES / 4096;
localparam REGIONS = 16;
localparam WATCHDOG = 400000;
localparam [ID_WIDTH-1:0] FETCH_ID = 1;
// region pages at most (the page list of region k lives at k * 256)
localparam RPAGES = 12;

// ------------------------------------------------------------- DUT

`include "via_bar0.vh"

// a copy's parameters; issue_start writes them to the DIAG registers
reg  [63:0] src_addr, dst_addr;
reg  [31:0] len;
reg         abort;
reg  [8:0]  cfg_max_burst;
reg  [3:0]  cfg_max_outstanding;
reg  [1:0]  src_kind, dst_kind;
reg  [15:0] ptag;
reg  [31:0] src_handle, dst_handle;
reg         xlat_mode;
// the register-block bus
reg         wr_en, rd_en;
reg  [15:0] wr_addr, rd_addr;
reg  [31:0] wr_data;
wire [31:0] rd_data;
wire        wr_hit, rd_hit, start_pulse;
wire        busy, done_pulse;
// the engine's status (the registers are compared with it after each copy)
wire        done = dut.done;
wire        error = dut.error;
wire        rd_err = dut.rd_err;
wire        wr_err = dut.wr_err;
wire        xlat_err = dut.xlat_err;
wire        xlat_dst = dut.xlat_dst;
wire [2:0]  xlat_code = dut.xlat_code;
wire [31:0] cycles = dut.cycles;
wire [31:0] bytes = dut.bytes;
wire [31:0] rd_bursts = dut.rd_bursts;
wire [31:0] wr_bursts = dut.wr_bursts;
wire [63:0] err_addr = dut.err_addr;

wire        lk_valid, lk_ready, lk_tag, rs_valid, rs_ready, rs_hit, rs_epoch;
wire [31:0] lk_handle, lk_len;
wire [63:0] lk_va;
wire [15:0] lk_ptag;
wire [1:0]  lk_kind, inflight_epoch, rs_tag2;
wire [2:0]  rs_err;
wire [ADDR_WIDTH-1:0] rs_pa;
wire [12:0] rs_bytes;

wire [ID_WIDTH-1:0]     axi_awid, axi_bid, axi_arid, axi_rid, d_arid, t_arid;
wire [ADDR_WIDTH-1:0]   axi_awaddr, axi_araddr, d_araddr, t_araddr;
wire [7:0]              axi_awlen, axi_arlen, d_arlen, t_arlen;
wire [2:0]              axi_awsize, axi_arsize, axi_awprot, axi_arprot, d_arsize, t_arsize, d_arprot;
wire [1:0]              axi_awburst, axi_arburst, axi_bresp, axi_rresp, d_arburst, t_arburst;
wire                    axi_awlock, axi_arlock, d_arlock;
wire [3:0]              axi_awcache, axi_arcache, d_arcache;
wire                    axi_awvalid, axi_awready, axi_wlast, axi_wvalid, axi_wready;
wire                    axi_bvalid, axi_bready, axi_arvalid, axi_arready;
wire                    axi_rlast, axi_rvalid, axi_rready;
wire                    d_arvalid, d_arready, d_rvalid, d_rready, t_arvalid, t_arready, t_rvalid, t_rready;
wire                    t_rd_busy;
wire [DATA_WIDTH-1:0]   axi_wdata, axi_rdata;
wire [DATA_WIDTH/8-1:0] axi_wstrb;

via_dma_diag #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .MAX_BURST(MAX_BURST),
    .MAX_OUTSTANDING(MAX_OUTSTANDING)
) dut (
    .clk(clk),
    .rst(rst),
    .wr_en(wr_en),
    .wr_addr(wr_addr),
    .wr_data(wr_data),
    .wr_strb(4'hf),
    .wr_hit(wr_hit),
    .rd_en(rd_en),
    .rd_addr(rd_addr),
    .rd_fire(1'b0),
    .rd_hit(rd_hit),
    .rd_data(rd_data),
    .ext_abort(abort),
    .busy(busy),
    .start_pulse(start_pulse),
    .done_pulse(done_pulse),
    .lk_valid(lk_valid),
    .lk_ready(lk_ready),
    .lk_handle(lk_handle),
    .lk_va(lk_va),
    .lk_len(lk_len),
    .lk_ptag(lk_ptag),
    .lk_kind(lk_kind),
    .lk_tag(lk_tag),
    .rs_valid(rs_valid),
    .rs_ready(rs_ready),
    .rs_err(rs_err),
    .rs_pa(rs_pa),
    .rs_bytes(rs_bytes),
    .rs_hit(rs_hit),
    .rs_epoch(rs_epoch),
    .rs_tag(rs_tag2[0]),
    .inflight_epoch(inflight_epoch),
    .m_axi_awid(axi_awid),
    .m_axi_awaddr(axi_awaddr),
    .m_axi_awlen(axi_awlen),
    .m_axi_awsize(axi_awsize),
    .m_axi_awburst(axi_awburst),
    .m_axi_awlock(axi_awlock),
    .m_axi_awcache(axi_awcache),
    .m_axi_awprot(axi_awprot),
    .m_axi_awvalid(axi_awvalid),
    .m_axi_awready(axi_awready),
    .m_axi_wdata(axi_wdata),
    .m_axi_wstrb(axi_wstrb),
    .m_axi_wlast(axi_wlast),
    .m_axi_wvalid(axi_wvalid),
    .m_axi_wready(axi_wready),
    .m_axi_bid(axi_bid),
    .m_axi_bresp(axi_bresp),
    .m_axi_bvalid(axi_bvalid),
    .m_axi_bready(axi_bready),
    .m_axi_arid(d_arid),
    .m_axi_araddr(d_araddr),
    .m_axi_arlen(d_arlen),
    .m_axi_arsize(d_arsize),
    .m_axi_arburst(d_arburst),
    .m_axi_arlock(d_arlock),
    .m_axi_arcache(d_arcache),
    .m_axi_arprot(d_arprot),
    .m_axi_arvalid(d_arvalid),
    .m_axi_arready(d_arready),
    .m_axi_rid(axi_rid),
    .m_axi_rdata(axi_rdata),
    .m_axi_rresp(axi_rresp),
    .m_axi_rlast(axi_rlast),
    .m_axi_rvalid(d_rvalid),
    .m_axi_rready(d_rready)
);

// the TPT, programmed by the bench
reg         prog_valid;
reg  [2:0]  prog_op;
reg  [15:0] prog_index;
reg  [63:0] prog_va;
reg  [31:0] prog_len;
reg  [15:0] prog_ptag;
reg         prog_rdma_write, prog_rdma_read;
reg  [63:0] prog_pl;
wire        prog_busy;
wire [63:0] prog_rd_va, prog_rd_pl;
wire [31:0] prog_rd_len;
wire [15:0] prog_rd_ptag, prog_rd_gen;
wire        prog_rd_rdma_write, prog_rd_rdma_read, prog_rd_valid;
wire        st_lookup, st_hit, st_miss, st_error;

via_tpt #(
    .REGIONS(REGIONS),
    .CACHE_ENTRIES(64),
    .ADDR_WIDTH(ADDR_WIDTH),
    .DATA_WIDTH(DATA_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .FETCH_ID(FETCH_ID),
    .TAG_WIDTH(2)
) tpt (
    .clk(clk),
    .rst(rst),
    .prog_valid(prog_valid),
    .prog_op(prog_op),
    .prog_index(prog_index),
    .prog_va(prog_va),
    .prog_len(prog_len),
    .prog_ptag(prog_ptag),
    .prog_rdma_write(prog_rdma_write),
    .prog_rdma_read(prog_rdma_read),
    .prog_pl(prog_pl),
    .prog_busy(prog_busy),
    .prog_rd_va(prog_rd_va),
    .prog_rd_len(prog_rd_len),
    .prog_rd_ptag(prog_rd_ptag),
    .prog_rd_rdma_write(prog_rd_rdma_write),
    .prog_rd_rdma_read(prog_rd_rdma_read),
    .prog_rd_pl(prog_rd_pl),
    .prog_rd_valid(prog_rd_valid),
    .prog_rd_gen(prog_rd_gen),
    .lk_valid(lk_valid),
    .lk_ready(lk_ready),
    .lk_handle(lk_handle),
    .lk_va(lk_va),
    .lk_len(lk_len),
    .lk_ptag(lk_ptag),
    .lk_kind(lk_kind),
    .lk_tag({1'b0, lk_tag}),
    .rs_valid(rs_valid),
    .rs_ready(rs_ready),
    .rs_err(rs_err),
    .rs_pa(rs_pa),
    .rs_bytes(rs_bytes),
    .rs_hit(rs_hit),
    .rs_epoch(rs_epoch),
    .rs_tag(rs_tag2),
    .inflight_epoch(inflight_epoch),
    .m_axi_arid(t_arid),
    .m_axi_araddr(t_araddr),
    .m_axi_arlen(t_arlen),
    .m_axi_arsize(t_arsize),
    .m_axi_arburst(t_arburst),
    .m_axi_arvalid(t_arvalid),
    .m_axi_arready(t_arready),
    .m_axi_rid(axi_rid),
    .m_axi_rdata(axi_rdata),
    .m_axi_rresp(axi_rresp),
    .m_axi_rlast(axi_rlast),
    .m_axi_rvalid(t_rvalid),
    .m_axi_rready(t_rready),
    .st_lookup(st_lookup),
    .st_hit(st_hit),
    .st_miss(st_miss),
    .st_error(st_error)
);

via_axi_rd_arb #(
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .S1_ID(FETCH_ID)
) arb (
    .clk(clk),
    .rst(rst),
    .s0_axi_arid(d_arid),
    .s0_axi_araddr(d_araddr),
    .s0_axi_arlen(d_arlen),
    .s0_axi_arsize(d_arsize),
    .s0_axi_arburst(d_arburst),
    .s0_axi_arlock(d_arlock),
    .s0_axi_arcache(d_arcache),
    .s0_axi_arprot(d_arprot),
    .s0_axi_arvalid(d_arvalid),
    .s0_axi_arready(d_arready),
    .s0_axi_rvalid(d_rvalid),
    .s0_axi_rready(d_rready),
    .s1_axi_arid(t_arid),
    .s1_axi_araddr(t_araddr),
    .s1_axi_arlen(t_arlen),
    .s1_axi_arsize(t_arsize),
    .s1_axi_arburst(t_arburst),
    .s1_axi_arlock(1'b0),
    .s1_axi_arcache(4'b0011),
    .s1_axi_arprot(3'b010),
    .s1_axi_arvalid(t_arvalid),
    .s1_axi_arready(t_arready),
    .s1_axi_rvalid(t_rvalid),
    .s1_axi_rready(t_rready),
    .m_axi_arid(axi_arid),
    .m_axi_araddr(axi_araddr),
    .m_axi_arlen(axi_arlen),
    .m_axi_arsize(axi_arsize),
    .m_axi_arburst(axi_arburst),
    .m_axi_arlock(axi_arlock),
    .m_axi_arcache(axi_arcache),
    .m_axi_arprot(axi_arprot),
    .m_axi_arvalid(axi_arvalid),
    .m_axi_arready(axi_arready),
    .m_axi_rid(axi_rid),
    .m_axi_rlast(axi_rlast),
    .m_axi_rvalid(axi_rvalid),
    .m_axi_rready(axi_rready),
    .busy1(t_rd_busy)
);

axi_ram_model #(
    .DATA_WIDTH(DATA_WIDTH),
    .ADDR_WIDTH(ADDR_WIDTH),
    .ID_WIDTH(ID_WIDTH),
    .MEM_BYTES(MEM_BYTES),
    .READ_LATENCY(READ_LATENCY),
    .WRITE_LATENCY(WRITE_LATENCY),
    .READY_PROB(100),
    .SEED_SALT(SALT)
) ram (
    .clk(clk),
    .rst(rst),
    .s_axi_awid(axi_awid),
    .s_axi_awaddr(axi_awaddr),
    .s_axi_awlen(axi_awlen),
    .s_axi_awsize(axi_awsize),
    .s_axi_awburst(axi_awburst),
    .s_axi_awlock(axi_awlock),
    .s_axi_awcache(axi_awcache),
    .s_axi_awprot(axi_awprot),
    .s_axi_awvalid(axi_awvalid),
    .s_axi_awready(axi_awready),
    .s_axi_wdata(axi_wdata),
    .s_axi_wstrb(axi_wstrb),
    .s_axi_wlast(axi_wlast),
    .s_axi_wvalid(axi_wvalid),
    .s_axi_wready(axi_wready),
    .s_axi_bid(axi_bid),
    .s_axi_bresp(axi_bresp),
    .s_axi_bvalid(axi_bvalid),
    .s_axi_bready(axi_bready),
    .s_axi_arid(axi_arid),
    .s_axi_araddr(axi_araddr),
    .s_axi_arlen(axi_arlen),
    .s_axi_arsize(axi_arsize),
    .s_axi_arburst(axi_arburst),
    .s_axi_arlock(axi_arlock),
    .s_axi_arcache(axi_arcache),
    .s_axi_arprot(axi_arprot),
    .s_axi_arvalid(axi_arvalid),
    .s_axi_arready(axi_arready),
    .s_axi_rid(axi_rid),
    .s_axi_rdata(axi_rdata),
    .s_axi_rresp(axi_rresp),
    .s_axi_rlast(axi_rlast),
    .s_axi_rvalid(axi_rvalid),
    .s_axi_rready(axi_rready)
);

// ------------------------------------------------------------- bench state

integer seed;
`include "bench_random.vh"

reg [7:0] exp_mem [0:MEM_BYTES-1];
// pages of exp_mem or ram.mem the bench wrote since the last check_mem (with
// the model's page_written: the pages check_mem compares; every other page
// is as the last check left it on both sides)
reg [PAGES-1:0] tb_written = {PAGES{1'b1}};

// regions as the bench registered them: base VA, length, page list, handle
reg [63:0] r_va [0:REGIONS-1];
reg [31:0] r_len [0:REGIONS-1];
reg [63:0] r_pg [0:REGIONS*RPAGES-1];   // physical page of page i of region k at k*RPAGES+i
reg [31:0] r_handle [0:REGIONS-1];

reg failed = 1'b0;
always @(posedge failed) begin
    $display("  copy src 0x%0h (h 0x%0h kind %0d) dst 0x%0h (h 0x%0h kind %0d) len %0d ptag 0x%0h",
        src_addr, src_handle, src_kind, dst_addr, dst_handle, dst_kind, len, ptag);
    $display("  status done %b error %b xlat_err %b dst %b code %0d rd_err %b wr_err %b err_addr 0x%0h bytes %0d rd %0d wr %0d",
        done, error, xlat_err, xlat_dst, xlat_code, rd_err, wr_err, err_addr, bytes, rd_bursts, wr_bursts);
    $fatal(1, "%m: check failed (see FAIL above)");
end

task tick;
    begin
        @(posedge clk);
        #1;
    end
endtask

// one TPT command; waits until the TPT is idle before and after
task tpt_cmd;
    input [2:0]  op;
    input [15:0] idx;
    input [63:0] va;
    input [31:0] n;
    input [15:0] tag;
    input        rw;
    input        rr;
    input [63:0] pl;
    integer k;
    begin
        k = 0;
        while (prog_busy) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("TPT busy for ever")
        end
        prog_op = op;
        prog_index = idx;
        prog_va = va;
        prog_len = n;
        prog_ptag = tag;
        prog_rdma_write = rw;
        prog_rdma_read = rr;
        prog_pl = pl;
        prog_valid = 1'b1;
        tick;
        prog_valid = 1'b0;
        tick;
        while (prog_busy) begin
            tick;
            k = k + 1;
            if (k > WATCHDOG) `XFAIL("TPT command never finished")
        end
    end
endtask

// physical address of a virtual address of region k
function [63:0] pa_of;
    input integer k;
    input [63:0] va;
    reg [63:0] pi;
    begin
        pi = (va >> 12) - (r_va[k] >> 12);
        pa_of = r_pg[k * RPAGES + pi] + (va & 64'hfff);
    end
endfunction

// registers region k: VA base, length, data pages drawn from the free list,
// the page list written into page 0 at k*256
integer free_pg [0:PAGES-1];
integer free_n;

task region_new;
    input integer k;
    input [63:0] va;
    input [31:0] n;
    input [15:0] tag;
    input        rw;
    input        rr;
    integer i, np, j;
    reg [63:0] pg;
    begin
        r_va[k] = va;
        r_len[k] = n;
        np = (((va & 64'hfff) + n + 64'hfff) >> 12);
        for (i = 0; i < np; i = i + 1) begin
            if (free_n == 0) `XFAIL("bench: out of pages")
            j = {$random(seed)} % free_n;
            pg = free_pg[j] * 4096;
            free_pg[j] = free_pg[free_n - 1];
            free_n = free_n - 1;
            r_pg[k * RPAGES + i] = pg;
            for (j = 0; j < 8; j = j + 1) begin
                ram.mem[k * 256 + i * 8 + j] = pg[8*j +: 8];
                exp_mem[k * 256 + i * 8 + j] = pg[8*j +: 8];
                tb_written[(k * 256 + i * 8 + j) >> 12] = 1'b1;
            end
        end
        tpt_cmd(3'd1, k, va, n, tag, rw, rr, k * 256);
        if (prog_rd_valid !== 1'b1) `XFAIL("WRITE: region not valid")
        r_handle[k] = {prog_rd_gen, k[15:0]};
    end
endtask

// returns a region's pages to the free list
task region_free;
    input integer k;
    integer i, np;
    begin
        np = (((r_va[k] & 64'hfff) + r_len[k] + 64'hfff) >> 12);
        for (i = 0; i < np; i = i + 1) begin
            free_pg[free_n] = r_pg[k * RPAGES + i] / 4096;
            free_n = free_n + 1;
        end
    end
endtask

// the whole memory against the shadow: byte for byte, the pages either
// side wrote since the last check (a page neither wrote is as that check
// left it, equal on both sides; all 64 pages after every copy were some 4
// million byte compares per environment, seconds in Icarus)
task check_mem;
    integer p, a;
    begin
        for (p = 0; p < PAGES; p = p + 1) begin
            if (ram.page_written[p] || tb_written[p]) begin
                for (a = p * 4096; a < p * 4096 + 4096; a = a + 1) begin
                    if (ram.mem[a] !== exp_mem[a]) begin
                        $display("FAIL %m: byte 0x%0h is 0x%02h, expected 0x%02h", a, ram.mem[a], exp_mem[a]);
                        failed = 1'b1;
                        #1;
                    end
                end
            end
        end
        ram.page_written = {PAGES{1'b0}};
        tb_written = {PAGES{1'b0}};
    end
endtask

// one register write at the next rising edge (from a falling one)
task bus_write;
    input [15:0] a;
    input [31:0] d;
    begin
        @(negedge clk);
        wr_en = 1'b1;
        wr_addr = a;
        wr_data = d;
        #1;
        if (!wr_hit) `XFAIL("a DIAG register write did not hit the block")
    end
endtask

// writes the copy's parameters and START; returns at the falling edge after
// the rising edge at which the engine saw the start pulse
reg [31:0] xlat_word, cfg_word, rd_word;
task issue_start;
    begin
        bus_write(`VIA_REG_DIAG_SRC_LO, src_addr[31:0]);
        bus_write(`VIA_REG_DIAG_SRC_HI, src_addr[63:32]);
        bus_write(`VIA_REG_DIAG_DST_LO, dst_addr[31:0]);
        bus_write(`VIA_REG_DIAG_DST_HI, dst_addr[63:32]);
        bus_write(`VIA_REG_DIAG_LEN, len);
        cfg_word = 32'd0;
        cfg_word[`VIA_DIAG_CFG_MAX_BURST_RANGE] = cfg_max_burst;
        cfg_word[`VIA_DIAG_CFG_MAX_OUTSTANDING_RANGE] = cfg_max_outstanding;
        bus_write(`VIA_REG_DIAG_CFG, cfg_word);
        xlat_word = 32'd0;
        xlat_word[`VIA_DIAG_XLAT_MODE_RANGE] = xlat_mode;
        xlat_word[`VIA_DIAG_XLAT_SRC_KIND_RANGE] = src_kind;
        xlat_word[`VIA_DIAG_XLAT_DST_KIND_RANGE] = dst_kind;
        xlat_word[`VIA_DIAG_XLAT_PTAG_RANGE] = ptag;
        bus_write(`VIA_REG_DIAG_XLAT, xlat_word);
        bus_write(`VIA_REG_DIAG_SRC_HANDLE, src_handle);
        bus_write(`VIA_REG_DIAG_DST_HANDLE, dst_handle);
        bus_write(`VIA_REG_DIAG_CTRL, 32'd1 << `VIA_DIAG_CTRL_START_LSB);
        @(negedge clk);
        wr_en = 1'b0;
        if (!start_pulse || busy) `XFAIL("no START pulse the cycle after the DIAG_CTRL write")
        @(negedge clk);
        if (start_pulse) `XFAIL("START pulse longer than a cycle")
    end
endtask

// DIAG_STATUS and the counters read through the block, against the engine
task check_regs;
    begin
        rd_en = 1'b1;
        rd_addr = `VIA_REG_DIAG_STATUS;
        #0.01;
        rd_word = rd_data;
        if (!rd_hit || rd_word[`VIA_DIAG_STATUS_BUSY_LSB] !== busy || rd_word[`VIA_DIAG_STATUS_DONE_LSB] !== done
            || rd_word[`VIA_DIAG_STATUS_ERROR_LSB] !== error || rd_word[`VIA_DIAG_STATUS_RD_ERR_LSB] !== rd_err
            || rd_word[`VIA_DIAG_STATUS_WR_ERR_LSB] !== wr_err || rd_word[`VIA_DIAG_STATUS_XLAT_ERR_LSB] !== xlat_err
            || rd_word[`VIA_DIAG_STATUS_XLAT_DST_LSB] !== xlat_dst || rd_word[`VIA_DIAG_STATUS_XLAT_CODE_RANGE] !== xlat_code)
            `XFAIL("DIAG_STATUS differs from the engine's status")
        rd_addr = `VIA_REG_DIAG_BYTES;
        #0.01;
        if (rd_data !== bytes) `XFAIL("DIAG_BYTES differs from the engine's count")
        rd_addr = `VIA_REG_DIAG_ERR_ADDR_LO;
        #0.01;
        if (rd_data !== err_addr[31:0]) `XFAIL("DIAG_ERR_ADDR_LO differs from the engine's")
        rd_addr = `VIA_REG_DIAG_ERR_ADDR_HI;
        #0.01;
        if (rd_data !== err_addr[63:32]) `XFAIL("DIAG_ERR_ADDR_HI differs from the engine's")
        rd_en = 1'b0;
    end
endtask

// starts a copy and waits for done (fence checks run alongside)
integer t_cycles;
task run_copy;
    begin
        issue_start;
        t_cycles = 0;
        while (!done_pulse) begin
            @(negedge clk);
            t_cycles = t_cycles + 1;
            if (t_cycles > WATCHDOG) `XFAIL("copy never finished")
        end
        tick;
        check_regs;
    end
endtask

// a copy expected to fail a translation before moving anything
task expect_xerr;
    input [2:0]  code;
    input        side;
    input [63:0] va;
    begin
        run_copy;
        if (!done || !error || !xlat_err || xlat_code !== code || xlat_dst !== side || err_addr !== va
                || rd_err || wr_err || bytes !== 0 || wr_bursts !== 0 || rd_bursts !== 0)
            `XFAIL("translation error expected before any transfer")
    end
endtask

// ------------------------------------------------------------- monitors

// the fence: bursts of the engine issued and completed, counted from the
// handshakes (the engine's AR on its side of the arbiter)
integer ar_issued = 0, r_done = 0, aw_issued = 0, b_done = 0;
always @(posedge clk) begin
    if (!rst) begin
        if (d_arvalid && d_arready) ar_issued = ar_issued + 1;
        if (d_rvalid && d_rready && axi_rlast) r_done = r_done + 1;
        if (axi_awvalid && axi_awready) aw_issued = aw_issued + 1;
        if (axi_bvalid && axi_bready) b_done = b_done + 1;
        if (!busy && inflight_epoch !== 2'b00) begin
            $display("FAIL %m: inflight_epoch %b while idle", inflight_epoch);
            failed = 1'b1;
        end
    end
end

// ------------------------------------------------------------- test

localparam [15:0] PT = 16'h0301;
localparam K_SRC = 1, K_DST = 2, K_RO = 3, K_BAD = 4;

// the shadow after a copy of n bytes from src to dst: virtual addresses in
// K_SRC and K_DST (xlat 1) or physical ones (xlat 0)
task exp_copy;
    input        xlat;
    input [63:0] src;
    input [63:0] dst;
    input [63:0] n;
    reg [63:0] i, d;
    begin
        for (i = 0; i < n; i = i + 1) begin
            d = xlat ? pa_of(K_DST, dst + i) : dst + i;
            exp_mem[d] = exp_mem[xlat ? pa_of(K_SRC, src + i) : src + i];
            tb_written[d >> 12] = 1'b1;
        end
    end
endtask

integer pass, first_pass, n, i, a, k, snap_ar, snap_aw, fence_ok, wait_n;
reg [63:0] so, dof, l;
reg [31:0] r, copied, phys_cycles;

initial begin
    finished = 1'b0;
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    seed = seed * 7919 + SALT;
    abort = 1'b0;
    wr_en = 1'b0;
    rd_en = 1'b0;
    wr_addr = 16'd0;
    rd_addr = 16'd0;
    wr_data = 32'd0;
    prog_valid = 1'b0;
    prog_op = 3'd0;
    prog_index = 16'd0;
    prog_va = 64'd0;
    prog_len = 32'd0;
    prog_ptag = 16'd0;
    prog_rdma_write = 1'b0;
    prog_rdma_read = 1'b0;
    prog_pl = 64'd0;
    cfg_max_burst = 9'd0;
    cfg_max_outstanding = 4'd0;
    src_kind = 2'd0;
    dst_kind = 2'd1;
    xlat_mode = 1'b1;
    ptag = PT;
    src_handle = 32'd0;
    dst_handle = 32'd0;
    src_addr = 64'd0;
    dst_addr = 64'd0;
    len = 32'd0;
    free_n = 0;
    for (i = 1; i < PAGES; i = i + 1) begin
        free_pg[free_n] = i;
        free_n = free_n + 1;
    end
    for (a = 0; a < MEM_BYTES; a = a + 4) begin
        r = $random(seed);
        for (i = 0; i < 4; i = i + 1) begin
            ram.mem[a + i] = r[8*i +: 8];
            exp_mem[a + i] = r[8*i +: 8];
        end
    end
    wait (rst === 1'b0);
    repeat (5) tick;
    while (prog_busy) tick;

    // regions: source (RDMA read allowed), destination (RDMA write
    // allowed), a read-only one with no RDMA enables, one whose page list
    // lies outside the memory
    region_new(K_SRC, 64'h00007f12_34567000 + 64'h9a8, 32'd9 * 4096 + 32'd808, PT, 1'b0, 1'b1);
    region_new(K_DST, 64'hffff8000_00001000 + 64'h120, 32'd10 * 4096 + 32'd64, PT, 1'b1, 1'b0);
    region_new(K_RO, 64'h00000000_10000000, 32'd2 * 4096, PT, 1'b0, 1'b0);
    tpt_cmd(3'd1, K_BAD, 64'h40000000, 32'd8192, PT, 1'b1, 1'b1, MEM_BYTES + 64'h1000);
    r_handle[K_BAD] = {prog_rd_gen, 16'd4};
    r_va[K_BAD] = 64'h40000000;

    // 5. bandwidth: physical copy of 8 pages between the page-list page's
    // neighbours... (any two physical ranges: the shadow follows), then the
    // same length translated
    ram.set_ready_prob(100);
    xlat_mode = 1'b0;
    src_addr = 64'h1000;
    dst_addr = 64'h1000 + 64'd8 * 4096;
    len = 32'd8 * 4096;
    exp_copy(1'b0, src_addr, dst_addr, len);
    run_copy;
    if (!done || error || bytes !== len) `XFAIL("physical copy failed")
    phys_cycles = cycles;
    check_mem;
    xlat_mode = 1'b1;
    src_handle = r_handle[K_SRC];
    dst_handle = r_handle[K_DST];
    src_addr = ((r_va[K_SRC] + 64'd4096 - (r_va[K_SRC] & 64'hfff)));
    dst_addr = ((r_va[K_DST] + 64'd4096 - (r_va[K_DST] & 64'hfff)));
    exp_copy(1'b1, src_addr, dst_addr, len);
    run_copy;
    if (!done || error || bytes !== len) `XFAIL("translated copy failed")
    check_mem;
    $display("%m: 32 KiB copy: physical %0d cycles, translated (8 scattered pages) %0d cycles", phys_cycles, cycles);
    if (cycles * 100 > phys_cycles * 110) `XFAIL("translated copy more than 10% slower than the physical one")

    // 1. random translated copies
    first_pass = $test$plusargs("short") ? 1 : 0;
    for (pass = first_pass; pass < 2; pass = pass + 1) begin
        ram.set_ready_prob(pass == 0 ? 100 : READY_PROB);
        for (n = 0; n < RANDOM_COPIES; n = n + 1) begin
            r = $random(seed);
            // lengths and offsets keep 32 bytes of margin at the end, so
            // rounding the VAs up to a beat stays inside the regions
            l = (({$random(seed)} % (r_len[K_SRC] - 64)) / BYTES) * BYTES + BYTES;
            if (n == 0) l = ((r_len[K_SRC] - 64) / BYTES) * BYTES;
            so = {$random(seed)} % (r_len[K_SRC] - l - 32 + 1);
            dof = {$random(seed)} % (r_len[K_DST] - l - 32 + 1);
            src_addr = ((r_va[K_SRC] + so + BYTES - 1) / BYTES) * BYTES;
            dst_addr = ((r_va[K_DST] + dof + BYTES - 1) / BYTES) * BYTES;
            len = l[31:0];
            src_handle = r_handle[K_SRC];
            dst_handle = r_handle[K_DST];
            src_kind = r[0] ? 2'd2 : 2'd0;
            dst_kind = r[1] ? 2'd3 : 2'd1;
            cfg_max_burst = r[2] ? 9'd0 : {4'd0, r[7:3]};
            cfg_max_outstanding = r[8] ? 4'd0 : r[12:9];
            exp_copy(1'b1, src_addr, dst_addr, l);
            run_copy;
            if (!done || error || xlat_err || bytes !== len) `XFAIL("translated copy did not complete")
            check_mem;
        end
    end
    $display("%m: %0d translated copies ok", (2 - first_pass) * RANDOM_COPIES);

    // 2. every error class, nothing written
    ram.set_ready_prob(READY_PROB);
    src_handle = r_handle[K_SRC];
    dst_handle = r_handle[K_DST];
    src_kind = 2'd0;
    dst_kind = 2'd1;
    src_addr = ((r_va[K_SRC] + 64'd16) / BYTES) * BYTES;
    dst_addr = ((r_va[K_DST] + 64'd64) / BYTES) * BYTES;
    len = 32'd8192;
    src_handle = 32'd0;
    expect_xerr(3'd1, 1'b0, src_addr);                              // HANDLE: 0
    src_handle = r_handle[K_SRC];
    dst_handle = {16'd1, 16'd9};
    expect_xerr(3'd1, 1'b1, dst_addr);                              // HANDLE: not registered
    dst_handle = {16'd1, 16'd16 + 16'd2};
    expect_xerr(3'd1, 1'b1, dst_addr);                              // HANDLE: index beyond REGIONS
    dst_handle = r_handle[K_DST];
    src_handle = r_handle[K_SRC] + 32'h00010000;
    expect_xerr(3'd2, 1'b0, src_addr);                              // STALE
    src_handle = r_handle[K_SRC];
    ptag = PT + 16'h0100;
    expect_xerr(3'd3, 1'b0, src_addr);                              // PTAG
    ptag = PT;
    src_kind = 2'd2;
    src_handle = r_handle[K_RO];
    src_addr = r_va[K_RO];
    expect_xerr(3'd4, 1'b0, src_addr);                              // ACCESS: remote read
    src_kind = 2'd0;
    dst_kind = 2'd3;
    dst_handle = r_handle[K_RO];
    dst_addr = r_va[K_RO];
    src_handle = r_handle[K_SRC];
    src_addr = ((r_va[K_SRC] + 64'd16) / BYTES) * BYTES;
    expect_xerr(3'd4, 1'b1, dst_addr);                              // ACCESS: remote write
    dst_kind = 2'd1;
    dst_addr = r_va[K_RO] + BYTES;
    expect_xerr(3'd5, 1'b1, dst_addr);                              // BOUNDS: beyond the end
    dst_handle = r_handle[K_DST];
    dst_addr = ((r_va[K_DST] + 64'd64) / BYTES) * BYTES;
    src_addr = ((r_va[K_SRC] - 64'd64) / BYTES) * BYTES;
    expect_xerr(3'd5, 1'b0, src_addr);                              // BOUNDS: below the base
    src_addr = 64'hffffffff_ffffff00;
    expect_xerr(3'd5, 1'b0, src_addr);                              // BOUNDS: VA+LEN overflows
    src_addr = r_va[K_BAD];
    src_handle = r_handle[K_BAD];
    expect_xerr(3'd6, 1'b0, src_addr);                              // FETCH
    check_mem;
    $display("%m: every translation error class ok");

    // 3. deregistration during a copy: the source, then the destination
    for (k = 0; k < 2; k = k + 1) begin
        ram.set_ready_prob(READY_PROB);
        src_handle = r_handle[K_SRC];
        dst_handle = r_handle[K_DST];
        src_kind = 2'd0;
        dst_kind = 2'd1;
        cfg_max_burst = 9'd0;
        cfg_max_outstanding = 4'd0;
        src_addr = ((r_va[K_SRC] + BYTES - 1) / BYTES) * BYTES;
        dst_addr = ((r_va[K_DST] + BYTES - 1) / BYTES) * BYTES;
        len = 32'd8 * 4096;
        issue_start;
        // wait until the copy is well under way
        wait_n = 0;
        while (wr_bursts < 3 + 4 * k) begin
            @(negedge clk);
            wait_n = wait_n + 1;
            if (wait_n > WATCHDOG) `XFAIL("copy never got going")
        end
        if (!busy) `XFAIL("copy finished too early for the test")
        // INVALIDATE; remember what the engine had issued
        @(posedge clk);
        #1;
        snap_ar = ar_issued + (d_arvalid ? 1 : 0);
        snap_aw = aw_issued + (axi_awvalid ? 1 : 0);
        prog_op = 3'd3;
        prog_index = k == 0 ? K_SRC : K_DST;
        prog_valid = 1'b1;
        tick;
        prog_valid = 1'b0;
        fence_ok = 1;
        tick;
        while (prog_busy) begin
            tick;
        end
        // BUSY fell: every burst issued before the command has completed
        if (r_done < snap_ar || b_done < snap_aw) begin
            $display("FAIL %m: INVALIDATE done with %0d/%0d reads, %0d/%0d writes complete",
                r_done, snap_ar, b_done, snap_aw);
            failed = 1'b1;
        end
        wait_n = 0;
        while (busy) begin
            @(negedge clk);
            wait_n = wait_n + 1;
            if (wait_n > WATCHDOG) `XFAIL("copy never finished after INVALIDATE")
        end
        tick;
        if (!error || !xlat_err || xlat_code !== 3'd2 || xlat_dst !== k[0] || rd_err || wr_err)
            `XFAIL("deregistration during the copy did not end in STALE")
        if (bytes >= len) `XFAIL("deregistration came too late for the test")
        // the failing lookup was a page lookup: err_addr is the start of a
        // later page of that region
        if (err_addr[11:0] !== 12'd0 || err_addr <= (k == 0 ? src_addr : dst_addr)
                || err_addr >= (k == 0 ? src_addr : dst_addr) + len)
            `XFAIL("err_addr of the failed page lookup")
        copied = bytes;
        // exactly the acknowledged prefix of the destination was written
        exp_copy(1'b1, src_addr, dst_addr, bytes);
        check_mem;
        // the old handle is stale now, before anything moves
        expect_xerr(3'd2, k[0], k == 0 ? src_addr : dst_addr);
        check_mem;
        // register the region again (new generation, new pages)
        if (k == 0) begin
            region_free(K_SRC);
            region_new(K_SRC, r_va[K_SRC], r_len[K_SRC], PT, 1'b0, 1'b1);
        end else begin
            region_free(K_DST);
            region_new(K_DST, r_va[K_DST], r_len[K_DST], PT, 1'b1, 1'b0);
        end
        $display("%m: deregistration of the %0s during a copy ok (%0d bytes copied)",
            k == 0 ? "source" : "destination", copied);
    end

    // abort in the middle of a translated copy: ABORTED, no translation
    // error, what was acknowledged is a prefix of the source, and the
    // engine holds no translation afterwards (the idle check above)
    ram.set_ready_prob(READY_PROB);
    src_handle = r_handle[K_SRC];
    dst_handle = r_handle[K_DST];
    src_addr = ((r_va[K_SRC] + BYTES - 1) / BYTES) * BYTES;
    dst_addr = ((r_va[K_DST] + BYTES - 1) / BYTES) * BYTES;
    len = 32'd6 * 4096;
    issue_start;
    wait_n = 0;
    while (wr_bursts < 5) begin
        @(negedge clk);
        wait_n = wait_n + 1;
        if (wait_n > WATCHDOG) `XFAIL("copy never got going")
    end
    // DIAG_CTRL.ABORT (its pulse reaches the engine a cycle later)
    bus_write(`VIA_REG_DIAG_CTRL, 32'd1 << `VIA_DIAG_CTRL_ABORT_LSB);
    @(negedge clk);
    wr_en = 1'b0;
    wait_n = 0;
    while (busy) begin
        @(negedge clk);
        wait_n = wait_n + 1;
        if (wait_n > WATCHDOG) `XFAIL("aborted copy never finished")
    end
    tick;
    if (!error || !dut.aborted || xlat_err || bytes >= len) `XFAIL("abort of a translated copy")
    exp_copy(1'b1, src_addr, dst_addr, bytes);
    check_mem;
    $display("%m: abort during a translated copy ok (%0d bytes copied)", bytes);

    // a clean copy afterwards
    src_handle = r_handle[K_SRC];
    dst_handle = r_handle[K_DST];
    src_addr = ((r_va[K_SRC] + 64'd4000) / BYTES) * BYTES;
    dst_addr = ((r_va[K_DST] + 64'd100) / BYTES) * BYTES;
    len = 32'd3 * 4096;
    exp_copy(1'b1, src_addr, dst_addr, len);
    run_copy;
    if (!done || error || bytes !== len) `XFAIL("copy after re-registration failed")
    check_mem;

    $display("%m: finished");
    finished = 1'b1;
end

endmodule
