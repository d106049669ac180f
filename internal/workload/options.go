package workload

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/keybench/keybench/internal/keys"
	"github.com/keybench/keybench/internal/results"
)

// Option is one of a workload's own parameters, declared by the workload
// as key strategies declare theirs (keys.ParamDef): its name, type,
// default, bounds and one line of help, bound to the field of the workload
// it sets. A plan sets it as KIND:name=value, or for every workload of the
// plan that declares it as --name value; it is checked once, when the
// workload is built (Build), and every cell records its resolved options.
type Option struct {
	Name string
	Doc  string
	Type OptionType
	// Default is the value as text ("" for a choice without one).
	Default string
	// Min and Max bound an int or float (MinExclusive: above Min, not at it).
	Min, Max     float64
	MinExclusive bool
	// Choices are a choice's values.
	Choices []string
	// Variant says a list of values runs each as a task of its own (a read
	// workload's query kinds): keys are compared within one task only. Its
	// value names the task when it was set, or always when Named.
	Variant bool
	Named   bool
	// Applies, when set, says after the workload is configured whether the
	// option means anything for it (lookup's latest reads no drawn rows):
	// one that does not is left out of the cell's options and its task.
	Applies func() bool

	set func(string) error
	get func() string
}

// OptionType is an option's type.
type OptionType string

// The types of options.
const (
	OptInt    OptionType = "int"
	OptFloat  OptionType = "float"
	OptChoice OptionType = "choice"
	OptBool   OptionType = "bool"
	OptSpan   OptionType = "span"
	OptPath   OptionType = "path"
)

// Int declares an integer option bound to p.
func Int[T int | int64](name string, p *T, def, lo, hi T, doc string) Option {
	return Option{Name: name, Doc: doc, Type: OptInt, Default: strconv.FormatInt(int64(def), 10), Min: float64(lo), Max: float64(hi),
		set: func(s string) error {
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				f, ferr := strconv.ParseFloat(s, 64)
				if ferr != nil || f != math.Trunc(f) || math.IsInf(f, 0) || math.Abs(f) > 1<<62 {
					return fmt.Errorf("%q is not a whole number", s)
				}
				v = int64(f)
			}
			if v < int64(lo) || v > int64(hi) {
				return fmt.Errorf("must be from %d to %d, not %d", int64(lo), int64(hi), v)
			}
			*p = T(v)
			return nil
		},
		get: func() string { return strconv.FormatInt(int64(*p), 10) }}
}

// Float declares a floating-point option bound to p; above lo when
// exclusive, at most hi. NaN and infinities are never values.
func Float(name string, p *float64, def, lo, hi float64, exclusive bool, doc string) Option {
	return Option{Name: name, Doc: doc, Type: OptFloat, Default: formatFloat(def), Min: lo, Max: hi, MinExclusive: exclusive,
		set: func(s string) error {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%q is not a number", s)
			}
			if v < lo || exclusive && v == lo || v > hi {
				above := "from " + formatFloat(lo)
				if exclusive {
					above = "above " + formatFloat(lo) + " and"
				}
				return fmt.Errorf("must be %s to %s, not %s", above, formatFloat(hi), formatFloat(v))
			}
			*p = v
			return nil
		},
		get: func() string { return formatFloat(*p) }}
}

// Choice declares an option bound to p that takes one of choices.
func Choice(name string, p *string, def string, choices []string, doc string) Option {
	return Option{Name: name, Doc: doc, Type: OptChoice, Default: def, Choices: choices,
		set: func(s string) error {
			for _, c := range choices {
				if s == c {
					*p = s
					return nil
				}
			}
			return fmt.Errorf("must be %s, not %q", orList(choices), s)
		},
		get: func() string { return *p }}
}

// Bool declares a true/false option bound to p.
func Bool(name string, p *bool, def bool, doc string) Option {
	return Option{Name: name, Doc: doc, Type: OptBool, Default: strconv.FormatBool(def),
		set: func(s string) error {
			v, err := strconv.ParseBool(s)
			if err != nil {
				return fmt.Errorf("must be true or false, not %q", s)
			}
			*p = v
			return nil
		},
		get: func() string { return strconv.FormatBool(*p) }}
}

// Span declares a span-of-time option bound to p ("1h", "10d"), from lo to
// hi; 0 is allowed when lo is 0 (a workload's "as its table says").
func Span(name string, p *time.Duration, def, lo, hi time.Duration, doc string) Option {
	return Option{Name: name, Doc: doc, Type: OptSpan, Default: keys.FormatSpan(def), Min: lo.Seconds(), Max: hi.Seconds(),
		set: func(s string) error {
			v, err := keys.ParseSpan(s)
			if err != nil {
				return fmt.Errorf("%q is not a span of time (90s, 1h, 1d)", s)
			}
			if v < lo || v > hi {
				return fmt.Errorf("must be from %s to %s, not %s", keys.FormatSpan(lo), keys.FormatSpan(hi), s)
			}
			*p = v
			return nil
		},
		get: func() string { return keys.FormatSpan(*p) }}
}

