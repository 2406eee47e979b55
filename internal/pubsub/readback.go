package pubsub

import (
	"slices"
	"time"

	"github.com/gagliardetto/solana-go"
	"github.com/gagliardetto/solana-go/rpc"
	"github.com/gagliardetto/solana-go/rpc/ws"
)

// Batch sizes and bounds of the reads back.
const (
	maxReadAccounts   = 100 // getMultipleAccounts (MAX_MULTIPLE_ACCOUNTS)
	maxReadSignatures = 256 // getSignatureStatuses
	maxReadsInFlight  = 8
	maxReadAttempts   = 3
)

// readBack is a stream's place in the read queue.
type readBack struct {
	queued   bool
	attempts int
	retryAt  time.Time
}

// readQueue holds the account and signature streams to read back, in
// order.
type readQueue struct {
	streams  []*stream
	inFlight int
}

func newReadQueue() readQueue { return readQueue{} }

// add queues an account or signature stream (other kinds have nothing to
// read back).
func (q *readQueue) add(st *stream) {
	if st.rb.queued || (st.spec.kind != kAccount && st.spec.kind != kSignature) {
		return
	}
	st.rb.queued = true
	q.streams = append(q.streams, st)
}

// forget takes an ended stream out.
func (q *readQueue) forget(st *stream) {
	q.streams = slices.DeleteFunc(q.streams, func(o *stream) bool { return o == st })
}

// launchReadsLocked starts the reads due, in batches of one commitment
// and encoding. e.mu must be held.
func (e *Engine) launchReadsLocked(d *deadline) {
	q := &e.reads
	if e.reader == nil {
		for _, st := range q.streams {
			st.rb.queued = false
		}
		q.streams = nil
		return
	}
	for q.inFlight < maxReadsInFlight {
		batch := q.takeBatch(d)
		if len(batch) == 0 {
			return
		}
		q.inFlight++
		e.stats.readBacks++
		e.act.busy++
		e.wg.Add(1)
		go e.read(batch)
	}
}

// takeBatch takes the first due stream and those due like it (same kind,
// commitment and encoding), up to a call's size.
func (q *readQueue) takeBatch(d *deadline) []*stream {
	var batch []*stream
	keep := q.streams[:0]
	for _, st := range q.streams {
		switch {
		case st.rb.retryAt.After(d.now):
			d.at(st.rb.retryAt)
			keep = append(keep, st)
		case len(batch) == 0 || (sameRead(batch[0], st) && len(batch) < batchLimit(st.spec.kind)):
			batch = append(batch, st)
		default:
			keep = append(keep, st)
		}
	}
	clear(q.streams[len(keep):])
	q.streams = keep
	return batch
}

func sameRead(a, b *stream) bool {
	return a.spec.kind == b.spec.kind && a.spec.commitment == b.spec.commitment && a.spec.encoding == b.spec.encoding
}

func batchLimit(k kind) int {
	if k == kSignature {
		return maxReadSignatures
	}
	return maxReadAccounts
}

// read runs one batch through the Reader and hands the answers over.
func (e *Engine) read(batch []*stream) {
	defer e.wg.Done()
	sp := batch[0].spec
	var accounts *rpc.GetMultipleAccountsResult
	var statuses *rpc.GetSignatureStatusesResult
	var err error
	if sp.kind == kAccount {
		keys := make([]solana.PublicKey, len(batch))
		e.mu.Lock()
		var floor uint64
		for i, st := range batch {
			keys[i] = st.spec.account
			if st.last != nil {
				floor = max(floor, st.last.slot)
			}
		}
		e.mu.Unlock()
		accounts, err = e.reader.GetMultipleAccounts(e.ctx, keys, sp.commitment, sp.encoding, floor)
	} else {
		sigs := make([]solana.Signature, len(batch))
		for i, st := range batch {
			sigs[i] = st.spec.signature
		}
		statuses, err = e.reader.GetSignatureStatuses(e.ctx, sigs)
	}
	e.mu.Lock()
	e.reads.inFlight--
	e.applyReadLocked(batch, accounts, statuses, err)
	e.busyDoneLocked()
	e.kickLoop()
	e.unlock()
}

// applyReadLocked offers what a read back found, or queues the batch again
// after a failure (up to maxReadAttempts). e.mu must be held.
func (e *Engine) applyReadLocked(batch []*stream, accounts *rpc.GetMultipleAccountsResult,
	statuses *rpc.GetSignatureStatusesResult, err error) {
	if e.closed {
		return
	}
	bad := err != nil || (accounts != nil && len(accounts.Value) != len(batch)) || (statuses != nil && len(statuses.Value) != len(batch))
	e.emit(Event{Kind: EventReadBack, Method: batch[0].method, Err: err})
	for i, st := range batch {
		st.rb.queued = false
		if st.ended {
			continue
		}
		if bad {
			e.retryReadLocked(st)
			continue
		}
		st.rb.attempts = 0
		before := e.stats.delivered
		if accounts != nil {
			e.offerAccountLocked(st, accounts.Context.Slot, accounts.Value[i])
		} else {
			e.offerStatusLocked(st, statuses.Context.Slot, statuses.Value[i])
		}
		e.stats.readBackDelivered += e.stats.delivered - before
	}
	if bad {
		e.stats.readBackErrors++
	}
}

// retryReadLocked queues a stream's read again, after a backoff. e.mu
// must be held.
func (e *Engine) retryReadLocked(st *stream) {
	st.rb.attempts++
	if st.rb.attempts >= maxReadAttempts {
		st.rb.attempts = 0
		return
	}
	st.rb.retryAt = e.clock.Now().Add(e.backoff(st.rb.attempts))
	e.reads.add(st)
}

// offerAccountLocked offers an account read back at slot: delivered when
// newer than the stream's and different. An account that does not exist
// is news only once one was delivered (it was closed). e.mu must be held.
func (e *Engine) offerAccountLocked(st *stream, slot uint64, value *rpc.Account) {
	if value == nil && st.last == nil {
		return
	}
	if value == nil {
		value = closedAccount()
	}
	r := &ws.AccountResult{Value: value}
	r.Context.Slot = slot
	st.offerLocked(&item{slot: slot, hash: e.hashAccount(value), value: r, readBack: true}, nil)
}

// offerStatusLocked offers a signature's status: delivered once it reached
// the stream's commitment. e.mu must be held.
func (e *Engine) offerStatusLocked(st *stream, slot uint64, status *rpc.SignatureStatusesResult) {
	if !reached(status, st.spec.commitment) {
		return
	}
	r := &ws.SignatureResult{}
	r.Context.Slot = slot
	r.Value.Err = status.Err
	st.offerLocked(&item{slot: slot, value: r, readBack: true}, nil)
}
