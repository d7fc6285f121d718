// tb_via_cpu: self-checking bench of the control processor.
//
// For every image in isa/ (built by isa/build.sh, committed) the bench:
//   - writes the image into instruction memory through the host port while
//     the core is held in reset (as the driver does) and reads it back;
//   - for each variant the image declares (see isa/test.h), writes the
//     variant number into data memory word 0 through the host port,
//     releases reset and runs until the program writes TOHOST, the core
//     halts, or a watchdog expires;
//   - checks the outcome against the image's expectation record: a pass
//     written to TOHOST, or a trap with exact mcause/mepc/mtval, an
//     untouched destination register, an untouched memory word and the
//     number of peripheral accesses; and that a halted core stays halted.
// A peripheral model on the per_* port (TOHOST, console, scratch register,
// ID, WAKE timer for WFI, cycle counter, an error region) answers with
// random ready delays, drives garbage on per_rdata/per_err while not ready
// and checks the core's side of the handshake. While programs run, the bench
// also reads instruction memory at random through the host port.
// The mixed C program (isa/mix.c) is run once with a zero-wait peripheral
// for the CPI table, which the bench prints per instruction class.
//
// Plusargs: +seed=N, +vcd=PATH, +isa_dir=DIR (default: isa/ next to this
// file, so the bench runs from any working directory), +test=NAME (run only
// that image).

`timescale 1ns / 1ps
`default_nettype none

module tb_via_cpu;

localparam IMEM_BYTES = 16384;
localparam DMEM_BYTES = 8192;
localparam IMEM_WORDS = IMEM_BYTES / 4;
localparam DMEM_WORDS = DMEM_BYTES / 4;
localparam [31:0] TEST_MAGIC = 32'h5453_5456;
localparam [31:0] NONE = 32'hFFFF_FFFF;
localparam [31:0] PER_ID_VALUE = 32'h8BAD_F00D;
localparam WATCHDOG = 2000000;

// ---------------------------------------------------------------- DUT

reg clk = 1'b0;
always #5 clk = !clk;
reg rst = 1'b1;

reg         host_en = 1'b0;
reg         host_we = 1'b0;
reg         host_sel = 1'b0;
reg  [15:0] host_addr = 16'd0;
reg  [31:0] host_wdata = 32'd0;
wire [31:0] host_rdata;
wire        host_rvalid;

wire        per_valid;
wire        per_we;
wire [15:0] per_addr;
wire [31:0] per_wdata;
wire [3:0]  per_wstrb;
reg         per_ready = 1'b0;
wire [31:0] per_rdata;
wire        per_err;
reg         irq_wake = 1'b1;

wire        halted;
wire        fault;
wire        wfi;
wire [4:0]  trap_cause;
wire [31:0] trap_pc;
wire [31:0] trap_val;
wire [31:0] pc;
wire [63:0] retired;

via_cpu #(
    .IMEM_BYTES(IMEM_BYTES),
    .DMEM_BYTES(DMEM_BYTES)
) dut (
    .clk(clk),
    .rst(rst),
    .host_en(host_en),
    .host_we(host_we),
    .host_sel(host_sel),
    .host_addr(host_addr),
    .host_wdata(host_wdata),
    .host_rdata(host_rdata),
    .host_rvalid(host_rvalid),
    .per_valid(per_valid),
    .per_we(per_we),
    .per_addr(per_addr),
    .per_wdata(per_wdata),
    .per_wstrb(per_wstrb),
    .per_ready(per_ready),
    .per_rdata(per_rdata),
    .per_err(per_err),
    .irq_wake(irq_wake),
    .halted(halted),
    .fault(fault),
    .wfi(wfi),
    .trap_cause(trap_cause),
    .trap_pc(trap_pc),
    .trap_val(trap_val),
    .pc(pc),
    .retired(retired)
);

// ---------------------------------------------------------------- state

