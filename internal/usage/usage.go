// Package usage is the one error type for what the user asked for wrong: a
// bad flag, key spec, scenario, schema or plan. The command line prints
// such an error as one line and exits with code 2; every other error is
// keybench's or the server's (exit 1).
package usage

import "fmt"

// Error is an error in what the user asked for.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Errorf makes an Error.
func Errorf(format string, a ...any) error { return &Error{Msg: fmt.Sprintf(format, a...)} }
