// Package approvals holds approval cards: an action with consequences
// (ordering a sending setup, importing leads, launching a campaign…) never
// runs from a tool call alone. The action tool opens an approval with a
// server-written summary and impact; a person decides; the decision is
// taken exactly once; approving enqueues the execution in the same
// transaction; the execution runs exactly once and ends done or not done.
//
// # Rules, all enforced in PostgreSQL
//
//   - [Service.Open] with the same action and arguments while one is
//     pending returns that approval (a unique partial index), or the one
//     approved and still being carried out. When what it would do changed
//     (impact, summary, [Request].Details), the pending one is superseded.
//   - [Service.Decide] locks the row (SELECT … FOR UPDATE): of any number of
//     concurrent decisions, on any number of replicas, one is taken and the
//     others get the decision on record.
//   - Approving writes the decision, its audit row and the River job that
//     executes it in one transaction.
//   - The execution ([ExecuteWorker]) re-checks expiry and the action's
//     preconditions ([Executor].Check) before acting, marks the approval
//     executing durably before calling [Executor].Execute with an
//     idempotency key per approval, and ends done or not done. A crash
//     between the mark and the end resumes with the same key, so the
//     action takes effect once.
//   - A pending approval past its expiry becomes not done (expired), through
//     the periodic [ExpireArgs] job and at any decision attempt, and is never
//     executed afterwards.
//   - An approval with DecideHere false (paid or irreversible) can be
//     approved only from the web app by a signed-in person; it can be
//     rejected from anywhere.
//   - Every transition is recorded in approval_events: who, where (card,
//     conversation, web or the system), when and why.
//
// # Statuses
//
// pending (waiting for a decision), approved (decided yes; being carried
// out: queued or running), done, not_done (with why: expired, superseded,
// preconditions no longer hold, failed) and rejected.
//
// # Wiring
//
// One [Service] per process, shared by the tools, the web app and the
// workers: [Service.Register] each action's [Executor], pass
// [AddWorkers]' periodic jobs to River's config, and mount the web app
// (package web), which serves [AppPath].
package approvals
