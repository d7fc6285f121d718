rtl/via_dma_diag.v
rtl/via_ram.v
rtl/via_tpt.v
rtl/via_axi_rd_arb.v
testbench/common/axi_ram_model.v
testbench/via_dma_diag/tb_via_dma_diag_env.v
testbench/via_dma_diag/tb_via_dma_diag_xlat_env.v
testbench/via_dma_diag/tb_via_dma_diag.v
