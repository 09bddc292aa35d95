package gate

func checkExpressions(base NodeResult, params map[string]any) []NodeResult { return nil }
