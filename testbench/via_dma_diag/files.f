rtl/via_dma_diag.v
testbench/common/axi_ram_model.v
testbench/via_dma_diag/tb_via_dma_diag_env.v
testbench/via_dma_diag/tb_via_dma_diag.v
