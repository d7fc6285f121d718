# via_cpu_periph bench
rtl/via_fifo.v
rtl/via_cpu_periph.v
testbench/via_cpu_periph/tb_via_cpu_periph.v
