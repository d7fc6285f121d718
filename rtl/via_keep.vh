// via_keep.vh: via_keep_bytes(k), the bytes of a 64-bit AXI-Stream beat
// whose tkeep is k (the lanes set; the NIC's streams fill lanes from 0).
// Include it inside each module that uses it (a function belongs to its
// module: no include guard).

function [3:0] via_keep_bytes(input [7:0] k);
    integer i;
    begin
        via_keep_bytes = 4'd0;
        for (i = 0; i < 8; i = i + 1) via_keep_bytes = via_keep_bytes + {3'd0, k[i]};
    end
endfunction
