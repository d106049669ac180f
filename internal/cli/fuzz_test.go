package cli

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/alecthomas/kong"

	"github.com/keybench/keybench/internal/usage"
)

// FuzzRunFlags parses any command line of 'keybench run' and builds its
// plan: it returns a configuration or a usage error, never panics, never
// asks for an unbounded plan (issue 10: --repeat 10000000 ran out of memory).
func FuzzRunFlags(f *testing.F) {
	for _, s := range []string{
		"run", "run war --quick", "run insert --batch 32768", "run -T 1ns", "run --repeat 10000000", "run --keys ''",
		"run bulk --rows 0", "run queue -c 1", "run --clients 1,2,3 --rows 0,10,100 --repeat 3", "run --txns 10 --duration 5s",
		"run --pg-conf a=b --pg-conf primary_conninfo=password=x", "run --dsn postgres://u:p@h/db --force --keep",
		"run growth --keys uuidv4:index=hash,bigint:cache=50 --payload 1048577", "run insert-read --read-by key -c 10000",
		"run lookup:query=range:recent-rows=0.05", "run update --update-indexed=false", "run bulk --chunk 50000 --load-method insert",
		"run war --chunk 5", "run lookup --read-dist recent,zipf --recent-rows NaN",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		var c cli
		parser, err := kong.New(&c, kong.Name("keybench"), kong.Writers(io.Discard, io.Discard), kong.Exit(func(int) {}), helpVars())
		if err != nil {
			t.Fatal(err)
		}
		rest, options := workloadFlags(args, runFlag(parser))
		kctx, err := parser.Parse(rest)
		c.Run.options = options
		if err != nil || kctx == nil || !strings.HasPrefix(kctx.Command(), "run") {
			return
		}
		if c.Run.PgBin != "" {
			return // looks at the file system
		}
		cfg, err := c.Run.config(&env{ctx: context.Background(), stdout: io.Discard, stderr: io.Discard, args: args})
		if err != nil {
			var ue *usage.Error
			if !errors.As(err, &ue) {
				t.Fatalf("%q: not a usage error: %v", line, err)
			}
			return
		}
		if cfg.Plan.Params.Repeat < 1 || len(cfg.Plan.Specs) == 0 || len(cfg.Plan.Cells) == 0 {
			t.Fatalf("%q: accepted a plan that cannot run: %+v", line, cfg.Plan.Params)
		}
	})
}

// FuzzPrintable: whatever a results file holds, the console gets no control
// character but newlines and tabs, and every printable rune passes.
func FuzzPrintable(f *testing.F) {
	f.Add([]byte("uuidv4\x1b]0;owned\x07\x1b[2J"), 3)
	f.Add([]byte("note \u009b2J \u00e9t\u00e9\n"), 1)
	f.Add([]byte("\xc2\x00\x80"), 1) // a dropped NUL must not join 0xC2 and 0x80 into U+0080
	f.Fuzz(func(t *testing.T, b []byte, cut int) {
		var out bytes.Buffer
		p := &printable{w: &out}
		if cut < 0 || cut > len(b) {
			cut = len(b) / 2
		}
		n1, _ := p.Write(b[:cut])
		n2, _ := p.Write(b[cut:])
		p.Write(nil)
		if n1+n2 != len(b) {
			t.Fatalf("wrote %d of %d bytes", n1+n2, len(b))
		}
		for _, r := range out.String() {
			if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
				t.Fatalf("control character %U passed: %q", r, out.String())
			}
		}
		if utf8.Valid(b) {
			want := strings.Map(func(r rune) rune {
				if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f || r >= 0x80 && r <= 0x9f {
					return -1
				}
				return r
			}, string(b))
			if got := out.String(); got != want {
				t.Fatalf("printable(%q) = %q, want %q", b, got, want)
			}
		}
	})
}
