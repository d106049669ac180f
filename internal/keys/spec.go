// Package keys is keybench's catalog of primary-key strategies: how each key
// is declared, who makes its values (the server or the client), how the
// values are ordered, and what they cost in bytes.
//
// A key is chosen with a spec, NAME[:param=value]..., for example
// "bigint:cache=50", "uuidv4:as=text" or "seq-uuid-time:interval=60:count=65536".
// Parameters common to every strategy are as (storage type), gen (who makes
// the value) and index (how the column is indexed). Adding a strategy is one
// file that declares it, its place in the catalog (strategy.go), and its
// test vectors.
package keys

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/keybench/keybench/internal/usage"
)

// Storage is the column type a key's values are stored in.
type Storage string

// Storages a key can be declared as. Native means the strategy's own type
// (bigint for sequences and snowflake, uuid for the uuid family).
const (
	AsNative Storage = ""
	AsUUID   Storage = "uuid"
	AsText   Storage = "text"
	AsChar32 Storage = "char32"
	AsBytea  Storage = "bytea"
	AsBigint Storage = "bigint"
	AsInt    Storage = "integer"
)

// Gen says who makes a key's values.
type Gen string

// Generators. GenAuto picks the server when it has a native generator for the
// strategy and the client otherwise.
const (
	GenAuto   Gen = ""
	GenServer Gen = "server"
	GenClient Gen = "client"
)

// Index is how the key column is indexed.
type Index string

// Index kinds; IndexPK (a primary key) is the default.
const (
	IndexPK     Index = "pk"
	IndexUnique Index = "unique"
	IndexBtree  Index = "btree"
	IndexHash   Index = "hash"
	IndexBrin   Index = "brin"
	IndexNone   Index = "none"
)

var indexes = []Index{IndexPK, IndexUnique, IndexBtree, IndexHash, IndexBrin, IndexNone}

// Spec is a parsed key spec.
type Spec struct {
	// Raw is the spec as the user gave it; results name cells by it.
	Raw string
	// Strategy is the catalog entry the spec names.
	Strategy *Strategy
	// As is the resolved storage type (never AsNative after Parse).
	As Storage
	// Gen is the requested generator side; GenAuto until resolved against a server.
	Gen Gen
	// Index is how the key column is indexed.
	Index Index
	// Params holds the strategy's own parameters with defaults filled in;
	// Text its text parameters (a TypeID's prefix).
	Params map[string]int64
	Text   map[string]string
	// Random says the values are random in the key's own type (gen=random:
	// a random bigint), made by keybench.
	Random bool
	// Prefill, when set (prefill=NAME), is the key the table is filled
	// with before the window, in the same column type: a table that
	// switches keys (a uuidv4 history, new rows uuidv7). Its values are
	// made by keybench's generator, with the window key's storage.
	Prefill *Spec
	// CreatedAt is the keyed table's created_at column (created-at=:
	// CreatedAtNone, CreatedAtColumn, CreatedAtIndexed; "" until the plan's
	// is applied: ApplyLayout).
	CreatedAt string
	// Partition partitions the keyed table by time (partition=; see
	// Partitioning); partitionGiven says the spec gave it.
	Partition      Partitioning
	partitionGiven bool
}

func usagef(format string, a ...any) error { return usage.Errorf(format, a...) }

// Parse parses a key spec such as "bigint:cache=50" or "uuidv4:as=text:index=unique".
func Parse(raw string) (*Spec, error) {
	raw = strings.TrimSpace(raw)
	parts := strings.Split(raw, ":")
	name := parts[0]
	st := Lookup(name)
	if st == nil {
		return nil, usagef("unknown key %q%s (valid: %s)", name, usage.Suggest(name, Names()), strings.Join(Names(), ", "))
	}
	s := &Spec{Raw: raw, Strategy: st, As: st.Storages[0], Index: IndexPK, Params: map[string]int64{}, Text: map[string]string{}}
	for _, p := range st.Params {
		s.Params[p.Name] = p.Default
	}
	for _, p := range st.TextParams {
		s.Text[p.Name] = p.Default
	}
	seen := map[string]bool{}
	for _, kv := range parts[1:] {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" || v == "" {
			return nil, usagef("key %q: parameter %q must be name=value", raw, kv)
		}
		if seen[k] {
			return nil, usagef("key %q: parameter %q given twice", raw, k)
		}
		seen[k] = true
		if err := s.set(k, v); err != nil {
			return nil, usagef("key %q: %v", raw, err)
		}
	}

	for _, p := range st.Params {
		if !p.Client || s.Params[p.Name] == p.Default {
			continue
		}
		if s.Gen == GenServer {
			return nil, usagef("key %q: %s=%d is made in keybench's clients: gen=client, not gen=server", raw, p.Name, s.Params[p.Name])
		}
		s.Gen = GenClient
	}
	if err := s.fitPrefill(); err != nil {
		return nil, usagef("key %q: %v", raw, err)
	}
	if err := s.checkLayout(); err != nil {
		return nil, usagef("key %q: %v", raw, err)
	}
	return s, nil
}

