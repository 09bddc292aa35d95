package bitbuckettest

import (
	"sort"
	"strconv"
	"strings"
)

// GitDiffstat reads git's name-status and numstat of base..head (git runs
// git in the repository) into the diffstat entries Server serves, as the
// e2e fakes load a real repository.
func GitDiffstat(git func(...string) (string, error), base, head string) ([]DiffstatEntry, error) {
	ns, err := git("diff", "--no-renames", "--name-status", base, head)
	if err != nil {
		return nil, err
	}
	num, err := git("diff", "--no-renames", "--numstat", base, head)
	if err != nil {
		return nil, err
	}
	counts := map[string][2]int{}
	for _, l := range strings.Split(strings.TrimSpace(num), "\n") {
		f := strings.Split(l, "\t")
		if len(f) == 3 {
			a, _ := strconv.Atoi(f[0])
			d, _ := strconv.Atoi(f[1])
			counts[f[2]] = [2]int{a, d}
		}
	}
	var out []DiffstatEntry
	for _, l := range strings.Split(strings.TrimSpace(ns), "\n") {
		f := strings.Split(l, "\t")
		if len(f) != 2 {
			continue
		}
		p, c := f[1], counts[f[1]]
		e := DiffstatEntry{LinesAdded: c[0], LinesRemoved: c[1]}
		switch f[0] {
		case "A":
			e.Status, e.Path = "added", p
		case "D":
			e.Status, e.OldPath = "removed", p
		default:
			e.Status, e.Path, e.OldPath = "modified", p, p
		}
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path+out[i].OldPath < out[j].Path+out[j].OldPath })
	return out, nil
}
