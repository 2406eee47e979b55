// Package slots is the one owner of "is this endpoint behind", and of
// "may this read go back in time" (plans/009-consistency.md):
//
//   - [Traits]: how a method's request and answer carry a slot (context
//     slot, getSlot's result, minContextSlot, a cache's slot);
//   - [Marks]: where one endpoint is on the chain (the slots it reported
//     and its banks served at), shared by its roles;
//   - [Book]: the pool's view of every endpoint's marks: the reference
//     slot ([ReferenceSlot]'s rule: the highest slot another endpoint
//     corroborates), the agreed slot, each endpoint's standing (in step,
//     lagging, an outlier), and whether one is short of a read's floor
//     (the slot-aware choice);
//   - [Session]: a caller's high-water marks, per commitment and per
//     cached method;
//   - [Plan]: one read's floor (its session's mark, raised to bounded
//     staleness), its ceiling (beyond it an answer is an outlier), what
//     an answer says of its endpoint (Book.Answered: a reading, and
//     whether a refusal was only a few slots short: not yet).
//
// The pool (internal/admission) asks the Book which endpoints are last
// resorts and which are short of a read's floor; the call
// (internal/engine) asks it for a read's Plan and reports each answer to
// it. Neither computes a slot rule of its own.
package slots
