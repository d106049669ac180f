package results

// Second is one second of a cell's window, as the driver sampled it; a
// workload whose steps are not seconds (a load's chunks) fills the
// timeline with its steps and says so in its Kind.
type Second struct {
	T      int     `json:"t"`
	Txns   int64   `json:"txns"`
	TPS    float64 `json:"tps"`
	RowsPS float64 `json:"rows_per_s"`
	P99ms  float64 `json:"p99_ms"`
	Errors int64   `json:"errors"`
	// Roles splits the second by client role when the clients have roles.
	Roles map[string]RoleSecond `json:"roles,omitempty"`
}

// RoleSecond is one role's part of a second. Total is every row the role's
// clients have handled since the cell began, warm-up included, at the
// second's end: a queue's backlog is the difference of two such totals.
type RoleSecond struct {
	Txns   int64   `json:"txns"`
	RowsPS float64 `json:"rows_per_s"`
	P99ms  float64 `json:"p99_ms"`
	Errors int64   `json:"errors"`
	Total  int64   `json:"total_rows"`
}

// Rate is the second's figure of the rate its cell's kind measures: its
// transactions per second, or the rows per second of the kind's role.
func (k Kind) SecondRate(s Second) float64 {
	if k.RateRole != "" {
		if r, ok := s.Roles[k.RateRole]; ok {
			return r.RowsPS
		}
	}
	return s.TPS
}

// Chunk is one timed chunk of a load: the rows before it, its rows, its
// time and its rate.
type Chunk struct {
	RowsBefore int64   `json:"rows_before"`
	Rows       int64   `json:"rows"`
	Seconds    float64 `json:"seconds"`
	RowsPerS   float64 `json:"rows_per_s"`
}
