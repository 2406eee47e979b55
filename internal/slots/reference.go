package slots

// ReferenceSlot is the pool's reference rule (plans/009-consistency.md):
// of slots (one per endpoint, at one commitment and one instant; 0 for an
// endpoint whose slot is not known), the highest that another comes
// within maxLag of, either way. ok is false when there is none: fewer
// than two known, or no two within maxLag of each other (of two endpoints
// that disagree, either may be the one that is wrong). One endpoint
// claiming a slot no other comes near is never the reference.
func ReferenceSlot(slots []uint64, maxLag uint64) (ref uint64, ok bool) {
	for i, s := range slots {
		if s == 0 || s <= ref {
			continue
		}
		for j, o := range slots {
			if j != i && o != 0 && max(s, o)-min(s, o) <= maxLag {
				ref = s
				break
			}
		}
	}
	return ref, ref != 0
}
