package runner

import (
	"time"

	"github.com/keybench/keybench/internal/results"
	"github.com/keybench/keybench/internal/usage"
	"github.com/keybench/keybench/internal/workload"
)

// planOf is the plan as results.json records it: every parameter of the
// run (a test holds each field of scenario.Params to its place here:
// paramsRecorded), the designs that decided its rounds, and the server's
// settings, secrets redacted.
func planOf(cfg Config) results.Plan {
	p, sc := cfg.Plan.Params, cfg.Plan.Scenario
	out := results.Plan{Workload: p.Workload, Options: p.Options, Clients: p.Clients, Rows: p.Rows, SharedBuffers: p.Caches,
		WarmupS: p.Warmup.Seconds(), WarmupFixed: p.FixedWarmup, DurationS: p.Duration.Seconds(), TxnsPerCli: p.Txns,
		RateTPS: p.Rate, Scaled: p.Scaled, WindowTableShare: p.TableShare, Secondary: secondaryText(p.Secondary), LatencyLimitMS: float64(p.LatencyLimit) / float64(time.Millisecond),
		Payload: p.Payload, CreatedAt: p.CreatedAt, PartitionBy: partitionText(p.PartitionBy), HistoryS: p.History.Seconds(),
		FillIndexed: p.FillIndexed, Repeat: p.Repeat, Rounds: p.Rounds, MinEffect: p.MinEffect,
		Seed: cfg.Seed, Quick: cfg.Quick, Sampling: cfg.Sampling, OnError: cfg.OnError,
		Pivot: sc.Pivot, Question: sc.Question, Ask: sc.Ask, Questions: sc.Questions, Origins: sc.Origins,
		Sequential: cfg.Plan.Sequential, CostSequential: cfg.Plan.CostSequential, BudgetS: cfg.Plan.Budget.Seconds(), Against: cfg.Plan.Against,
		Cells: len(cfg.Plan.Cells), Force: cfg.Force, Keep: cfg.Keep, AtScale: cfg.AtScale, Like: p.LikeTable}
	if p.Txns > 0 {
		out.DurationS = 0
	}
	for _, s := range cfg.Plan.Specs {
		out.Keys = append(out.Keys, s.Raw)
	}
	if cfg.ConnConfig == nil {
		e := cfg.Embedded
		out.PgVersion, out.PgBin = e.Version, e.BinDir
		out.CacheMode = map[bool]string{true: "cold", false: "warm"}[e.ColdCache]
		for _, s := range e.Settings {
			out.PgConf = append(out.PgConf, usage.RedactSecrets(s.Name+"="+s.Value))
		}
	}
	return out
}

// paramsRecorded says where results.Plan records each field of
// scenario.Params: the field of results.Plan that holds it, or, for a
// parameter recorded in another form, why none does.
var paramsRecorded = map[string]string{
	"Workload": "Workload", "Options": "Options", "Keys": "Keys", "Clients": "Clients", "Rows": "Rows",
	"Caches": "SharedBuffers", "Warmup": "WarmupS", "FixedWarmup": "WarmupFixed", "Duration": "DurationS",
	"Txns": "TxnsPerCli", "Rate": "RateTPS", "Scaled": "Scaled", "Secondary": "Secondary", "TableShare": "WindowTableShare", "LatencyLimit": "LatencyLimitMS", "Payload": "Payload", "CreatedAt": "CreatedAt", "PartitionBy": "PartitionBy",
	"History": "HistoryS", "FillIndexed": "FillIndexed", "Repeat": "Repeat", "Rounds": "Rounds", "MinEffect": "MinEffect",
	"LikeTable":   "Like",
	"Like":        "-: the definition read is in the run's notes (Like.Describe), the table in Like",
	"RoundsGiven": "-: the rounds the plan chose are Rounds, whoever chose them",
	"AllRounds":   "-: every round ran where Sequential is absent",
	"AllPairs":    "-: the pairs tested are CostSequential.Family's and Against's (every pair where both are empty)",
}

// secondaryText is the secondary indexes as --secondary takes them.
func secondaryText(ss []workload.Secondary) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.String())
	}
	return out
}
