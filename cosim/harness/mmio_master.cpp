// mmio_master.cpp: the AXI4-Lite master model (see mmio_master.h).
#include "mmio_master.h"

#include "Vvia_node.h"
#include "events.h"
#include "log.h"
#include "protocol.h"
#include "stats.h"
#include "txlog.h"

namespace vianic {

void MmioMaster::push(const MmioOp& op) {
    if (op.kind == MmioOp::kRead || op.kind == MmioOp::kReset) answers_due_++;
    q_.push_back(op);
    if (state_ == kIdle) start_next();
}

void MmioMaster::start_next() {
    // waits at the head begin now: everything before them has completed;
    // canceled reads are dropped
    while (!q_.empty() && (q_.front().kind == MmioOp::kWait || q_.front().kind == MmioOp::kCanceled)) {
        MmioOp w = q_.front();
        q_.pop_front();
        if (w.kind == MmioOp::kWait) ev_->on_wait_reached(node_, w.client, w.tag, false);
    }
    if (q_.empty()) return;
    cur_ = q_.front();
    q_.pop_front();
    phase_ = 0;
    status_ = 0;
    err_offset_ = 0;
    rd_value_ = 0;
    answered_ = false;
    switch (cur_.kind) {
        case MmioOp::kReset:
            state_ = kResetting;
            reset_req_ = true;
            return;
        case MmioOp::kRead:
            state_ = kRead;
            break;
        case MmioOp::kWrite:
        default:
            state_ = kWrite;
            break;
    }
    start_word();
}

void MmioMaster::start_word() {
    dirty_ = true;
    addr_ = cur_.offset + 4 * phase_;
    if (state_ == kWrite) {
        wdata_ = uint32_t(phase_ ? cur_.value >> 32 : cur_.value);
        awvalid_ = true;
        wvalid_ = true;
    } else {
        arvalid_ = true;
    }
}

void MmioMaster::drive(Vvia_node* top) {
    if (!dirty_) return;  // the inputs hold what was last driven
    dirty_ = false;
    top->s_axil_awaddr = addr_;
    top->s_axil_awprot = 0;
    top->s_axil_awvalid = awvalid_;
    top->s_axil_wdata = wdata_;
    top->s_axil_wstrb = 0xF;
    top->s_axil_wvalid = wvalid_;
    top->s_axil_bready = 1;
    top->s_axil_araddr = addr_;
    top->s_axil_arprot = 0;
    top->s_axil_arvalid = arvalid_;
    top->s_axil_rready = 1;
}

void MmioMaster::drive_quiet(Vvia_node* top) {
    top->s_axil_awvalid = 0;
    top->s_axil_wvalid = 0;
    top->s_axil_arvalid = 0;
    top->s_axil_bready = 1;
    top->s_axil_rready = 1;
}

void MmioMaster::sample(const Vvia_node* top, uint64_t edge_cycle) {
    s_aw_ = awvalid_ && top->s_axil_awready;
    s_w_ = wvalid_ && top->s_axil_wready;
    s_ar_ = arvalid_ && top->s_axil_arready;
    s_b_ = top->s_axil_bvalid;  // bready is always 1
    s_r_ = top->s_axil_rvalid;  // rready is always 1
    s_bresp_ = top->s_axil_bresp;
    s_rresp_ = top->s_axil_rresp;
    s_rdata_ = top->s_axil_rdata;
    // The last R beat of a read transfers at this edge for certain: answer
    // now, with that edge's cycle (edge() does the rest of the bookkeeping).
    if (s_r_ && state_ == kRead && !arvalid_ && (cur_.size != 8 || phase_ == 1)) {
        uint16_t st = status_;
        unsigned resp = s_rresp_ & 3;
        if (resp >= 2 && st == 0) st = uint16_t(resp);
        answered_ = true;
        answers_due_--;
        ev_->on_read_done(node_, cur_.client, cur_.tag, st, rd_value_ | (uint64_t(s_rdata_) << (32 * phase_)),
                          edge_cycle);
    }
}

void MmioMaster::clear_sample() { s_aw_ = s_w_ = s_ar_ = s_b_ = s_r_ = false; }

void MmioMaster::edge(uint64_t cycle) {
    if (s_aw_ || s_w_ || s_ar_) dirty_ = true;
    if (s_aw_) awvalid_ = false;
    if (s_w_) wvalid_ = false;
    if (s_ar_) arvalid_ = false;

    if (s_b_) {
        if (state_ != kWrite || awvalid_ || wvalid_) {
            log_error("node%u: AXI4-Lite B response with no write outstanding (ignored)", node_);
        } else {
            unsigned resp = s_bresp_ & 3;
            stats_->mmio_writes++;
            txlog_->mmio(cycle, node_, true, addr_, wdata_, resp, cur_.client);
            if (resp >= 2 && status_ == 0) {
                status_ = resp;
                err_offset_ = addr_;
            }
            if (cur_.size == 8 && phase_ == 0) {
                phase_ = 1;
                start_word();
            } else {
                if (status_ != 0) {
                    stats_->mmio_bus_errors++;
                    ev_->on_write_error(node_, cur_.client, cur_.tag, err_offset_, status_, cycle);
                }
                state_ = kIdle;
            }
        }
    }
    if (s_r_) {
        if (state_ != kRead || arvalid_) {
            log_error("node%u: AXI4-Lite R response with no read outstanding (ignored)", node_);
        } else {
            unsigned resp = s_rresp_ & 3;
            stats_->mmio_reads++;
            txlog_->mmio(cycle, node_, false, addr_, s_rdata_, resp, cur_.client);
            if (resp >= 2 && status_ == 0) status_ = resp;
            rd_value_ |= uint64_t(s_rdata_) << (32 * phase_);
            if (cur_.size == 8 && phase_ == 0) {
                phase_ = 1;
                start_word();
            } else {
                if (status_ != 0) stats_->mmio_bus_errors++;
                state_ = kIdle;
                if (!answered_) {
                    answers_due_--;
                    ev_->on_read_done(node_, cur_.client, cur_.tag, status_, rd_value_, cycle);
                }
            }
        }
    }
    if (state_ == kIdle) start_next();
}

bool MmioMaster::cancel_read(uint32_t client, uint32_t tag) {
    for (size_t i = 0; i < q_.size(); i++) {
        MmioOp& op = q_[i];
        if (op.kind == MmioOp::kRead && op.client == client && op.tag == tag) {
            op.kind = MmioOp::kCanceled;
            answers_due_--;
            return true;
        }
    }
    return false;
}

bool MmioMaster::take_reset_request(MmioOp* op) {
    if (!reset_req_) return false;
    reset_req_ = false;
    *op = cur_;
    return true;
}

void MmioMaster::reset_finished(uint64_t cycle) {
    if (state_ != kResetting) return;
    state_ = kIdle;
    answers_due_--;
    ev_->on_reset_done(node_, cur_.client, cur_.tag, cycle);
    start_next();
}

void MmioMaster::abort_all(uint64_t cycle) {
    if (state_ == kRead && !answered_)
        ev_->on_read_done(node_, cur_.client, cur_.tag, proto::kReadDetached, 0, cycle);
    while (!q_.empty()) {
        const MmioOp& op = q_.front();
        if (op.kind == MmioOp::kRead) ev_->on_read_done(node_, op.client, op.tag, proto::kReadDetached, 0, cycle);
        if (op.kind == MmioOp::kWait) ev_->on_wait_reached(node_, op.client, op.tag, true);
        q_.pop_front();
    }
    state_ = kIdle;
    answers_due_ = 0;
    reset_req_ = false;
    awvalid_ = wvalid_ = arvalid_ = false;
    dirty_ = true;
    clear_sample();
}

}  // namespace vianic
