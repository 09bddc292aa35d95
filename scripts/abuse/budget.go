package main

// The candidates budget's shapes: sources made to make one reader or one
// phase of /v1/context run long or grow large. Each shape gets its own
// repository (a base commit declaring what the head's change refers to) and
// a fresh prscout with PRSCOUT_CANDIDATES_BUDGET=5s, so that each request's
// peak RSS is its own. A shape holds when the answer is a 200 within
// -budget-wall, the server's peak RSS stays under -budget-rss-mb, and the
// candidate the base declares is listed (what was found before a cut stays
// listed).

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

var (
	budgetOnly  = flag.Bool("budget-only", false, "run only the candidates budget's shapes (budget.go)")
	budgetWall  = flag.Duration("budget-wall", 5500*time.Millisecond, "longest answer a budget shape may take")
	budgetRSSMB = flag.Int("budget-rss-mb", 300, "highest peak RSS a budget shape may cause (MB)")
	budgetShape = flag.String("budget-shape", "", "run only the budget shapes whose name contains this")
)

// budgetCase is one shape: the files of the base and head commits (head
// files are written over the base; "" deletes) and the candidate expected.
type budgetCase struct {
	name, what string
	base, head map[string]string
	want       string // a path the answer must list as a candidate
}

func budgetCases() []budgetCase {
	semis := strings.Repeat(";", 2<<20-256)
	importers := map[string]string{"src/c.js": "export function target() {\n  return 1;\n}\n"}
	for i := range 150 {
		importers[fmt.Sprintf("lib/u%03d.js", i)] = "import {target} from '../src/c'\ntarget();\n" + semis + "\n"
	}
	var java strings.Builder
	java.WriteString("package p;\n\nimport p.Target;\n\n")
	for i := range 20_000 {
		fmt.Fprintf(&java, "class C%d{", i)
	}
	java.WriteString("void m(){ Target.run(); }")
	java.WriteString(strings.Repeat("}", 20_000) + "\n")
	fstr := func(depth int) string {
		return "x = " + strings.Repeat(`f"{`, depth) + "target()" + strings.Repeat(`}"`, depth) + "\n"
	}
	tmpl := strings.Repeat("`${", 1<<20/5) + "target()" + strings.Repeat("}`", 1<<20/5)
	return []budgetCase{
		{name: "js-member-lines", what: `a 320 KB src/x.js of "a.bbbbb" x 40,000`,
			base: map[string]string{"src/a.js": "export const a = { bbbbb: 1 };\n"},
			head: map[string]string{"src/x.js": "import { a } from './a';\n" + strings.Repeat("a.bbbbb\n", 40_000)},
			want: "src/a.js"},
		{name: "js-150-importers", what: "150 base files importing target() plus 2 MiB of ';' each, target()'s body changed",
			base: importers,
			head: map[string]string{"src/c.js": "export function target() {\n  return 2;\n}\n"},
			want: "lib/u000.js"},
		{name: "py-nested-fstrings", what: "100 KB of nested Python f-strings",
			base: map[string]string{"pkg/a.py": "def target():\n    return 1\n"},
			head: map[string]string{"pkg/x.py": "from pkg.a import target\n\n" + fstr(100_000/5)},
			want: "pkg/a.py"},
		{name: "java-nested-classes", what: "Java classes nested 20,000 deep (220 KB)",
			base: map[string]string{"src/main/java/p/Target.java": "package p;\n\npublic class Target {\n  public static void run() {}\n}\n"},
			head: map[string]string{"src/main/java/p/Deep.java": java.String()},
			want: "src/main/java/p/Target.java"},
		{name: "py-call-chain", what: "a 200 KB Python a.m().m()... chain",
			base: map[string]string{"pkg/a.py": "class A:\n    def m(self):\n        return self\n"},
			head: map[string]string{"pkg/x.py": "from pkg.a import A\n\na = A()\nx = a" + strings.Repeat(".m()", 200_000/4) + "\n"},
			want: "pkg/a.py"},
		{name: "ts-nested-templates", what: "1 MB of nested TypeScript template literals",
			base: map[string]string{"src/t.ts": "export function target(): string {\n  return '';\n}\n"},
			head: map[string]string{"src/x.ts": "import { target } from './t';\n\nexport const x = " + tmpl + ";\n"},
			want: "src/t.ts"},
		{name: "groups-func-line", what: "one 200 KB line of `func() {} ` x 20,000 (review groups' name links)",
			base: map[string]string{"g/a.go": "package g\n\nfunc Target() int { return 1 }\n"},
			head: map[string]string{"g/x.go": "package g\n\nvar _ = Target()\n\nvar fs = []any{" + strings.Repeat("func() {} ", 20_000) + "}\n"},
			want: "g/a.go"},
	}
}

