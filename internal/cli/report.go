package cli

import (
	"github.com/keybench/keybench/internal/results"
)

type reportCmd struct {
	Results string `arg:"" type:"existingfile" help:"A results.json written by keybench run."`
}

func (r *reportCmd) Run(e *env) error {
	res, err := results.Read(r.Results)
	if err != nil {
		return usagef("%v", err)
	}
	res.WriteSummary(e.stdout)
	return nil
}
