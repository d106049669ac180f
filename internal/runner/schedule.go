package runner

// Scheduling: which cells run together (a group: one cache, client count,
// table size and repetition), their rounds interleaved in a random,
// balanced order, each round's share of the window, and what a failed cell
// does to its group.

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/keybench/keybench/internal/metrics"
	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/scenario"
	"github.com/keybench/keybench/internal/stats"
	"github.com/keybench/keybench/internal/usage"
	"github.com/keybench/keybench/internal/verdict"
	"github.com/keybench/keybench/internal/workload"
)

// groups splits the plan into the cells that run together: with rounds,
// the cells of one cache, client count, table size and repetition, whose
// rounds interleave (each on its own table, the n-th of a group at
// workload.PlaceOf(schema, n)); without, each cell alone. A group is every
// cell of the plan with its cache, clients, rows and repetition, wherever
// the plan lists it; groups keep the order of their first cells.
func groups(plan []scenario.PlannedCell, rounds int) [][]scenario.PlannedCell {
	type shape struct {
		cache   int64
		clients int
		rows    int64
		repeat  int
	}
	var out [][]scenario.PlannedCell
	at := map[shape]int{}
	for _, c := range plan {
		if rounds <= 1 {
			out = append(out, []scenario.PlannedCell{c})
			continue
		}
		s := shape{c.Cache, c.Clients, c.Rows, c.Repeat}
		i, ok := at[s]
		if !ok {
			i = len(out)
			at[s] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}

// group measures cells that run together: with --rounds, the cells of one
// client count, table size and repetition, whose windows are split into
// rounds interleaved across the cells (cell 1 round 1, cell 2 round 1, …),
// each cell keeping its own table between its rounds; without, one cell.
// It returns the cells as measured, and an error that stops the run (an
// interrupt, a lost server); a failure confined to a cell is recorded in
// the cell.
func (r *run) group(parent context.Context, pcs []scenario.PlannedCell, rounds int) ([]results.Cell, error) {
	p := r.cfg.Plan.Params
	cs := make([]results.Cell, len(pcs))
	for k, pc := range pcs {
		cs[k] = results.Cell{
			Key: pc.Key.Raw, KeyCanonical: pc.Key.String(), KeyColumn: pc.Key.ColumnType(), Workload: pc.Task.Workload, Variant: pc.Task.Variant,
			Clients: pc.Clients, Repeat: pc.Repeat, RowsBefore: pc.Rows, SharedBuffers: pc.Cache, WarmupS: p.Warmup.Seconds(),
			Status: results.StatusOK, Timeline: []results.Second{},
		}
		cs[k].SetKind(r.res.KindOf(pc.Task.Workload))
	}
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	if exited := r.target.exited(); exited != nil {
		go func() {
			for {
				select {
				case <-exited:
					// A restart of keybench's own (bufferedFills) holds
					// restartMu until the server runs again.
					r.restartMu.Lock()
					now := r.target.exited()
					r.restartMu.Unlock()
					if now != exited {
						exited = now
						continue
					}
					cancel(errServerGone)
				case <-ctx.Done():
				}
				return
			}
		}()
	}
	errs := r.measureGroup(ctx, pcs, cs, rounds)
	var stop error
	var out []results.Cell
	for k, err := range errs {
		c := &cs[k]
		switch {
		case errors.Is(err, errNotRun):
			continue
		case err == nil:
		case parent.Err() != nil:
			c.Status, c.Error = results.StatusInterrupted, "interrupted"
			stop = ErrInterrupted
		case errors.Is(context.Cause(ctx), errServerGone) || r.serverGone():
			c.Status, c.Error = results.StatusFailed, fmt.Sprintf("%v: %s", errServerGone, r.target.trouble())
			stop = errors.New(c.Error)
		default:
			c.Status, c.Error = results.StatusFailed, err.Error()
			var ue *usage.Error
			switch {
			case errors.As(err, &ue): // bad input found by the cell (a script's statement refused): the run stops, exit 2
				stop = err
			case errors.Is(err, errLostConnection):
				stop = err
			case r.admin.IsClosed():
				stop = fmt.Errorf("%w: %v", errLostConnection, err)
			}
		}
		out = append(out, *c)
	}
	return out, stop
}

// serverGone reports whether the server has exited (when keybench can
// tell), waiting a moment for it: a connection usually breaks just before
// the postmaster's exit is seen.
func (r *run) serverGone() bool {
	exited := r.target.exited()
	if exited == nil || !r.admin.IsClosed() && r.admin.Ping(context.Background()) == nil {
		return false
	}
	select {
	case <-exited:
		return true
	case <-time.After(3 * time.Second):
		return false
	}
}

// measureGroup runs the lifecycle of every cell of a group: set up and
// fill them all, then their rounds in turn, then summarize, evidence and
// drop each. A cell that fails leaves the group; the others go on, unless
// a failed cell stops the run (--on-error stop): the cells not measured
// then carry errNotRun.
func (r *run) measureGroup(ctx context.Context, pcs []scenario.PlannedCell, cs []results.Cell, rounds int) []error {
	errs := make([]error, len(pcs))
	// stop says whether cell k's failure ends the group: the run stops on a failed cell.
	stop := func(k int) bool {
		if errs[k] == nil || ctx.Err() == nil && r.cfg.OnError == "continue" {
			return false
		}
		if ctx.Err() != nil || errors.Is(errs[k], errLostConnection) {
			// Every cell stops with it, keeping its measured rounds.
			fail(errs, errs[k])
		} else {
			fail(errs, errNotRun)
		}
		return true
	}
	crs := make([]*cellRun, len(pcs))
	defer func() {
		for _, cr := range crs {
			if cr != nil {
				cr.drop(ctx)
			}
		}
	}()
	for k, pc := range pcs {
		cr, err := r.setUp(ctx, pc, &cs[k], workload.PlaceOf(r.cfg.Schema, k+1), rounds)
		crs[k] = cr
		if errs[k] = err; stop(k) {
			return errs
		}
	}
	if scenario.FillsBuffered(fillRows(crs, errs), r.cache) {
		if err := r.bufferedIO(ctx, true, true, "for the fills"); err != nil {
			fail(errs, err)
			return errs
		}
	}
	r.fillAll(ctx, crs, errs)
	if err := r.bufferedIO(ctx, false, false, "for the rounds"); err != nil {
		fail(errs, err)
		return errs
	}
	for k, cr := range crs {
		if cr != nil && errs[k] == nil {
			cr.ownRelations(ctx) // before any round: a fill's vacuum may run in another key's
		}
	}
	for k := range crs {
		if stop(k) {
			return errs
		}
	}
	if r.runRounds(ctx, pcs, cs, crs, errs, rounds, stop) {
		return errs
	}
	r.finishAll(ctx, crs, errs)
	for k := range crs {
		if stop(k) {
			return errs
		}
	}
	return errs
}

// mostRounds is the most rounds a group may run: the plan's, or, with the
// costs' design, as far as it may extend them.
func (r *run) mostRounds(rounds int) int {
	if c := r.cfg.Plan.CostSequential; c != nil && rounds > 1 {
		return max(rounds, c.MaxRounds)
	}
	return rounds
}

// roundsLeft says when the group ends, from the rounds' own length so far
// (elapsed over the rounds done, the machine's load in it): the planned
// rounds left, and, where the work's design may extend them, the most it
// may take (its last look, or the budget, whichever comes first); with
// groups after this one, when the run ends (r.ahead at this group's pace).
func (r *run) roundsLeft(round, planned, most, cells int, elapsed time.Duration) string {
	done := round - 1
	perRound := elapsed / time.Duration(done)
	evidence := time.Duration(cells) * 3 * time.Second
	if r.ahead.evidence > 0 { // the group's own estimate, as the run's first
		evidence = r.ahead.evidence
	}
	expect := planned
	if sq := r.cfg.Plan.Sequential; sq != nil && planned > 1 {
		// A group that stops once its comparisons are decided: the rounds
		// the plan's estimate expects (scenario.Estimate), not its most.
		expect = max(planned-1, sq.MinRounds, done)
	}
	upTo := most
	if most > planned {
		budget, _ := r.budget(elapsed, done, planned)
		upTo = max(planned, min(most, int(budget/perRound)))
	}
	// The round that begins is one the run will do, whatever was expected.
	left := perRound*time.Duration(max(expect-done, 1)) + evidence
	longest := max(perRound*time.Duration(max(upTo-done, 0))+evidence, left) // "at most" never below "about"
	run := ""
	if a := r.ahead; a.later > 0 && a.perRound > 0 {
		// The groups after this one, at this group's pace against its
		// estimate (paceOf; the rounds' pace, the later groups' estimate
		// put in this group's rounds' terms).
		later := time.Duration(float64(a.later) * paceOf(perRound, a.perRound, 1, time.Duration(float64(a.later)*float64(a.perRound)/float64(max(a.total, a.perRound))), max(a.groups, 1)))
		run = fmt.Sprintf("; the run in about %s", (left + later).Round(time.Second))
	}
	switch {
	case round > planned && upTo > done:
		return fmt.Sprintf("this group ends when the work is decided, at most in %s (round %d of at most %d: a work comparison is undecided)%s", longest.Round(time.Second), round, upTo, run)
	case round > planned:
		return fmt.Sprintf("this group ends in about %s (its last round: the work's budget)%s", evidence.Round(time.Second), run)
	case upTo > planned && longest.Round(time.Second) > left.Round(time.Second):
		return fmt.Sprintf("this group ends in about %s, at most %s if the work is undecided then (up to round %d)%s", left.Round(time.Second), longest.Round(time.Second), upTo, run)
	}
	return fmt.Sprintf("this group ends in about %s%s", left.Round(time.Second), run)
}

// maxRounds is the most rounds the cell may run: its window's, or the
// group's extension unless its workload acts after its last round
// (Hooks.PostRun, which must know the last in advance).
func (cr *cellRun) maxRounds(rounds, most int) int {
	if cr.hooks.PostRun != nil || cr.win.Rounds < rounds {
		return cr.win.Rounds
	}
	return most
}

// budget is how long a group's rounds may take with the costs'
// extension, after done rounds took spent: the user's (--budget), or by
// default twice the plan's estimate, and never less than the planned
// rounds take at the pace the machine runs them now (a quarter more): a
// default budget ends no run before its planned rounds, however loaded
// the machine. given says it is the user's.
func (r *run) budget(spent time.Duration, done, planned int) (b time.Duration, given bool) {
	if b := r.cfg.Plan.Budget; b > 0 {
		return b, true
	}
	b = 2 * r.cfg.Plan.Estimate().Total
	if done > 0 {
		b = max(b, time.Duration(float64(spent)/float64(done)*float64(planned)*1.25))
	}
	return b, false
}

// runRounds runs the group's rounds, each cell's round in the round's
// order, until every task's rounds stop (decide); it says whether a failed
// cell stopped the group.
func (r *run) runRounds(ctx context.Context, pcs []scenario.PlannedCell, cs []results.Cell, crs []*cellRun, errs []error, rounds int, stop func(int) bool) bool {
	roundsStart := time.Now()
	decided := map[string]bool{} // the tasks whose rounds have stopped
	most := r.mostRounds(rounds)
	for round := 1; round <= most; round++ {
		if !r.decide(crs, cs, errs, round-1, rounds, decided, roundsStart) {
			break
		}
		if round > 1 && len(pcs) > 1 {
			r.ui.Logf("  rounds %d/%d done in %s; %s", round-1, max(rounds, round-1), time.Since(roundsStart).Round(time.Second), r.roundsLeft(round, rounds, most, len(pcs), time.Since(roundsStart)))
		}
		for _, k := range r.order(len(crs), round) {
			cr := crs[k]
			if errs[k] != nil || cr == nil || round > cr.maxRounds(rounds, most) || decided[cs[k].Task()] {
				continue
			}
			if rounds > 1 {
				r.ui.Logf("  round %d/%d: %s", round, max(rounds, round), pcs[k].Key.Raw)
			}
			if errs[k] = cr.round(ctx, round); stop(k) {
				return true
			}
		}
	}
	return false
}

// decide marks in decided the group's tasks whose rounds stop after their
// first done rounds (of the plan's planned): the rates' sequential design
// has settled every pair (or the planned rounds ran) and so has the costs'
// (or it has no cost to decide, its last look passed, or the budget would
// be overrun by another round); their cells run no more rounds
// (verdict.Analyze replays the same decisions from the rounds' figures).
// Each task is a family of its own, its keys those still measured; a task
// of one key has nothing to decide; a task with a workload that acts after
// its last round (Hooks.PostRun) runs the planned rounds. It says whether
// any task goes on.
func (r *run) decide(crs []*cellRun, cs []results.Cell, errs []error, done, planned int, decided map[string]bool, since time.Time) bool {
	var order []string
	byTask := map[string][]int{}
	postRun := map[string]bool{}
	for k, cr := range crs {
		t := cs[k].Task()
		if errs[k] != nil || cr == nil || cs[k].Status != results.StatusOK || decided[t] {
			continue
		}
		postRun[t] = postRun[t] || cr.hooks.PostRun != nil
		if _, ok := byTask[t]; !ok {
			order = append(order, t)
		}
		byTask[t] = append(byTask[t], k)
	}
	for _, t := range order {
		idx := byTask[t]
		rates, costs := verdict.Layouts(cs, idx, done, verdict.DeviceOf(r.res))
		rateDone, rateWords := r.ratesSettled(rates, costs == nil, done, planned, postRun[t])
		names := make([]string, len(idx))
		for i, k := range idx {
			names[i] = cs[k].Key
		}
		costDone, costWords, stopped := r.costsSettled(costs, names, done, planned, postRun[t], since)
		if stopped != nil {
			for _, k := range idx {
				cs[k].BudgetStop = stopped
			}
		}
		// The verdict decides on the work: once it is settled the rounds
		// stop, the rates read at that look (their repeated intervals cover
		// at every look); without work the rates decide.
		if costs != nil && !costDone || costs == nil && !rateDone {
			continue
		}
		decided[t] = true
		if done >= planned && costWords == "" {
			continue // the planned rounds ran: nothing to say
		}
		name := ""
		if len(order) > 1 || len(decided) > 1 {
			name = t + ": "
		}
		r.ui.Logf("  %sthe rounds stop after %d (%s)", name, done, strings.Join(nonEmpty(rateWords, costWords), "; "))
	}
	for _, t := range order {
		if !decided[t] {
			return true
		}
	}
	return false
}

// ratesSettled says whether the rates' design has settled every pair
// after done rounds (or, without one, the planned rounds ran), and how;
// alone (no work measured beside them), the rates are decided at the
// whole of Alpha (verdict's replay does the same).
func (r *run) ratesSettled(rates [][]float64, alone bool, done, planned int, postRun bool) (bool, string) {
	d := r.cfg.Plan.Sequential
	if alone && d != nil {
		d = d.Whole()
	}
	switch {
	case done >= planned:
		return true, ""
	case d == nil || postRun || rates == nil || len(rates) < 2 || done < d.MinRounds:
		return false, ""
	}
	pairs, settled := d.Decide(rates)
	if !settled {
		return false, ""
	}
	return true, "the rates: " + decisionsSaid(pairs, d.MaxRounds)
}

// costsSettled says whether the work's design has settled every pair
// after done rounds: at once without work measured (the rates decide
// alone), at the planned rounds with nothing to compare or no design,
// else with every pair decided, its last look or the budget reached.
func (r *run) costsSettled(costs [][]float64, keys []string, done, planned int, postRun bool, since time.Time) (bool, string, *results.BudgetStop) {
	d := r.cfg.Plan.CostSequential
	switch {
	case costs == nil:
		return true, "", nil
	case d == nil || postRun || len(costs) < 2:
		return done >= planned, "", nil
	case done < d.MinRounds:
		return false, "", nil
	}
	pairs, settled := d.Against(keys).Decide(costs)
	if settled {
		return true, "the work: " + decisionsSaid(pairs, d.MaxRounds), nil
	}
	spent := time.Since(since)
	if budget, _ := r.budget(spent, done, planned); spent+spent/time.Duration(done) > budget {
		stop := &results.BudgetStop{Rounds: done, Planned: planned, Most: d.MaxRounds, RoundS: spent.Seconds() / float64(done), BudgetS: budget.Seconds()}
		return true, fmt.Sprintf("the work's budget of %s spent: %s", budget.Round(time.Second), decisionsSaid(pairs, d.MaxRounds)), stop
	}
	return false, "", nil
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// decisionsSaid counts a family's decisions: "3 different, 2 the same
// within the margin, 1 not decidable within 8 rounds at the current estimate".
func decisionsSaid(pairs []stats.PairDecision, most int) string {
	n := map[string]int{}
	for _, p := range pairs {
		n[p.Comparison.State]++
	}
	var out []string
	for _, s := range []struct{ state, words string }{
		{stats.PairDifferent, "different"}, {stats.PairEquivalent, "the same within the margin"}, {stats.PairFutile, fmt.Sprintf("not decidable within %d rounds at the current estimates", most)}} {
		if n[s.state] > 0 {
			out = append(out, fmt.Sprintf("%d %s", n[s.state], s.words))
		}
	}
	return strings.Join(out, ", ")
}

// together is how many cells of a group fill, or end (their evidence), at
// once: two, each on a connection of its own. A fill is a COPY (keybench
// encoding rows, a backend storing them), an index build and a VACUUM; the
// evidence a REINDEX, pgstatindex and a count: one at a time leaves part
// of a 2-core machine idle. Measured on war's six 500k-row cells: the fills
// took 25 s two at a time, 30 s one after another. Neither is a
// measurement, but a cell's prefill times say they shared the server; what
// the workloads time after the window (Hooks.BeforeEvidence, Maintain)
// runs alone.
const together = 2

// fillRows is the rows the group's set-up cells prefill.
func fillRows(crs []*cellRun, errs []error) int64 {
	var n int64
	for k, cr := range crs {
		if errs[k] == nil && cr != nil {
			for _, t := range cr.tables {
				n += t.Rows
			}
		}
	}
	return n
}

// fillAll fills the group's set-up cells (those without an error), two at
// a time; a cell's error goes into errs.
func (r *run) fillAll(ctx context.Context, crs []*cellRun, errs []error) {
	var ks []int
	for k, cr := range crs {
		if errs[k] == nil && cr != nil {
			ks = append(ks, k)
		}
	}
	n := min(together, len(ks))
	r.eachOnItsConn(ctx, ks, n, errs, func(ctx context.Context, conn *pgx.Conn, k int) error {
		crs[k].together = n
		return crs[k].fill(ctx, conn)
	})
}

// finishAll ends the group's measured cells: two at a time, then, one at
// a time, the cells whose workloads time something after the window.
func (r *run) finishAll(ctx context.Context, crs []*cellRun, errs []error) {
	var plain, timed []int
	for k, cr := range crs {
		switch {
		case errs[k] != nil || cr == nil:
		case cr.hooks.BeforeEvidence != nil || cr.hooks.Maintain != nil:
			timed = append(timed, k)
		default:
			plain = append(plain, k)
		}
	}
	finish := func(ctx context.Context, conn *pgx.Conn, k int) error { return crs[k].finish(ctx, conn) }
	if scenario.FillsBuffered(fillRows(crs, errs), r.cache) {
		if err := r.bufferedIO(ctx, true, false, "for the evidence"); err != nil {
			fail(errs, err)
			return
		}
	}
	r.eachOnItsConn(ctx, plain, min(together, len(plain)), errs, finish)
	if len(timed) > 0 && ctx.Err() == nil && (r.cfg.OnError == "continue" || !failed(errs)) {
		if err := r.bufferedIO(ctx, false, false, "for the maintenance the workloads time"); err != nil {
			fail(errs, err)
			return
		}
		r.eachOnItsConn(ctx, timed, 1, errs, finish)
	}
}

// failed says whether a cell has an error.
func failed(errs []error) bool {
	for _, err := range errs {
		if err != nil {
			return true
		}
	}
	return false
}

// eachOnItsConn runs f for the cells ks, n at a time, each of the n on a
// connection of its own (keybench's admin connection's settings); a
// cell's error goes into errs. A failure cancels the others when the run
// stops on a failed cell (--on-error stop): they, and the cells not
// begun, get errNotRun (the interrupt's error when the run is interrupted).
func (r *run) eachOnItsConn(ctx context.Context, ks []int, n int, errs []error, f func(context.Context, *pgx.Conn, int) error) {
	fctx, cancel := context.WithCancel(ctx)
	defer cancel()
	next := make(chan int)
	go func() {
		defer close(next)
		for _, k := range ks {
			select {
			case next <- k:
			case <-fctx.Done():
				return
			}
		}
	}()
	begun := make([]bool, len(errs))
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			var conn *pgx.Conn
			defer func() {
				if conn != nil && !conn.IsClosed() {
					// Its statistics (index builds, VACUUM) reach the counters before the next snapshot.
					metrics.FlushStats(ctx, conn.PgConn())
					_ = conn.Close(context.Background())
				}
			}()
			for k := range next {
				begun[k] = true // each worker writes only the cells it took
				var err error
				if conn == nil || conn.IsClosed() {
					conn, err = pgx.ConnectConfig(fctx, r.admin.Config())
				}
				if err == nil {
					err = f(fctx, conn, k)
				}
				if err != nil && fctx.Err() != nil && ctx.Err() == nil {
					err = errNotRun // another cell's failure stopped this one
				}
				errs[k] = err
				if err != nil && err != errNotRun && r.cfg.OnError != "continue" {
					cancel()
				}
			}
		})
	}
	wg.Wait()
	for _, k := range ks {
		if !begun[k] {
			errs[k] = errNotRun
			if ctx.Err() != nil {
				errs[k] = ctx.Err()
			}
		}
	}
}

