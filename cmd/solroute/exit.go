package main

// Exit codes of every command.
const (
	// exitOK: the command did what was asked.
	exitOK = 0
	// exitFailed: a call failed, or a probed endpoint failed, is on the
	// wrong cluster or is off the others' slot, or the demo saw a
	// transaction delivered twice.
	exitFailed = 1
	// exitUsage: a bad flag or argument, a missing or invalid configuration.
	exitUsage = 2
	// exitAmbiguous: a call that is never resent after dispatch
	// (sendTransaction, requestAirdrop) may have reached a server; the
	// caller must find out whether it landed before sending again.
	exitAmbiguous = 3
)
