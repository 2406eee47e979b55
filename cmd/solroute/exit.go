package main

// Exit codes of every command.
const (
	// exitOK: the command did what was asked; for confirm and send
	// --confirm, the transaction landed and succeeded.
	exitOK = 0
	// exitFailed: a call failed, or a probed endpoint failed, is on the
	// wrong cluster or is off the others' slot, or the demo saw a
	// transaction delivered twice, or a send was refused without any
	// server having acted on it.
	exitFailed = 1
	// exitUsage: a bad flag or argument, a missing or invalid configuration.
	exitUsage = 2
	// exitAmbiguous: a call that is never resent after dispatch
	// (sendTransaction, requestAirdrop) may have reached a server; the
	// caller must find out whether it landed before sending again.
	exitAmbiguous = 3
	// exitFailedOnChain: confirm or send --confirm found the transaction
	// landed with an on-chain error (confirm.Failed): its fee was paid,
	// and sending it again fails the same way.
	exitFailedOnChain = 4
	// exitExpired: its blockhash expired and no endpoint knows it
	// (confirm.Expired): it can never land; re-signing is safe.
	exitExpired = 5
	// exitUnknown: no verdict before --timeout or an interrupt
	// (confirm.Unknown): it may still land; neither re-sign nor give up.
	exitUnknown = 6
)
