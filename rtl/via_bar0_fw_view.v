// via_bar0_fw_view: the firmware's read-only view of BAR0's registers (the
// 0x8000 window of the core's peripheral space, via_cpu_periph).
//
// The register blocks have one read multiplexer, shared by the host and the
// firmware. The host has priority: host_rd is 1 while a host read that
// needs the multiplexer is presented, and the multiplexer then serves
// host_off (mux_en = host_sel: the offset lies in the register space).
// Otherwise it serves the firmware's request (fw_rd_en, held until
// fw_rd_ack), acked at once: the AXI-Lite slave drops its read request for
// at least a cycle after every ack, so a firmware read waits a cycle or two
// at most. A firmware read never has a side effect (the blocks' read
// strobes fire only for the host's reads); an offset that holds no register
// answers fw_rd_err (an access fault for the core).

`timescale 1ns / 1ps
`default_nettype none

module via_bar0_fw_view (
    // the host's request of the multiplexer
    input  wire        host_rd,
    input  wire        host_sel,
    input  wire [15:0] host_off,

    // the firmware's request
    input  wire        fw_rd_en,
    /* verilator lint_off UNUSEDSIGNAL */
    // a byte address; registers are word-wide
    input  wire [9:0]  fw_rd_addr,
    /* verilator lint_on UNUSEDSIGNAL */
    output wire        fw_rd_ack,
    output wire [31:0] fw_rd_data,
    output wire        fw_rd_err,

    // the multiplexer
    output wire        mux_en,
    output wire [15:0] mux_off,
    input  wire        mux_hit,
    input  wire [31:0] mux_data
);

wire [15:0] fw_off = {6'd0, fw_rd_addr[9:2], 2'b00};

assign mux_en     = host_rd ? host_sel : 1'b1;
assign mux_off    = host_rd ? host_off : fw_off;
assign fw_rd_ack  = fw_rd_en && !host_rd;
assign fw_rd_data = mux_data;
assign fw_rd_err  = !mux_hit;

endmodule

`default_nettype wire
