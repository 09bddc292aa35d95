// Command scalecheck asserts and reports the scale test's run
// (scripts/e2e-scale.sh) from the fake Bitbucket's control API, the n8n
// executions dumped by executions-pg.js and the fault log the script wrote.
//
//	scalecheck -control URL -executions F -faults F -push-at MS -rss F -mode NAME -summary OUT
//
// Checks, per pull request of the world: one summary, each planted finding
// as exactly one inline comment on its line, no inline comment twice, the
// build status of every reviewed head closed (SUCCESSFUL or FAILED; STOPPED
// or FAILED with a reason in the failing repository, where nothing is
// posted), at most one execution posting each head, reviews touched only by
// 429s within the untouched reviews' longest time plus the Retry-After they
// got, every 429 honoured, and the REST calls of each single-execution
// review within the per-review bound of docs/bitbucket-jira.md. It prints
// the report and exits 1 when a check fails.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/prscout/prscout/scripts/e2e/scale/world"
)

type node struct {
	Name          string         `json:"name"`
	StartTime     int64          `json:"startTime"`
	ExecutionTime int64          `json:"executionTime"`
	Items         int            `json:"items"`
	Error         *string        `json:"error"`
	Output        map[string]any `json:"output"`
}

type execution struct {
	ID        int     `json:"id"`
	Status    string  `json:"status"`
	CreatedAt int64   `json:"createdAt"`
	StartedAt int64   `json:"startedAt"`
	StoppedAt int64   `json:"stoppedAt"`
	WallMs    int64   `json:"wallMs"`
	LastNode  string  `json:"lastNode"`
	Error     *string `json:"error"`
	RepoSlug  string  `json:"repoSlug"`
	PRID      int     `json:"prId"`
	Head      string  `json:"head"`
	Nodes     []node  `json:"nodes"`
}

func (e execution) node(name string) *node {
	for i := range e.Nodes {
		if e.Nodes[i].Name == name {
			return &e.Nodes[i]
		}
	}
	return nil
}

type prState struct {
	Repo   int    `json:"repo"`
	Slug   string `json:"slug"`
	ID     int    `json:"id"`
	Head   string `json:"head"`
	Base   string `json:"base"`
	Push   string `json:"push"`
	Pushed bool   `json:"pushed"`
}

type call struct {
	T          int64  `json:"t"`
	Repo       int    `json:"repo"`
	PR         int    `json:"pr"`
	Method     string `json:"method"`
	Path       string `json:"path"`
	Status     int    `json:"status"`
	RetryAfter int    `json:"retryAfter"`
}

type throttled struct {
	Repo           int   `json:"repo"`
	PR             int   `json:"pr"`
	T              int64 `json:"t"`
	RetryAfter     int   `json:"retryAfter"`
	RetriedAfterMs int64 `json:"retriedAfterMs"`
}

type comment struct {
	ID      int64
	Body    string
	Path    string
	To      *int
	Deleted bool
}

type fault struct {
	Kind string `json:"kind"`
	From int64  `json:"from"`
	To   int64  `json:"to"`
}

// prscoutNodes are the workflow's HTTP Request nodes that call prscout.
var prscoutNodes = map[string]bool{"Get context": true, "Normalize needs": true, "Fetch context files": true,
	"Build review prompt": true, "Verify prompt": true, "Post comments": true, "Close build status": true}

var failed int

func check(ok bool, format string, args ...any) {
	if !ok {
		failed++
		fmt.Printf("  FAIL "+format+"\n", args...)
	}
}

// retrySlackMs is what a throttled review may take beyond its Retry-After
// for each 429 it received.
const retrySlackMs = 500