// set sets one parameter of the spec: a common one (as, gen, prefill,
// created-at, partition, index) or the strategy's own.
func (s *Spec) set(k, v string) error {
	st := s.Strategy
	switch k {
	case "as":
		as, err := parseStorage(st, v)
		if err != nil {
			return err
		}
		s.As = as
	case "gen":
		return s.setGen(v)
	case "prefill":
		pf, err := Parse(v)
		if err != nil {
			return fmt.Errorf("prefill: %v", err)
		}
		s.Prefill = pf
	case "created-at":
		if !slices.Contains(CreatedAtValues, v) {
			return fmt.Errorf("created-at must be one of %s, not %q", strings.Join(CreatedAtValues, "|"), v)
		}
		s.CreatedAt = v
	case "partition":
		pt, err := ParsePartitioning(v)
		if err != nil {
			return err
		}
		s.Partition, s.partitionGiven = pt, true
	case "index":
		if !slices.Contains(indexes, Index(v)) {
			return fmt.Errorf("index must be one of %s, not %q", joinIndexes(), v)
		}
		s.Index = Index(v)
	default:
		if tp := st.textParam(k); tp != nil {
			if why := tp.Check(v); why != "" {
				return fmt.Errorf("%s %s, not %q", k, why, v)
			}
			s.Text[k] = v
			return nil
		}
		pd := st.param(k)
		if pd == nil {
			return fmt.Errorf("unknown parameter %q (valid: %s)", k, st.paramNames())
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < pd.Min || n > pd.Max {
			return fmt.Errorf("%s must be a whole number from %d to %d, not %q", k, pd.Min, pd.Max, v)
		}
		s.Params[k] = n
	}
	return nil
}

// setGen sets who makes the values: the server, the client, or a random
// bigint (gen=random).
func (s *Spec) setGen(v string) error {
	st, name := s.Strategy, s.Strategy.Name
	if v == "random" {
		if st.Random == nil {
			return fmt.Errorf("%s has no random generator (gen=random makes a random bigint)", name)
		}
		s.Gen, s.Random = GenClient, true
		return nil
	}
	switch Gen(v) {
	case GenServer:
		if st.Server == nil {
			return fmt.Errorf("%s has no server-side generator (use gen=client)", name)
		}
	case GenClient:
		if st.Client == nil {
			return fmt.Errorf("%s has no client-side generator (use gen=server)", name)
		}
	default:
		return fmt.Errorf("gen must be server or client, not %q", v)
	}
	s.Gen = Gen(v)
	return nil
}

// fitPrefill makes the prefill's key fill the window key's column: its
// storage, client-made, the same index.
func (s *Spec) fitPrefill() error {
	pf := s.Prefill
	if pf == nil {
		return nil
	}
	as, err := parseStorage(pf.Strategy, string(s.As))
	if err != nil {
		return fmt.Errorf("prefill=%s cannot fill a %s column: %v", pf.Raw, s.ColumnType(), err)
	}
	if pf.Strategy.Client == nil {
		return fmt.Errorf("prefill=%s: keybench fills the table with client-made keys, and %s has no client generator", pf.Raw, pf.Strategy.Name)
	}
	pf.As, pf.Gen, pf.Index = as, GenClient, s.Index
	return nil
}

// ParseList parses a comma-separated list of key specs.
//
// The same spec may be given more than once (an A/A test measures a key
// against itself): its second and later copies are labelled apart, as
// "bigint#2", "bigint#3", so that their cells stay apart.
func ParseList(list string) ([]*Spec, error) {
	var out []*Spec
	seen := map[string]int{}
	for _, raw := range strings.Split(list, ",") {
		if strings.TrimSpace(raw) == "" {
			continue
		}
		s, err := Parse(raw)
		if err != nil {
			return nil, err
		}
		if seen[s.Raw]++; seen[s.Raw] > 1 {
			s.Raw = fmt.Sprintf("%s#%d", s.Raw, seen[s.Raw])
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, usagef("no key given (valid: %s)", strings.Join(Names(), ", "))
	}
	return out, nil
}

func parseStorage(st *Strategy, v string) (Storage, error) {
	want := Storage(v)
	if v == "int" || v == "int4" {
		want = AsInt
	} else if v == "int8" {
		want = AsBigint
	}
	for _, s := range st.Storages {
		if s == want {
			return s, nil
		}
	}
	names := make([]string, len(st.Storages))
	for i, s := range st.Storages {
		names[i] = string(s)
	}
	return "", fmt.Errorf("as must be one of %s for %s, not %q", strings.Join(names, "|"), st.Name, v)
}

func joinIndexes() string {
	s := make([]string, len(indexes))
	for i, x := range indexes {
		s[i] = string(x)
	}
	return strings.Join(s, "|")
}

// String renders the spec canonically: name, then every non-default parameter in a fixed order.
func (s *Spec) String() string {
	var b strings.Builder
	b.WriteString(s.Strategy.Name)
	if s.As != s.Strategy.Storages[0] {
		b.WriteString(":as=" + string(s.As))
	}
	switch {
	case s.Random:
		b.WriteString(":gen=random")
	case s.Gen != GenAuto:
		b.WriteString(":gen=" + string(s.Gen))
	}
	for _, k := range slices.Sorted(maps.Keys(s.Params)) {
		if pd := s.Strategy.param(k); pd != nil && s.Params[k] != pd.Default {
			fmt.Fprintf(&b, ":%s=%d", k, s.Params[k])
		}
	}
	for _, p := range s.Strategy.TextParams {
		if v := s.Text[p.Name]; v != p.Default {
			b.WriteString(":" + p.Name + "=" + v)
		}
	}
	if s.Index != IndexPK {
		b.WriteString(":index=" + string(s.Index))
	}
	if s.Prefill != nil {
		b.WriteString(":prefill=" + s.Prefill.Strategy.Name)
	}
	if s.CreatedAt != "" && s.CreatedAt != CreatedAtNone {
		b.WriteString(":created-at=" + s.CreatedAt)
	}
	if s.Partition.On() {
		b.WriteString(":partition=" + s.Partition.String())
	}
	return b.String()
}
