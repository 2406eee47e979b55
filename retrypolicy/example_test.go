package retrypolicy_test

import (
	"encoding/json"
	"os"

	"github.com/solroute/solroute/retrypolicy"
)

// causes, dispatch states, classes and rules encode as their names, so
// attempts print readably as JSON.
func ExampleCause_MarshalText() {
	_ = json.NewEncoder(os.Stdout).Encode(map[string]any{
		"cause":    retrypolicy.NodeBehind,
		"dispatch": retrypolicy.Answered,
		"class":    retrypolicy.Idempotent,
	})
	// Output: {"cause":"node-behind","class":"idempotent","dispatch":"answered"}
}
