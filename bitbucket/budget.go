package bitbucket

import "github.com/prscout/prscout/bitbucket/ratelimit"

// Budget is the rate-limit budget of one credential (ratelimit.Budget):
// give every Client that uses the same token the same one (Config.Budget).
type Budget = ratelimit.Budget

// BudgetResource is the resource group whose headroom Budget.Headroom
// answers (ratelimit.Resource).
const BudgetResource = ratelimit.Resource

// NewBudget returns an empty budget.
func NewBudget() *Budget { return ratelimit.New() }
