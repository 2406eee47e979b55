package resolve

import (
	"errors"
	"time"

	"github.com/gagliardetto/solana-go/rpc"
	"github.com/solroute/solroute/confirm"
)

// normalized returns o with its defaults filled in, or an error naming
// the first bad field.
func normalized(o confirm.Options) (confirm.Options, error) {
	switch o.Commitment {
	case "":
		o.Commitment = rpc.CommitmentConfirmed
	case rpc.CommitmentProcessed, rpc.CommitmentConfirmed, rpc.CommitmentFinalized:
	default:
		return o, errors.New("confirm: Options.Commitment must be processed, confirmed or finalized")
	}
	if o.PollInterval < 0 || o.Rebroadcast < 0 {
		return o, errors.New("confirm: Options.PollInterval and Rebroadcast must not be negative")
	}
	if o.Quorum < 0 {
		return o, errors.New("confirm: Options.Quorum must not be negative")
	}
	if o.FanOut < 0 {
		return o, errors.New("confirm: Options.FanOut must not be negative")
	}
	if o.PollInterval == 0 {
		o.PollInterval = defaultPollInterval
	}
	return o, nil
}

// rank orders confirmation statuses: processed 1, confirmed 2, finalized
// 3; anything else 0.
func rank(s string) int {
	switch s {
	case "processed":
		return 1
	case "confirmed":
		return 2
	case "finalized":
		return 3
	}
	return 0
}

// defaultPollInterval is confirm.Options.PollInterval's default, as its doc
// gives it: one slot.
const defaultPollInterval = 400 * time.Millisecond
