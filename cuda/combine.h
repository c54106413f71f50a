/* gpuimg: requests of concurrent threads combined into one device call (C++, cuda/ only).
 * A thread submits its request and waits; whichever waiting thread finds no call running takes
 * every queued request that can share one call with the oldest (up to max), runs them together
 * and wakes the others. No thread of its own and no added latency for a lone request: while one
 * call runs, the next requests gather, so batches grow with the load (a batch's workers, the
 * server's clients). The caller owns each request until submit returns. */
#ifndef GPUIMG_COMBINE_H
#define GPUIMG_COMBINE_H
#include <condition_variable>
#include <mutex>
#include <vector>

template <class Req> class combiner {
public:
    /* run(std::vector<Req *> &batch) does the work of every request in batch; same(a, b): may a and
     * b share a call. Returns when r's call has run. */
    template <class Run, class Same> void submit(Req *r, size_t max, Run run, Same same)
    {
        std::unique_lock<std::mutex> lock(m_);
        q_.push_back(r);
        bool mine = false;
        while (!mine) {
            if (busy_) {
                cv_.wait(lock);
                mine = done_of(r);
                continue;
            }
            busy_ = true;
            std::vector<Req *> batch;
            Req *first = q_.front();
            for (size_t i = 0; i < q_.size() && batch.size() < max;)
                if (same(first, q_[i])) {
                    batch.push_back(q_[i]);
                    q_.erase(q_.begin() + (long)i);
                } else
                    i++;
            lock.unlock();
            run(batch);
            lock.lock();
            for (Req *b : batch)
                done_.push_back(b);
            busy_ = false;
            cv_.notify_all();
            mine = done_of(r);
        }
    }

private:
    bool done_of(Req *r)
    {
        for (size_t i = 0; i < done_.size(); i++)
            if (done_[i] == r) {
                done_.erase(done_.begin() + (long)i);
                return true;
            }
        return false;
    }
    std::mutex m_;
    std::condition_variable cv_;
    std::vector<Req *> q_, done_;
    bool busy_ = false;
};

#endif
