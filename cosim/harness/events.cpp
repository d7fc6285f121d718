// events.cpp: EventRelay (see events.h).
#include "events.h"

namespace vianic {

EventRelay::Rec& EventRelay::add(Kind k, unsigned node, uint64_t cycle) {
    recs_.emplace_back();
    Rec& r = recs_.back();
    r.kind = k;
    r.flag = false;
    r.status = 0;
    r.node = node;
    r.client = r.tag = r.a = r.b = 0;
    r.cycle = cycle;
    r.value = r.len = 0;
    return r;
}

void EventRelay::on_read_done(unsigned node, uint32_t client, uint32_t tag, uint16_t status, uint64_t value,
                              uint64_t cycle) {
    if (!buffering_) return to_->on_read_done(node, client, tag, status, value, cycle);
    Rec& r = add(kReadDone, node, cycle);
    r.client = client;
    r.tag = tag;
    r.status = status;
    r.value = value;
}

void EventRelay::on_write_error(unsigned node, uint32_t client, uint32_t tag, uint32_t offset, unsigned resp,
                                uint64_t cycle) {
    if (!buffering_) return to_->on_write_error(node, client, tag, offset, resp, cycle);
    Rec& r = add(kWriteError, node, cycle);
    r.client = client;
    r.tag = tag;
    r.a = offset;
    r.b = resp;
}

void EventRelay::on_wait_reached(unsigned node, uint32_t client, uint32_t tag, bool dropped) {
    if (!buffering_) return to_->on_wait_reached(node, client, tag, dropped);
    Rec& r = add(kWaitReached, node, cycle_);
    r.client = client;
    r.tag = tag;
    r.flag = dropped;
}

void EventRelay::on_reset_done(unsigned node, uint32_t client, uint32_t tag, uint64_t cycle) {
    if (!buffering_) return to_->on_reset_done(node, client, tag, cycle);
    Rec& r = add(kResetDone, node, cycle);
    r.client = client;
    r.tag = tag;
}

void EventRelay::on_dma_write(unsigned node, uint64_t addr, uint64_t len) {
    if (!buffering_) return to_->on_dma_write(node, addr, len);
    Rec& r = add(kDmaWrite, node, cycle_);
    r.value = addr;
    r.len = len;
}

void EventRelay::on_fabric_done(uint32_t client, uint32_t tag, bool write, uint32_t value, uint64_t cycle) {
    if (!buffering_) return to_->on_fabric_done(client, tag, write, value, cycle);
    Rec& r = add(kFabricDone, 0, cycle);
    r.client = client;
    r.tag = tag;
    r.flag = write;
    r.a = value;
}

void EventRelay::on_irq(unsigned node, uint32_t old_vec, uint32_t new_vec, uint64_t cycle) {
    if (!buffering_) return to_->on_irq(node, old_vec, new_vec, cycle);
    Rec& r = add(kIrq, node, cycle);
    r.a = old_vec;
    r.b = new_vec;
}

void EventRelay::on_fw_line(unsigned node, uint64_t cycle, const std::string& text) {
    if (!buffering_) return to_->on_fw_line(node, cycle, text);
    Rec& r = add(kFwLine, node, cycle);
    r.text = text;
}

void EventRelay::replay(size_t i, NodeEvents* to) const {
    const Rec& r = recs_[i];
    switch (r.kind) {
        case kReadDone:
            to->on_read_done(r.node, r.client, r.tag, r.status, r.value, r.cycle);
            break;
        case kWriteError:
            to->on_write_error(r.node, r.client, r.tag, r.a, r.b, r.cycle);
            break;
        case kWaitReached:
            to->on_wait_reached(r.node, r.client, r.tag, r.flag);
            break;
        case kResetDone:
            to->on_reset_done(r.node, r.client, r.tag, r.cycle);
            break;
        case kDmaWrite:
            to->on_dma_write(r.node, r.value, r.len);
            break;
        case kFabricDone:
            to->on_fabric_done(r.client, r.tag, r.flag, r.a, r.cycle);
            break;
        case kIrq:
            to->on_irq(r.node, r.a, r.b, r.cycle);
            break;
        case kFwLine:
            to->on_fw_line(r.node, r.cycle, r.text);
            break;
    }
}

}  // namespace vianic
