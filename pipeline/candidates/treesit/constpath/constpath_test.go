package constpath

import "testing"

func TestReaches(t *testing.T) {
	for _, c := range []struct {
		recv, name, p string
		want          bool
	}{
		{"Admin", "UserPolicy", "app/policies/admin/user_policy.rb", true},
		{"Billing", "InvoiceLine", "lib/acme/billing/invoice_line.rb", true},
		{"Admin", "UserPolicy", "lib/admin/user_policy.rb", true},
		{"Admin", "UserPolicy", "app/admin/user_policy.rb", false}, // app/ itself is no root
		{"Admin", "UserPolicy", "test/admin/user_policy.rb", false},
		{"Admin", "UserPolicy", "lib/other/user_policy.rb", false},
		{"Admin", "UserPolicy", "lib/admin/user_policies.rb", false},
	} {
		if got := Reaches(c.recv, c.name, c.p); got != c.want {
			t.Errorf("Reaches(%q, %q, %q) = %v, want %v", c.recv, c.name, c.p, got, c.want)
		}
	}
}
