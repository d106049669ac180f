// Command keybench answers "which primary key should this PostgreSQL table
// use, and what will it cost at my scale?" by running real experiments on a
// real PostgreSQL. See README.md.
package main

import (
	"os"

	"github.com/keybench/keybench/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
