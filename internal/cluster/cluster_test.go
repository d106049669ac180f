package cluster

import (
	"encoding/json"
	"math"
	"os"
	"sort"
	"strconv"
	"testing"

	"github.com/keybench/keybench/internal/results"
)

func TestSkewOf(t *testing.T) {
	even, _ := SkewOf([]int64{5, 5, 5, 5}).Get()
	if even.MaxOverMean != 1 || even.CV != 0 || even.Total != 20 || even.Parts != 4 {
		t.Errorf("even parts: %+v", even)
	}
	// One shard takes everything: max/mean is the part count, CV √(n-1).
	hot, _ := SkewOf([]int64{0, 0, 0, 12}).Get()
	if hot.MaxOverMean != 4 || math.Abs(hot.CV-math.Sqrt(3)) > 1e-12 {
		t.Errorf("one hot part of four: %+v", hot)
	}
	if _, ok := SkewOf(nil).Get(); ok {
		t.Error("no parts has a skew")
	}
	if _, ok := SkewOf([]int64{0, 0}).Get(); ok {
		t.Error("no rows has a skew")
	}
}

// recorded are worker answers read on a real cluster (testdata/answers.json).
type recorded struct {
	Workers []struct {
		Node          string
		Before, After map[string]int64
	}
	Inserted int64
}

func loadAnswers(t *testing.T) ([]shardAt, []answer, int64) {
	b, err := os.ReadFile("testdata/answers.json")
	if err != nil {
		t.Fatal(err)
	}
	var r recorded
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	var shards []shardAt
	var answers []answer
	for i, w := range r.Workers {
		a := answer{before: map[int64]int64{}, after: map[int64]int64{}, secs: 2,
			wal: results.Of[int64](4 << 20), cpu: results.Of(results.CPU{ServerS: results.Of(1.0)})}
		for k, v := range w.Before {
			id, _ := strconv.ParseInt(k, 10, 64)
			a.before[id], a.after[id] = v, w.After[k]
			a.shards = append(a.shards, id)
			shards = append(shards, shardAt{id: id, worker: i})
		}
		answers = append(answers, a)
	}
	sort.Slice(shards, func(i, j int) bool { return shards[i].id < shards[j].id })
	return shards, answers, r.Inserted
}

// TestMergeRoundFromRecordedAnswers: the per-shard inserts, their skew
// across shards and workers, and each worker's rates, from what two real
// workers answered; the shards add up to the rows the coordinator took.
func TestMergeRoundFromRecordedAnswers(t *testing.T) {
	shards, answers, inserted := loadAnswers(t)
	round, perShard := mergeRound(1, shards, answers)
	var sum int64
	for _, n := range perShard {
		sum += n
	}
	if sum != inserted || len(perShard) != 8 || perShard[shardAt{102076, 0}] != 774 || perShard[shardAt{102080, 0}] != 98 {
		t.Fatalf("per shard %v (sum %d, want %d)", perShard, sum, inserted)
	}
	sh, ok := round.Shards.Get()
	if !ok || sh.Parts != 8 || sh.Max != 774 || math.Abs(sh.MaxOverMean-774/375.0) > 1e-9 {
		t.Errorf("shards' skew %+v", round.Shards)
	}
	wk, ok := round.Workers.Get()
	if !ok || wk.Parts != 2 || wk.Max != 1664 || math.Abs(wk.MaxOverMean-1664/1500.0) > 1e-9 {
		t.Errorf("workers' skew %+v", round.Workers)
	}
	for i, p := range round.PerWorker {
		if v, _ := p.WALBytesPerS.Get(); v != 2<<20 {
			t.Errorf("worker %d: WAL %v per s", i, p.WALBytesPerS)
		}
		if v, _ := p.CPUCores.Get(); v != 0.5 {
			t.Errorf("worker %d: %v cores", i, p.CPUCores)
		}
	}
}

// TestMergeRoundWithAWorkerUnread: a worker that could not be read leaves
// its figures unavailable with its reason, and no skew is claimed over
// the part of the cluster that was.
func TestMergeRoundWithAWorkerUnread(t *testing.T) {
	shards, answers, _ := loadAnswers(t)
	answers[1] = answer{why: "keybench cannot connect to the worker from here: refused"}
	round, perShard := mergeRound(2, shards, answers)
	if _, ok := round.Shards.Get(); ok {
		t.Error("a skew over half the cluster")
	}
	if _, ok := round.Workers.Get(); ok {
		t.Error("a workers' skew with a worker unread")
	}
	if r := round.PerWorker[1].Inserted.Reason(); r != answers[1].why {
		t.Errorf("the unread worker's reason: %q", r)
	}
	if n, ok := round.PerWorker[0].Inserted.Get(); !ok || n != 1664 {
		t.Errorf("the read worker: %v", round.PerWorker[0].Inserted)
	}
	if len(perShard) != 4 {
		t.Errorf("shards of the unread worker counted: %v", perShard)
	}
	shards, answers, _ = loadAnswers(t)
	answers[0].after, answers[0].unread = nil, "the shards' statistics: permission denied"
	round, _ = mergeRound(3, shards, answers)
	if _, ok := round.Shards.Get(); ok || round.PerWorker[0].Inserted.Reason() != answers[0].unread {
		t.Errorf("a worker whose shards were unread: %+v", round.PerWorker[0])
	}
	if _, ok := round.PerWorker[0].WALBytesPerS.Get(); !ok {
		t.Error("its WAL, which was read, is lost")
	}
}

func TestShardNameAndMajor(t *testing.T) {
	if got := ShardName("kb_cell_pkey", 102008); got != "kb_cell_pkey_102008" {
		t.Error(got)
	}
	if majorOf("15.20 (Debian 15.20-0+deb12u1)") != 15 || majorOf("18.1") != 18 {
		t.Error("major versions")
	}
	for host, want := range map[string]bool{"127.0.0.1": true, "::1": true, "localhost": true, "/tmp": true, "10.0.0.7": false, "db.example.com": false} {
		if loopback(host) != want {
			t.Errorf("loopback(%q) = %v", host, !want)
		}
	}
}

// TestMergeRoundOfAReferenceTable: a reference table's one shard has a
// placement on every node; each placement takes every row, and the spread
// across them is even.
func TestMergeRoundOfAReferenceTable(t *testing.T) {
	const id = 102200
	a := func(before, after int64) answer {
		return answer{shards: []int64{id}, before: map[int64]int64{id: before}, after: map[int64]int64{id: after}, secs: 1,
			wal: results.Of[int64](1 << 20), cpu: results.Of(results.CPU{ServerS: results.Of(0.5)})}
	}
	shards := []shardAt{{id, 0}, {id, 1}, {id, 2}}
	round, perShard := mergeRound(1, shards, []answer{a(10, 510), a(0, 500), a(7, 507)})
	if len(perShard) != 3 || perShard[shardAt{id, 1}] != 500 {
		t.Fatalf("placements: %v", perShard)
	}
	if s, ok := round.Shards.Get(); !ok || s.MaxOverMean != 1 || s.Total != 1500 {
		t.Errorf("placements' spread: %+v", round.Shards)
	}
}
