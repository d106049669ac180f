package driver

import (
	"math/rand/v2"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// A fixed rate (Config.Rate, pgbench -R): each client draws its
// transactions' scheduled starts from a Poisson process of Rate/clients a
// second (the clients' together one of Rate), waits for each, and its
// latency counts from the scheduled start, not from when the client got
// to it: a server that falls behind shows in the latency, as a user's
// requests that queue would (no coordinated omission). How late each start
// was is the schedule lag. With LatencyLimit, a transaction whose latency
// exceeds it is late, and one already that late when its turn comes is
// skipped, not sent (pgbench --latency-limit), so the schedule can catch up.

// schedule is one client's Poisson schedule.
type schedule struct {
	next  time.Time
	gapNS float64 // the mean gap between the client's scheduled starts
	rng   *rand.Rand
}

// newSchedule starts client i's schedule at start, a random gap in, drawn
// from seed's stream (Config.ScheduleSeed).
func newSchedule(rate float64, clients, i int, seed uint64, start time.Time) *schedule {
	s := &schedule{next: start, gapNS: float64(clients) / rate * 1e9, rng: rand.New(rand.NewPCG(uint64(i)+1, 0x5eed+seed))}
	s.advance()
	return s
}

// advance returns the next scheduled start and draws the one after it.
func (s *schedule) advance() time.Time {
	t := s.next
	s.next = s.next.Add(time.Duration(s.rng.ExpFloat64() * s.gapNS))
	return t
}

// paced is what a worker keeps of its schedule in the window: the lag of
// each measured transaction's start behind its schedule (µs), the
// transactions over the latency limit and those skipped.
type paced struct {
	sched                    *schedule
	lag                      *hdrhistogram.Histogram
	scheduled, late, skipped int64
}

// wait sleeps until at, or until the window is stopped (false).
func (win *window) wait(at time.Time) bool {
	d := time.Until(at)
	if d <= 0 {
		return !win.stop.Load()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return !win.stop.Load()
	case <-win.stopped:
		return false
	}
}

// due waits for w's next scheduled start and returns it; skip says the
// start is already later than the latency limit (the transaction is not
// sent), ok false that the window was stopped meanwhile.
func (win *window) due(w *worker) (sched time.Time, skip, ok bool) {
	sched = w.pace.sched.advance()
	if win.inWindow(sched) {
		w.pace.scheduled++
	}
	if !win.wait(sched) {
		return sched, false, false
	}
	if lim := win.cfg.LatencyLimit; lim > 0 && time.Since(sched) > lim {
		if win.inWindow(sched) {
			w.pace.skipped++
			if win.cfg.Record {
				now := time.Now()
				w.records = append(w.records, Record{Client: w.id, EndUS: now.UnixMicro(), LagUS: now.Sub(sched).Microseconds(), Skipped: true})
			}
		}
		return sched, true, true
	}
	return sched, false, true
}

// inWindow says t is inside the measured window.
func (win *window) inWindow(t time.Time) bool {
	if t.Before(time.Unix(0, win.startNS.Load())) {
		return false
	}
	e := win.endNS.Load()
	return e == 0 || t.Before(time.Unix(0, e))
}

// recordPace records a paced client's measured transaction's lag behind its schedule and
// whether its latency from the schedule was over the limit.
func (win *window) recordPace(w *worker, sched, t0, t1 time.Time) {
	_ = w.pace.lag.RecordValue(max(t0.Sub(sched).Microseconds(), 0))
	if lim := win.cfg.LatencyLimit; lim > 0 && t1.Sub(sched) > lim {
		w.pace.late++
	}
}

// Pace is a fixed-rate window's schedule as it ran: the rate asked, the
// transactions scheduled to start in the window (a Poisson count: about
// Rate × the window, ± its square root), the lag of the measured ones'
// starts behind their schedule (µs), those over the latency limit and
// those skipped.
type Pace struct {
	Rate                     float64
	LatencyLimit             time.Duration
	Lag                      *hdrhistogram.Histogram
	Scheduled, Late, Skipped int64
}

// merge adds o's figures to p's.
func (p *Pace) merge(o *Pace) {
	p.Rate, p.LatencyLimit = o.Rate, o.LatencyLimit
	p.Lag.Merge(o.Lag)
	p.Scheduled += o.Scheduled
	p.Late += o.Late
	p.Skipped += o.Skipped
}

// rest counts the starts w's schedule had left in the window when the
// client ended (a client behind its schedule never reached them): the
// window's scheduled transactions are all of them, reached or not.
func (win *window) rest(w *worker) {
	e := win.endNS.Load()
	if w.pace == nil || e == 0 {
		return
	}
	end := time.Unix(0, e)
	for t := w.pace.sched.advance(); t.Before(end); t = w.pace.sched.advance() {
		if win.inWindow(t) {
			w.pace.scheduled++
		}
	}
}