// order is the order the cells of a group run in in a round.
func (r *run) order(cells, round int) []int { return RoundOrder(r.cfg.Seed, cells, round) }

// RoundOrder is the order n cells run in in round (1-based): random and
// balanced. Rounds go in batches of n; in a batch every cell runs once in
// every position (a Latin square: the cells' cyclic order and the rounds'
// order within the batch drawn from the seed, anew for each batch). A
// fixed order would put a slow drift of the machine, or a cost of running
// first after a checkpoint, into every comparison of two keys in the same
// direction, and the comparison within rounds would take it for a
// difference; the same seed gives the same orders.
func RoundOrder(seed int64, n, round int) []int {
	batch, at := (round-1)/n, (round-1)%n
	rng := rand.New(rand.NewPCG(uint64(seed), uint64(batch)))
	cycle, rows := rng.Perm(n), rng.Perm(n)
	out := make([]int, n)
	for i := range out {
		out[i] = cycle[(i+rows[at])%n]
	}
	return out
}

// errNotRun marks the cells of a group that a failed cell kept from running.
var errNotRun = errors.New("not run: an earlier cell failed")

// fail marks every cell without an error of its own with err (the run stops).
func fail(errs []error, err error) {
	for k := range errs {
		if errs[k] == nil {
			errs[k] = err
		}
	}
}

// roundShare is round n's share (from 1) of a window of total transactions
// per client split into rounds: the first total%rounds rounds run one more,
// so that the rounds add up to the total asked for (pgbench -t is exact).
func roundShare(total int64, rounds, n int) int64 {
	share := total / int64(rounds)
	if int64(n) <= total%int64(rounds) {
		share++
	}
	return max(1, share)
}

// roundWarmup is the warm-up of a cell's rounds after its first.
const roundWarmup = scenario.RoundWarmup
