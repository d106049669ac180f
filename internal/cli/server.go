package cli

import (
	"fmt"

	"github.com/keybench/keybench/internal/server"
)

type serverCmd struct {
	PgVersion string   `name:"pg-version" help:"PostgreSQL major version: 15, 16, 17 or 18 (default 18)."`
	PgBin     string   `name:"pg-bin" help:"Use an installed PostgreSQL's binaries instead of downloading."`
	PgConf    []string `name:"pg-conf" help:"Server setting key=value (repeatable)."`
	TCP       bool     `name:"tcp" help:"Also listen on 127.0.0.1 (password authentication)."`
	CacheMode string   `name:"cache-mode" enum:"cold,warm" default:"cold" help:"cold (small shared_buffers, direct IO on 16+: what keybench run measures with) or warm (PostgreSQL's defaults)."`
}

func (s *serverCmd) Run(e *env) error {
	if s.PgBin == "" {
		if _, err := server.ResolveVersion(s.PgVersion); err != nil {
			return usagef("%v", err)
		}
	}
	settings, err := server.ParseSettings(s.PgConf)
	if err != nil {
		return err
	}
	logf := func(f string, a ...any) { fmt.Fprintf(e.stderr, f+"\n", a...) }
	srv, err := server.Start(e.ctx, server.Options{Version: s.PgVersion, BinDir: s.PgBin, Settings: settings, TCP: s.TCP, Logf: logf, ColdCache: s.CacheMode == "cold"})
	if err != nil {
		if e.ctx.Err() != nil {
			return errInterrupted
		}
		return err
	}
	defer srv.Stop()
	fmt.Fprintf(e.stdout, "PostgreSQL %s running as user %s (pid %d), %s cache as keybench run's --cache-mode %s\n", srv.Version, srv.User, srv.PID(), s.CacheMode, s.CacheMode)
	fmt.Fprintf(e.stdout, "DSN: %s\n", srv.ConnString())
	if srv.TCP {
		fmt.Fprintf(e.stdout, "TCP: %s\n", srv.TCPURL())
	}
	fmt.Fprintln(e.stdout, "Ctrl-C stops it and deletes its data.")
	select {
	case <-e.ctx.Done():
		return nil
	case <-srv.Exited():
		return fmt.Errorf("the server exited: %s", srv.LogTail(3))
	}
}
