// via_param_check.vh: elaboration-time parameter checks that Verilator 5,
// Icarus 11 and Yosys 0.23 all honour (docs/rtl.md, "Parameter checks").
//
// Use inside a generate-if whose condition is true when a parameter is out
// of range, with the message and its arguments in double parentheses:
//
//   generate
//       if (DEPTH < 2) begin : g_bad_depth
//           `VIA_PARAM_FAIL(("via_fifo: DEPTH=%0d, must be >= 2", DEPTH))
//       end
//   endgenerate
//
// Both Yosys and Verilator stop at elaboration on $error (the lint
// reports USERERROR; a Verilator build with -Wno-fatal still runs into the
// $fatal at time 0). Icarus 11 has no elaboration tasks: the message and a
// $fatal come at time 0 of the simulation.

`ifndef VIA_PARAM_CHECK_VH
`define VIA_PARAM_CHECK_VH

`ifdef __ICARUS__
`define VIA_PARAM_FAIL(msg) initial begin $display msg; $fatal(1, "parameter check failed"); end
`elsif VERILATOR
`define VIA_PARAM_FAIL(msg) $error msg; initial begin $display msg; $fatal(1, "parameter check failed"); end
`else
`define VIA_PARAM_FAIL(msg) $error msg;
`endif

`endif // VIA_PARAM_CHECK_VH
