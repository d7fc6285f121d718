// dut_params.h: the parameters of the Verilated via_nic as it was built
// (rtl/via_nic.v marks them verilator public_flat, which keeps the model's
// code unchanged), so the harness never assumes the layout's defaults.
#pragma once

#include <cstdint>

#include "Vvia_node.h"
#include "Vvia_node___024root.h"

namespace vianic {
namespace dut {

using Root = Vvia_node___024root;
constexpr uint32_t kDataWidth = Root::via_node__DOT__DATA_WIDTH;
constexpr uint32_t kNumVi = Root::via_node__DOT__NUM_VI;
constexpr uint32_t kAxilAddrWidth = Root::via_node__DOT__AXIL_ADDR_WIDTH;
constexpr uint32_t kDmaAddrWidth = Root::via_node__DOT__DMA_ADDR_WIDTH;
constexpr uint32_t kDmaIdWidth = Root::via_node__DOT__DMA_ID_WIDTH;
constexpr uint32_t kDmaMaxBurst = Root::via_node__DOT__DMA_MAX_BURST;
constexpr uint32_t kDmaMaxOutstanding = Root::via_node__DOT__DMA_MAX_OUTSTANDING;
constexpr uint32_t kNumIrq = Root::via_node__DOT__NUM_IRQ;
constexpr uint32_t kNetFifoDepth = Root::via_node__DOT__NET_FIFO_DEPTH;
constexpr uint32_t kSoftResetCycles = Root::via_node__DOT__SOFT_RESET_CYCLES;
constexpr uint32_t kCpuImemBytes = Root::via_node__DOT__CPU_IMEM_BYTES;
constexpr uint32_t kCpuDmemBytes = Root::via_node__DOT__CPU_DMEM_BYTES;
constexpr uint32_t kFwLogDepth = Root::via_node__DOT__FW_LOG_DEPTH;
constexpr uint32_t kFwEventDepth = Root::via_node__DOT__FW_EVENT_DEPTH;

static_assert(kAxilAddrWidth >= 17 && kAxilAddrWidth <= 32, "via_nic AXIL_ADDR_WIDTH out of range");
static_assert(kNumIrq >= 1 && kNumIrq <= 32, "via_nic NUM_IRQ out of range");

}  // namespace dut
}  // namespace vianic
