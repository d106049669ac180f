package keys

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/keybench/keybench/internal/workspace"
)

// Strategy is one entry of the catalog.
type Strategy struct {
	// Name is what specs call it.
	Name string
	// Made says how values are made, for `keybench keys`.
	Made string
	// Ordering says how successive values sort, for `keybench keys`.
	Ordering string
	// Storages lists the allowed as= types; the first is the default.
	Storages []Storage
	// Params are the strategy's own parameters.
	Params []ParamDef
	// Width is the size of a raw client-made value: 16 for the uuid family, 8 for bigint ones.
	Width int
	// Time, when set, is how the key holds its time in its leading bits,
	// never wrapping: a range partition by time can follow it (timebound.go).
	Time *TimeLayout
	// Server is how the server makes the values (nil: only the client
	// can), Client how keybench does (nil: only the server can). Where
	// both can, the client makes what the server would (the same format
	// and order): a prefill of server-made keys loads its values by COPY
	// (see Resolved.FillGenerator).
	Server ServerMaker
	Client ClientMaker
	// Text is the key's own text for as=text; nil: the uuid form.
	Text TextForm
	// TextParams are the strategy's parameters whose values are text (a
	// TypeID's prefix).
	TextParams []TextParamDef
	// Random, when set, makes random values in the key's own type:
	// gen=random (a random bigint, the "unguessable bigint").
	Random ClientMaker
	// Facts are what a value gives away and keeps apart (FactsFor, when
	// set, for a spec: a uuidv7's method).
	Facts    Facts
	FactsFor func(s *Spec) Facts
	// DefaultGen is who makes values when the spec does not say; GenAuto
	// means the server when it can, else the client.
	DefaultGen Gen
	// Clock says the values depend on the time they are made at (their
	// order against earlier values above all): a prefilled table then
	// stands for a history, made with a history clock, not the seconds of
	// its prefill (see Spec.UsesWallClock).
	Clock bool
	// Counter says the values are 1, 2, 3, ... in the order rows are
	// made (a sequence): the i-th row of a prefill has the value i, so a
	// history's time maps to a value range (a partition's bounds).
	Counter bool
}

// ServerMaker is how the server makes a strategy's values: the column's
// DEFAULT or identity clause, or why this server cannot. A maker may also
// say more, each a small interface of its own: the objects to create
// first (ServerSetup), how to move its state past a prefill keybench
// loaded in its place (ServerStateful), a value made at another time
// (ServerDated).
type ServerMaker interface {
	Default(s *Spec, sv Server) (string, error)
}

// ServerSetup is a maker that needs objects before the table (helper
// functions, sequences), each with the statements that make it: keybench
// records them in its workspace.
type ServerSetup interface {
	Setup(s *Spec, sv Server) []workspace.Object
}

// ServerStateful is a maker with state (a sequence): State is the
// statements that leave it where making the first rows values would have.
type ServerStateful interface {
	State(s *Spec, sv Server, rows int64) []string
}

// ServerDated is a maker that can make a value at another time: At is the
// SQL of a value made at the Unix time in seconds epochSQL computes (the
// prefill's history for server-made keys).
type ServerDated interface {
	At(s *Spec, sv Server, epochSQL string) string
}

// TextForm is a key's own text, where it is not the canonical uuid form
// (ULID's Crockford base32, a TypeID's prefix and suffix, a text-only
// key's own characters): AppendText appends a raw value's, TextLen is its
// length.
type TextForm interface {
	AppendText(s *Spec, dst, raw []byte) []byte
	TextLen(s *Spec) int
}

// fixedText is a text form of n characters, appended by form.
type fixedText struct {
	n    int
	form func(dst, raw []byte) []byte
}

func (t fixedText) AppendText(_ *Spec, dst, raw []byte) []byte { return t.form(dst, raw) }
func (t fixedText) TextLen(*Spec) int                          { return t.n }

// ClientMaker makes a strategy's values in keybench.
type ClientMaker interface {
	NewGenerator(s *Spec, clock func() time.Time) Generator
}

// GeneratorFunc is a function that makes a generator, as a ClientMaker.
type GeneratorFunc func(s *Spec, clock func() time.Time) Generator

