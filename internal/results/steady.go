package results

import (
	"fmt"
	"math"
	"strings"
	"time"
)

// SteadyWAL is a cell's WAL per row at a server's checkpoint spacing,
// derived from the pages its rounds touched first after their checkpoints
// (metrics.FirstTouches), with the model it was derived from: keybench
// project evaluates the same model at a user's table size and insert rate.
type SteadyWAL struct {
	// SpacingRows is the rows between two checkpoints; Spacing says why,
	// Settings whose checkpoint settings they are.
	SpacingRows float64 `json:"spacing_rows"`
	Spacing     string  `json:"spacing"`
	Settings    string  `json:"settings,omitempty"`
	// FPIPerRow and KeyIndexFPIPerRow are full-page images per row, of
	// every relation and of the key index; WALBytesPerRow the WAL.
	FPIPerRow         float64 `json:"fpi_per_row"`
	KeyIndexFPIPerRow float64 `json:"key_index_fpi_per_row"`
	WALBytesPerRow    float64 `json:"wal_bytes_per_row"`
	// Derivation says how the figures were derived.
	Derivation string `json:"derivation"`
	// Model is what they were derived from.
	Model SteadyModel `json:"model"`
}

// SteadyModel is the rounds' pages first touched, fitted: the images a
// checkpoint cycle of S rows writes are
//
//	other + Σ over relations (frontier + H (1 − e^{−a S / H}))
//
// for each relation's hot set of H pages touched uniformly at a pages per
// row, and the pages its rows add (frontier) and the other relations'
// images (catalogs, sequences) once a cycle; the WAL per row is the
// rounds' less the images a cycle of S rows would not write, at the
// rounds' mean image size.
type SteadyModel struct {
	RoundWALBytesPerRow float64 `json:"round_wal_bytes_per_row"`
	RoundFPIPerRow      float64 `json:"round_fpi_per_row"`
	ImageBytes          float64 `json:"image_bytes"`
	// RoundRows is a round's mean rows: no spacing below it is modelled.
	RoundRows     float64          `json:"round_rows"`
	OtherPerCycle float64          `json:"other_images_per_cycle"`
	Relations     []SteadyRelation `json:"relations"`
}

// SteadyRelation is one relation's fit.
type SteadyRelation struct {
	Name string `json:"name"`
	Role string `json:"role"`
	// Pages is the relation's pages when the cell's rounds began.
	Pages int64 `json:"pages"`
	// HotPages is the hot set (at most Pages, or a round's touches);
	// Whole says it is the relation itself (a random key's index): at
	// another size it grows with the relation.
	HotPages float64 `json:"hot_pages"`
	Whole    bool    `json:"whole_relation"`
	// TouchesPerRow is a: pages touched per row; FrontierPerCycle the
	// pages the rows add, an image each per cycle.
	TouchesPerRow    float64 `json:"touches_per_row"`
	FrontierPerCycle float64 `json:"frontier_per_cycle"`
}

// CheckpointSettings is a server's checkpoint settings.
type CheckpointSettings struct {
	Timeout          time.Duration
	MaxWALBytes      int64
	CompletionTarget float64
	// Basis says whose settings they are.
	Basis string
}

// DefaultCheckpointSettings is PostgreSQL's default checkpoint settings.
var DefaultCheckpointSettings = CheckpointSettings{Timeout: 5 * time.Minute, MaxWALBytes: 1 << 30, CompletionTarget: 0.9,
	Basis: "PostgreSQL's defaults (checkpoint_timeout 5min, max_wal_size 1GB)"}

// Images is the full-page images per row of a cycle of s rows, of every
// relation and of the key index; grow scales a relation's pages by role
// (nil: the run's sizes), for hot sets that are the whole relation.
func (m SteadyModel) Images(s float64, grow func(role string) float64) (total, key float64) {
	total = m.OtherPerCycle
	for _, r := range m.Relations {
		n := r.FrontierPerCycle
		if h := r.HotPages; h > 0 {
			if r.Whole && grow != nil {
				h *= grow(r.Role)
			}
			n += h * (1 - math.Exp(-r.TouchesPerRow*s/h))
		}
		total += n
		if r.Role == RoleKeyIndex {
			key += n
		}
	}
	return total / s, key / s
}

// Whose is whose checkpoint settings the spacing is (a file written
// before Settings said it before " at " in Spacing).
func (s SteadyWAL) Whose() string {
	if s.Settings != "" {
		return s.Settings
	}
	whose, _, _ := strings.Cut(s.Spacing, " at ")
	return whose
}

// WALPerRow is the WAL per row of a cycle of s rows: the rounds' less the
// images it would not write.
func (m SteadyModel) WALPerRow(s float64, grow func(role string) float64) float64 {
	fpi, _ := m.Images(s, grow)
	return math.Max(m.RoundWALBytesPerRow-(m.RoundFPIPerRow-fpi)*m.ImageBytes, 0)
}

// At is the model at a server of checkpoint settings cp inserting
// rowsPerS: its spacing is checkpoint_timeout's rows, or fewer when their
// WAL fills max_wal_size / (1 + checkpoint_completion_target) first. It
// fails when the spacing is shorter than a round (nothing was measured
// there).
func (m SteadyModel) At(rowsPerS float64, cp CheckpointSettings, grow func(role string) float64) (SteadyWAL, error) {
	if !(rowsPerS > 0) {
		return SteadyWAL{}, fmt.Errorf("no rows per second")
	}
	s := cp.Timeout.Seconds() * rowsPerS
	basis := fmt.Sprintf("%s at %.0f rows/s: every %.0f s", cp.Basis, rowsPerS, cp.Timeout.Seconds())
	cycle := float64(cp.MaxWALBytes) / (1 + cp.CompletionTarget)
	for range 20 {
		if w := m.WALPerRow(s, grow); w > 0 && cycle/w < s {
			s = cycle / w
			basis = fmt.Sprintf("%s at %.0f rows/s: every %s of WAL", cp.Basis, rowsPerS, Bytes(int64(cycle)))
		}
	}
	if s < m.RoundRows {
		return SteadyWAL{}, fmt.Errorf("the server's checkpoints (%s) are fewer rows apart than a round measured", cp.Basis)
	}
	fpi, key := m.Images(s, grow)
	return SteadyWAL{SpacingRows: s, Spacing: basis, Settings: cp.Basis, FPIPerRow: fpi, KeyIndexFPIPerRow: key, WALBytesPerRow: m.WALPerRow(s, grow), Model: m}, nil
}
