// ring.h: a growable FIFO ring buffer for the bus models' queues (no
// allocation once it has reached its working size, unlike std::deque).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace vianic {

template <class T>
class Ring {
public:
    bool empty() const { return n_ == 0; }
    size_t size() const { return n_; }
    T& front() { return buf_[head_]; }
    const T& front() const { return buf_[head_]; }
    T& operator[](size_t i) { return buf_[(head_ + i) & (buf_.size() - 1)]; }
    const T& operator[](size_t i) const { return buf_[(head_ + i) & (buf_.size() - 1)]; }

    void push_back(const T& v) {
        if (n_ == buf_.size()) grow();
        buf_[(head_ + n_) & (buf_.size() - 1)] = v;
        n_++;
    }
    void pop_front() {
        head_ = (head_ + 1) & (buf_.size() - 1);
        n_--;
    }
    void clear() {
        head_ = 0;
        n_ = 0;
    }

private:
    void grow() {
        std::vector<T> nb(buf_.empty() ? 16 : buf_.size() * 2);
        for (size_t i = 0; i < n_; i++) nb[i] = std::move((*this)[i]);
        buf_.swap(nb);
        head_ = 0;
    }
    std::vector<T> buf_;  // size is zero or a power of two
    size_t head_ = 0;
    size_t n_ = 0;
};

}  // namespace vianic