// NewGenerator calls f.
func (f GeneratorFunc) NewGenerator(s *Spec, clock func() time.Time) Generator { return f(s, clock) }

// TextParamDef is a strategy parameter with a text value.
type TextParamDef struct {
	Name, Default, Doc string
	// Check says why a value is refused ("" when it is not).
	Check func(v string) string
}

// ParamDef is a strategy parameter with an integer value.
type ParamDef struct {
	Name     string
	Default  int64
	Min, Max int64
	Doc      string
	// Client: a value other than Default is the client generator's
	// alone: it makes the spec gen=client, and gen=server is refused.
	Client bool
}

// Server is what key strategies need to know about the target server.
type Server struct {
	// Major is the server's major version (15, 16, 17, 18, ...).
	Major int
	// Schema is keybench's schema, where helper functions live (quoted as needed).
	Schema string
	// Table is the name of the table the key is for, in Schema; per-table
	// objects (sequences) are named after it.
	Table string
}

// Qualified is the table's schema-qualified name.
func (sv Server) Qualified() string { return sv.Schema + "." + sv.Table }

// Generator makes key values on the client. One Generator serves a whole
// run and holds the state its ordering needs (it is safe for concurrent use);
// each worker draws values from its own Stream, which keeps worker-local
// buffers so that the hot path makes no system calls and takes no locks.
type Generator interface {
	Stream() Stream
}

// Stream yields values for one worker. It is not safe for concurrent use.
type Stream interface {
	// Next writes the next raw value into dst, which has the strategy's Width.
	Next(dst []byte)
}

// catalog is every strategy, in the key catalog's order (BRIEF.md's
// table of key specs, docs/keys.md), each declared in a file of its own.
var catalog = []*Strategy{bigintStrategy(), intStrategy, uuidv4Strategy, uuidv7Strategy, seqUUIDTimeStrategy, seqUUIDSeqStrategy, ulidStrategy,
	uuidv1Strategy, uuidv6Strategy, snowflakeStrategy, combStrategy, nameBased(5, "SHA-1"), nameBased(3, "MD5"), ksuidStrategy, typeIDStrategy,
	nanoidStrategy, cuid2Strategy, objectIDStrategy, xidStrategy, sonyflakeStrategy}

