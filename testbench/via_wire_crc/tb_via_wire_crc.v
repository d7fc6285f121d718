// tb_via_wire_crc: self-checking bench for rtl/via_wire_crc.v.
//
//   1. the CRC-32 check value: "123456789" gives 32'hCBF43926, fed as 8+1
//      bytes and as 9 single bytes;
//   2. 300 random messages of 0..300 bytes, fed in beats of random sizes
//      1..8 (junk in the unused lanes, idle cycles between beats, init in
//      the same cycle as the first beat or the cycle before), compared with
//      a bit-serial reference computed here;
//   3. crc_next equals the next cycle's crc.

`timescale 1ns / 1ps

module tb_via_wire_crc;

reg clk = 1'b0;
reg rst = 1'b1;
always #5 clk = ~clk;

reg [8*256-1:0] vcd_file;
initial begin
    if ($value$plusargs("vcd=%s", vcd_file)) begin
        $dumpfile(vcd_file);
        $dumpvars(0, tb_via_wire_crc);
    end
end

reg         init = 1'b0;
reg         valid = 1'b0;
reg  [63:0] data = 64'd0;
reg  [3:0]  nbytes = 4'd0;
wire [31:0] crc;
wire [31:0] crc_next;

via_wire_crc dut (
    .clk(clk), .rst(rst), .init(init), .valid(valid), .data(data), .nbytes(nbytes),
    .crc(crc), .crc_next(crc_next)
);

integer seed = 1;
integer errors = 0;
integer checks = 0;

// bit-serial reference over msg[0..len-1]
reg [7:0] msg [0:511];
function [31:0] ref_crc(input integer len);
    integer i, b;
    reg [31:0] c;
    begin
        c = 32'hFFFF_FFFF;
        for (i = 0; i < len; i = i + 1) begin
            c = c ^ {24'd0, msg[i]};
            for (b = 0; b < 8; b = b + 1)
                c = c[0] ? ((c >> 1) ^ 32'hEDB8_8320) : (c >> 1);
        end
        ref_crc = ~c;
    end
endfunction

// crc_next must show next cycle in crc
reg [31:0] prev_next;
reg        prev_ok = 1'b0;
always @(posedge clk) begin
    if (!rst) begin
        if (prev_ok && crc !== prev_next) begin
            $display("tb_via_wire_crc: ERROR crc %08x, crc_next was %08x", crc, prev_next);
            errors = errors + 1;
        end
        prev_next <= crc_next;
        prev_ok <= 1'b1;
    end
end

// feed msg[0..len-1] in beats of random sizes (or `fixed` bytes when > 0)
task feed(input integer len, input integer fixed, input integer init_early);
    integer off, n, k;
    begin
        off = 0;
        @(negedge clk);
        if (init_early) begin
            init = 1'b1; valid = 1'b0;
            @(negedge clk);
            init = 1'b0;
        end else begin
            init = 1'b1;
        end
        if (len == 0) begin
            valid = 1'b0;
            @(negedge clk);
            init = 1'b0;
        end
        while (off < len) begin
            n = fixed > 0 ? fixed : 1 + ($unsigned($random(seed)) % 8);
            if (n > len - off) n = len - off;
            data = {$random(seed), $random(seed)};  // junk in the unused lanes
            for (k = 0; k < n; k = k + 1) data[8*k +: 8] = msg[off + k];
            nbytes = n[3:0];
            valid = 1'b1;
            @(negedge clk);
            init = 1'b0;
            off = off + n;
            valid = 1'b0;
            if ($unsigned($random(seed)) % 4 == 0) begin
                // an idle beat: valid low, any nbytes
                nbytes = $random(seed);
                @(negedge clk);
            end
        end
        valid = 1'b0;
        @(negedge clk);
    end
endtask

task check(input integer len, input [8*32-1:0] what);
    reg [31:0] want;
    begin
        want = ref_crc(len);
        checks = checks + 1;
        if (crc !== want) begin
            $display("tb_via_wire_crc: ERROR %0s (%0d bytes): crc %08x, want %08x", what, len, crc, want);
            errors = errors + 1;
        end
    end
endtask

integer t, len, i;
initial begin
    repeat (3) @(posedge clk);
    rst = 1'b0;

    // 1. "123456789"
    for (i = 0; i < 9; i = i + 1) msg[i] = 8'h31 + i[7:0];
    feed(9, 8, 0);
    check(9, "check value, 8+1");
    if (crc !== 32'hCBF4_3926) begin
        $display("tb_via_wire_crc: ERROR check value %08x", crc);
        errors = errors + 1;
    end
    feed(9, 1, 1);
    check(9, "check value, bytewise");
    feed(0, 0, 0);
    check(0, "empty");

    // 2. random messages
    for (t = 0; t < 300; t = t + 1) begin
        len = $unsigned($random(seed)) % 301;
        for (i = 0; i < len; i = i + 1) msg[i] = $random(seed);
        feed(len, 0, t % 2);
        check(len, "random");
    end

    if (errors == 0) begin
        $display("tb_via_wire_crc: %0d messages checked", checks);
        $display("PASS");
    end else begin
        $display("FAIL: %0d errors", errors);
        $fatal(1, "tb_via_wire_crc failed");
    end
    $finish;
end

endmodule
