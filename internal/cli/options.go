package cli

import (
	"strings"

	"github.com/keybench/keybench/internal/workload"
)

// workloadFlags takes the workload options out of a run's command line:
// every option a workload declares is also a flag of run, --NAME VALUE (or
// --NAME=VALUE; a true/false option alone is true), which sets it on every
// workload of the plan that declares it, as CockroachDB's workload command
// adds each generator's flags. The run command's own flags are left to the
// parser; a flag after "--" is no flag. It returns the other arguments and
// the options, the last of a name winning.
func workloadFlags(args []string, own func(name string) bool) (rest []string, opts map[string]string) {
	opts = map[string]string{}
	known := workload.OptionNames()
	run := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(rest, args[i:]...), opts
		case !run && a == "run":
			run = true
		case run && strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
			o, ok := known[name]
			if !ok || own(name) {
				break
			}
			switch {
			case hasValue:
			case o.Type == workload.OptBool && (i+1 >= len(args) || !isBool(args[i+1])):
				value = "true"
			case i+1 < len(args):
				i++
				value = args[i]
			default:
				value = "" // the plan refuses an empty value, naming the option
			}
			opts[name] = value
			continue
		}
		rest = append(rest, a)
	}
	return rest, opts
}

func isBool(s string) bool { return s == "true" || s == "false" }
