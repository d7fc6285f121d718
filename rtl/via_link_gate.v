// via_link_gate: the sending end of a credit-based link (docs/fabric.md):
// whether a beat may go this cycle. Used by via_link_port (node to switch)
// and by every output of via_fabric (switch to node).
//
//   credits  starts at CREDITS (the far end's buffer, in beats); a beat sent
//            spends one, a `credit` pulse (the far end freed a slot) gives
//            one back
//   tokens   a bucket that gains BW_NUM per cycle, holds at most
//            BW_DEN + BW_NUM - 1 (so no token is lost while sending) and
//            pays BW_DEN per beat: at most BW_NUM beats in any BW_DEN
//            cycles; 1/1 is the line rate
//
//   may_send  a credit is held and the bucket holds BW_DEN: a function of
//             the registers only (no path from `send` or `credit`)
//   send      a beat goes this cycle (the user's may_send && valid)
//   credit    a credit comes back this cycle
//   full      the bucket is full: nothing changes here until `send` or
//             `credit` does (for a simulator's idle detection)

`timescale 1ns / 1ps
`default_nettype none

`include "via_param_check.vh"
module via_link_gate #(
    parameter CREDITS = 64,  // initial credits (1 .. 65535)
    parameter BW_NUM  = 1,   // at most BW_NUM beats ... (1 .. BW_DEN)
    parameter BW_DEN  = 1    // ... in any BW_DEN cycles (1 .. 65535)
) (
    input  wire clk,
    input  wire rst,
    input  wire send,
    input  wire credit,
    output wire may_send,
    output wire full
);

generate
    if (CREDITS < 1 || CREDITS > 65535) begin : g_bad_credits
        `VIA_PARAM_FAIL(("via_link_gate: CREDITS=%0d, must be 1..65535", CREDITS))
    end
    if (BW_DEN < 1 || BW_DEN > 65535) begin : g_bad_bw_den
        `VIA_PARAM_FAIL(("via_link_gate: BW_DEN=%0d, must be 1..65535", BW_DEN))
    end
    if (BW_NUM < 1 || BW_NUM > BW_DEN) begin : g_bad_bw_num
        `VIA_PARAM_FAIL(("via_link_gate: BW_NUM=%0d, must be 1..BW_DEN", BW_NUM))
    end
endgenerate

localparam CW = 17;  // credits: 0 .. 65535 (+1 of slack)
localparam TW = 18;  // tokens: 0 .. 2 * BW_DEN
localparam [31:0] CREDITS32 = CREDITS;
localparam [31:0] BW_NUM32  = BW_NUM;
localparam [31:0] BW_DEN32  = BW_DEN;
localparam [CW-1:0] CRED_INIT = CREDITS32[CW-1:0];
localparam [TW-1:0] TOK_NUM   = BW_NUM32[TW-1:0];
localparam [TW-1:0] TOK_DEN   = BW_DEN32[TW-1:0];
localparam [TW-1:0] TOK_CAP   = TOK_DEN + TOK_NUM - 1'b1;

reg [CW-1:0] cred_reg, cred_next;
reg [TW-1:0] tok_reg, tok_next;

assign full = (tok_reg == TOK_CAP);
assign may_send = (cred_reg != {CW{1'b0}}) && (tok_reg >= TOK_DEN);

always @* begin
    cred_next = cred_reg;
    if (send && !credit) begin
        cred_next = cred_reg - 1'b1;
    end else if (!send && credit) begin
        cred_next = cred_reg + 1'b1;
    end
    tok_next = tok_reg + TOK_NUM;
    if (send) begin
        tok_next = tok_next - TOK_DEN;
    end
    if (tok_next > TOK_CAP) begin
        tok_next = TOK_CAP;
    end
end

always @(posedge clk) begin
    if (rst) begin
        cred_reg <= CRED_INIT;
        tok_reg  <= TOK_DEN;
    end else begin
        cred_reg <= cred_next;
        tok_reg  <= tok_next;
    end
end

endmodule

`default_nettype wire
