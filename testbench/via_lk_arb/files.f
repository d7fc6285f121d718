rtl/via_lk_arb.v
testbench/via_lk_arb/tb_via_lk_arb_req.v
testbench/via_lk_arb/tb_via_lk_arb_env.v
testbench/via_lk_arb/tb_via_lk_arb.v
