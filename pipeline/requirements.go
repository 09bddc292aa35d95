package pipeline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Requirement is one acceptance criterion of a linked issue. ID is
// "<issue key>#<n>", n counting from 1 in order of appearance in the text
// the criteria were taken from, so the same issue text gives the same ids on
// every run and a review's verdict can name the criterion it judges.
type Requirement struct {
	ID    string `json:"id"`
	Issue string `json:"issue"`
	Text  string `json:"text"`
}

// RequirementsField decodes a request's "requirements": the acceptance
// criteria as /v1/context answers them (an array of Requirement), or, as
// callers send free requirements text, a string (kept in Text). null and a
// missing field decode to nothing. It encodes as the array.
type RequirementsField struct {
	Criteria []Requirement
	Text     string
}

// UnmarshalJSON accepts an array of criteria, a string or null. Criteria
// without an issue take it from their id ("SHOP-12#1" is SHOP-12's). Any
// other shape is an *InvalidError naming the field.
func (r *RequirementsField) UnmarshalJSON(data []byte) error {
	*r = RequirementsField{}
	data = bytes.TrimSpace(data)
	switch {
	case len(data) == 0 || string(data) == "null":
		return nil
	case data[0] == '"':
		return json.Unmarshal(data, &r.Text)
	case data[0] != '[':
		return Invalidf("requirements", "must be an array of {id, issue, text} or a string")
	}
	var items []json.RawMessage
	if err := json.Unmarshal(data, &items); err != nil {
		return err
	}
	r.Criteria = make([]Requirement, 0, len(items))
	for i, raw := range items {
		var c Requirement
		if err := json.Unmarshal(raw, &c); err != nil {
			return Invalidf(fmt.Sprintf("requirements[%d]", i), "must be an object {id, issue, text}")
		}
		c.ID, c.Issue = strings.TrimSpace(c.ID), strings.TrimSpace(c.Issue)
		if c.Issue == "" {
			c.Issue, _, _ = strings.Cut(c.ID, "#")
		}
		r.Criteria = append(r.Criteria, c)
	}
	return nil
}

// MarshalJSON writes the criteria as an array (never null).
func (r RequirementsField) MarshalJSON() ([]byte, error) {
	if r.Criteria == nil {
		return []byte("[]"), nil
	}
	return json.Marshal(r.Criteria)
}

// CriteriaOf lists the acceptance criteria a review judges: the given ones,
// then each issue's in issue order, the first of each id kept. Never nil.
func CriteriaOf(given []Requirement, issues []Issue) []Requirement {
	out := []Requirement{}
	seen := map[string]bool{}
	add := func(r Requirement) {
		if r.ID == "" || seen[r.ID] {
			return
		}
		seen[r.ID] = true
		out = append(out, r)
	}
	for _, r := range given {
		add(r)
	}
	for _, is := range issues {
		for _, r := range is.Requirements {
			add(r)
		}
	}
	return out
}
