package bundles

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/solroute/solroute/internal/engine"
)

// Caller is the call the status read makes: *engine.Engine's CallForInto.
type Caller interface {
	CallForInto(ctx context.Context, out any, method string, params []any) error
}

// Status is what getBundleStatuses says of one landed bundle.
type Status struct {
	// ID is the bundle's id.
	ID string `json:"bundle_id"`
	// Transactions are its signatures, base 58.
	Transactions []string `json:"transactions"`
	// Slot is the slot it landed in.
	Slot uint64 `json:"slot"`
	// ConfirmationStatus is "processed", "confirmed" or "finalized".
	ConfirmationStatus string `json:"confirmation_status"`
	// Err is the engine's err member ({"Ok": null} when it landed well).
	Err json.RawMessage `json:"err"`
}

// Statuses asks getBundleStatuses of ids (at most 5) through c, on an
// endpoint carrying the bundles capability, and returns one entry per
// id, in order: nil for a bundle the engine has not seen land (yet),
// and the answer's context slot. A bundle read is Idempotent: the
// engine retries it elsewhere. An entry naming another id than asked is
// an error: the answer cannot be matched.
func Statuses(ctx context.Context, c Caller, ids []string) ([]*Status, uint64, error) {
	if len(ids) == 0 || len(ids) > MaxTransactions {
		return nil, 0, &Problem{"ids", fmt.Sprint(len(ids)), fmt.Sprintf("getBundleStatuses takes 1 to %d ids", MaxTransactions)}
	}
	var out struct {
		Context struct {
			Slot uint64 `json:"slot"`
		} `json:"context"`
		Value []*Status `json:"value"`
	}
	ctx = engine.WithCapabilities(ctx, Capability)
	if err := c.CallForInto(ctx, &out, "getBundleStatuses", []any{ids}); err != nil {
		return nil, 0, err
	}
	if len(out.Value) != len(ids) && len(out.Value) != 0 {
		return nil, 0, fmt.Errorf("bundles: getBundleStatuses answered %d entries for %d ids", len(out.Value), len(ids))
	}
	got := make([]*Status, len(ids))
	for i, st := range out.Value {
		if st != nil && st.ID != ids[i] {
			return nil, 0, fmt.Errorf("bundles: getBundleStatuses entry %d is of another bundle", i)
		}
		got[i] = st
	}
	return got, out.Context.Slot, nil
}