func main() {
	control := flag.String("control", "", "fake Bitbucket control URL")
	execFile := flag.String("executions", "", "executions JSON (executions-pg.js)")
	faultsFile := flag.String("faults", "", "fault log: one JSON object {kind, from, to} per line (unix ms)")
	pushAt := flag.Int64("push-at", 0, "unix ms of the push phase's start (0: no push phase)")
	rssFile := flag.String("rss", "", "peak RSS per prscout replica: lines \"name kB\"")
	mode := flag.String("mode", "scaled", "name of the run in the report")
	summary := flag.String("summary", "", "write the report's figures here as JSON")
	redeliveredFile := flag.String("redelivered", "", "the \"repo pr\" lines whose webhook was delivered again after the burst")
	flag.Parse()

	var execs []execution
	must(readJSON(*execFile, &execs))
	var st struct {
		PRs []prState `json:"prs"`
	}
	must(getJSON(*control+"/_fake/state", &st))
	var calls []call
	must(getJSON(*control+"/_fake/calls", &calls))
	var thr []throttled
	must(getJSON(*control+"/_fake/throttled", &thr))
	var faults []fault
	if *faultsFile != "" {
		if f, err := os.Open(*faultsFile); err == nil {
			sc := bufio.NewScanner(f)
			for sc.Scan() {
				var ft fault
				if json.Unmarshal(sc.Bytes(), &ft) == nil {
					faults = append(faults, ft)
				}
			}
			f.Close()
		}
	}

	redelivered := map[string]bool{}
	if b, err := os.ReadFile(*redeliveredFile); err == nil && *redeliveredFile != "" {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			var r, p int
			if _, err := fmt.Sscan(l, &r, &p); err == nil {
				redelivered[world.PR{Repo: r, ID: p}.Key()] = true
			}
		}
	}
	fmt.Printf("scalecheck %s: %d executions, %d REST calls, %d answered 429\n", *mode, len(execs), len(calls), len(thr))
	byStatus := map[string]int{}
	for _, e := range execs {
		byStatus[e.Status]++
	}
	// Executions per pull request, and the reviews (those that posted).
	prExecs := map[string][]execution{}
	for _, e := range execs {
		prExecs[fmt.Sprintf("%s#%d", e.RepoSlug, e.PRID)] = append(prExecs[fmt.Sprintf("%s#%d", e.RepoSlug, e.PRID)], e)
	}
	reviews, headsReviewed, dups, lost, stopped := 0, 0, 0, 0, 0
	var wallAll, wallClean, shares []float64
	var callsFull, callsDelta []int
	maxClean := int64(0)
	type touched struct {
		e  execution
		ra int // seconds of Retry-After received
		n  int // 429 answers received
	}
	var throttledReviews []touched
	for _, s := range st.PRs {
		p := world.PR{Repo: s.Repo, ID: s.ID}
		key := p.Key()
		var cs []comment
		must(getJSON(fmt.Sprintf("%s/_fake/comments?repo=%d&pr=%d", *control, s.Repo, s.ID), &cs))
		var summaries, inline []comment
		for _, c := range cs {
			if c.Deleted {
				continue
			}
			if c.Path == "" {
				summaries = append(summaries, c)
			} else {
				inline = append(inline, c)
			}
		}
		heads := []string{s.Head}
		if s.Pushed {
			heads = append(heads, s.Push)
		}
		posted := map[string]int{}
		for _, e := range prExecs[key] {
			if e.node("Review posted") != nil {
				for _, h := range heads {
					if e.Head != "" && strings.HasPrefix(h, e.Head) {
						posted[h]++
					}
				}
			}
		}
		if s.Repo == world.FailingRepo {
			check(len(cs) == 0, "%s: the failing repository shows no comment (got %d)", key, len(cs))
			for _, h := range heads {
				var bs *struct {
					State, Description string
					States             []string
				}
				must(getJSON(fmt.Sprintf("%s/_fake/status?repo=%d&commit=%s", *control, s.Repo, h), &bs))
				ok := bs != nil && (bs.State == "STOPPED" || bs.State == "FAILED") && strings.TrimSpace(bs.Description) != ""
				check(ok, "%s: head %.12s's build status is STOPPED/FAILED with a reason (got %+v)", key, h, bs)
				if ok {
					stopped++
				}
			}
			continue
		}
		check(len(summaries) == 1, "%s: exactly one summary comment (got %d)", key, len(summaries))
		seen := map[string]int{}
		for _, c := range inline {
			l, _, _ := strings.Cut(strings.TrimSpace(c.Body), "\n")
			seen[fmt.Sprintf("%s:%d %s", c.Path, deint(c.To), l)]++
		}
		for k, n := range seen {
			if n > 1 {
				dups += n - 1
				check(false, "%s: inline comment posted %d times: %s", key, n, k)
			}
		}
		type want struct {
			f       world.Finding
			content string
		}
		wants := []want{}
		for _, f := range p.Findings() {
			wants = append(wants, want{f, p.Head()})
		}
		if s.Pushed {
			wants = append(wants, want{p.PushFinding(), p.Pushed()})
		}
		for _, w := range wants {
			line := world.LineOf(w.content, w.f.Line)
			n := 0
			for _, c := range inline {
				if c.Path == p.Path() && deint(c.To) == line && strings.Contains(c.Body, w.f.Title) {
					n++
				}
			}
			if n == 0 {
				lost++
			}
			check(n == 1, "%s: finding %q once on %s:%d (got %d)", key, w.f.Title, p.Path(), line, n)
		}
		for _, h := range heads {
			var bs *struct {
				State, Description string
				States             []string
			}
			must(getJSON(fmt.Sprintf("%s/_fake/status?repo=%d&commit=%s", *control, s.Repo, h), &bs))
			closed := bs != nil && (bs.State == "SUCCESSFUL" || bs.State == "FAILED")
			check(closed, "%s: head %.12s's build status closed SUCCESSFUL/FAILED (got %+v)%s", key, h, bs, headExecutions(prExecs[key], h))
			if closed {
				// Only /v1/comments closes a status: the head's review was
				// posted, also when the n8n execution that asked for it died
				// with its worker afterwards.
				headsReviewed++
			}
			check(posted[h] <= 1, "%s: head %.12s posted by %d executions (want at most 1)", key, h, posted[h])
		}
		// Reviews of this pull request: wall times, faults touching them, calls.
		for _, e := range prExecs[key] {
			if e.node("Review posted") == nil {
				continue
			}
			reviews++
			wallAll = append(wallAll, float64(e.WallMs))
			var ps int64
			for _, n := range e.Nodes {
				if prscoutNodes[n.Name] {
					ps += n.ExecutionTime
				}
			}
			if e.WallMs > 0 {
				shares = append(shares, float64(ps)/float64(e.WallMs))
			}
			ra, n429, hit := 0, 0, false
			for _, t := range thr {
				if t.Repo == s.Repo && t.PR == s.ID && t.T >= e.StartedAt && t.T <= e.StoppedAt {
					ra += t.RetryAfter
					n429++
					hit = true
				}
			}
			killed := false
			for _, f := range faults {
				if f.Kind != "throttle" && f.From <= e.StoppedAt && f.To >= e.StartedAt {
					killed = true
				}
			}
			switch {
			case !hit && !killed:
				wallClean = append(wallClean, float64(e.WallMs))
				maxClean = max(maxClean, e.WallMs)
			case hit && !killed:
				throttledReviews = append(throttledReviews, touched{e, ra, n429})
			}
			// REST calls of a review that was the only execution of its phase.
			delta := *pushAt > 0 && e.StartedAt >= *pushAt
			var phase []execution
			for _, o := range prExecs[key] {
				if (*pushAt > 0 && o.StartedAt >= *pushAt) == delta {
					phase = append(phase, o)
				}
			}
			// A redelivered head's calls include those of the execution
			// that died with its worker.
			if len(phase) != 1 || hit || killed || (redelivered[key] && !delta) {
				continue
			}
			n := 0
			for _, c := range calls {
				if c.Repo == s.Repo && c.PR == s.ID && ((*pushAt > 0 && c.T >= *pushAt) == delta) {
					n++
				}
			}
			lookups := 0
			if b := e.node("Fetch context files"); b != nil {
				if rs, ok := b.Output["results"].([]any); ok {
					lookups = len(rs)
				}
			}
			inlineCreated := 0
			if d := e.node("Review posted"); d != nil {
				inlineCreated = int(num(d.Output["inlineCreated"]))
			}
			// docs/bitbucket-jira.md, "Upstream calls per review": context 2 +
			// 2 commits + 2 rules + 1 diff (+3 merge bases in delta mode) + 2
			// per changed file + 1 status; batch 2 per lookup; comments 1 list
			// + 1 per inline + 1 summary + 1 reconcile list, report 1 PUT + 1
			// annotation list + 1 POST, 1 status.
			bound := 2 + 2 + 2 + 1 + 2 + 1 + 2*lookups + 1 + inlineCreated + 1 + 1 + 1 + 1 + 1 + 1
			if delta {
				bound += 3 + 1 // merge bases, and the delete of a stale annotation
				callsDelta = append(callsDelta, n)
			} else {
				callsFull = append(callsFull, n)
			}
			check(n <= bound, "%s: %d REST calls for one %s review, over the documented bound %d (%d lookups, %d inline)",
				key, n, map[bool]string{false: "full", true: "delta"}[delta], bound, lookups, inlineCreated)
		}
	}
	// A 429 is honoured when its request came again no sooner than the
	// Retry-After; one never sent again (its replica was killed while it
	// waited, or the call gave up) is counted apart.
	honoured, early, never := 0, 0, 0
	for _, t := range thr {
		switch {
		case t.RetriedAfterMs < 0:
			never++
		case t.RetriedAfterMs >= int64(t.RetryAfter)*1000-50:
			honoured++
		default:
			early++
		}
	}
	check(early == 0, "%d of %d 429 answers were retried before their Retry-After", early, len(thr))
	// Each 429 costs its Retry-After plus the retried call's own round trip
	// through a machine the burst keeps busy: the slack grows with the
	// 429s, not only once per review.
	for _, t := range throttledReviews {
		limit := maxClean + int64(t.ra)*1000 + 2000 + int64(t.n)*retrySlackMs
		check(t.e.WallMs <= limit, "execution %d (%s#%d) got %d s of Retry-After in %d 429s and took %d ms, over %d ms (longest untouched %d ms + Retry-After + 2 s + %d ms a 429)",
			t.e.ID, t.e.RepoSlug, t.e.PRID, t.ra, t.n, t.e.WallMs, limit, maxClean, retrySlackMs)
	}
	wantReviews := 0
	for _, s := range st.PRs {
		if s.Repo == world.FailingRepo {
			continue
		}
		wantReviews++
		if s.Pushed {
			wantReviews++
		}
	}
	check(headsReviewed == wantReviews, "%d heads reviewed, want %d (one per head outside the failing repository)", headsReviewed, wantReviews)

	makespan := func(from, to int64) float64 {
		var first, last int64
		for _, e := range execs {
			if e.CreatedAt < from || (to > 0 && e.CreatedAt >= to) {
				continue
			}
			if first == 0 || e.CreatedAt < first {
				first = e.CreatedAt
			}
			last = max(last, e.StoppedAt)
		}
		return float64(last-first) / 1000
	}
	burst := makespan(0, *pushAt)
	push := 0.0
	if *pushAt > 0 {
		push = makespan(*pushAt, 0)
	}
	rss := map[string]int{}
	if *rssFile != "" {
		if b, err := os.ReadFile(*rssFile); err == nil {
			for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
				var name string
				var kb int
				if _, err := fmt.Sscan(l, &name, &kb); err == nil && kb > rss[name] {
					rss[name] = kb
				}
			}
		}
	}
	statuses := []string{}
	for k, v := range byStatus {
		statuses = append(statuses, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(statuses)
	rssList := []string{}
	for k, v := range rss {
		rssList = append(rssList, fmt.Sprintf("%s %.1f MiB", k, float64(v)/1024))
	}
	sort.Strings(rssList)

	fmt.Printf("== report (%s)\n", *mode)
	fmt.Printf("  reviews completed          %d of %d heads (+ %d heads of the failing repository closed STOPPED/FAILED); %d n8n executions reached Review posted\n", headsReviewed, wantReviews, stopped, reviews)
	fmt.Printf("  duplicates                 %d\n", dups)
	fmt.Printf("  lost findings              %d\n", lost)
	fmt.Printf("  429s received / honoured   %d / %d (%d not sent again, %d too early)\n", len(thr), honoured, never, early)
	fmt.Printf("  review wall time, all      p50 %s  p95 %s  (%d reviews)\n", sec(pct(wallAll, 50)), sec(pct(wallAll, 95)), len(wallAll))
	fmt.Printf("  review wall time, no fault p50 %s  p95 %s  (%d reviews)\n", sec(pct(wallClean, 50)), sec(pct(wallClean, 95)), len(wallClean))
	fmt.Printf("  prscout's share of a review p50 %.1f%%  p95 %.1f%%  (time in prscout's HTTP nodes / execution wall time)\n", 100*pct(shares, 50), 100*pct(shares, 95))
	fmt.Printf("  REST calls per review      full: %s; delta: %s (single-execution reviews without faults)\n", stats(callsFull), stats(callsDelta))
	fmt.Printf("  peak RSS per replica       %s\n", strings.Join(rssList, ", "))
	fmt.Printf("  n8n executions by status   %s\n", strings.Join(statuses, ", "))
	pushes := 0
	for _, s := range st.PRs {
		if s.Pushed {
			pushes++
		}
	}
	fmt.Printf("  makespan                   burst %.1f s (%d webhooks), push %.1f s (%d pushes): first enqueued to last finished\n", burst, len(st.PRs), push, pushes)
	if *summary != "" {
		b, _ := json.Marshal(map[string]any{"mode": *mode, "reviews": reviews, "burstSeconds": burst, "pushSeconds": push,
			"p50": pct(wallAll, 50), "p95": pct(wallAll, 95), "p50Clean": pct(wallClean, 50), "p95Clean": pct(wallClean, 95)})
		_ = os.WriteFile(*summary, b, 0o644)
	}
	if failed > 0 {
		fmt.Printf("scalecheck %s: FAIL (%d checks)\n", *mode, failed)
		os.Exit(1)
	}
	fmt.Printf("scalecheck %s: PASS\n", *mode)
}

func stats(v []int) string {
	if len(v) == 0 {
		return "none"
	}
	sort.Ints(v)
	sum := 0
	for _, x := range v {
		sum += x
	}
	return fmt.Sprintf("min %d, median %d, max %d over %d", v[0], v[len(v)/2], v[len(v)-1], len(v))
}

func pct(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64{}, v...)
	sort.Float64s(s)
	i := int(float64(len(s)-1) * p / 100)
	return s[i]
}

