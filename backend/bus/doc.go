// Package bus is Shrimp's in-process event bus: one publisher side (the agent
// loop and the areas around it) and many independent subscribers (the window,
// the session store, the token tracker, the procedure learner).
//
// # Contract
//
// The bus makes these promises, each covered by a test in this package:
//
//   - Publishing never blocks the publisher on a subscriber. Publish appends
//     the value to each subscriber's mailbox under a short lock and returns.
//     The only exception is a subscriber that chose the [Block] policy: the
//     publisher then waits for room in that one mailbox for at most the
//     policy's timeout.
//   - Every subscriber has its own goroutine and its own bounded mailbox.
//   - Each subscriber sees values in publish order, minus the ones its overflow
//     policy dropped or coalesced. A dropped value is never reordered.
//   - A handler that panics or returns an error is recovered, reported as a
//     [Failure] (published as a value when the bus was built with
//     [WithFailures], or handed to [WithReportSink]'s sink to publish in
//     its owner's order), counted in [Stats], and the next value is delivered.
//     Goroutines a handler starts through [Subscription.Go] get the same
//     protection.
//   - A stalled subscriber fills only its own mailbox. What happens then is
//     its [Policy]: [DropOldest], [Block] for a bounded time, or [Coalesce];
//     every value dropped is counted in [Stats], never silently lost.
//   - [Bus.Close] stops accepting values, lets every mailbox drain until its
//     context ends, then cancels the handlers' context and waits for their
//     goroutines to return.
//
// What must never be lost (the session store) is written before a value is
// published; the bus is a notification path, not a durability path.
package bus
