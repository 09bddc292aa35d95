package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/prscout/prscout/api"
)

// buildVersion is the version this binary reports: the one set at link time
// (-ldflags "-X github.com/prscout/prscout/api.Version=v1.2.3", as the
// Dockerfile does), else the module version the go command stamped (a tag,
// or a pseudo-version of the commit `go build` ran on), else the VCS
// revision, else "dev" (go run).
func buildVersion() string {
	if api.Version != "" && api.Version != "dev" {
		return api.Version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "dev"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "+dirty"
	}
	return "dev-" + rev
}

// runVersion prints the version, then the Go version and platform.
func runVersion(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "--help" {
			fmt.Fprintln(stderr, "usage: prscout version\n\nPrints the version (set at build time, else the module or commit the binary was built from), the Go version and the platform.")
			return 0
		}
		fmt.Fprintf(stderr, "prscout version: unexpected argument %q\n", strings.Join(args, " "))
		return 2
	}
	fmt.Fprintf(stdout, "prscout %s %s %s/%s\n", buildVersion(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	return 0
}
