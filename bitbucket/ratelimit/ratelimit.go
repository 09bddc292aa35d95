// Package ratelimit keeps the rate-limit budget of one Bitbucket credential
// as its answers report it (Budget); package bitbucket records every answer
// into it.
package ratelimit

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/prscout/prscout/pipeline"
	"github.com/prscout/prscout/retry"
)

// Resource is the resource group whose headroom Budget.Headroom
// answers: X-RateLimit-Resource "api" is /2.0/repositories/*, where every
// write prscout makes goes (comments, tasks, build statuses, reports).
const Resource = "api"

// Budget is the rate-limit budget of one credential as Bitbucket's latest
// answers reported it: per resource group (X-RateLimit-Resource), the limit,
// the remaining count when sent, the near-limit flag and when it was seen.
// Every bitbucket.Client built with the same Budget (its Config.Budget)
// records into it,
// so everything in the process using the token sees one state.
//
// Across replicas no coordination is needed: Bitbucket counts the budget per
// token and reports it on every answer, so each replica reads the token's
// shared state from its own answers; a replica that has not called yet
// knows nothing (Headroom().Known is false) and learns on its first answer.
//
// Budget is safe for concurrent use; it only records and never blocks a
// request.
type Budget struct {
	now func() time.Time

	mu   sync.Mutex
	last map[string]pipeline.Headroom // resource -> latest headroom
}

var _ pipeline.RateBudget = (*Budget)(nil)

// New returns an empty budget.
func New() *Budget {
	return &Budget{now: time.Now, last: map[string]pipeline.Headroom{}}
}

// Record keeps the rate-limit state one answer of status reports and
// returns what its headers said; ok is false when it carried no rate-limit
// header.
//
// The headers are an access-token feature: Bitbucket sends none to API
// token (Basic) requests, which only ever see a 429 and its Retry-After.
// So a 429 marks the budget spent with or without headers (without: under
// no resource name), until its Retry-After when it gave one; and an answer
// that was served (not a 429, not a 5xx) without headers shows the budget
// is not spent now, which clears every spent state, so one 429 does not
// hold the budget spent for RateWindow.
func (b *Budget) Record(status int, h http.Header) (hr pipeline.Headroom, ok bool) {
	hr, ok = Parse(h)
	limited := status == http.StatusTooManyRequests
	now := b.now()
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case ok || limited:
		hr.Known, hr.Seen = true, now
		hr.Spent = limited || hr.Remaining == 0
		if wait := retry.After(h, now); limited && wait > 0 {
			hr.Until = now.Add(wait)
		}
		b.last[hr.Resource] = hr
	case status < http.StatusInternalServerError:
		for res, last := range b.last {
			if last.Spent || last.Remaining == 0 {
				last.Spent, last.Until, last.Seen = false, time.Time{}, now
				if last.Remaining == 0 {
					last.Remaining = -1
				}
				b.last[res] = last
			}
		}
	}
	return hr, ok
}

// Headroom is the latest headroom of Resource, or of answers that
// named no resource when they are more recent; Known is false before any.
func (b *Budget) Headroom() pipeline.Headroom {
	b.mu.Lock()
	defer b.mu.Unlock()
	api, named := b.last[Resource]
	if unnamed, ok := b.last[""]; ok && (!named || unnamed.Seen.After(api.Seen)) {
		return unnamed
	}
	if !named {
		return pipeline.Headroom{Resource: Resource, Limit: -1, Remaining: -1}
	}
	return api
}

// Resources lists the latest headroom of every resource group seen.
func (b *Budget) Resources() map[string]pipeline.Headroom {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make(map[string]pipeline.Headroom, len(b.last))
	for k, v := range b.last {
		out[k] = v
	}
	return out
}

// Parse reads X-RateLimit-Limit, -Remaining, -NearLimit and
// -Resource. A missing or unreadable count is -1; NearLimit is true only for
// a boolean true ("true", "True", "1"); ok is false when none is present.
func Parse(h http.Header) (pipeline.Headroom, bool) {
	ls, rs := h.Get("X-RateLimit-Limit"), h.Get("X-RateLimit-Remaining")
	ns, res := h.Get("X-RateLimit-NearLimit"), strings.TrimSpace(h.Get("X-RateLimit-Resource"))
	if ls == "" && rs == "" && ns == "" && res == "" {
		return pipeline.Headroom{Limit: -1, Remaining: -1}, false
	}
	count := func(s string) int {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 0 {
			return -1
		}
		return n
	}
	near, _ := strconv.ParseBool(strings.TrimSpace(ns))
	return pipeline.Headroom{Known: true, Resource: res, Limit: count(ls), Remaining: count(rs), Near: near}, true
}
