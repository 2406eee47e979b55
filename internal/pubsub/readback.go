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
	quickReadAttempts = 3 // failed reads retried on the stream's own backoff; later ones share slowAt
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
	streams    []*stream
	inFlight   int
	slowAt     time.Time // the next round of retries for streams past quickReadAttempts
	slowRounds int       // rounds set since a read last succeeded
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
// after a failure (retryReadLocked). e.mu must be held.
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
	} else {
		e.reads.slowRounds = 0
	}
}

// retryReadLocked queues a stream's read again after a failure, until one
// succeeds or the stream ends: a read back is what reports a transaction
// that landed before its subscribe, so giving up would leave Recv
// waiting for good. The first quickReadAttempts reads retry on the
// stream's own backoff; every later one joins the round of retries all
// such streams share (slowRoundLocked), so they go in the same batches.
// Cost while every read fails: each round is one read per batch (up to
// 100 accounts or 256 signatures of one commitment and encoding), at
// most 8 in flight; rounds are at least backoff(3) apart (0.5 to 1 s at
// the defaults: at most 2 rounds a second, however many streams wait),
// and their gap doubles until a read succeeds, to between BackoffMax/2
// and BackoffMax (15 to 30 s: at most one read per batch every 15 s).
// Measured with every read failing, on the fake clock: one signature
// stream makes 9 reads in its first minute, then 2 to 4 a minute (32 in
// 10 minutes); 20 streams subscribed 100 ms apart make 46, then 4
// (TestReadBackRetryCost). e.mu must be held.
func (e *Engine) retryReadLocked(st *stream) {
	st.rb.attempts++
	now := e.clock.Now()
	if st.rb.attempts < quickReadAttempts {
		st.rb.retryAt = now.Add(e.backoff(st.rb.attempts))
	} else {
		st.rb.retryAt = e.slowRoundLocked(now)
	}
	e.reads.add(st)
}

// slowRoundLocked is when the next round of slow retries runs: the one
// set, while it is still to come, or else a new one, each round's wait
// the backoff after one more failure than the last's. A read that
// succeeds starts the rounds over (applyReadLocked). e.mu must be held.
func (e *Engine) slowRoundLocked(now time.Time) time.Time {
	q := &e.reads
	if !q.slowAt.After(now) {
		q.slowRounds++
		q.slowAt = now.Add(e.backoff(quickReadAttempts - 1 + q.slowRounds))
	}
	return q.slowAt
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
