// bench_random(0): the next number of a xorshift32 sequence kept in the
// including module's `integer seed`. Benches use it instead of
// $random(seed): in Verilator 5.006 $random(seed) only doubles the seed on
// every call, so after 32 calls it returns the same value forever and the
// "random" back-pressure stops being random.
function integer bench_random;
    input integer unused;
    reg [31:0] x;
    begin
        x = seed ^ (unused & 0);
        if (x == 32'd0) begin
            x = 32'h9e3779b9;
        end
        x = x ^ (x << 13);
        x = x ^ (x >> 17);
        x = x ^ (x << 5);
        seed = x;
        bench_random = x;
    end
endfunction