func sec(ms float64) string { return fmt.Sprintf("%.2f s", ms/1000) }

func deint(p *int) int {
	if p == nil {
		return 0
	}
	return *p
}

func num(v any) float64 {
	f, _ := v.(float64)
	return f
}

var client = &http.Client{Timeout: 30 * time.Second}

func getJSON(url string, v any) error {
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalecheck:", err)
		os.Exit(2)
	}
}

// headExecutions describes the executions of a pull request that reviewed
// head h, for a failed check: their ids, statuses and last nodes, and why a
// crashed one that ran no node past the webhook never set a status.
func headExecutions(execs []execution, h string) string {
	var parts []string
	unrun := false
	for _, e := range execs {
		if e.Head == "" || !strings.HasPrefix(h, e.Head) {
			continue
		}
		parts = append(parts, fmt.Sprintf("#%d %s after %q", e.ID, e.Status, e.LastNode))
		// The webhook node's output is stored with the execution when it is
		// created: one that never ran has no other node.
		if e.Status == "crashed" && len(e.Nodes) <= 1 {
			unrun = true
		}
	}
	if len(parts) == 0 {
		return "; no n8n execution names this head"
	}
	out := "; its executions: " + strings.Join(parts, ", ")
	if unrun {
		out += " (crashed before its first node: n8n's queue recovery marked it crashed before its job was queued, see workflows/README.md, \"Queue recovery\")"
	}
	return out
}
