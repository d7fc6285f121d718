# via_cpu bench: sources relative to the repository root
rtl/via_cpu_ram.v
rtl/via_cpu.v
testbench/via_cpu/tb_via_cpu.v