// Lookup returns the named strategy or nil.
func Lookup(name string) *Strategy {
	for _, s := range catalog {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// Names lists the catalog's strategy names in catalog order.
func Names() []string {
	all := All()
	out := make([]string, len(all))
	for i, s := range all {
		out[i] = s.Name
	}
	return out
}

// All returns every strategy in catalog order.
func All() []*Strategy { return slices.Clone(catalog) }

func (st *Strategy) param(name string) *ParamDef {
	for i := range st.Params {
		if st.Params[i].Name == name {
			return &st.Params[i]
		}
	}
	return nil
}

func (st *Strategy) textParam(name string) *TextParamDef {
	for i := range st.TextParams {
		if st.TextParams[i].Name == name {
			return &st.TextParams[i]
		}
	}
	return nil
}

func (st *Strategy) paramNames() string {
	names := []string{"as", "gen", "index", "prefill", "created-at", "partition"}
	for _, p := range st.Params {
		names = append(names, p.Name)
	}
	for _, p := range st.TextParams {
		names = append(names, p.Name)
	}
	return strings.Join(names, ", ")
}

// TextLength is the length of the spec's values as text.
func (s *Spec) TextLength() int {
	if s.Strategy.Text != nil {
		return s.Strategy.Text.TextLen(s)
	}
	return 36 // the uuid form
}

// GeneratedWhere describes where values can be made, for `keybench keys`.
func (st *Strategy) GeneratedWhere() string {
	switch {
	case st.Server != nil && st.Client != nil:
		return "server or client"
	case st.Server != nil:
		return "server"
	default:
		return "client"
	}
}

// Resolved is a spec bound to a server: who makes the values and how the column is declared.
type Resolved struct {
	*Spec
	// Gen is GenServer or GenClient.
	Gen Gen
	// ColumnDefault is the DEFAULT or identity clause when the server makes values.
	ColumnDefault string
	// Note explains a choice the user did not make explicitly (e.g. a fallback to the client generator).
	Note string
	// Server is the server the spec was resolved for.
	Server Server
}

// UsesWallClock says the values depend on the wall clock: a strategy with
// Clock, unless its spacing parameter gives it a clock of its own.
func (s *Spec) UsesWallClock() bool { return s.Strategy.Clock && s.Params["spacing"] == 0 }

// ServerValueAt is the SQL of a server-made value made at the Unix time
// (seconds) epochSQL computes, in the column's storage; ok is false when
// the server makes no values or cannot make them for another time.
func (r *Resolved) ServerValueAt(epochSQL string) (sql string, ok bool) {
	dated, ok := r.Strategy.Server.(ServerDated)
	if r.Gen != GenServer || !ok {
		return "", false
	}
	return dated.At(r.Spec, r.Server, epochSQL), true
}

// Resolve decides who makes the values on the given server.
func (s *Spec) Resolve(sv Server) (*Resolved, error) {
	r := &Resolved{Spec: s, Gen: s.Gen, Server: sv}
	if s.Random {
		r.Gen = GenClient // random values are keybench's
		return r, nil
	}
	if r.Gen == GenAuto && s.Strategy.DefaultGen != GenAuto {
		r.Gen = s.Strategy.DefaultGen
	}
	if r.Gen == GenAuto {
		r.Gen = GenClient
		if s.Strategy.Server != nil {
			if d, err := s.Strategy.Server.Default(s, sv); err == nil {
				r.Gen, r.ColumnDefault = GenServer, d
			} else if s.Strategy.Client != nil {
				r.Note = fmt.Sprintf("%v; values made by keybench's client generator", err)
			} else {
				return nil, err
			}
		}
		return r, nil
	}
	if r.Gen == GenServer {
		d, err := s.Strategy.Server.Default(s, sv)
		if err != nil {
			return nil, usagef("key %q: %v", s.Raw, err)
		}
		r.ColumnDefault = d
	}
	return r, nil
}

// Setup are the objects to create before the table (none unless the server makes values and needs helpers).
func (r *Resolved) Setup(sv Server) []workspace.Object {
	setup, ok := r.Strategy.Server.(ServerSetup)
	if r.Gen != GenServer || !ok {
		return nil
	}
	return setup.Setup(r.Spec, sv)
}

// FillGenerator is the generator a prefill of rows values into the table
// sv names loads by COPY, reading time from clock, and the statements to
// run after the load: the
// client's own generator, or, when the server makes the values, keybench's
// generator of the same values with the statements that move the server's
// state past them (COPY of the values is about three times as fast as the
// server making them in INSERT ... SELECT: 001's 1M rows in 2.5 s, not
// 8-10 s). Nil when only the server can make them.
func (r *Resolved) FillGenerator(sv Server, clock func() time.Time, rows int64) (Generator, []string) {
	g := r.NewGeneratorAt(clock)
	state, ok := r.Strategy.Server.(ServerStateful)
	if g == nil || r.Gen != GenServer || !ok || rows == 0 || r.Random {
		return g, nil
	}
	return g, state.State(r.Spec, sv, rows)
}

// NewGenerator returns the client-side generator for the spec using the wall clock.
func (s *Spec) NewGenerator() Generator { return s.NewGeneratorAt(time.Now) }

// NewGeneratorAt returns the client-side generator for the spec reading time from clock.
func (s *Spec) NewGeneratorAt(clock func() time.Time) Generator {
	if s.Random && s.Strategy.Random != nil {
		return s.Strategy.Random.NewGenerator(s, clock)
	}
	if s.Strategy.Client == nil {
		return nil
	}
	return s.Strategy.Client.NewGenerator(s, clock)
}

const hexDigits = "0123456789abcdef"

func appendUUIDText(dst, u []byte, dashes bool) []byte {
	for i, b := range u[:16] {
		if dashes && (i == 4 || i == 6 || i == 8 || i == 10) {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigits[b>>4], hexDigits[b&15])
	}
	return dst
}

// uuidStorages are the storages of the uuid family.
var uuidStorages = []Storage{AsUUID, AsText, AsChar32, AsBytea}

// setVersion sets the RFC 9562 version nibble and variant bits of a uuid.
func setVersion(u []byte, version byte) {
	u[6] = u[6]&0x0f | version<<4
	u[8] = u[8]&0x3f | 0x80
}