// Path declares an option bound to p naming a file (a script); the
// workload reads and checks it in Configure. "" is no file.
func Path(name string, p *string, doc string) Option {
	return Option{Name: name, Doc: doc, Type: OptPath,
		set: func(s string) error { *p = s; return nil },
		get: func() string { return *p }}
}

// Variants marks the option as one whose list of values runs each as a task.
func (o Option) Variants() Option { o.Variant = true; return o }

// Naming marks a variant option whose value names the task even at its
// default (lookup's query: "lookup point").
func (o Option) Naming() Option { o.Named = true; return o }

// Only says when the option applies (see Option.Applies).
func (o Option) Only(applies func() bool) Option { o.Applies = applies; return o }

// Range says the option's bounds or choices, for keybench workloads.
func (o Option) Range() string {
	switch o.Type {
	case OptChoice:
		return strings.Join(o.Choices, "|")
	case OptBool:
		return "true|false"
	case OptPath:
		return "a file"
	case OptInt:
		return fmt.Sprintf("%s to %s", results.Thousands(int64(o.Min)), results.Thousands(int64(o.Max)))
	case OptSpan:
		return fmt.Sprintf("%s to %s", keys.FormatSpan(time.Duration(o.Min*float64(time.Second))), keys.FormatSpan(time.Duration(o.Max*float64(time.Second))))
	}
	if o.MinExclusive {
		return fmt.Sprintf("above %s, at most %s", formatFloat(o.Min), formatFloat(o.Max))
	}
	return fmt.Sprintf("%s to %s", formatFloat(o.Min), formatFloat(o.Max))
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func orList(s []string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// Setup is what a workload is built for besides its own options: the
// cell's table size, clients, payload, random seed, and the source
// write-up's figures it is shown beside.
type Setup struct {
	// Rows is the size of the prefilled table.
	Rows int64
	// Clients is the cell's client count (a queue splits them into roles).
	Clients int
	// Payload is the length of each row's payload text (0: NULL).
	Payload int
	// History is the span of time a prefill stands for (0: its rows at
	// HistoryRowsPerS): a table partitioned by day needs days of history.
	History time.Duration
	// FillIndexed builds the keyed table's indexes before its prefill
	// (--fill indexed), which grows them as inserts do.
	FillIndexed bool
	// Secondary are the keyed table's secondary indexes (--secondary).
	Secondary []Secondary
	// Seed makes each worker's random choices reproducible.
	Seed int64
	// Like is the user's table whose shape the keyed table takes (--like).
	Like *Like
}

// Built is a workload built for a cell: the workload, and its options as
// they resolved (every option that applies, by name, as text).
type Built struct {
	Workload Workload
	Options  map[string]string
	// Variant are the values of its variant options, in their declared
	// order, those set for it or Named: what tells its task from the same
	// workload's others.
	Variant []string
}

// Build makes the named workload for a cell: its options at their
// defaults, then set from values (name → text), each checked against its
// type and bounds, then configured with the cell's setup. An option the
// workload does not declare is an error naming the ones it does.
func Build(name string, s Setup, values map[string]string) (Built, error) {
	m, ok := Lookup(name)
	if !ok {
		return Built{}, fmt.Errorf("unknown workload %q", name)
	}
	w := m.New()
	opts := w.Options()
	byName := map[string]Option{}
	for _, o := range opts {
		byName[o.Name] = o
		if err := o.set(o.Default); err != nil && o.Default != "" {
			panic(fmt.Sprintf("workload %s: option %s: default %q: %v", name, o.Name, o.Default, err))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(values)) {
		o, ok := byName[k]
		if !ok {
			return Built{}, fmt.Errorf("%s has no option %q (%s)", name, k, optionList(opts))
		}
		if err := o.set(values[k]); err != nil {
			return Built{}, fmt.Errorf("%s: %s %v", name, k, err)
		}
	}
	if err := w.Configure(s); err != nil {
		return Built{}, err
	}
	b := Built{Workload: w, Options: map[string]string{}}
	for _, o := range opts {
		if o.Applies != nil && !o.Applies() {
			continue
		}
		b.Options[o.Name] = o.get()
		if _, given := values[o.Name]; o.Variant && (o.Named || given) {
			b.Variant = append(b.Variant, o.get())
		}
	}
	return b, nil
}

func optionList(opts []Option) string {
	if len(opts) == 0 {
		return "it has none"
	}
	var names []string
	for _, o := range opts {
		names = append(names, o.Name)
	}
	return "valid: " + strings.Join(names, ", ")
}

// OptionsOf lists the named workload's options at their defaults.
func OptionsOf(name string) []Option {
	m, ok := Lookup(name)
	if !ok {
		return nil
	}
	return m.New().Options()
}

// Declaring lists the workloads that declare an option name, by name.
func Declaring(option string) []string {
	var out []string
	for _, m := range All() {
		for _, o := range m.New().Options() {
			if o.Name == option {
				out = append(out, m.Name)
			}
		}
	}
	return out
}

// OptionNames lists every option any workload declares, by name, with the
// declaration of the first (a name means one thing in every workload).
func OptionNames() map[string]Option {
	out := map[string]Option{}
	for _, m := range All() {
		for _, o := range m.New().Options() {
			if _, ok := out[o.Name]; !ok {
				out[o.Name] = o
			}
		}
	}
	return out
}
