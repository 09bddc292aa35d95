package criteria_test

import (
	"fmt"

	"github.com/prscout/prscout/pipeline/criteria"
)

func ExampleExtract() {
	res, err := criteria.Extract(criteria.Input{
		Key: "shop-12",
		Description: "h2. Context\n* not a criterion\n\n" +
			"h2. Acceptance criteria\n" +
			"* Shipping estimate shown in the cart\n** uses the default address\n" +
			"* [x] Estimate updates when the cart changes\n\n" +
			"Scenario: rates API down\nGiven the rates API fails\nThen \"Estimate unavailable\" is shown",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Source)
	for _, c := range res.Criteria {
		fmt.Println(c.ID, c.Text)
	}
	// Output:
	// description section "Acceptance criteria"
	// SHOP-12#1 Shipping estimate shown in the cart: uses the default address
	// SHOP-12#2 Estimate updates when the cart changes
	// SHOP-12#3 Scenario: rates API down; Given the rates API fails; Then "Estimate unavailable" is shown
}
