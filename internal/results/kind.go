package results

import "encoding/json"

// Summary is a workload's own figures of a cell (a load's chunks, a queue's
// two rates and backlog), written into the cell's "metrics" object beside
// the collectors' figures: it must marshal as a JSON object whose names
// are not the collectors'.
//
// A summary holds figures; what a cell's rate counts is its Kind's
// (RateRole), one definition for the cell, its rounds and its seconds.
// It is a workload's own type, made by its Kind's NewSummary and read back
// into that type; a cell of a workload this keybench does not know keeps
// its summary as RawSummary.
type Summary interface {
	// WorkloadSummary marks the type as a workload's summary.
	WorkloadSummary()
}

// IsSummary, embedded in a workload's summary type, makes it a Summary.
type IsSummary struct{}

// WorkloadSummary marks the type that embeds IsSummary as a summary.
func (IsSummary) WorkloadSummary() {}

// Kind says how the cells of one workload read: what their rate counts
// and which summary they carry (how they are shown is the workload's
// present.View). A workload declares its kind in its own package; the
// catalog of them (Kinds) is passed to Parse by whoever reads a file, so
// that results handles every workload without naming one, and without a
// registry filled at start-up.
type Kind struct {
	// RateUnit is what the headline rate counts ("" reads "tps").
	RateUnit string
	// RateLabel is the rate's axis label in charts ("" reads "transactions per second").
	RateLabel string
	// RateRole, when set, is the client role whose rows per second are the
	// rate (a queue's consumers: a row is done when it has left the
	// queue); otherwise the rate is transactions per second. It is the one
	// definition of a rate: of a cell, of its rounds and of its seconds (Rate).
	RateRole string
	// Upgrade, when set, fills in a cell read from an older results file
	// what that version did not record (a queue's rows per role).
	Upgrade func(c *Cell)
	// StepsTimeline: the timeline holds the workload's own steps (a load's
	// chunks), not the seconds of a window (the default); what the data
	// means, declared by the workload, never inferred from how it is shown.
	StepsTimeline bool
	// NewSummary makes an empty summary to read a cell's into (nil: none).
	NewSummary func() Summary
}

// SummaryKind is the kind of a workload whose cells hold a summary of
// type T, and whose rate is transactions per second.
func SummaryKind[T any, P interface {
	*T
	Summary
}]() Kind {
	return Kind{NewSummary: func() Summary { return P(new(T)) }}
}

// Kinds are the workloads' kinds by name: the catalog a results file is
// read with (package workload/all makes keybench's).
type Kinds map[string]Kind

// Of is the kind of a workload's cells: the catalog's, or a transactional
// kind for a workload the catalog does not hold.
func (ks Kinds) Of(workload string) Kind { return ks[workload] }

// Rate is the kind's rate over a window of seconds in which the clients
// ran txns transactions and each role handled roleRows rows.
func (k Kind) Rate(txns int64, roleRows map[string]int64, seconds float64) float64 {
	if seconds <= 0 {
		return 0
	}
	if k.RateRole != "" {
		if n, ok := roleRows[k.RateRole]; ok {
			return float64(n) / seconds
		}
	}
	return float64(txns) / seconds
}

// Unit is what the kind's rate counts.
func (k Kind) Unit() string {
	if k.RateUnit == "" {
		return "tps"
	}
	return k.RateUnit
}

// RawSummary keeps the summary of a workload this keybench does not know,
// so that reading and writing results.json loses nothing.
type RawSummary map[string]json.RawMessage

// WorkloadSummary marks RawSummary as a summary.
func (RawSummary) WorkloadSummary() {}

// decodeSummary reads the workload's summary (of kind k) out of a cell's
// metrics object.
func decodeSummary(k Kind, metrics []byte, known map[string]bool) (Summary, error) {
	if k.NewSummary != nil {
		s := k.NewSummary()
		if err := json.Unmarshal(metrics, s); err != nil {
			return nil, err
		}
		return s, nil
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(metrics, &all); err != nil {
		return nil, err
	}
	raw := RawSummary{}
	for name, v := range all {
		if !known[name] {
			raw[name] = v
		}
	}
	if len(raw) == 0 {
		return nil, nil
	}
	return raw, nil
}

// BlocksAndReads renders blocks per transaction as "touched (read)".
func BlocksAndReads(b BlocksPerTxn) string {
	return Significant(b.Hit+b.Read) + " (" + Significant(b.Read) + ")"
}
