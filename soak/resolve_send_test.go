package soak

import (
	"github.com/gagliardetto/solana-go"
	"github.com/solroute/solroute/confirm"
	"github.com/solroute/solroute/fixtures"
	"github.com/solroute/solroute/internal/fixturedata"
)

// prepare signs send i's transaction on a blockhash of its plan's age,
// tells the ledger what its plan makes of it, and returns the options to
// resolve it with.
func (r *resolveSoak) prepare(i int, s *resolveSend) (*solana.Transaction, confirm.Options, error) {
	p := s.plan
	_, height := r.ledger.Tip()
	issued := height - p.age
	s.lvbh = issued + fixturedata.MaxProcessingAge
	tx, err := fixtures.SignedTransaction(r.seed<<20+uint64(i), fixturedata.BlockhashAt(issued))
	if err != nil {
		return nil, confirm.Options{}, err
	}
	s.sig = tx.Signatures[0].String()
	if p.drop > 0 {
		r.ledger.Drop(s.sig, p.drop)
	}
	if p.fail != nil {
		r.ledger.Fail(s.sig, *p.fail)
	}
	if p.hide != "" {
		r.ledger.Hide(s.sig, p.hide)
	}
	o := confirm.Options{Commitment: p.commitment, PollInterval: resolvePoll, SkipPreflight: p.skipPreflight, PreflightCommitment: p.preflight}
	if p.rebroadcast {
		o.Rebroadcast = resolveRebroadcast
	}
	o.OnPoll = func(res confirm.Result) {
		if res.LastErr != nil {
			s.pollErrs++
			s.pollErr = res.LastErr
		}
	}
	return tx, o, nil
}
