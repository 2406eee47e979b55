package fixturedata

import "time"

// Defaults and fixed offsets of the slot model.
const (
	// DefaultSlotTime is SlotOptions.SlotTime's default: agave's target
	// slot time, DEFAULT_MS_PER_SLOT (400 ms).
	DefaultSlotTime = 400 * time.Millisecond
	// DefaultHealthDistance is SlotOptions.HealthDistance's default:
	// agave's DEFAULT_HEALTH_CHECK_SLOT_DISTANCE (128 slots, about 50 s).
	DefaultHealthDistance = 128
	// ConfirmedDepth is how many slots an endpoint's confirmed slot trails
	// its processed slot. Processed is the heaviest bank the node has
	// replayed; confirmed is the newest bank that two thirds of the stake
	// voted on, and those votes are cast after the slot is replayed and
	// reach the node in the next leader's block or by gossip: one to two
	// slots on mainnet.
	ConfirmedDepth = 2
	// FinalizedDepth is how many slots an endpoint's finalized slot trails
	// its processed slot. Finalized is the highest root of two thirds of
	// the stake: a validator roots a slot once MAX_LOCKOUT_HISTORY (31)
	// newer votes are stacked on it, and its newest vote trails processed
	// by about one slot, so 31 + 1.
	FinalizedDepth = 32
)

// Defaults and sizes of the ledger model.
const (
	// DefaultLandAfter is LedgerOptions.LandAfter's default: a forwarded
	// send lands two slots past the cluster's tip at its arrival (the
	// receiving node forwards it to the next leaders, whose block follows
	// the one being produced).
	DefaultLandAfter = 2
	// StatusCacheSlots is how many rooted slots a node's status cache
	// keeps beside the unrooted ones, agave's MAX_CACHE_ENTRIES
	// (MAX_RECENT_BLOCKHASHES, 300): getSignatureStatuses without
	// searchTransactionHistory finds a status only while its slot is
	// newer than the node's finalized slot minus this.
	StatusCacheSlots = 300
)
