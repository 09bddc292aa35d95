package pipeline

// DroppedContext is one context item left out of the review prompt.
type DroppedContext struct {
	Op     string `json:"op"`
	Path   string `json:"path"`
	Chars  int    `json:"chars"`  // characters the item would have added
	Reason string `json:"reason"` // "budget" or "over_budget"
}