// budgetShapes runs each shape on its own repository and server.
func budgetShapes(bin, work string) {
	for _, c := range budgetCases() {
		if !strings.Contains(c.name, *budgetShape) {
			continue
		}
		dir := filepath.Join(work, "budget-"+c.name)
		must(os.MkdirAll(dir, 0o755))
		git(dir, "init", "-q", "-b", "main")
		for p, s := range c.base {
			write(filepath.Join(dir, p), s)
		}
		git(dir, "add", "-A")
		git(dir, "commit", "-q", "-m", "base")
		base := git(dir, "rev-parse", "HEAD")
		for p, s := range c.head {
			write(filepath.Join(dir, p), s)
		}
		git(dir, "add", "-A")
		git(dir, "commit", "-q", "-m", "head")
		head := git(dir, "rev-parse", "HEAD")

		must(os.Setenv("PRSCOUT_CANDIDATES_BUDGET", "5s"))
		srv := start(bin, dir, "http://127.0.0.1:9/unused")
		must(os.Unsetenv("PRSCOUT_CANDIDATES_BUDGET"))
		srvBase = srv.base
		stop := peakRSS(srv.cmd.Process.Pid)
		a := post("/v1/context", map[string]any{"workspace": "acme", "repoSlug": "app", "base": base, "head": head}, 150*time.Second)
		peak := stop()
		var res struct {
			Candidates []struct{ Path string } `json:"candidates"`
			Warnings   []string                `json:"warnings"`
			Stats      struct {
				CandidatesMs int `json:"candidatesMs"`
			} `json:"stats"`
		}
		_ = json.Unmarshal(a.body, &res)
		listed := false
		for _, k := range res.Candidates {
			listed = listed || k.Path == c.want
		}
		var cut []string
		for _, w := range res.Warnings {
			if strings.HasPrefix(w, "candidates:") {
				cut = append(cut, w)
			}
		}
		// The server's CPU after the answer: work still running for a
		// client that has its answer (or left) shows here.
		cpu0 := cpuTicks(srv.cmd.Process.Pid)
		time.Sleep(time.Second)
		after := cpuTicks(srv.cmd.Process.Pid) - cpu0
		held := a.code == 200 && a.dur <= *budgetWall && peak <= *budgetRSSMB && listed && srv.alive() && after < 50
		report(held, "budget-"+c.name, "%s: %s (candidatesMs %d), peak RSS %d MB, %d candidates, %s listed: %v, CPU 1 s after the answer %d%%, warnings %q",
			c.what, a, res.Stats.CandidatesMs, peak, len(res.Candidates), c.want, listed, after, cut)
		srv.stop()
		_ = os.RemoveAll(dir)
	}
}

// cpuTicks is a process's user+system CPU time in clock ticks (1/100 s).
func cpuTicks(pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	s := string(data)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 13 {
		return 0
	}
	var u, k int
	fmt.Sscan(f[11], &u)
	fmt.Sscan(f[12], &k)
	return u + k
}