integer seed = 1;
`include "bench_random.vh"
integer cycle = 0;
always @(posedge clk) cycle <= cycle + 1;

string isa_dir;
string only_test;
string vcd_path;
integer runs = 0;
integer images = 0;
integer host_reads = 0;

task fail(input string msg);
    begin
        $display("ERROR: %s (cycle %0d)", msg, cycle);
        $fatal(1, "tb_via_cpu: %s", msg);
    end
endtask

// Field widths in $display differ between the simulators: pad by hand.
function string pad(input string s, input integer w);
    string r;
    integer i;
    begin
        r = s;
        for (i = s.len(); i < w; i = i + 1) r = {r, " "};
        pad = r;
    end
endfunction

function string lpad(input string s, input integer w);
    string r;
    integer i;
    begin
        r = s;
        for (i = s.len(); i < w; i = i + 1) r = {" ", r};
        lpad = r;
    end
endfunction

// ---------------------------------------------------------------- peripheral model

integer ready_pct = 100;        // chance per cycle that per_ready is 1
reg [31:0] tohost = 32'd0;
reg        tohost_seen = 1'b0;
reg [31:0] scratch = 32'd0;
integer    wake_count = 0;
integer    per_count = 0;
string     console_line = "";

// Every cycle ready is drawn afresh (so it may also be 1 before valid, which
// gives zero-wait accesses); response data is only defined with ready.
reg [31:0] junk = 32'd0;
always @(posedge clk) begin
    per_ready <= ($unsigned(bench_random(0)) % 100) < ready_pct;
    junk <= bench_random(0);
end

wire        per_err_region = per_addr[15:12] == 4'hF;
reg  [31:0] per_value;
always @* begin
    case (per_addr)
        16'h0000: per_value = tohost;
        16'h0008: per_value = scratch;
        16'h000C: per_value = PER_ID_VALUE;
        16'h0010: per_value = wake_count;
        16'h0014: per_value = cycle;
        default:  per_value = 32'd0;
    endcase
end
assign per_rdata = per_ready ? per_value : junk;
assign per_err   = per_ready ? per_err_region : junk[0];

function [31:0] merge(input [31:0] old, input [31:0] data, input [3:0] strb);
    integer b;
    begin
        merge = old;
        for (b = 0; b < 4; b = b + 1) begin
            if (strb[b]) merge[8*b +: 8] = data[8*b +: 8];
        end
    end
endfunction

// protocol checks on the core's side
reg        prev_pending = 1'b0;
reg        prev_we;
reg [15:0] prev_addr;
reg [31:0] prev_wdata;
reg [3:0]  prev_wstrb;
always @(posedge clk) begin
    if (!rst) begin
        if (per_valid !== 1'b0 && per_valid !== 1'b1) fail("per_valid is X");
        if (prev_pending) begin
            if (!per_valid) fail("per_valid dropped before per_ready");
            if (per_we !== prev_we || per_addr !== prev_addr || per_wstrb !== prev_wstrb
                || (per_we && per_wdata !== prev_wdata)) begin
                fail("per_* changed while waiting for per_ready");
            end
        end
        if (per_valid) begin
            if (per_addr[1:0] != 2'b00) fail("per_addr not word aligned");
            if (!per_we && per_wstrb != 4'b0000) fail("per_wstrb not 0 on a read");
            if (per_we && !(per_wstrb == 4'b0001 || per_wstrb == 4'b0010 || per_wstrb == 4'b0100
                            || per_wstrb == 4'b1000 || per_wstrb == 4'b0011 || per_wstrb == 4'b1100
                            || per_wstrb == 4'b1111)) begin
                fail($sformatf("per_wstrb %b is not a byte, halfword or word", per_wstrb));
            end
        end
    end
    prev_pending <= !rst && per_valid && !per_ready;
    prev_we      <= per_we;
    prev_addr    <= per_addr;
    prev_wdata   <= per_wdata;
    prev_wstrb   <= per_wstrb;
end

// the peripheral registers
// They are reset with the core, so the counts cover one run.
always @(posedge clk) begin
    if (wake_count > 0) wake_count <= wake_count - 1;
    irq_wake <= (wake_count <= 1);
    if (rst) begin
        tohost_seen <= 1'b0;
        per_count   <= 0;
        wake_count  <= 0;
        irq_wake    <= 1'b1;
    end else if (per_valid && per_ready) begin
        per_count <= per_count + 1;
        if (per_we && !per_err_region) begin
            case (per_addr)
                16'h0000: begin
                    tohost      <= per_wdata;
                    tohost_seen <= 1'b1;
                end
                16'h0004: begin
                    if (per_wdata[7:0] == 8'h0A) begin
                        $display("[console] %s", console_line);
                        console_line = "";
                    end else begin
                        console_line = $sformatf("%s%c", console_line, per_wdata[7:0]);
                    end
                end
                16'h0008: scratch <= merge(scratch, per_wdata, per_wstrb);
                16'h0010: begin
                    wake_count <= per_wdata;
                    irq_wake   <= per_wdata == 32'd0;
                end
                default: ;
            endcase
        end
    end
end

// While the core waits in WFI it must do nothing; idle cycles are counted.
reg [63:0] wfi_retired;
reg        wfi_prev = 1'b0;
integer    wfi_idle = 0;
always @(posedge clk) begin
    if (!rst && wfi && !irq_wake) wfi_idle <= wfi_idle + 1;
    if (wfi_prev && wfi && retired != wfi_retired) fail("instructions retired during WFI");
    if (wfi && per_valid) fail("peripheral access during WFI");
    wfi_prev    <= wfi;
    wfi_retired <= retired;
end

// ---------------------------------------------------------------- host port

// host_rvalid must follow a read request by exactly one cycle
reg host_read_q = 1'b0;
always @(posedge clk) begin
    if (cycle > 2 && host_rvalid !== host_read_q) fail("host_rvalid does not follow the read request by one cycle");
    host_read_q <= host_en && !host_we;
end

task host_idle;
    begin
        host_en  = 1'b0;
        host_we  = 1'b0;
    end
endtask

// The image being run, as $readmemh loaded it.
reg [31:0] image [0:IMEM_WORDS-1];

// One host write, sometimes followed by a few idle cycles. Host tasks are
// called and return at a negedge; the DUT samples at the posedge between.
task host_write_word(input sel, input [15:0] addr, input [31:0] data);
    begin
        host_en    = 1'b1;
        host_we    = 1'b1;
        host_sel   = sel;
        host_addr  = addr;
        host_wdata = data;
        @(negedge clk);
        host_idle;
        if ((bench_random(0) & 3) == 0) begin
            repeat ($unsigned(bench_random(0)) % 3) @(negedge clk);
        end
    end
endtask

task host_read_word(input sel, input [15:0] addr, output [31:0] data);
    begin
        host_en   = 1'b1;
        host_we   = 1'b0;
        host_sel  = sel;
        host_addr = addr;
        @(negedge clk);
        host_idle;
        if (host_rvalid !== 1'b1) fail("host_rvalid missing");
        data = host_rdata;
        host_reads = host_reads + 1;
    end
endtask

// Reads words 0..count-1 of instruction memory back to back and compares
// them with image[].
task host_verify_image(input integer count);
    integer i;
    begin
        for (i = 0; i < count; i = i + 1) begin
            host_en   = 1'b1;
            host_we   = 1'b0;
            host_sel  = 1'b0;
            host_addr = i[15:0];
            @(negedge clk);
            if (host_rvalid !== 1'b1) fail("host_rvalid missing in a burst");
            if (host_rdata !== image[i]) begin
                fail($sformatf("imem word %0d reads %h through the host port, wrote %h",
                               i, host_rdata, image[i]));
            end
            host_reads = host_reads + 1;
        end
        host_idle;
    end
endtask

// Host port corner cases: both memories, last words, back-to-back reads
// alternating between memories, out-of-range indexes (ignored/read 0).
task host_port_test;
    reg [31:0] d;
    begin
        host_write_word(1'b0, 16'd0, 32'hA0A0_0000);
        host_write_word(1'b0, IMEM_WORDS - 1, 32'hA0A0_0FFF);
        host_write_word(1'b1, 16'd0, 32'hD0D0_0000);
        host_write_word(1'b1, DMEM_WORDS - 1, 32'hD0D0_07FF);
        host_write_word(1'b0, IMEM_WORDS, 32'hBAD0_0001);     // out of range: ignored
        host_write_word(1'b1, DMEM_WORDS, 32'hBAD0_0002);
        host_write_word(1'b1, 16'hFFFF, 32'hBAD0_0003);
        host_read_word(1'b0, 16'd0, d);
        if (d !== 32'hA0A0_0000) fail($sformatf("host: imem[0] = %h", d));
        host_read_word(1'b0, IMEM_WORDS - 1, d);
        if (d !== 32'hA0A0_0FFF) fail($sformatf("host: imem[last] = %h", d));
        host_read_word(1'b1, 16'd0, d);
        if (d !== 32'hD0D0_0000) fail($sformatf("host: dmem[0] = %h", d));
        host_read_word(1'b1, DMEM_WORDS - 1, d);
        if (d !== 32'hD0D0_07FF) fail($sformatf("host: dmem[last] = %h", d));
        host_read_word(1'b0, IMEM_WORDS, d);
        if (d !== 32'd0) fail($sformatf("host: imem out of range reads %h", d));
        host_read_word(1'b1, 16'hFFFF, d);
        if (d !== 32'd0) fail($sformatf("host: dmem out of range reads %h", d));
        // back to back, alternating memories: data follows the select
        host_en = 1'b1; host_we = 1'b0;
        host_sel = 1'b0; host_addr = 16'd0;
        @(negedge clk);
        host_sel = 1'b1; host_addr = 16'd0;
        if (host_rdata !== 32'hA0A0_0000) fail("host: burst word 0");
        @(negedge clk);
        host_sel = 1'b0; host_addr = IMEM_WORDS - 1;
        if (host_rdata !== 32'hD0D0_0000) fail("host: burst word 1");
        @(negedge clk);
        host_idle;
        if (host_rdata !== 32'hA0A0_0FFF) fail("host: burst word 2");
        @(negedge clk);
        // a write then an immediate read of the same word
        host_write_word(1'b1, 16'd3, 32'h1234_5678);
        host_read_word(1'b1, 16'd3, d);
        if (d !== 32'h1234_5678) fail("host: read after write");
        $display("host port: ok");
    end
endtask

// ---------------------------------------------------------------- CPI accounting

// Classes of retired instructions; the cycles between two retirements are
// the retiring instruction's (fetch overlaps the previous instruction).
localparam NCLASS = 15;
localparam C_ALU_R = 0, C_ALU_I = 1, C_LUI = 2, C_BR_TAKEN = 3, C_BR_NOT = 4,
           C_JAL = 5, C_JALR = 6, C_LOAD_MEM = 7, C_LOAD_PER = 8, C_STORE_MEM = 9,
           C_STORE_PER = 10, C_CSR = 11, C_FENCE = 12, C_WFI = 13, C_OTHER = 14;
integer cls_count  [0:NCLASS-1];
integer cls_cycles [0:NCLASS-1];
reg     cpi_enable = 1'b0;
integer last_retire_cycle = 0;
reg [63:0] last_retired = 64'd0;
reg [31:0] last_pc = 32'd0;
reg        saw_per = 1'b0;

function string class_name(input integer c);
    case (c)
        C_ALU_R:     class_name = "ALU reg-reg";
        C_ALU_I:     class_name = "ALU reg-imm";
        C_LUI:       class_name = "LUI/AUIPC";
        C_BR_TAKEN:  class_name = "branch taken";
        C_BR_NOT:    class_name = "branch not taken";
        C_JAL:       class_name = "JAL";
        C_JALR:      class_name = "JALR";
        C_LOAD_MEM:  class_name = "load (memory)";
        C_LOAD_PER:  class_name = "load (peripheral)";
        C_STORE_MEM: class_name = "store (memory)";
        C_STORE_PER: class_name = "store (peripheral)";
        C_CSR:       class_name = "CSR";
        C_FENCE:     class_name = "FENCE";
        C_WFI:       class_name = "WFI";
        default:     class_name = "other";
    endcase
endfunction

task cpi_reset;
    integer c;
    begin
        for (c = 0; c < NCLASS; c = c + 1) begin
            cls_count[c]  = 0;
            cls_cycles[c] = 0;
        end
    end
endtask

integer cls;
always @(negedge clk) begin
    if (rst) begin
        last_retired      = 64'd0;
        last_pc           = 32'd0;
        saw_per           = 1'b0;
    end else begin
        if (per_valid && per_ready) saw_per = 1'b1;
        if (retired != last_retired) begin
            if (retired != last_retired + 64'd1) fail("retired jumped by more than one");
            case (dut.ir_reg[6:0])
                7'b0110011: cls = C_ALU_R;
                7'b0010011: cls = C_ALU_I;
                7'b0110111, 7'b0010111: cls = C_LUI;
                7'b1100011: cls = (pc != last_pc + 32'd4) ? C_BR_TAKEN : C_BR_NOT;
                7'b1101111: cls = C_JAL;
                7'b1100111: cls = C_JALR;
                7'b0000011: cls = saw_per ? C_LOAD_PER : C_LOAD_MEM;
                7'b0100011: cls = saw_per ? C_STORE_PER : C_STORE_MEM;
                7'b1110011: cls = (dut.ir_reg == 32'h1050_0073) ? C_WFI : C_CSR;
                7'b0001111: cls = C_FENCE;
                default:    cls = C_OTHER;
            endcase
            if (cpi_enable) begin
                cls_count[cls]  = cls_count[cls] + 1;
                cls_cycles[cls] = cls_cycles[cls] + (cycle - last_retire_cycle);
            end
            last_retire_cycle = cycle;
            last_retired      = retired;
            last_pc           = pc;
            saw_per           = 1'b0;
        end
    end
end

task cpi_print(input string title);
    integer c;
    integer n;
    integer t;
    begin
        n = 0;
        t = 0;
        $display("%s", title);
        $display("  %s %s %s %s", pad("class", 20), lpad("count", 8), lpad("cycles", 9), lpad("CPI", 6));
        for (c = 0; c < NCLASS; c = c + 1) begin
            if (cls_count[c] > 0) begin
                $display("  %s %s %s %s", pad(class_name(c), 20), lpad($sformatf("%0d", cls_count[c]), 8),
                         lpad($sformatf("%0d", cls_cycles[c]), 9),
                         lpad($sformatf("%.2f", $itor(cls_cycles[c]) / $itor(cls_count[c])), 6));
                n = n + cls_count[c];
                t = t + cls_cycles[c];
            end
        end
        $display("  %s %s %s %s", pad("all", 20), lpad($sformatf("%0d", n), 8), lpad($sformatf("%0d", t), 9),
                 lpad($sformatf("%.2f", $itor(t) / $itor(n > 0 ? n : 1)), 6));
    end
endtask

// ---------------------------------------------------------------- running images

integer prev_words = 0;

// Loads NAME.hex into instruction memory through the host port and runs
// each of its variants. Returns at a negedge with rst 1.
task run_image(input string name, input integer pct, input reg measure);
    integer i;
    integer words;
    integer nvar;
    integer table_word;
    integer v;
    string  path;
    begin
        if (only_test.len() == 0 || only_test == name) begin
            path = {isa_dir, "/", name, ".hex"};
            for (i = 0; i < IMEM_WORDS; i = i + 1) image[i] = 32'd0;
            $readmemh(path, image);
            if (image[1] !== TEST_MAGIC) fail({"no test image (bad magic) in ", path});
            words = 0;
            for (i = 0; i < IMEM_WORDS; i = i + 1) begin
                if (image[i] !== 32'd0) words = i + 1;
            end
            nvar       = image[2];
            table_word = image[3] >> 2;

            // download: the core is in reset; clear what the last image left
            rst = 1'b1;
            for (i = 0; i < (words > prev_words ? words : prev_words); i = i + 1) begin
                host_write_word(1'b0, i[15:0], image[i]);
            end
            prev_words = words;
            host_verify_image(words);
            images = images + 1;

            for (v = 0; v < nvar; v = v + 1) begin
                run_variant(name, v, table_word + 8 * v, pct, measure);
            end
        end
    end
endtask

task run_variant(input string name, input integer v, input integer rec, input integer pct,
                 input reg measure);
    integer    start;
    integer    n;
    reg [31:0] exp_cause, exp_epc, exp_tval, exp_reg, exp_regval, exp_addr, exp_memval, exp_per;
    reg [31:0] d;
    reg [31:0] hold_pc;
    reg [63:0] hold_retired;
    integer    hold_per;
    reg        bg_pending;
    reg [15:0] bg_addr;
    string     tag;
    begin
        exp_cause  = image[rec];
        exp_epc    = image[rec + 1];
        exp_tval   = image[rec + 2];
        exp_reg    = image[rec + 3];
        exp_regval = image[rec + 4];
        exp_addr   = image[rec + 5];
        exp_memval = image[rec + 6];
        exp_per    = image[rec + 7];
        tag = $sformatf("%s[%0d]", name, v);

        rst = 1'b1;
        host_write_word(1'b1, 16'd0, v);           // the variant number
        repeat (2) @(negedge clk);
        ready_pct   = pct;
        cpi_enable  = measure;
        if (measure) cpi_reset;
        rst = 1'b0;
        start = cycle;
        last_retire_cycle = cycle;
        bg_pending = 1'b0;
        n = 0;
        while (!tohost_seen && !halted) begin
            // random host reads of instruction memory while the core runs
            if (bg_pending) begin
                if (host_rvalid !== 1'b1 || host_rdata !== image[bg_addr]) begin
                    fail($sformatf("%s: host read of imem[%0d] while running: %h, expected %h",
                                   tag, bg_addr, host_rdata, image[bg_addr]));
                end
                host_reads = host_reads + 1;
            end
            bg_pending = !measure && ($unsigned(bench_random(0)) % 8) == 0;
            if (bg_pending) begin
                bg_addr   = $unsigned(bench_random(0)) % IMEM_WORDS;
                host_en   = 1'b1;
                host_we   = 1'b0;
                host_sel  = 1'b0;
                host_addr = bg_addr;
            end else begin
                host_idle;
            end
            @(negedge clk);
            n = n + 1;
            if (n > WATCHDOG) fail($sformatf("%s: watchdog, pc %h", tag, pc));
        end
        host_idle;
        @(negedge clk);           // let the accounting see the last retirement
        cpi_enable = 1'b0;
        runs = runs + 1;

        if (exp_cause == NONE) begin
            if (halted) begin
                fail($sformatf("%s: trapped: mcause %0d mepc %h mtval %h", tag,
                               trap_cause, trap_pc, trap_val));
            end
            if (tohost != 32'd1) fail($sformatf("%s: test %0d failed (TOHOST %0d)", tag, tohost >> 1, tohost));
            if (measure) begin
                $display("%s pass  %0d cycles, %0d instructions, CPI %.3f", pad(tag, 20), cycle - start,
                         retired, $itor(cycle - start) / $itor(retired));
            end else begin
                $display("%s pass  %0d cycles, ready %0d%%", pad(tag, 20), cycle - start, pct);
            end
        end else begin
            if (!halted) fail($sformatf("%s: expected a trap (mcause %0d), wrote TOHOST %0d", tag, exp_cause, tohost));
            if (!fault) fail($sformatf("%s: halted without fault", tag));
            if ({27'd0, trap_cause} != exp_cause || trap_pc != exp_epc || trap_val != exp_tval) begin
                fail($sformatf("%s: trap mcause %0d mepc %h mtval %h, expected %0d %h %h",
                               tag, trap_cause, trap_pc, trap_val, exp_cause, exp_epc, exp_tval));
            end
            if (pc != trap_pc) fail($sformatf("%s: pc %h after the trap, mepc %h", tag, pc, trap_pc));
            if (exp_reg != 32'd0 && dut.rf[exp_reg[4:0]] !== exp_regval) begin
                fail($sformatf("%s: x%0d = %h after the trap, expected %h", tag, exp_reg,
                               dut.rf[exp_reg[4:0]], exp_regval));
            end
            if (exp_per != NONE && per_count != exp_per) begin
                fail($sformatf("%s: %0d peripheral accesses, expected %0d", tag, per_count, exp_per));
            end
            // halted stays halted: nothing retires, nothing moves
            hold_pc      = pc;
            hold_retired = retired;
            hold_per     = per_count;
            repeat (50) @(negedge clk);
            if (!halted || pc != hold_pc || retired != hold_retired || per_count != hold_per
                || per_valid || {27'd0, trap_cause} != exp_cause) begin
                fail($sformatf("%s: the core did not stay halted", tag));
            end
            if (exp_addr != NONE) begin
                if (exp_addr >= 32'h1000_0000) begin
                    host_read_word(1'b1, exp_addr[17:2], d);
                end else begin
                    host_read_word(1'b0, exp_addr[17:2], d);
                end
                if (d !== exp_memval) begin
                    fail($sformatf("%s: memory word %h = %h after the trap, expected %h",
                                   tag, exp_addr, d, exp_memval));
                end
            end
            $display("%s trap  mcause %s mepc %h mtval %h, ready %0d%%", pad(tag, 20), lpad($sformatf("%0d", trap_cause), 2),
                     trap_pc, trap_val, pct);
        end
        rst = 1'b1;
        @(negedge clk);
    end
endtask

function integer random_pct(input integer dummy);
    integer r;
    begin
        r = $unsigned(bench_random(0)) % 4;
        random_pct = r == 0 ? 100 : (r == 1 ? 60 : (r == 2 ? 25 : 8));
        if (dummy != 0) random_pct = dummy;
    end
endfunction

// ---------------------------------------------------------------- main

integer rel_i;
initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("isa_dir=%s", isa_dir)) begin
        // isa/ next to this file (bench.sh compiles it by absolute path)
        isa_dir = `__FILE__;
        for (rel_i = isa_dir.len() - 1; rel_i >= 0 && isa_dir[rel_i] != "/"; rel_i = rel_i - 1) ;
        if (rel_i >= 0) begin
            isa_dir = isa_dir.substr(0, rel_i);
            isa_dir = {isa_dir, "isa"};
        end else begin
            isa_dir = "testbench/via_cpu/isa";
        end
    end
    if (!$value$plusargs("test=%s", only_test)) only_test = "";
    if ($value$plusargs("vcd=%s", vcd_path)) begin
        $dumpfile(vcd_path);
        $dumpvars(0, tb_via_cpu);
    end
    $display("tb_via_cpu: seed %0d, images from %s", seed, isa_dir);

    repeat (4) @(negedge clk);
    host_port_test;
    // clear both memories once, as a freshly powered RAM would not be
    for (rel_i = 0; rel_i < IMEM_WORDS; rel_i = rel_i + 1) begin
        host_en = 1'b1; host_we = 1'b1; host_sel = 1'b0; host_addr = rel_i[15:0]; host_wdata = 32'd0;
        @(negedge clk);
    end
    for (rel_i = 0; rel_i < DMEM_WORDS; rel_i = rel_i + 1) begin
        host_en = 1'b1; host_we = 1'b1; host_sel = 1'b1; host_addr = rel_i[15:0]; host_wdata = 32'd0;
        @(negedge clk);
    end
    host_idle;
    prev_words = IMEM_WORDS;

    run_image("alu_imm",         random_pct(0), 1'b0);
    run_image("alu_reg",         random_pct(0), 1'b0);
    run_image("lui_auipc",       random_pct(0), 1'b0);
    run_image("branch",          random_pct(0), 1'b0);
    run_image("jump",            random_pct(0), 1'b0);
    run_image("load",            random_pct(0), 1'b0);
    run_image("store",           random_pct(0), 1'b0);
    run_image("csr",             random_pct(0), 1'b0);
    run_image("periph",          25,            1'b0);
    run_image("misc",            random_pct(0), 1'b0);
    run_image("trap_illegal",    random_pct(0), 1'b0);
    run_image("trap_misaligned", random_pct(0), 1'b0);
    run_image("trap_access",     random_pct(0), 1'b0);
    run_image("trap_system",     random_pct(0), 1'b0);
    run_image("mix",             30,            1'b0);   // with peripheral stalls
    run_image("mix",             100,           1'b1);   // zero-wait: the CPI figures
    if (images == 0) fail("no image ran (check +test=)");
    // misc.S waits in WFI for about 300 and 1000 cycles
    if ((only_test.len() == 0 || only_test == "misc") && wfi_idle < 1250) begin
        fail($sformatf("wfi was 1 with irq_wake 0 for only %0d cycles", wfi_idle));
    end
    if (only_test.len() == 0 || only_test == "mix") begin
        cpi_print("CPI of the mixed program (isa/mix.c, zero-wait peripheral):");
    end

    $display("tb_via_cpu: %0d images, %0d runs, %0d host reads checked, %0d WFI idle cycles", images,
             runs, host_reads, wfi_idle);
    $display("PASS");
    $finish;
end

endmodule

`default_nettype wire
