# via_vi_queues bench
rtl/via_ram.v
rtl/via_vi_queues.v
testbench/via_vi_queues/tb_via_vi_queues_env.v
testbench/via_vi_queues/tb_via_vi_queues.v
