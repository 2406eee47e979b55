package bench_test

import (
	"context"
	"fmt"
	"time"

	"github.com/solroute/solroute/tools/bench"
)

// Run measures clients side by side, each cell once per round; the report
// pools the rounds and renders as Markdown and SVG. Figures vary by machine, so this example prints only the shape.
func ExampleRun() {
	r, err := bench.Run(context.Background(), bench.Options{
		Clients:     []string{"net/http", "solroute"},
		Scenarios:   []string{"lagging"},
		Callers:     4,
		Calls:       40,
		Rounds:      2,
		CallTimeout: time.Second,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range r.Cells {
		fmt.Printf("%s / %s: %d calls in %d rounds\n", c.Scenario, c.Client, c.Made, len(c.RoundGoodputs))
	}
	fmt.Println("single endpoint behind, successes:", r.Cell("lagging", "net/http").Succeeded)
	// r.WriteMarkdown(w, "img") and r.WriteSVG(w, "lagging") render it.
	// Output:
	// lagging / net/http: 80 calls in 2 rounds
	// lagging / solroute: 80 calls in 2 rounds
	// single endpoint behind, successes: 0
}
