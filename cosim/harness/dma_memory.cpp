// dma_memory.cpp: the AXI4 host memory slave model (see dma_memory.h).
#include "dma_memory.h"

#include <algorithm>
#include <cstring>

#include "Vvia_node.h"
#include "events.h"
#include "host_memory.h"
#include "log.h"
#include "options.h"
#include "stats.h"
#include "txlog.h"

namespace vianic {

namespace {

// Byte access to data ports of any width (64-bit QData or wide VlWide).
inline void get_bytes(const QData& v, uint8_t* out, size_t n) { memcpy(out, &v, n); }
template <std::size_t N>
inline void get_bytes(const VlWide<N>& v, uint8_t* out, size_t n) {
    memcpy(out, v.data(), n);
}
inline void put_bytes(QData& v, const uint8_t* in, size_t n) {
    uint64_t x = 0;
    memcpy(&x, in, n);
    v = x;
}
template <std::size_t N>
inline void put_bytes(VlWide<N>& v, const uint8_t* in, size_t n) {
    memcpy(v.data(), in, n);
}

constexpr unsigned kLoggedErrors = 10;

}  // namespace

DmaMemory::DmaMemory(unsigned node, unsigned bus_bytes, const Options& o, HostMemory* mem, NodeEvents* ev,
                     TxLog* txlog, NodeStats* stats)
    : node_(node),
      bus_bytes_(bus_bytes),
      mem_(mem),
      ev_(ev),
      txlog_(txlog),
      stats_(stats),
      rd_lat_(o.dma_read_latency),
      wr_lat_(o.dma_write_latency),
      unlimited_(o.dma_bandwidth_mbps == 0) {
    // MB/s * ps per cycle = 1e-6 bytes per cycle
    add_ = o.dma_bandwidth_mbps * o.clock_ps;
    cap_ = std::max<uint64_t>(add_, uint64_t(bus_bytes_) * kUnit);
    rd_credit_ = wr_credit_ = cap_;
}

void DmaMemory::refill(uint64_t* credit, uint64_t cycles) const {
    if (unlimited_) return;
    uint64_t room = cap_ - std::min(*credit, cap_);
    if (add_ == 0 || cycles >= room / add_ + 1) {
        *credit = cap_;
    } else {
        *credit = std::min(cap_, *credit + add_ * cycles);
    }
}

void DmaMemory::skip_cycles(uint64_t n) {
    refill(&rd_credit_, n);
    refill(&wr_credit_, n);
}

void DmaMemory::drive(Vvia_node* top) {
    if (!dirty_) return;  // the inputs hold what was last driven
    dirty_ = false;
    top->m_axi_arready = arready_;
    top->m_axi_awready = awready_;
    top->m_axi_wready = wready_;
    top->m_axi_rvalid = rvalid_;
    top->m_axi_rlast = rlast_;
    top->m_axi_rresp = rresp_;
    top->m_axi_rid = rid_;
    put_bytes(top->m_axi_rdata, rdata_, bus_bytes_);
    top->m_axi_bvalid = bvalid_;
    top->m_axi_bresp = bresp_;
    top->m_axi_bid = bid_;
}

void DmaMemory::drive_quiet(Vvia_node* top) {
    top->m_axi_arready = 0;
    top->m_axi_awready = 0;
    top->m_axi_wready = 0;
    top->m_axi_rvalid = 0;
    top->m_axi_rlast = 0;
    top->m_axi_bvalid = 0;
}

void DmaMemory::sample(const Vvia_node* top, bool late_rb) {
    if (quiet_ && !top->m_axi_arvalid && !top->m_axi_awvalid) {
        // nothing in flight (so no R, W or B) and no new burst
        s_ar_ = s_aw_ = s_r_ = s_w_ = s_b_ = false;
        return;
    }
    s_ar_ = arready_ && top->m_axi_arvalid;
    if (s_ar_) {
        s_arb_ = Burst{};
        s_arb_.addr = top->m_axi_araddr;
        s_arb_.beats = uint32_t(top->m_axi_arlen) + 1;
        s_arb_.size = top->m_axi_arsize;
        s_arb_.type = top->m_axi_arburst;
        s_arb_.id = top->m_axi_arid;
    }
    s_aw_ = awready_ && top->m_axi_awvalid;
    if (s_aw_) {
        s_awb_ = Burst{};
        s_awb_.addr = top->m_axi_awaddr;
        s_awb_.beats = uint32_t(top->m_axi_awlen) + 1;
        s_awb_.size = top->m_axi_awsize;
        s_awb_.type = top->m_axi_awburst;
        s_awb_.id = top->m_axi_awid;
    }
    s_w_ = wready_ && top->m_axi_wvalid;
    if (s_w_) {
        get_bytes(top->m_axi_wdata, s_wdata_, bus_bytes_);
        s_wstrb_ = uint64_t(top->m_axi_wstrb);
        s_wlast_ = top->m_axi_wlast;
    }
    if (late_rb) return;
    s_r_ = rvalid_ && top->m_axi_rready;
    s_b_ = bvalid_ && top->m_axi_bready;
}

void DmaMemory::clear_sample() { s_ar_ = s_aw_ = s_r_ = s_w_ = s_b_ = false; }

void DmaMemory::accept(Burst* b, bool write, uint64_t cycle) {
    b->accept = cycle;
    b->ready = cycle + (write ? wr_lat_ : rd_lat_);
    b->done = 0;
    b->resp = 0;
    uint64_t bytes = uint64_t(1) << b->size;
    const char* why = nullptr;
    if (bytes > bus_bytes_) {
        why = "beat size wider than the data bus";
        b->resp = 2;
    } else if (b->type == 3) {
        why = "reserved burst type 3";
        b->resp = 2;
    } else if (b->type == 2 && ((b->beats != 2 && b->beats != 4 && b->beats != 8 && b->beats != 16) ||
                                (b->addr & (bytes - 1)) != 0)) {
        why = "WRAP burst with a length other than 2/4/8/16 or an unaligned address";
        b->resp = 2;
    } else {
        uint64_t lo, hi;
        uint64_t aligned = b->addr & ~(bytes - 1);
        if (b->type == 0) {
            lo = b->addr;
            hi = aligned + bytes;
        } else if (b->type == 1) {
            lo = b->addr;
            hi = aligned + uint64_t(b->beats) * bytes;
            if ((lo >> 12) != ((hi - 1) >> 12))
                log_verbose("node%u: DMA %s burst at 0x%llx crosses a 4 KiB boundary (AXI violation; served)",
                            node_, write ? "write" : "read", (unsigned long long)b->addr);
        } else {
            uint64_t total = uint64_t(b->beats) * bytes;
            lo = b->addr & ~(total - 1);
            hi = lo + total;
        }
        if (!mem_->attached()) {
            why = "no host memory attached";
            b->resp = 3;
        } else if (!mem_->contains(lo, hi - lo)) {
            why = "outside host memory";
            b->resp = 3;
        }
    }
    if (why) {
        stats_->dma_errors++;
        if (logged_errors_ < kLoggedErrors || log_is_verbose()) {
            log_error("node%u: DMA %s of %u x %llu bytes at 0x%llx: %s: answered %s%s", node_,
                      write ? "write" : "read", b->beats, (unsigned long long)bytes, (unsigned long long)b->addr,
                      why, b->resp == 3 ? "DECERR" : "SLVERR",
                      ++logged_errors_ == kLoggedErrors ? " (further DMA errors of this node: --verbose)" : "");
        }
    }
}

uint64_t DmaMemory::beat_addr(const Burst& b, uint32_t i) const {
    uint64_t bytes = uint64_t(1) << b.size;
    switch (b.type) {
        case 0:
            return b.addr;
        case 2: {
            uint64_t total = uint64_t(b.beats) * bytes;
            uint64_t lo = b.addr & ~(total - 1);
            return lo + ((b.addr - lo + uint64_t(i) * bytes) % total);
        }
        default:
            return i == 0 ? b.addr : (b.addr & ~(bytes - 1)) + uint64_t(i) * bytes;
    }
}

void DmaMemory::present_read_beat(uint64_t cycle) {
    (void)cycle;
    Burst& b = rq_.front();
    uint64_t a = beat_addr(b, b.done);
    uint64_t bytes = uint64_t(1) << b.size;
    unsigned lane = unsigned(a & (bus_bytes_ - 1));
    size_t n = size_t((a & ~(bytes - 1)) + bytes - a);
    memset(rdata_, 0, bus_bytes_);
    // checked again per beat: ATTACH_MEM may have replaced the memory with
    // a smaller one since the burst was accepted
    if (b.resp == 0 && !mem_->contains(a, n)) b.resp = 3;
    rresp_ = b.resp;
    if (b.resp == 0 && !mem_->read(a, rdata_ + lane, n)) {
        memset(rdata_, 0, bus_bytes_);
        rresp_ = 2;
        b.resp = 2;
        stats_->dma_faults++;
        if (logged_errors_ < kLoggedErrors || log_is_verbose())
            log_error("node%u: DMA read at 0x%llx faulted: the host memory (memfd) shrank under its mapping; "
                      "answered SLVERR%s",
                      node_, (unsigned long long)a,
                      ++logged_errors_ == kLoggedErrors ? " (further DMA errors of this node: --verbose)" : "");
    }
    rvalid_ = true;
    rlast_ = b.done + 1 == b.beats;
    rid_ = b.id;
}

void DmaMemory::store_write_beat(Burst& b, uint64_t cycle) {
    (void)cycle;
    uint64_t a = beat_addr(b, b.done);
    uint64_t bytes = uint64_t(1) << b.size;
    unsigned lane = unsigned(a & (bus_bytes_ - 1));
    size_t n = size_t((a & ~(bytes - 1)) + bytes - a);
    bool last = b.done + 1 == b.beats;
    if (s_wlast_ != last) {
        if (logged_errors_ < kLoggedErrors || log_is_verbose()) {
            logged_errors_++;
            log_error("node%u: DMA write burst at 0x%llx: WLAST is %d on beat %u of %u (AXI violation)", node_,
                      (unsigned long long)b.addr, int(s_wlast_), b.done + 1, b.beats);
        }
    }
    if (b.resp == 0 && !mem_->contains(a, n)) b.resp = 3;  // memory replaced since accept
    if (b.resp != 0) return;
    uint64_t all = n >= 64 ? ~uint64_t(0) : ((uint64_t(1) << n) - 1);
    uint64_t strobe = (s_wstrb_ >> lane) & all;
    if (strobe == 0) return;
    bool ok = strobe == all ? mem_->write(a, s_wdata_ + lane, n) : mem_->write_strobed(a, s_wdata_ + lane, strobe, n);
    if (!ok) {
        b.resp = 2;
        stats_->dma_faults++;
        if (logged_errors_ < kLoggedErrors || log_is_verbose())
            log_error("node%u: DMA write at 0x%llx faulted: the host memory (memfd) shrank under its mapping; "
                      "answered SLVERR%s",
                      node_, (unsigned long long)a,
                      ++logged_errors_ == kLoggedErrors ? " (further DMA errors of this node: --verbose)" : "");
        return;
    }
    stats_->dma_write_bytes += uint64_t(__builtin_popcountll(strobe));
    ev_->on_dma_write(node_, a, n);
}

void DmaMemory::edge(uint64_t cycle) {
    if (quiet_ && !s_ar_ && !s_aw_) {
        // what the full path below computes when nothing is in flight:
        // the outputs stay as they are, the credit refills
        if (rd_credit_ < cap_) refill(&rd_credit_, 1);
        if (wr_credit_ < cap_) refill(&wr_credit_, 1);
        return;
    }
    dirty_ = true;
    if (s_ar_) {
        accept(&s_arb_, false, cycle);
        rq_.push_back(s_arb_);
    }
    if (s_aw_) {
        accept(&s_awb_, true, cycle);
        awq_.push_back(s_awb_);
    }
    if (s_r_) {
        Burst& b = rq_.front();
        uint64_t cost = (uint64_t(1) << b.size) * kUnit;
        rd_credit_ = rd_credit_ > cost ? rd_credit_ - cost : 0;
        if (rresp_ == 0) stats_->dma_read_bytes += uint64_t(1) << b.size;
        rvalid_ = false;
        if (++b.done == b.beats) {
            stats_->dma_read_bursts++;
            txlog_->dma(cycle, node_, false, b.addr, b.beats, 1u << b.size, b.id, b.type, b.resp, b.accept);
            rq_.pop_front();
        }
    }
    if (s_w_) {
        Burst& b = awq_.front();
        uint64_t cost = (uint64_t(1) << b.size) * kUnit;
        wr_credit_ = wr_credit_ > cost ? wr_credit_ - cost : 0;
        store_write_beat(b, cycle);
        if (++b.done == b.beats) {
            b.ready = cycle + wr_lat_;
            bq_.push_back(b);
            awq_.pop_front();
        }
    }
    if (s_b_) {
        const Burst& b = bq_.front();
        stats_->dma_write_bursts++;
        txlog_->dma(cycle, node_, true, b.addr, b.beats, 1u << b.size, b.id, b.type, b.resp, b.accept);
        bq_.pop_front();
        bvalid_ = false;
    }
    clear_sample();

    refill(&rd_credit_, 1);
    refill(&wr_credit_, 1);

    // outputs for the next rising edge (cycle + 1)
    arready_ = rq_.size() < kMaxOutstanding;
    awready_ = awq_.size() + bq_.size() < kMaxOutstanding;
    wready_ = !awq_.empty() && credit_ok(wr_credit_, awq_.front());
    if (!rvalid_ && !rq_.empty() && cycle + 1 >= rq_.front().ready && credit_ok(rd_credit_, rq_.front()))
        present_read_beat(cycle);
    if (!bvalid_ && !bq_.empty() && cycle + 1 >= bq_.front().ready) {
        bvalid_ = true;
        bresp_ = bq_.front().resp;
        bid_ = bq_.front().id;
    }
    quiet_ = idle();
}

void DmaMemory::drop_all() {
    rq_.clear();
    awq_.clear();
    bq_.clear();
    arready_ = awready_ = true;
    wready_ = false;
    rvalid_ = rlast_ = false;
    bvalid_ = false;
    rd_credit_ = wr_credit_ = cap_;
    dirty_ = true;
    quiet_ = true;
    clear_sample();
}

}  // namespace vianic
